package telemetry

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"sync"
)

// A window of a 100,000-GPU fabric holds millions of series, so it is
// laid out for the garbage collector and the cache rather than for
// reading: every name (device, port, queue, label text, metric) is
// interned once, and a series is a pointer-free point in one slice,
// chained to the other series of its label set. A collector writes its
// series in the same order at every scrape, so the next scrape's line is
// first compared with the series that followed the last one matched, and
// costs no lookup at all when it is that series.

// point is a series' first and last sample in the window: 40 bytes with
// no pointer, so that 5.7 million series (hyperscale-100k) fit in 230 MB
// the garbage collector never scans.
type point struct {
	v0, v1 float64
	t0, t1 uint32 // index in Window.times
	port   uint32 // index in Window.ports
	labels uint32 // number in Window.labels
	next   uint32 // the next series of the same label set, + 1; 0 ends the chain
	fam    uint16 // index in Window.fams
	queue  uint16 // index in Window.queues; 0 is no queue
}

// chunkBits sizes the chunks the window's lists are kept in: 65,536
// elements (2.5 MB of points) a chunk, so that the window grows without
// copying what it holds, leaves no outgrown copy to the garbage
// collector, and holds no more than one chunk it does not use.
const chunkBits = 16

// chunked is a growing list kept in chunks.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunked[T]) add(v T) {
	if c.n>>chunkBits == len(c.chunks) {
		c.chunks = append(c.chunks, make([]T, 1<<chunkBits))
	}
	*c.at(c.n) = v
	c.n++
}

// labelSet is what the window keeps of a label set besides its text.
type labelSet struct {
	// first is the label set's first series, + 1.
	first uint32
	// succ is the label set filed after it last (+ 1).
	succ uint32
}

// portRef is one device's port (or RDMA device, hca set) that a series
// names.
type portRef struct {
	dev  uint32
	name string
	hca  bool
}

// Window collects samples of the counters doctor reads from one or more
// exposition files (or a Prometheus server) and gives each counter's rate
// between its first and last sample.
type Window struct {
	points chunked[point]
	// cursor is the point after the last one a sample updated.
	cursor int

	// times are the samples' timestamps, each once: a scrape's samples
	// share one, so a point keeps two indexes rather than two times.
	times  []int64
	timeOf map[int64]uint32
	lastT  uint32

	// famOf caches each metric name's family index, -1 for the names
	// doctor does not read; the splitting goroutines share it, and
	// famMu, when a name is not the last one theirs read.
	famOf map[string]int32
	famMu sync.Mutex
	// fams are the families read, nfams of them: an array, because a
	// splitting goroutine adds to it (holding famMu) while the other and
	// the caller's read the entries already filed.
	fams  *[maxFamilies]famEntry
	nfams int

	labels *texts
	// sets are the label sets, numbered as labels numbers their texts,
	// and prevLab the last label set filed (+ 1).
	sets    chunked[labelSet]
	prevLab uint32

	devOf    map[string]uint32
	devNames []string
	// portOf finds each port by its device, RDMA or not, and name, in a
	// table of integers rather than a map per device; ports holds them.
	portOf   table
	ports    chunked[portRef]
	lastPort uint32
	key      []byte

	queueOf map[string]uint16
	queues  []string

	// Skipped counts samples of known families that lacked the device or
	// port label, so a report can say that series were ignored.
	Skipped int

	scratch parsed
}

type famEntry struct {
	family
	metric string
	// shape numbers the family's labels that name the port and queue
	// (and whether the port is an RDMA device): two series of one label
	// set and one shape name the same port and queue.
	shape int
}

// parsed is one label set taken apart; its byte slices point into the
// label text or into its own buffers.
type parsed struct {
	source, instance, port []byte
	queue                  []byte
	bufs                   [4][]byte
}

// NewWindow returns an empty window.
func NewWindow() *Window {
	return &Window{
		timeOf:  map[int64]uint32{},
		famOf:   map[string]int32{},
		fams:    new([maxFamilies]famEntry),
		labels:  newTexts(),
		devOf:   map[string]uint32{},
		queueOf: map[string]uint16{"": 0},
		queues:  []string{""},
	}
}

