package doctor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// A quarantine plan's digest binds it to itself only: someone who edits
// a finding's origin and recomputes the digest would drain other
// servers. So the plan records its evidence, the counters it was
// diagnosed from, and apply diagnoses them again on the intent and
// refuses the plan unless that diagnosis gives its drains, cordons and
// shuts (Rediagnose), as apply recomputes a device plan's remediation.

// PlanEvidence is what a quarantine plan was diagnosed from: the options that
// change the diagnosis or the plan, and exactly one source of counters.
type PlanEvidence struct {
	// Drain is the schedulers the plan drains in (--drain), in order.
	Drain []string `json:"drain"`
	// PauseRate is --pause-rate: the pauses a second above which a port
	// counts as pausing.
	PauseRate float64 `json:"pause_rate"`
	// Snapshots are the --snapshot files, oldest first, and Interval
	// (--interval, a Go duration) the time between those whose samples
	// carry no timestamp.
	Snapshots []EvidenceFile `json:"snapshots,omitempty"`
	Interval  string         `json:"interval,omitempty"`
	// Prometheus is the --prometheus server and window.
	Prometheus *PrometheusWindow `json:"prometheus,omitempty"`
	// Samples are the two rounds --sample read, written beside the plan
	// (SampleFiles).
	Samples []EvidenceFile `json:"samples,omitempty"`
}

// EvidenceFile is a file of counters: its path relative to the plan
// file's directory and the SHA-256 of its content.
type EvidenceFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// PrometheusWindow is a Prometheus server's window: its URL without
// credentials, the window's end (RFC 3339, whole seconds, as the
// queries' time parameter takes it) and its length (a Go duration).
// telemetry.Prometheus reads it as two instant queries, at end minus
// the window and at end.
type PrometheusWindow struct {
	URL    string `json:"url"`
	End    string `json:"end"`
	Window string `json:"window"`
}

// StripCredentials returns u without its user information, for a plan
// or a report to show; u unchanged when it is no URL.
func StripCredentials(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	p.User = nil
	return p.String()
}

// NewPrometheusWindow records the window of u that ends at end and lasts
// window; end is taken to the second below, as the queries take it.
func NewPrometheusWindow(u string, end time.Time, window time.Duration) *PrometheusWindow {
	return &PrometheusWindow{URL: StripCredentials(u), End: end.Truncate(time.Second).UTC().Format(time.RFC3339), Window: window.String()}
}

// Bounds returns the window's start and end.
func (p *PrometheusWindow) Bounds() (start, end time.Time, err error) {
	end, err = time.Parse(time.RFC3339, p.End)
	if err != nil {
		return start, end, fmt.Errorf("evidence: prometheus end %q: allowed is an RFC 3339 time", p.End)
	}
	d, err := time.ParseDuration(p.Window)
	if err != nil || d <= 0 {
		return start, end, fmt.Errorf("evidence: prometheus window %q: allowed is a duration above 0", p.Window)
	}
	return end.Add(-d), end, nil
}

// SampleMarker starts the first line of every file of samples doctor
// writes beside a quarantine plan: a comment, which the exposition
// format skips, that tells rocefab's file from anyone else's.
const SampleMarker = "# rocefab doctor --sample:"

// SampleFiles are the files beside the plan at plan that hold the two
// rounds of --sample, the first round's then the second's.
func SampleFiles(plan string) [2]string { return [2]string{plan + ".t0.prom", plan + ".t1.prom"} }

// CheckSampleFiles refuses to write the samples of the plan at plan
// over a file rocefab did not write: one that is there and does not
// start with SampleMarker may be anyone's.
func CheckSampleFiles(plan string) error {
	for _, path := range SampleFiles(plan) {
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		head := make([]byte, len(SampleMarker))
		_, rerr := io.ReadFull(f, head)
		f.Close()
		if rerr != nil || string(head) != SampleMarker {
			return fmt.Errorf("%s exists and rocefab did not write it (its first line is not %q): move it away or write the plan elsewhere", path, SampleMarker)
		}
	}
	return nil
}

