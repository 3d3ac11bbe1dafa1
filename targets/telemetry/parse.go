package telemetry

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"slices"
	"strconv"
)

// A window of a 100,000-GPU fabric holds millions of series, so it is
// laid out for the garbage collector and the cache rather than for
// reading: every name (device, port, queue, label text, metric) is
// interned once, and a series is a pointer-free point in one slice,
// chained to the other series of its label set. A collector writes its
// series in the same order at every scrape, so the next scrape's line is
// first compared with the series that followed the last one matched, and
// costs no lookup at all when it is that series.

// point is a series' first and last sample in the window.
type point struct {
	t0, t1 int64 // milliseconds
	v0, v1 float64
	port   uint32 // index in Window.ports
	labels uint32 // number in Window.labels
	next   uint32 // the next series of the same label set, + 1; 0 ends the chain
	byPort uint32 // the next series of the same port, + 1; 0 ends the chain
	fam    uint16 // index in Window.fams
	queue  uint16 // index in Window.queues; 0 is no queue
}

// portRef is one device's port (or RDMA device, hca set) that a series
// names.
type portRef struct {
	dev  uint32
	name string
	hca  bool
}

// devPorts interns one device's port names, netdevs and interfaces apart
// from RDMA devices.
type devPorts struct {
	ports, hcas map[string]uint32
}

