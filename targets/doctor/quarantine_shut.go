package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

// A quarantine shuts the switch end of a faulty cable: apply reads the
// port's administrative state, pushes the platform's statement for that
// one interface (renderers.PortAdmin) as a commit the device takes back
// by itself unless confirmed, reads the port back, and confirms the
// commit only when the port is down; otherwise it rolls the commit back.
// The state read before the shut is recorded (ShutRecord), so that the
// release brings up exactly the ports the quarantine shut, and a port
// that was down already stays down.

// readShuts checks the shuts of a plan read from a file: each names a
// switch port once, with the state its kind sets.
func (q *Quarantine) readShuts() error {
	want := renderers.AdminDown
	if q.Kind == KindRelease {
		want = renderers.AdminUp
	}
	seen := map[Endpoint]bool{}
	for i, s := range q.Shuts {
		switch {
		case s.Port.Device == "" || s.Port.Port == "":
			return fmt.Errorf("quarantine plan: shut %d (%s at %s) names no switch port", i+1, s.Cause, s.Origin)
		case s.Admin != want:
			return fmt.Errorf("quarantine plan: shut %d: admin %q: a %s plan sets ports %s", i+1, s.Admin, q.Kind, want)
		case seen[s.Port]:
			return fmt.Errorf("quarantine plan: shut %d: port %s is shut twice", i+1, s.Port)
		}
		seen[s.Port] = true
	}
	return nil
}

// checkShuts refuses every shut whose port is not the switch end of its
// finding's cable in fab: the port must be one of a switch's, be the
// finding's origin or the other end of its cable, and be cabled to that
// other end in the model.
func (q *Quarantine) checkShuts(fab *ir.Fabric) []error {
	devs := make(map[string]*ir.Device, len(fab.Devices))
	for _, d := range fab.Devices {
		devs[d.Name] = d
	}
	var errs []error
	for i, s := range q.Shuts {
		d := devs[s.Port.Device]
		if d == nil || d.Switch == nil {
			errs = append(errs, fmt.Errorf("shut %d: %s is not a switch of fabric %s", i+1, s.Port.Device, fab.Name))
			continue
		}
		at := slices.IndexFunc(d.Switch.Ports, func(p ir.Port) bool { return p.Name == s.Port.Port })
		if at < 0 {
			errs = append(errs, fmt.Errorf("shut %d: %s has no port %s", i+1, s.Port.Device, s.Port.Port))
			continue
		}
		other := s.Peer
		switch {
		case s.Port == s.Origin:
		case s.Peer != nil && s.Port == *s.Peer:
			other = &s.Origin
		default:
			errs = append(errs, fmt.Errorf("shut %d: port %s is neither the origin %s of the finding nor the other end of its cable", i+1, s.Port, s.Origin))
			continue
		}
		p := d.Switch.Ports[at]
		if other != nil && (p.Peer != other.Device || (other.Port != "" && p.PeerPort != other.Port)) {
			errs = append(errs, fmt.Errorf("shut %d: port %s is cabled to %s in the model, not to %s: not the cable of the finding", i+1, s.Port, Endpoint{Device: p.Peer, Port: p.PeerPort}, other))
		}
	}
	return errs
}