// CreateSampleFile creates the file of round round (1 or 2) of the
// samples of the plan at plan, headed by SampleMarker; CheckSampleFiles
// says first whether it may.
func CreateSampleFile(plan string, round int) (*os.File, error) {
	path := SampleFiles(plan)[round-1]
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(f, "%s round %d of 2, for the quarantine plan %s\n", SampleMarker, round, filepath.Base(plan)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// FileDigest returns the SHA-256 of the file at path.
func FileDigest(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return digestOf(b), nil
}

// digestOf is the hex SHA-256 of b.
func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// readEvidence checks the evidence of a plan read from a file: a
// quarantine names one source of counters at most (apply refuses one
// with none, which it cannot diagnose again), known schedulers and a
// pause rate above 0, and no plan it releases; a release names the plan
// it releases by its digest.
func (q *Quarantine) readEvidence() error {
	if q.Kind == KindRelease {
		if q.Releases == nil || q.Releases.SHA256 == "" {
			return errors.New("quarantine plan: a release names the quarantine plan it releases (releases: its path and sha256)")
		}
		return nil
	}
	if q.Releases != nil {
		return errors.New("quarantine plan: releases: a quarantine releases no plan")
	}
	e := q.Evidence
	if len(e.Drain) == 0 {
		return errors.New("quarantine plan: evidence: drain names no scheduler: allowed are " + strings.Join(Schedulers, ", ") + ", as --drain gave them")
	}
	if e.sources() > 1 {
		return errors.New("quarantine plan: evidence: allowed is one source of counters (snapshots, prometheus or samples)")
	}
	if len(e.Samples) > 0 && len(e.Samples) != 2 {
		return fmt.Errorf("quarantine plan: evidence: %d sample files: allowed are 2, a round each", len(e.Samples))
	}
	for _, s := range e.Drain {
		if !slices.Contains(Schedulers, s) {
			return fmt.Errorf("quarantine plan: evidence: drain %q: allowed are %s", s, strings.Join(Schedulers, ", "))
		}
	}
	if e.PauseRate <= 0 {
		return fmt.Errorf("quarantine plan: evidence: pause_rate %g: allowed is a rate above 0", e.PauseRate)
	}
	return nil
}

// sources counts the sources of counters e names.
func (e PlanEvidence) sources() int {
	n := 0
	for _, given := range []bool{len(e.Snapshots) > 0, e.Prometheus != nil, len(e.Samples) > 0} {
		if given {
			n++
		}
	}
	return n
}

// PlanRef names the quarantine plan a release undoes: its path relative
// to the release plan's directory and its digest (its sha256 field).
type PlanRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ReadEvidenceFiles reads the files of counters at paths, oldest first,
// into a window, each checked against the digest the plan recorded
// (want, in the same order): a file that cannot be read, or whose
// content changed, is refused with its path and the digest expected.
// interval is the time between files whose samples carry no timestamp.
func ReadEvidenceFiles(paths, want []string, interval time.Duration) (*telemetry.Window, error) {
	w := telemetry.NewWindow()
	for i, path := range paths {
		got, err := ReadSnapshot(w, path, int64(i)*interval.Milliseconds(), true)
		switch {
		case got == "": // not opened
			return nil, fmt.Errorf("evidence %s (recorded with SHA-256 %s): %w", path, want[i], err)
		case got != want[i]:
			return nil, fmt.Errorf("evidence %s: its SHA-256 is %s, the plan recorded %s: the counters it was diagnosed from changed; diagnose again with rocefab doctor",
				path, got, want[i])
		case err != nil:
			return nil, fmt.Errorf("evidence %s: %w", path, err)
		}
	}
	return w, nil
}

// ReadSnapshot reads the file of counters at path into w, its samples
// without a timestamp stamped at (milliseconds), and, when hashed is set,
// returns the SHA-256 of the whole file, taken as it is read rather than
// by reading it whole first: hyperscale-100k's two snapshots are 1.6 GB,
// which the window never holds. Without hashed it returns "": hashing
// them is a second of CPU on the reading path. The digest is returned
// (when the file could be opened) even if its counters could not be read,
// so that a changed file is told from an unreadable one.
func ReadSnapshot(w *telemetry.Window, path string, at int64, hashed bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if !hashed {
		return "", w.Read(f, path, at)
	}
	h := sha256.New()
	err = w.Read(io.TeeReader(f, h), path, at)
	if _, cerr := io.Copy(h, f); err == nil {
		err = cerr // whatever the parser left unread is hashed too
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

// Rediagnose reads q's evidence again (the files, relative to dir, the
// plan file's directory, checked against their digests; or the
// Prometheus window, with client's credentials when the recorded URL
// carries none), diagnoses it on fab and refuses q, naming the first
// difference, unless the quarantine plan that diagnosis gives drains,
// cordons and shuts exactly what q does. prom, when set, is the URL the
// server is queried at (the recorded one with credentials): it must name
// the recorded server.
func (q *Quarantine) Rediagnose(ctx context.Context, dir string, fab *ir.Fabric, prom string) error {
	e := q.Evidence
	if e.sources() != 1 {
		return errors.New("the plan records no evidence (snapshots, prometheus or samples) to diagnose again: write it again with rocefab doctor")
	}
	if prom != "" && e.Prometheus == nil {
		return fmt.Errorf("--prometheus %s: the plan was diagnosed from files, not from a Prometheus server", StripCredentials(prom))
	}
	var w *telemetry.Window
	var err error
	files := func(fs []EvidenceFile, interval time.Duration) (*telemetry.Window, error) {
		paths, want := make([]string, len(fs)), make([]string, len(fs))
		for i, f := range fs {
			paths[i], want[i] = filepath.Join(dir, filepath.FromSlash(f.Path)), f.SHA256
		}
		return ReadEvidenceFiles(paths, want, interval)
	}
	switch {
	case e.Prometheus != nil:
		start, end, berr := e.Prometheus.Bounds()
		if berr != nil {
			return berr
		}
		u := e.Prometheus.URL
		if prom != "" {
			if StripCredentials(prom) != u {
				return fmt.Errorf("--prometheus %s: the plan was diagnosed from %s: allowed is that server's URL (with its credentials)", StripCredentials(prom), u)
			}
			u = prom
		}
		w = telemetry.NewWindow()
		if err = (telemetry.Prometheus{URL: u}).Read(ctx, w, start, end); err != nil {
			err = fmt.Errorf("evidence: %w", err)
		}
	case len(e.Samples) > 0:
		w, err = files(e.Samples, 0)
	default:
		var interval time.Duration
		if e.Interval != "" {
			if interval, err = time.ParseDuration(e.Interval); err != nil {
				return fmt.Errorf("evidence: interval %q: allowed is a Go duration (30s)", e.Interval)
			}
		}
		w, err = files(e.Snapshots, interval)
	}
	if err != nil {
		return err
	}
	opt := DefaultOptions()
	opt.PauseRate = e.PauseRate
	rep := NewModel(fab).Diagnose(w, opt)
	d, err := NewQuarantineIn(rep, q.Intent, q.Rocefab, q.Source, e.Drain)
	if err != nil {
		return fmt.Errorf("the diagnosis of its evidence: %w", err)
	}
	if err := q.Differs(d); err != nil {
		return fmt.Errorf("the diagnosis of its evidence (%s) does not give this plan: %w: the plan file was edited; write it again with rocefab doctor", q.Source, err)
	}
	return nil
}

// Differs names the first drain, Kubernetes node or shut where q and d
// differ, nil when they drain, cordon and shut the same.
func (q *Quarantine) Differs(d *Quarantine) error {
	for _, err := range []error{
		firstDifference("drain", q.Drains, d.Drains, func(x Drain) string {
			return fmt.Sprintf("%s %s at %s: servers %s", x.Kind, x.Cause, x.Origin, strings.Join(x.Nodes, ", "))
		}),
		firstDifference("Kubernetes node", q.Cordons, d.Cordons, func(x Cordon) string {
			return fmt.Sprintf("%s %s at %s: node %s (server %s)", x.Kind, x.Cause, x.Origin, x.Node, x.Server)
		}),
		firstDifference("shut", q.Shuts, d.Shuts, func(x Shut) string {
			return fmt.Sprintf("%s %s at %s: port %s %s", x.Kind, x.Cause, x.Origin, x.Port, x.Admin)
		}),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// firstDifference compares the plan's steps with the expected ones, whole
// (as JSON, every field), and names the first that differs with show.
func firstDifference[T any](what string, plan, want []T, show func(T) string) error {
	for i := range max(len(plan), len(want)) {
		p, w := "nothing", "nothing"
		var pj, wj []byte
		if i < len(plan) {
			p = show(plan[i])
			pj, _ = json.Marshal(plan[i]) // strings, bools and slices of them
		}
		if i < len(want) {
			w = show(want[i])
			wj, _ = json.Marshal(want[i])
		}
		if !bytes.Equal(pj, wj) {
			if p == w {
				// They differ in a field show leaves out (a peer, a
				// reason, a command): the whole steps say which.
				p, w = string(pj), string(wj)
			}
			return fmt.Errorf("%s %d: the plan has %s where %s is expected", what, i+1, p, w)
		}
	}
	return nil
}