// Read adds the samples of one exposition file. Samples without a
// timestamp take at (milliseconds since the epoch); a file may also hold
// several samples of one series at different timestamps. name is the
// file's name for errors. Families doctor does not read are skipped
// without their labels being parsed.
//
// Reading runs on both cores: one goroutine reads the file in blocks,
// two split the blocks' lines (the label text, the value and the
// timestamp) where they lie, a block each in turn, the caller's files
// the samples into the window, in the file's order, and one more finds
// the ports of the series new to the window. A line's labels are taken
// apart only when its label set and family are new to the window: in
// every scrape after the first, a line costs a comparison with the
// series that followed the last one filed, and splitting it costs more
// than that, so the splitting is shared by two goroutines and the filing
// kept to one.
func (w *Window) Read(r io.Reader, name string, at int64) error {
	free := make(chan *batch, 8)
	for range cap(free) {
		free <- &batch{buf: make([]byte, 0, blockSize)}
	}
	var read, full [splitters]chan *batch
	for i := range splitters {
		read[i], full[i] = make(chan *batch, cap(free)), make(chan *batch, cap(free))
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	// The reading stops before Read returns, even at an error: the
	// caller may read what is left of r (to hash it) once Read returns.
	defer wg.Wait()
	defer close(done)
	// The tables that find a label set or a port again are needed while
	// the file's series are new; the next file, in the same order, is
	// matched without them, and the diagnosis never needs them: they are
	// dropped (about 50 MB at 100,000 GPUs) and built again only if a
	// later file brings a series the cursor does not predict.
	defer w.labels.tab.release()
	defer w.portOf.release()
	// The new series' ports are found on a goroutine of their own, after
	// the filing: every block filed goes there, which then frees it, and
	// every series filed has its port once Read returns.
	toResolve, resolved := make(chan *batch, cap(free)), make(chan struct{})
	go func() {
		defer close(resolved)
		for b := range toResolve {
			w.resolve(b)
			free <- b
		}
	}()
	defer func() {
		close(toResolve)
		<-resolved
	}()
	wg.Go(func() { readBlocks(r, read, free, done) })
	// A file whose series are new to the window has its label sets
	// hashed as they are split, off the goroutine that files them, which
	// then looks most of them up; the files after it need no hash.
	hashed := w.points.n == 0
	for i := range splitters {
		sp := &splitter{w: w}
		wg.Go(func() { sp.split(at, hashed, read[i], full[i], done) })
	}
	w.cursor = 0
	// line is the number of the lines before the block being filed: a
	// splitter numbers a block's lines from its start.
	line := 0
	for k := 0; ; k++ {
		b, ok := <-full[k%splitters]
		if !ok {
			return nil
		}
		err := w.fileBlock(b, name, line)
		line += b.lines
		end := err != nil || b.readErr != nil
		if err == nil && b.readErr != nil && b.readErr != io.EOF {
			err = fmt.Errorf("%s:%d: %v", name, line+1, b.readErr)
		}
		toResolve <- b // b is the resolving goroutine's now
		if end {
			return err
		}
	}
}

// fileBlock files a block's samples; line is the number of the file's
// lines before the block.
func (w *Window) fileBlock(b *batch, name string, line int) error {
	b.finds, b.names = b.finds[:0], b.names[:0]
	if b.hashed {
		w.labels.tab.touch(b.samples)
	}
	for i := range b.samples {
		if err := w.file(b, &b.samples[i]); err != nil {
			return fmt.Errorf("%s:%d: %v", name, line+b.samples[i].line, err)
		}
	}
	if b.err != nil {
		return fmt.Errorf("%s:%d: %v", name, line+b.errLine, b.err)
	}
	return nil
}

// portFind is a new series whose port and queue the resolving goroutine
// finds: those of series from, filed before it, or (from nil) those the
// names in the block's names say.
type portFind struct {
	p, from          *point
	dev, port, queue int32 // the names' ends in names
	hca              bool
}

// resolve gives the series a block filed their ports and queues, in the
// order they were filed.
func (w *Window) resolve(b *batch) {
	start := int32(0)
	for _, f := range b.finds {
		if f.from != nil {
			f.p.port, f.p.queue = f.from.port, f.from.queue
			continue
		}
		dev, port, queue := b.names[start:f.dev], b.names[f.dev:f.port], b.names[f.port:f.queue]
		start = f.queue
		f.p.port, f.p.queue = w.port(dev, port, f.hca), w.queue(queue)
	}
}

// splitters is the number of goroutines that split a file's lines.
const splitters = 2

// batch is a block of the file, whole lines, and the samples split from
// it, whose label texts lie in buf.
type batch struct {
	buf     []byte
	samples []sample
	// lines counts buf's lines; a sample's line and errLine number
	// them from 1.
	lines int
	// readErr is the reading's error after buf's lines (io.EOF at the
	// end of the file); err is the error that ended the splitting, at
	// line errLine, after the samples.
	readErr error
	err     error
	errLine int
	// hashed tells that the samples carry their label sets' hashes.
	hashed bool
	// finds are the ports the block's new series name, in names.
	finds []portFind
	names []byte
}

// span is a text in a batch's buf.
type span struct{ off, n int32 }

func (b *batch) text(s span) []byte { return b.buf[s.off : s.off+s.n] }

// span locates t, a part of buf, in it.
func (b *batch) span(t []byte) span {
	if len(t) == 0 {
		return span{}
	}
	return span{int32(cap(b.buf) - cap(t)), int32(len(t))}
}

// sample is one sample line split apart.
type sample struct {
	labels span
	line   int
	t      int64
	v      float64
	// hash is the label set's hash in the window's table of texts when
	// the batch is hashed.
	hash uint64
	fam  uint16
}

// blockSize is the size a file is read in; maxLine bounds a line, as
// bufio.Scanner's buffer did (a block grows to hold a line longer than a
// block).
const (
	blockSize = 256 << 10
	maxLine   = 1 << 20
)

// readBlocks reads r into blocks of whole lines, taken from free and sent
// on read in turn (the file's k-th block on read[k%splitters]); the last
// carries the error that ended the reading (io.EOF at the end). It stops
// early when done closes, and closes read when it stops.
func readBlocks(r io.Reader, read [splitters]chan *batch, free <-chan *batch, done <-chan struct{}) {
	defer func() {
		for _, c := range read {
			close(c)
		}
	}()
	var carry []byte // the start of a line the last block ended in
	for k := 0; ; k++ {
		var b *batch
		select {
		case b = <-free:
		case <-done:
			return
		}
		b.buf, b.samples, b.readErr, b.err = append(b.buf[:0], carry...), b.samples[:0], nil, nil
		for b.readErr == nil {
			select {
			case <-done: // a reader that waits on its writer, a pipe, stops between reads
				return
			default:
			}
			if len(b.buf) == cap(b.buf) {
				if bytes.LastIndexByte(b.buf, '\n') >= 0 {
					break
				}
				if len(b.buf) > maxLine {
					b.buf, b.readErr = b.buf[:0], bufio.ErrTooLong
					break
				}
				b.buf = append(b.buf, 0)[:len(b.buf)] // a line longer than a block
			}
			n, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
			b.buf = b.buf[:len(b.buf)+n]
			b.readErr = err
		}
		carry = carry[:0]
		if b.readErr == nil {
			end := bytes.LastIndexByte(b.buf, '\n') + 1
			carry = append(carry, b.buf[end:]...)
			b.buf = b.buf[:end]
		}
		last := b.readErr != nil
		select {
		case read[k%splitters] <- b:
		case <-done:
			return
		}
		if last {
			return
		}
	}
}

// splitter is what one splitting goroutine keeps from line to line.
type splitter struct {
	w *Window
	// lastName is the last line's metric name, lastFi its family's
	// index (-1 for a family doctor does not read).
	lastName string
	lastFi   int32
	// stamp is the last line's timestamp.
	stamp stamp
}

// split splits the lines of the blocks read sends into their samples,
// with their label sets' hashes when hashed is set, and sends each block
// on full; it stops after a block whose reading or splitting ended in an
// error, or early when done closes, and closes full when it stops.
func (sp *splitter) split(at int64, hashed bool, read <-chan *batch, full chan<- *batch, done <-chan struct{}) {
	defer close(full)
	for b := range read {
		b.hashed, b.lines, b.errLine = hashed, 0, 0
		rest := b.buf
		for len(rest) > 0 {
			text := rest
			if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
				text, rest = rest[:nl], rest[nl+1:]
			} else {
				rest = nil
			}
			b.lines++
			if len(text) > maxLine {
				b.err = bufio.ErrTooLong
			} else {
				b.err = sp.line(b, bytes.TrimSpace(text), b.lines, at, hashed)
			}
			if b.err != nil {
				b.errLine = b.lines
				break
			}
		}
		// Once sent, b is the caller's, and then the reader's again.
		last := b.err != nil || b.readErr != nil
		select {
		case full <- b:
		case <-done:
			return
		}
		if last {
			return
		}
	}
}