// Window collects samples of the counters doctor reads from one or more
// exposition files (or a Prometheus server) and gives each counter's rate
// between its first and last sample.
type Window struct {
	points []point
	// cursor is the point after the last one a sample updated.
	cursor int

	// famOf caches each metric name's family index, -1 for the names
	// doctor does not read.
	famOf map[string]int32
	// lastFam is the last family's name, lastFi its index.
	lastFam string
	lastFi  int32
	// fams are the families read, nfams of them: an array, because the
	// parsing goroutine adds to it while the caller's reads the entries
	// already sent.
	fams  *[maxFamilies]famEntry
	nfams int

	labels *texts
	// first is each label set's first series, + 1.
	first []uint32
	// succ is, for each label set, the one filed after it last (+ 1),
	// and prevLab the last label set filed (+ 1).
	succ    []uint32
	prevLab uint32
	// portFirst is each port's first series, + 1.
	portFirst []uint32

	devOf    map[string]uint32
	lastDev  uint32
	devNames []string
	devPorts []devPorts
	ports    []portRef

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

// parsed is one sample line taken apart; its byte slices point into the
// line or into its own buffers.
type parsed struct {
	labels                 []byte // the label text between the braces
	source, instance, port []byte
	queue                  []byte
	bufs                   [4][]byte
}

// NewWindow returns an empty window.
func NewWindow() *Window {
	return &Window{
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
// Reading runs on two cores: one goroutine takes the lines apart (the
// labels, the value and the timestamp), the caller's files the samples
// into the window, in the file's order.
func (w *Window) Read(r io.Reader, name string, at int64) error {
	full := make(chan *batch, 4)
	free := make(chan *batch, 6)
	for range cap(free) {
		free <- &batch{}
	}
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok && len(w.points) == 0 {
		// Reserve for the series of a file of that size, at about 100
		// bytes a line, so the window does not grow by copying.
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			n := int(min(fi.Size()/100, 1<<26))
			w.points = slices.Grow(w.points, n)
			w.first = slices.Grow(w.first, n/4)
		}
	}
	go w.parse(r, name, at, full, free)
	w.cursor = 0
	var err error
	for b := range full {
		for i := range b.samples {
			w.file(b, &b.samples[i])
		}
		if b.err != nil {
			err = b.err
		}
		free <- b
	}
	return err
}

// batch is a run of samples taken apart, their texts in buf.
type batch struct {
	buf     []byte
	samples []sample
	err     error // the error that ended the file, after the samples
}

// span is a text in a batch's buf.
type span struct{ off, n int32 }

func (b *batch) text(s span) []byte { return b.buf[s.off : s.off+s.n] }

func (b *batch) put(t []byte) span {
	s := span{int32(len(b.buf)), int32(len(t))}
	b.buf = append(b.buf, t...)
	return s
}

// sample is one sample line taken apart.
type sample struct {
	labels, dev, port, queue span
	t                        int64
	v                        float64
	fam                      uint16
	// skip is set when the sample lacks the device or the port label.
	skip bool
}

const batchSamples = 4096

// parse takes the file's lines apart into batches sent on full, and
// closes it at the end of the file or at the first error.
func (w *Window) parse(r io.Reader, name string, at int64, full chan<- *batch, free <-chan *batch) {
	defer close(full)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 256*1024), 1024*1024)
	line := 0
	b := <-free
	b.buf, b.samples, b.err = b.buf[:0], b.samples[:0], nil
	for sc.Scan() {
		line++
		if err := w.parseLine(b, bytes.TrimSpace(sc.Bytes()), at); err != nil {
			b.err = fmt.Errorf("%s:%d: %v", name, line, err)
			full <- b
			return
		}
		if len(b.samples) == batchSamples {
			full <- b
			b = <-free
			b.buf, b.samples, b.err = b.buf[:0], b.samples[:0], nil
		}
	}
	if err := sc.Err(); err != nil {
		b.err = fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	full <- b
}

// parseLine takes one line apart into b.
func (w *Window) parseLine(b *batch, text []byte, at int64) error {
	if len(text) == 0 || text[0] == '#' {
		return nil
	}
	end := bytes.IndexAny(text, "{ \t")
	if end <= 0 {
		return fmt.Errorf("%q is not a sample: want name{labels} value [timestamp]", cut(string(text)))
	}
	fi := w.family(text[:end])
	if fi < 0 {
		return nil
	}
	fam := &w.fams[fi]
	p := &w.scratch
	rest, err := p.parseLabels(text[end:], &fam.family)
	if err != nil {
		return fmt.Errorf("%s: %v", fam.metric, err)
	}
	val, ts, ok := fields(rest)
	if !ok {
		return fmt.Errorf("%s: want a value and an optional timestamp after the labels, got %q", fam.metric, cut(string(rest)))
	}
	v, err := strconv.ParseFloat(string(val), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: value %q is not a finite number", fam.metric, cut(string(val)))
	}
	t := at
	if ts != nil {
		if t, err = strconv.ParseInt(string(ts), 10, 64); err != nil {
			return fmt.Errorf("%s: timestamp %q is not milliseconds since the epoch", fam.metric, cut(string(ts)))
		}
	}
	smp := sample{t: t, v: v, fam: uint16(fi), labels: b.put(p.labels)}
	dev := deviceOf(p.source, p.instance)
	if len(dev) == 0 || len(p.port) == 0 {
		smp.skip = true
	} else {
		smp.dev, smp.port, smp.queue = b.put(dev), b.put(p.port), b.put(p.queue)
	}
	b.samples = append(b.samples, smp)
	return nil
}

// file adds one sample to its series, creating the series (and its port)
// the first time.
func (w *Window) file(b *batch, s *sample) {
	labels := b.text(s.labels)
	if c := w.cursor; c < len(w.points) && w.points[c].fam == s.fam && bytes.Equal(w.labels.bytes(w.points[c].labels), labels) {
		w.points[c].add(s.t, s.v)
		w.cursor = c + 1
		return
	}
	if s.skip {
		w.Skipped++
		return
	}
	fam := &w.fams[s.fam]
	// A collector writes each family's series in the same order of label
	// sets: the set that followed the previous one last time is the
	// likeliest, and comparing it costs less than hashing.
	lab, known := uint32(0), false
	if w.prevLab != 0 {
		if n := w.succ[w.prevLab-1]; n != 0 && bytes.Equal(w.labels.bytes(n-1), labels) {
			lab, known = n-1, true
		}
	}
	if !known {
		lab = w.labels.intern(labels)
	}
	if int(lab) == len(w.first) {
		w.first = append(w.first, 0)
		w.succ = append(w.succ, 0)
	}
	if w.prevLab != 0 {
		w.succ[w.prevLab-1] = lab + 1
	}
	w.prevLab = lab + 1
	last, sibling := uint32(0), uint32(0)
	for i := w.first[lab]; i != 0; i = w.points[i-1].next {
		q := &w.points[i-1]
		if q.fam == s.fam {
			q.add(s.t, s.v)
			w.cursor = int(i)
			return
		}
		if w.fams[q.fam].shape == fam.shape {
			sibling = i
		}
		last = i
	}
	n := uint32(len(w.points)) + 1
	if last == 0 {
		w.first[lab] = n
	} else {
		w.points[last-1].next = n
	}
	np := point{t0: s.t, t1: s.t, v0: s.v, v1: s.v, labels: lab, fam: s.fam}
	if sibling != 0 {
		np.port, np.queue = w.points[sibling-1].port, w.points[sibling-1].queue
	} else {
		np.port, np.queue = w.port(b.text(s.dev), b.text(s.port), fam.hca), w.queue(b.text(s.queue))
	}
	np.byPort = w.portFirst[np.port]
	w.portFirst[np.port] = n
	w.points = append(w.points, np)
	w.cursor = len(w.points)
}

// maxFamilies bounds the families a window tells apart: the fixed names
// and the per-priority ones (fewer than 64), with room to spare.
const maxFamilies = 256

// family returns the index of the metric name's family, -1 when doctor
// does not read it.
func (w *Window) family(name []byte) int32 {
	// A family's samples come together: the last name is the likeliest.
	if w.lastFam != "" && w.lastFam == string(name) {
		return w.lastFi
	}
	fi, ok := w.famOf[string(name)]
	if !ok {
		fi = w.newFamily(name)
	}
	if fi >= 0 {
		w.lastFam, w.lastFi = w.fams[fi].metric, fi
	}
	return fi
}

// newFamily files a metric name not seen before.
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
	// A collector writes a device's series together: the last device is
	// the likeliest.
	d, ok := w.lastDev, w.lastDev < uint32(len(w.devNames)) && w.devNames[w.lastDev] == string(dev)
	if !ok {
		d, ok = w.devOf[string(dev)]
	}
	w.lastDev = d
	if !ok {
		d = uint32(len(w.devNames))
		w.devNames = append(w.devNames, string(dev))
		w.devOf[w.devNames[d]] = d
		w.devPorts = append(w.devPorts, devPorts{})
	}
	dp := &w.devPorts[d]
	m := &dp.ports
	if hca {
		m = &dp.hcas
	}
	if i, ok := (*m)[string(name)]; ok {
		return i
	}
	if *m == nil {
		*m = map[string]uint32{}
	}
	i := uint32(len(w.ports))
	w.ports = append(w.ports, portRef{dev: d, name: string(name), hca: hca})
	w.portFirst = append(w.portFirst, 0)
	(*m)[w.ports[i].name] = i
	return i
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

func (p *point) add(t int64, v float64) {
	if t < p.t0 {
		p.t0, p.v0 = t, v
	}
	if t > p.t1 {
		p.t1, p.v1 = t, v
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

	w     *Window
	point int
}

// Series returns the series the rate was taken from, for evidence.
func (r Rate) Series() Series {
	if r.w == nil {
		return Series{}
	}
	p := &r.w.points[r.point]
	return Series{Metric: r.w.fams[p.fam].metric, Labels: string(r.w.labels.bytes(p.labels))}
}

// Ports is the number of distinct ports the window's series name.
func (w *Window) Ports() int { return len(w.ports) }

// Single counts the counters sampled once, which have no rate.
func (w *Window) Single() int {
	n := 0
	for i := range w.points {
		if w.points[i].t0 == w.points[i].t1 {
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
		for i := range w.points {
			if k, r, ok := w.rate(i); ok && !yield(k, r) {
				return
			}
		}
	}
}

// PortRates yields the rates of one port of the window (numbered as
// Rate.Port), for a reader that wants a few ports' series without
// walking them all.
func (w *Window) PortRates(port int) iter.Seq2[Key, Rate] {
	return func(yield func(Key, Rate) bool) {
		if port < 0 || port >= len(w.portFirst) {
			return
		}
		for i := w.portFirst[port]; i != 0; i = w.points[i-1].byPort {
			if k, r, ok := w.rate(int(i - 1)); ok && !yield(k, r) {
				return
			}
		}
	}
}

// rate is point i's rate; false when it was sampled once.
func (w *Window) rate(i int) (Key, Rate, bool) {
	p := &w.points[i]
	if p.t1 == p.t0 {
		return Key{}, Rate{}, false
	}
	inc := p.v1 - p.v0
	if inc < 0 {
		inc = p.v1
	}
	secs := float64(p.t1-p.t0) / 1000
	f := &w.fams[p.fam]
	pr := &w.ports[p.port]
	k := Key{Device: w.devNames[pr.dev], Port: pr.name, Counter: f.counter, Priority: f.priority, HCA: pr.hca, Queue: w.queues[p.queue]}
	return k, Rate{PerSecond: inc / secs, Seconds: secs, Port: int(p.port), w: w, point: i}, true
}

// parseLabels parses `{a="x",b="y"}` at the start of s (s may also start
// with the blank after a name without labels), keeping the values of the
// labels that name the device, port and queue, and returns what follows.
func (p *parsed) parseLabels(s []byte, f *family) ([]byte, error) {
	p.labels, p.source, p.instance, p.port, p.queue = nil, nil, nil, nil, nil
	if len(s) == 0 || s[0] != '{' {
		return s, nil
	}
	i := 1
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i < len(s) && s[i] == '}' {
			p.labels = s[1:i]
			return s[i+1:], nil
		}
		eq := bytes.IndexByte(s[i:], '=')
		if eq <= 0 {
			return nil, fmt.Errorf("label %q has no =\"value\"", cut(string(s[i:])))
		}
		name := bytes.TrimSpace(s[i : i+eq])
		i += eq + 1
		if i >= len(s) || s[i] != '"' {
			return nil, fmt.Errorf("label %s: the value must be quoted", name)
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
			return nil, fmt.Errorf("label %s: the value's quote is not closed", name)
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
