package telemetry

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// point is a counter's first and last sample in the window.
type point struct {
	t0, t1 int64 // milliseconds
	v0, v1 float64
	series Series
}

// Window collects samples of the counters doctor reads from one or more
// exposition files and gives each counter's rate between its first and
// last sample.
type Window struct {
	points map[Key]*point
	// Skipped counts samples of known families that lacked the device or
	// port label, so a report can say that series were ignored.
	Skipped int
}

// NewWindow returns an empty window.
func NewWindow() *Window { return &Window{points: map[Key]*point{}} }

// Read adds the samples of one exposition file. Samples without a
// timestamp take at (milliseconds since the epoch); a file may also hold
// several samples of one series at different timestamps. name is the
// file's name for errors. Families doctor does not read are skipped
// without being parsed.
func (w *Window) Read(r io.Reader, name string, at int64) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		end := strings.IndexAny(text, "{ \t")
		if end <= 0 {
			return fmt.Errorf("%s:%d: %q is not a sample: want name{labels} value [timestamp]", name, line, cut(text))
		}
		fam, ok := lookupFamily(text[:end])
		if !ok {
			continue
		}
		metric := text[:end]
		labels, rawLabels, rest, err := parseLabels(text[end:])
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %v", name, line, metric, err)
		}
		fields := strings.Fields(rest)
		if len(fields) < 1 || len(fields) > 2 {
			return fmt.Errorf("%s:%d: %s: want a value and an optional timestamp after the labels, got %q", name, line, metric, cut(rest))
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s:%d: %s: value %q is not a finite number", name, line, metric, cut(fields[0]))
		}
		t := at
		if len(fields) == 2 {
			if t, err = strconv.ParseInt(fields[1], 10, 64); err != nil {
				return fmt.Errorf("%s:%d: %s: timestamp %q is not milliseconds since the epoch", name, line, metric, cut(fields[1]))
			}
		}
		dev, port := deviceOf(labels), labels[fam.port]
		if dev == "" || port == "" {
			w.Skipped++
			continue
		}
		k := Key{Device: dev, Port: port, Counter: fam.counter, Priority: fam.priority, HCA: fam.hca}
		if fam.queue != "" {
			k.Queue = labels[fam.queue]
		}
		w.add(k, t, v, Series{Metric: metric, Labels: rawLabels})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	return nil
}

func (w *Window) add(k Key, t int64, v float64, s Series) {
	p := w.points[k]
	if p == nil {
		w.points[k] = &point{t0: t, t1: t, v0: v, v1: v, series: s}
		return
	}
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
	Series  Series
}

// Rates returns the rate of every counter sampled at two times at least;
// single samples have no rate and are counted in single. A counter that
// went down was reset (a reboot, a cleared counter): as Prometheus's
// rate() does, the increase is then its last value.
func (w *Window) Rates() (rates map[Key]Rate, single int) {
	rates = make(map[Key]Rate, len(w.points))
	for k, p := range w.points {
		if p.t1 == p.t0 {
			single++
			continue
		}
		inc := p.v1 - p.v0
		if inc < 0 {
			inc = p.v1
		}
		secs := float64(p.t1-p.t0) / 1000
		rates[k] = Rate{PerSecond: inc / secs, Seconds: secs, Series: p.series}
	}
	return rates, single
}

// parseLabels parses `{a="x",b="y"}` at the start of s (s may also start
// with the blank after a name without labels). It returns the labels, the
// label text as written, and what follows.
func parseLabels(s string) (map[string]string, string, string, error) {
	labels := map[string]string{}
	if s == "" || s[0] != '{' {
		return labels, "", s, nil
	}
	i := 1
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i < len(s) && s[i] == '}' {
			return labels, s[1:i], s[i+1:], nil
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return nil, "", "", fmt.Errorf("label %q has no =\"value\"", cut(s[i:]))
		}
		name := strings.TrimSpace(s[i : i+eq])
		i += eq + 1
		if i >= len(s) || s[i] != '"' {
			return nil, "", "", fmt.Errorf("label %s: the value must be quoted", name)
		}
		i++
		var b strings.Builder
		for {
			if i >= len(s) {
				return nil, "", "", fmt.Errorf("label %s: the value's quote is not closed", name)
			}
			c := s[i]
			if c == '"' {
				i++
				break
			}
			if c == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					c = '\n'
				default:
					c = s[i]
				}
			}
			b.WriteByte(c)
			i++
		}
		labels[name] = b.String()
	}
}

// cut shortens a value an error repeats.
func cut(s string) string {
	if len(s) > 64 {
		return s[:64] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}