// line splits one line into b: the label text as written (and its hash
// when hashed is set), the value and the timestamp.
func (sp *splitter) line(b *batch, text []byte, line int, at int64, hashed bool) error {
	if len(text) == 0 || text[0] == '#' {
		return nil
	}
	w := sp.w
	// A family's samples come together: the line most likely starts with
	// the last line's name, and then the name need not be scanned.
	end, fi := len(sp.lastName), sp.lastFi
	if end == 0 || len(text) <= end || string(text[:end]) != sp.lastName || (text[end] != '{' && text[end] != ' ' && text[end] != '\t') {
		end = 0
		for end < len(text) && text[end] != '{' && text[end] != ' ' && text[end] != '\t' {
			end++
		}
		if end == 0 || end == len(text) {
			return fmt.Errorf("%q is not a sample: want name{labels} value [timestamp]", cut(string(text)))
		}
		fi = sp.family(text[:end])
	}
	if fi < 0 {
		return nil
	}
	rest := text[end:]
	if start, v, t, ok := tail(rest, at, &sp.stamp); ok {
		switch {
		case start == 0: // no labels
			sp.add(b, nil, v, t, fi, line, hashed)
			return nil
		case rest[0] == '{' && rest[start-1] == '}':
			sp.add(b, rest[1:start-1], v, t, fi, line, hashed)
			return nil
		}
	}
	var labels []byte
	if rest[0] == '{' {
		// Nothing after the label set holds a brace: the last one closes
		// it. What lies between is taken apart, and so checked, when it
		// is first filed.
		close := bytes.LastIndexByte(rest, '}')
		if close < 0 {
			// Let the parser say what is wrong.
			var p parsed
			err := p.parse(rest[1:], &w.fams[fi].family)
			if err == nil {
				err = errors.New("the label set is not closed")
			}
			return fmt.Errorf("%s: %v", w.fams[fi].metric, err)
		}
		labels, rest = rest[1:close], rest[close+1:]
	}
	t := at
	val, ts, ok := fields(rest)
	if !ok {
		return fmt.Errorf("%s: want a value and an optional timestamp after the labels, got %q", w.fams[fi].metric, cut(string(rest)))
	}
	v, ok := parseValue(val)
	if !ok {
		return fmt.Errorf("%s: value %q is not a finite number", w.fams[fi].metric, cut(string(val)))
	}
	if ts != nil {
		if t, ok = parseMillis(ts); !ok {
			return fmt.Errorf("%s: timestamp %q is not milliseconds since the epoch", w.fams[fi].metric, cut(string(ts)))
		}
	}
	sp.add(b, labels, v, t, fi, line, hashed)
	return nil
}