// Switches returns the names of the switches whose ports the plan sets,
// sorted.
func (q *Quarantine) Switches() []string {
	var out []string
	for _, s := range q.Shuts {
		out = append(out, s.Port.Device)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ShutRecord is what applying a quarantine plan found and did on each
// port it shuts: the administrative state read before, and whether the
// quarantine shut it. It is kept beside the plan (the plan file itself is
// bound by its digest), and the release plan is made from it.
type ShutRecord struct {
	// Quarantine is the digest of the quarantine plan applied.
	Quarantine string       `json:"quarantine_sha256"`
	Ports      []PortRecord `json:"ports"`
}

// PortRecord is one port of a ShutRecord.
type PortRecord struct {
	Port Endpoint `json:"port"`
	// Before is the administrative state read before the first shut.
	Before renderers.AdminState `json:"before"`
	// Shut says that the quarantine set the port down (and confirmed it).
	Shut bool `json:"shut"`
}

// shut reports whether the record says the quarantine shut port, which
// was up before: the ports a release brings up.
func (r *ShutRecord) shut(port Endpoint) bool {
	if r == nil {
		return false
	}
	for _, p := range r.Ports {
		if p.Port == port {
			return p.Shut && p.Before == renderers.AdminUp
		}
	}
	return false
}

// Record adds what an apply of quarantine plan q did (outcomes) to rec,
// the record of earlier applies of q (nil for none): a port's first
// record stands once it says the quarantine shut the port, so that
// applying the plan again, which finds the port down, never makes the
// release leave it down.
func Record(rec *ShutRecord, q *Quarantine, outcomes []PortOutcome) *ShutRecord {
	out := &ShutRecord{Quarantine: q.SHA256, Ports: []PortRecord{}}
	if rec != nil && rec.Quarantine == q.SHA256 {
		out.Ports = append(out.Ports, rec.Ports...)
	}
	for _, o := range outcomes {
		if o.Before == "" {
			continue // never read: nothing known, nothing done
		}
		pr := PortRecord{Port: o.Port, Before: o.Before, Shut: o.State == targets.Applied}
		i := slices.IndexFunc(out.Ports, func(p PortRecord) bool { return p.Port == o.Port })
		switch {
		case i < 0:
			out.Ports = append(out.Ports, pr)
		case !out.Ports[i].Shut:
			out.Ports[i] = pr
		}
	}
	return out
}

// Write writes r as indented JSON.
func (r *ShutRecord) Write(w io.Writer) error { return writeIndented(w, r) }

// ReadShutRecord reads the record of the quarantine plan q: an error when
// it is the record of another plan.
func ReadShutRecord(b []byte, q *Quarantine) (*ShutRecord, error) {
	var r ShutRecord
	if err := readRecord(b, "shut record", &r, &r.Quarantine, q); err != nil {
		return nil, err
	}
	return &r, nil
}

// readRecord decodes the record of what applying q did into v (what
// names it in errors), refusing unknown fields, and refuses it when the
// digest it records (*recorded, a field of v) is not q's: the record of
// another plan.
func readRecord(b []byte, what string, v any, recorded *string, q *Quarantine) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if *recorded != q.SHA256 {
		return fmt.Errorf("%s: it records the quarantine plan %s, not this one (%s)", what, *recorded, q.SHA256)
	}
	return nil
}

// Ports is how apply reaches the switches whose ports a plan sets: the
// route's target and platforms (targets/routing), as a device apply
// reaches them.
type Ports struct {
	Target    targets.Target
	Platforms targets.Platforms
	Fabric    *ir.Fabric
	// LockPath is the fabric lock, taken when the target has no lock of
	// its own, so that no device apply runs meanwhile.
	LockPath string
	// ConfirmTimeout is how long a pushed commit waits for its
	// confirmation before the device rolls it back; Timeout bounds each
	// read, push, confirm or rollback.
	ConfirmTimeout, Timeout time.Duration
	// Event, when set, is told each port's outcome as it is known.
	Event func(PortOutcome)
}

// The durations SetPorts takes when Ports gives none: apply's defaults
// (--timeout, --confirm-timeout).
const (
	defaultStepTimeout    = 2 * time.Minute
	defaultConfirmTimeout = 5 * time.Minute
)

// PortOutcome is what apply did to one port.
type PortOutcome struct {
	Port Endpoint `json:"port"`
	// Admin is the state the plan sets.
	Admin renderers.AdminState `json:"admin"`
	// Before is the state read before anything was pushed ("" when it
	// could not be read).
	Before renderers.AdminState `json:"before,omitempty"`
	// State is applied (set and confirmed), unchanged (it was so
	// already), rolled-back, unknown or untouched.
	State  targets.State `json:"state"`
	Reason string        `json:"reason,omitempty"`
}

// UntouchedPorts returns the outcome of every port of q before anything
// is done: untouched.
func (q *Quarantine) UntouchedPorts() []PortOutcome {
	out := make([]PortOutcome, len(q.Shuts))
	for i, s := range q.Shuts {
		out[i] = PortOutcome{Port: s.Port, Admin: s.Admin, State: targets.Untouched}
	}
	return out
}

// SetPorts sets every port of q to its state, one after the other, each
// with commit-confirm, and stops at the first that is not applied or
// unchanged: the ports after it are untouched. The error says where it
// stopped; the outcomes list every port.
func (q *Quarantine) SetPorts(ctx context.Context, r Ports) ([]PortOutcome, error) {
	devs := make(map[string]*ir.Device, len(r.Fabric.Devices))
	for _, d := range r.Fabric.Devices {
		devs[d.Name] = d
	}
	out := q.UntouchedPorts()
	if len(q.Shuts) == 0 {
		return out, nil
	}
	// A zero duration would time out every step at once: the defaults
	// are apply's.
	if r.Timeout <= 0 {
		r.Timeout = defaultStepTimeout
	}
	if r.ConfirmTimeout <= 0 {
		r.ConfirmTimeout = defaultConfirmTimeout
	}
	var locked []*ir.Device
	for _, name := range q.Switches() {
		if d := devs[name]; d != nil {
			locked = append(locked, d)
		}
	}
	release, err := lockPorts(ctx, r, locked)
	if err != nil {
		for i := range out {
			out[i].Reason = "the fabric lock: " + err.Error()
		}
		return out, fmt.Errorf("no port was set: %w", err)
	}
	defer release()
	for i, s := range q.Shuts {
		out[i] = r.set(ctx, devs[s.Port.Device], s)
		if r.Event != nil {
			r.Event(out[i])
		}
		if st := out[i].State; st != targets.Applied && st != targets.Unchanged {
			for j := i + 1; j < len(out); j++ {
				out[j].Reason = fmt.Sprintf("not reached: apply stopped at %s", s.Port)
			}
			return out, fmt.Errorf("stopped at port %d of %d, %s: %s: %s", i+1, len(out), s.Port, st, out[i].Reason)
		}
	}
	return out, nil
}

// lockPorts takes the fabric lock for devs: the target's own, else the
// lock file.
func lockPorts(ctx context.Context, r Ports, devs []*ir.Device) (func() error, error) {
	if l, ok := r.Target.(targets.Locker); ok {
		return l.Lock(ctx, devs)
	}
	if r.LockPath != "" {
		return targets.LockFile(r.LockPath)
	}
	return func() error { return nil }, nil
}

// set sets one port: read, push with commit-confirm, read back, confirm,
// or roll back and read back.
func (r Ports) set(ctx context.Context, d *ir.Device, s Shut) PortOutcome {
	o := PortOutcome{Port: s.Port, Admin: s.Admin, State: targets.Untouched}
	fail := func(format string, args ...any) PortOutcome {
		o.Reason = fmt.Sprintf(format, args...)
		return o
	}
	if d == nil {
		return fail("%s is not a device of the fabric", s.Port.Device)
	}
	p, err := r.Platforms(d)
	if err != nil {
		return fail("%v", err)
	}
	pa, ok := p.(renderers.PortAdmin)
	if !ok {
		return fail("rocefab cannot set a port's administrative state on %s as its transport reaches it", d.Platform)
	}
	conf, ok := r.Target.(targets.Confirmer)
	if !ok {
		return fail("its target has no commit-confirm")
	}
	read := func(ctx context.Context) (renderers.AdminState, error) {
		c, cancel := context.WithTimeout(ctx, r.Timeout)
		defer cancel()
		arts, err := r.Target.Read(c, d)
		if err != nil {
			return "", err
		}
		return pa.AdminState(d, arts, s.Port.Port)
	}
	before, err := read(ctx)
	if err != nil {
		return fail("reading its state: %v", err)
	}
	o.Before = before
	switch {
	case before == s.Admin:
		o.State = targets.Unchanged
		return fail("administratively %s already", before)
	case s.Admin == renderers.AdminUp && before != renderers.AdminDown:
		return fail("its state is %s: a release brings up only a port it reads down", before)
	}
	rem, err := pa.AdminRemediation(d, s.Port.Port, s.Admin == renderers.AdminUp)
	if err != nil {
		return fail("%v", err)
	}
	c, cancel := context.WithTimeout(ctx, r.Timeout)
	err = conf.PushConfirmed(c, d, rem, r.ConfirmTimeout)
	cancel()
	if err != nil {
		return r.undo(ctx, d, o, read, fmt.Sprintf("the push failed: %v", err))
	}
	after, err := read(ctx)
	switch {
	case err != nil:
		return r.undo(ctx, d, o, read, fmt.Sprintf("reading it back: %v", err))
	case after != s.Admin:
		return r.undo(ctx, d, o, read, fmt.Sprintf("read back %s after the push, not %s", after, s.Admin))
	}
	c, cancel = context.WithTimeout(ctx, r.Timeout)
	err = conf.Confirm(c, d)
	cancel()
	if err != nil {
		return r.undo(ctx, d, o, read, fmt.Sprintf("the confirmation failed: %v", err))
	}
	o.State = targets.Applied
	return o
}

// undo rolls back the port's pending commit after why and reads the port
// back: rolled-back when it is as it was, unknown otherwise. It runs even
// when ctx was cancelled (Ctrl-C): a commit is never left half done on
// purpose.
func (r Ports) undo(ctx context.Context, d *ir.Device, o PortOutcome, read func(context.Context) (renderers.AdminState, error), why string) PortOutcome {
	ctx = context.WithoutCancel(ctx)
	var rbErr error
	if rb, ok := r.Target.(targets.RollBacker); ok {
		c, cancel := context.WithTimeout(ctx, r.Timeout)
		rbErr = rb.Rollback(c, d)
		cancel()
	}
	now, err := read(ctx)
	var putBack *targets.PutBackError
	switch {
	case err != nil:
		o.State, o.Reason = targets.Unknown, fmt.Sprintf("%s; reading it back after the rollback: %v", why, err)
	case now != o.Before || errors.As(rbErr, &putBack):
		o.State, o.Reason = targets.Unknown, fmt.Sprintf("%s; it reads %s after the rollback, %s before", why, now, o.Before)
	default:
		o.State, o.Reason = targets.RolledBack, why
	}
	if rbErr != nil && o.State != targets.RolledBack {
		o.Reason += "; the rollback: " + strings.TrimSpace(rbErr.Error())
	}
	return o
}