// add adds a sample to b.
func (sp *splitter) add(b *batch, labels []byte, v float64, t int64, fi int32, line int, hashed bool) {
	var h uint64
	if hashed {
		h = sp.w.labels.hash(labels)
	}
	b.samples = append(b.samples, sample{t: t, v: v, fam: uint16(fi), line: line, labels: b.span(labels), hash: h})
}

// tail reads the end of nearly every counter's line, " <integer>
// <integer>" or " <integer>", from the end back: the value, the timestamp
// (at when the line has none) and where the space before the value
// stands, which the label set's closing brace precedes. last is the
// timestamp of the line before, which a scrape's lines share, and is
// compared before anything is read. false sends anything else (a float,
// tabs, an error) to the general reading.
func tail(s []byte, at int64, last *stamp) (start int, v float64, t int64, ok bool) {
	end, t, timed := len(s), at, false
	if n := last.n; n > 0 && n+2 < len(s) && s[len(s)-n-1] == ' ' && string(s[len(s)-n:]) == string(last.text[:n]) {
		end, t, timed = len(s)-n-1, last.t, true
	}
	// The last number: the value, or (unless the timestamp was the last
	// line's) the timestamp after it.
	n, i, ok := integerBefore(s, end)
	if !ok || i == 0 || s[i-1] != ' ' {
		return 0, 0, 0, false
	}
	if value, j, ok := integerBefore(s, i-1); !timed && ok && j > 0 && s[j-1] == ' ' {
		if t, ok = last.read(s[i:end]); !ok {
			return 0, 0, 0, false
		}
		n, i = value, j
	}
	return i - 1, float64(n), t, true
}

// integerBefore reads the digits that end at s[end], from the last: at
// most 15, which a float64 holds exactly; i is where they start.
func integerBefore(s []byte, end int) (n int64, i int, ok bool) {
	unit := int64(1)
	for i = end; i > 0 && s[i-1] >= '0' && s[i-1] <= '9'; i-- {
		if end-i == 15 {
			return 0, 0, false
		}
		n += int64(s[i-1]-'0') * unit
		unit *= 10
	}
	return n, i, i < end
}

// stamp is a timestamp as written and as read.
type stamp struct {
	text [18]byte
	n    int
	t    int64
}

// read returns the milliseconds the digits ts say, as the last ones read
// when they are the same digits; false when ts is not 1 to 18 digits.
func (last *stamp) read(ts []byte) (int64, bool) {
	if len(ts) == last.n && string(ts) == string(last.text[:last.n]) {
		return last.t, true
	}
	t, ok := digits(ts, len(last.text))
	if !ok || t < 0 {
		return 0, false
	}
	last.n, last.t = copy(last.text[:], ts), t
	return t, true
}

// parseValue reads a sample's value: counters are integers, read without
// strconv; anything else (1.5e+06) through strconv.
func parseValue(b []byte) (float64, bool) {
	if n, ok := digits(b, 15); ok {
		return float64(n), true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// parseMillis reads a timestamp in milliseconds.
func parseMillis(b []byte) (int64, bool) {
	if n, ok := digits(b, 18); ok {
		return n, true
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// digits reads an optionally negative decimal integer of at most max
// digits, which an int64 and (at 15) a float64 hold exactly.
func digits(b []byte, max int) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > max {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// file adds one sample to its series, creating the series (and its port)
// the first time.
func (w *Window) file(b *batch, s *sample) error {
	labels := b.text(s.labels)
	if c := w.cursor; c < w.points.n {
		if p := w.points.at(c); p.fam == s.fam && bytes.Equal(w.labels.bytes(p.labels), labels) {
			w.add(p, s.t, s.v)
			w.cursor = c + 1
			return nil
		}
	}
	fam := &w.fams[s.fam]
	// A collector writes each family's series in the same order of label
	// sets: the set that followed the previous one last time is the
	// likeliest, and comparing it costs less than hashing.
	lab, known, parsed := uint32(0), false, false
	if w.prevLab != 0 {
		if n := w.sets.at(int(w.prevLab - 1)).succ; n != 0 && bytes.Equal(w.labels.bytes(n-1), labels) {
			lab, known = n-1, true
		}
	}
	if !known {
		var added bool
		h := s.hash
		if !b.hashed {
			h = w.labels.hash(labels)
		}
		if lab, added = w.labels.intern(labels, h); added {
			// A label set never seen: take it apart before filing it
			// (a set that names no port stays interned, with no
			// series, and is taken apart again if it comes again).
			if err := w.scratch.parse(labels, &fam.family); err != nil {
				return fmt.Errorf("%s: %v", fam.metric, err)
			}
			parsed = true
		}
	}
	if int(lab) == w.sets.n {
		w.sets.add(labelSet{})
	}
	if w.prevLab != 0 {
		w.sets.at(int(w.prevLab - 1)).succ = lab + 1
	}
	w.prevLab = lab + 1
	last, sibling := uint32(0), uint32(0)
	set := w.sets.at(int(lab))
	for i := set.first; i != 0; i = w.points.at(int(i - 1)).next {
		q := w.points.at(int(i - 1))
		if q.fam == s.fam {
			w.add(q, s.t, s.v)
			w.cursor = int(i)
			return nil
		}
		if w.fams[q.fam].shape == fam.shape {
			sibling = i
		}
		last = i
	}
	// The series is new: its port and queue are those of a series of
	// its label set and shape, or those its labels name, which the
	// resolving goroutine finds (resolve).
	find := portFind{}
	if sibling != 0 {
		find.from = w.points.at(int(sibling - 1))
	} else {
		// The label set is new, or known under another shape of
		// family, whose port and queue labels differ.
		p := &w.scratch
		if !parsed {
			if err := p.parse(labels, &fam.family); err != nil {
				return fmt.Errorf("%s: %v", fam.metric, err)
			}
		}
		dev := deviceOf(p.source, p.instance)
		if len(dev) == 0 || len(p.port) == 0 {
			w.Skipped++
			return nil
		}
		b.names = append(b.names, dev...)
		find.dev = int32(len(b.names))
		b.names = append(b.names, p.port...)
		find.port = int32(len(b.names))
		b.names = append(b.names, p.queue...)
		find.queue, find.hca = int32(len(b.names)), fam.hca
	}
	n := uint32(w.points.n) + 1
	ti := w.time(s.t)
	if last == 0 {
		set.first = n
	} else {
		w.points.at(int(last - 1)).next = n
	}
	w.points.add(point{t0: ti, t1: ti, v0: s.v, v1: s.v, labels: lab, fam: s.fam})
	w.cursor = w.points.n
	find.p = w.points.at(w.points.n - 1)
	b.finds = append(b.finds, find)
	return nil
}

// time returns the index of timestamp t in w.times.
func (w *Window) time(t int64) uint32 {
	// A scrape's samples share their timestamp: the last is the likeliest.
	if int(w.lastT) < len(w.times) && w.times[w.lastT] == t {
		return w.lastT
	}
	i, ok := w.timeOf[t]
	if !ok {
		i = uint32(len(w.times))
		w.times = append(w.times, t)
		w.timeOf[t] = i
	}
	w.lastT = i
	return i
}

// maxFamilies bounds the families a window tells apart: the fixed names
// and the per-priority ones (fewer than 96), with room to spare.
const maxFamilies = 256

// family returns the index of the metric name's family, -1 when doctor
// does not read it.
func (sp *splitter) family(name []byte) int32 {
	// A family's samples come together: the last name is the likeliest.
	if sp.lastName != "" && sp.lastName == string(name) {
		return sp.lastFi
	}
	w := sp.w
	w.famMu.Lock()
	fi, ok := w.famOf[string(name)]
	if !ok {
		fi = w.newFamily(name)
	}
	w.famMu.Unlock()
	sp.lastName, sp.lastFi = string(name), fi
	return fi
}

// newFamily files a metric name not seen before; the caller holds famMu.
func (w *Window) newFamily(name []byte) int32 {
	f, ok := lookupFamily(string(name))
	fi := int32(-1)
	if ok && w.nfams < len(w.fams) {
		fi = int32(w.nfams)
		fe := famEntry{family: f, metric: string(name), shape: w.nfams}
		for _, o := range w.fams[:w.nfams] {
			if o.port == f.port && o.queue == f.queue && o.hca == f.hca {
				fe.shape = o.shape
				break
			}
		}
		w.fams[fi] = fe
		w.nfams++
	}
	w.famOf[string(name)] = fi
	return fi
}

func (w *Window) port(dev, name []byte, hca bool) uint32 {
	// A port's label sets may come one after another (a queue's, the
	// next queue's): the last port is likely. The exporters built on
	// Prometheus's Go client (node_exporter, gnmic) sort a family's
	// series by their label values (prometheus/client_golang
	// prometheus/internal/metric.go, NormalizeMetricFamilies), so a
	// family whose labels name the ports as an earlier one's do names
	// them in the same order, the order they were numbered in: the port
	// after the last is likely too, and comparing it costs less than
	// hashing and probing the table.
	for l := w.lastPort; l <= w.lastPort+1 && int(l) < w.ports.n; l++ {
		if p := w.ports.at(int(l)); p.hca == hca && p.name == string(name) && w.devNames[p.dev] == string(dev) {
			w.lastPort = l
			return l
		}
	}
	// One lookup of the device and the port together; the device is
	// looked up by itself only for a port never seen.
	if w.portOf.slots == nil {
		w.portOf.rebuild(w.ports.n, func(id uint32) uint64 {
			p := w.ports.at(int(id))
			return w.portHash([]byte(w.devNames[p.dev]), []byte(p.name), p.hca)
		})
	}
	h := w.portHash(dev, name, hca)
	i, slot, ok := find(&w.portOf, h, portIs{w, dev, name, hca})
	if !ok {
		d, ok := w.devOf[string(dev)]
		if !ok {
			d = uint32(len(w.devNames))
			w.devNames = append(w.devNames, string(dev))
			w.devOf[w.devNames[d]] = d
		}
		i = uint32(w.ports.n)
		w.ports.add(portRef{dev: d, name: string(name), hca: hca})
		w.portOf.put(slot, h, i)
	}
	w.lastPort = i
	return i
}

// portHash is a port's hash in Window.portOf.
func (w *Window) portHash(dev, name []byte, hca bool) uint64 {
	w.key = append(binary.AppendUvarint(w.key[:0], uint64(len(dev))), dev...)
	if hca {
		w.key = append(w.key, 1)
	} else {
		w.key = append(w.key, 0)
	}
	return w.labels.hash(append(w.key, name...))
}

// portIs finds a port of the window.
type portIs struct {
	w         *Window
	dev, name []byte
	hca       bool
}

func (q portIs) same(id uint32) bool {
	p := q.w.ports.at(int(id))
	return p.hca == q.hca && p.name == string(q.name) && q.w.devNames[p.dev] == string(q.dev)
}

func (w *Window) queue(name []byte) uint16 {
	if q, ok := w.queueOf[string(name)]; ok {
		return q
	}
	if len(w.queues) >= math.MaxUint16 {
		return 0
	}
	q := uint16(len(w.queues))
	w.queues = append(w.queues, string(name))
	w.queueOf[w.queues[q]] = q
	return q
}

// add puts a sample at time t into p, if it is earlier or later than
// those p holds.
func (w *Window) add(p *point, t int64, v float64) {
	if t < w.times[p.t0] {
		p.t0, p.v0 = w.time(t), v
	}
	if t > w.times[p.t1] {
		p.t1, p.v1 = w.time(t), v
	}
}

// Rate is a counter's increase per second over the window.
type Rate struct {
	PerSecond float64
	// Seconds is the length of the window the rate was taken over.
	Seconds float64
	// Port numbers the key's (Device, Port, HCA) in the window, from 0 to
	// Window.Ports()-1: every counter of one port carries the same
	// number, so a reader resolves a port once rather than per counter.
	Port int
	// Queue numbers the key's Queue in the window, from 0 (no queue) to
	// Window.Queues()-1, so that a reader resolves a queue once per port
	// or device rather than per counter.
	Queue int
	// Counter and Priority are the key's, which a reader summing the
	// rates needs for every series (Key looks up the rest).
	Counter  Counter
	Priority int8

	w     *Window
	point int
}

// Series returns the series the rate was taken from, for evidence.
func (r Rate) Series() Series {
	if r.w == nil {
		return Series{}
	}
	p := r.w.points.at(r.point)
	return Series{Metric: r.w.fams[p.fam].metric, Labels: string(r.w.labels.bytes(p.labels))}
}

// PortDevice numbers the device of a port of the window (numbered as
// Rate.Port) among the window's devices, from 0: a reader may split the
// window's series by device.
func (w *Window) PortDevice(port int) int { return int(w.ports.at(port).dev) }

// Ports is the number of distinct ports the window's series name.
func (w *Window) Ports() int { return w.ports.n }

// Devices is the number of distinct devices the window's ports belong
// to, as PortDevice numbers them.
func (w *Window) Devices() int { return len(w.devNames) }

// Queues is the number of distinct queues the window's series name, as
// Rate.Queue numbers them, counting the absence of a queue.
func (w *Window) Queues() int { return len(w.queues) }

// Single counts the counters sampled once, which have no rate.
func (w *Window) Single() int {
	n := 0
	for i := range w.points.n {
		if p := w.points.at(i); p.t0 == p.t1 {
			n++
		}
	}
	return n
}

// Rates yields the rate of every counter sampled at two times at least,
// in the order the series were first read; it may be walked any number of
// times. A counter that went down was reset (a reboot, a cleared
// counter): as Prometheus's rate() does, the increase is then its last
// value.
func (w *Window) Rates() iter.Seq2[Key, Rate] {
	return func(yield func(Key, Rate) bool) {
		for i := range w.points.n {
			if k, r, ok := w.rate(i); ok && !yield(k, r) {
				return
			}
		}
	}
}

// RatesAt yields the rates of the ports (numbered as Rate.Port) that
// keep marks, in the order Rates yields them, without their keys: a
// reader that sums millions of series reads the counter, the priority and
// the numbers of the port and queue from each Rate, and asks Rate.Key for
// the names only where it needs them (once a port), which spares a walk
// of the window's ports for every series. A port beyond keep is left out.
func (w *Window) RatesAt(keep []bool) iter.Seq[Rate] {
	return func(yield func(Rate) bool) {
		for i := range w.points.n {
			p := w.points.at(i)
			if int(p.port) >= len(keep) || !keep[p.port] || p.t1 == p.t0 {
				continue
			}
			if !yield(w.rateOf(i, p)) {
				return
			}
		}
	}
}

// rate is point i's rate; false when it was sampled once.
func (w *Window) rate(i int) (Key, Rate, bool) {
	p := w.points.at(i)
	if p.t1 == p.t0 {
		return Key{}, Rate{}, false
	}
	r := w.rateOf(i, p)
	return r.Key(), r, true
}

// rateOf is the rate of point i, p, sampled twice at least.
func (w *Window) rateOf(i int, p *point) Rate {
	inc := p.v1 - p.v0
	if inc < 0 {
		inc = p.v1
	}
	secs := float64(w.times[p.t1]-w.times[p.t0]) / 1000
	f := &w.fams[p.fam]
	return Rate{PerSecond: inc / secs, Seconds: secs, Port: int(p.port), Queue: int(p.queue),
		Counter: f.counter, Priority: f.priority, w: w, point: i}
}

// Key names the rate's device, port, counter and queue.
func (r Rate) Key() Key {
	if r.w == nil {
		return Key{}
	}
	w := r.w
	pr := w.ports.at(r.Port)
	return Key{Device: w.devNames[pr.dev], Port: pr.name, Counter: r.Counter, Priority: r.Priority, HCA: pr.hca, Queue: w.queues[r.Queue]}
}

// QueueName is the name of the window's queue q (numbered as Rate.Queue),
// "" for no queue.
func (w *Window) QueueName(q int) string {
	if q < 0 || q >= len(w.queues) {
		return ""
	}
	return w.queues[q]
}

// parse takes apart a label set's text (what lies between the braces),
// keeping the values of the labels that name the device, port and queue
// of family f.
func (p *parsed) parse(s []byte, f *family) error {
	p.source, p.instance, p.port, p.queue = nil, nil, nil, nil
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			return nil
		}
		eq := bytes.IndexByte(s[i:], '=')
		if eq <= 0 {
			return fmt.Errorf("label %q has no =\"value\"", cut(string(s[i:])))
		}
		name := bytes.TrimSpace(s[i : i+eq])
		i += eq + 1
		if i >= len(s) || s[i] != '"' {
			return fmt.Errorf("label %s: the value must be quoted", name)
		}
		i++
		start, escaped := i, false
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' && i+1 < len(s) {
				escaped = true
				i++
			}
			i++
		}
		if i >= len(s) {
			return fmt.Errorf("label %s: the value's quote is not closed", name)
		}
		val := s[start:i]
		i++
		var slot int
		switch string(name) {
		case "source":
			slot = 0
		case "instance":
			slot = 1
		case f.port:
			slot = 2
		case f.queue:
			if f.queue == "" {
				continue
			}
			slot = 3
		default:
			continue
		}
		if escaped {
			p.bufs[slot] = unescape(p.bufs[slot][:0], val)
			val = p.bufs[slot]
		}
		switch slot {
		case 0:
			p.source = val
		case 1:
			p.instance = val
		case 2:
			p.port = val
		case 3:
			p.queue = val
		}
	}
}

// unescape appends a label value's text with its escapes (\\, \", \n)
// resolved.
func unescape(dst, v []byte) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			c = v[i]
			if c == 'n' {
				c = '\n'
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// fields splits what follows the labels into the value and the optional
// timestamp; ok is false unless there are one or two fields.
func fields(s []byte) (val, ts []byte, ok bool) {
	var f [3][]byte
	n := 0
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			break
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if n == len(f) {
			return nil, nil, false
		}
		f[n] = s[i:j]
		n++
		i = j
	}
	if n < 1 || n > 2 {
		return nil, nil, false
	}
	return f[0], f[1], true
}

// cut shortens a value an error repeats.
func cut(s string) string {
	if len(s) > 64 {
		return s[:64] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}
