package targets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// State is what apply left a device in.
type State string

// The states a report gives every device.
const (
	// Applied: the device took its changes, converged and (where the
	// target has commit-confirm) its commit is confirmed.
	Applied State = "applied"
	// RolledBack: the device was pushed to and then returned to its
	// running configuration of before the apply, checked by reading it
	// back.
	RolledBack State = "rolled-back"
	// Untouched: nothing was pushed to the device.
	Untouched State = "untouched"
	// Unknown: the device may hold part of its changes; the reason says
	// what is known.
	Unknown State = "unknown"
	// Unchanged: the plan had nothing to change on the device.
	Unchanged State = "unchanged"
)

// Outcome is one device's state after an apply.
type Outcome struct {
	Device string `json:"device"`
	// Wave is the device's wave, counted from 1; 0 for a device in none.
	Wave   int    `json:"wave,omitempty"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// Report is what an apply did, device by device.
type Report struct {
	// Waves is the number of waves the rollout was cut into; Completed
	// how many of them were applied and confirmed.
	Waves     int `json:"waves"`
	Completed int `json:"completed_waves"`
	// Failed is set when the rollout stopped on a failure; Interrupted
	// when it stopped because it was asked to.
	Failed      bool   `json:"failed"`
	Interrupted bool   `json:"interrupted"`
	Reason      string `json:"reason,omitempty"`
	// Notes are what the target says it did otherwise than asked
	// (Noter), once each.
	Notes []string `json:"notes,omitempty"`
	// Devices holds every device of the plan: those of the waves in
	// rollout order, then the others by name.
	Devices []Outcome `json:"devices"`
	// Settled are the commits an earlier apply left unconfirmed, and what
	// was done with each before this one planned (Settle).
	Settled []Settled `json:"settled,omitempty"`
	// DeviceDiffs are what the devices printed as their own diff of their
	// pushes (Differ), by device.
	DeviceDiffs map[string]string `json:"device_diffs,omitempty"`
}

// Counts returns the number of devices in each state.
func (r *Report) Counts() map[State]int {
	out := map[State]int{}
	for _, d := range r.Devices {
		out[d.State]++
	}
	return out
}

// Step names an event of a rollout.
type Step string

// The steps a rollout reports.
const (
	StepWave       Step = "wave"      // a wave starts (Device is "")
	StepPush       Step = "push"      // a push starts
	StepPushed     Step = "pushed"    // the device took the push
	StepFailed     Step = "failed"    // a push, read or confirm failed
	StepConverged  Step = "converged" // the re-read device matches its desired state
	StepDiverged   Step = "diverged"  // the re-read device does not
	StepConfirmed  Step = "confirmed" // the device's commit is confirmed (or, without commit-confirm, final)
	StepRollback   Step = "rolling-back"
	StepRolledBack Step = "rolled-back"
	StepUnknown    Step = "unknown"
)

// Event is one step of a rollout, for progress output.
type Event struct {
	Wave, Waves int
	Device      string
	Step        Step
	Detail      string
}

// Rollout is what Apply needs.
type Rollout struct {
	Plan *Plan
	// Devices are the compiled devices of the plan's intent; every device
	// the plan changes must be among them.
	Devices   []*ir.Device
	Target    Target
	Platforms Platforms
	// Canary is the number of devices of the first wave; Wave the size of
	// each later one (all devices of a tier when zero).
	Canary int
	Wave   Size
	// Parallelism bounds the devices read or pushed at once.
	Parallelism int
	// ConfirmTimeout is the commit timer of a target with commit-confirm:
	// a device not confirmed within it rolls back by itself (default 5m).
	ConfirmTimeout time.Duration
	// Timeout bounds each read, push, confirm and rollback (default 2m).
	Timeout time.Duration
	// LapseGrace is how long past its commit timer a device may take to
	// show that it rolled back by itself (default 30s).
	LapseGrace time.Duration
	// LockPath is the fabric lock file taken when the target is no Locker
	// ("" for none).
	LockPath string
	// Event, when set, is told every step; calls never overlap.
	Event func(Event)
}

// StaleError refuses a plan that no longer describes the devices.
type StaleError struct {
	Devices []StaleDevice
}

// StaleDevice is a device whose running configuration is not what the
// plan was made against: the files that changed, or why it could not be
// read.
type StaleDevice struct {
	Device  string   `json:"device"`
	Changed []string `json:"changed,omitempty"`
	Err     string   `json:"error,omitempty"`
}

func (e *StaleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the plan is stale: %s no longer run what it was made against; nothing was pushed, make a new plan:",
		count(len(e.Devices), "device", "devices"))
	for _, d := range e.Devices {
		if d.Err != "" {
			fmt.Fprintf(&b, "\n  %s: cannot read it: %s", d.Device, d.Err)
		} else {
			fmt.Fprintf(&b, "\n  %s: %s", d.Device, strings.Join(d.Changed, ", "))
		}
	}
	return b.String()
}

// item is one device of the rollout.
type item struct {
	plan DevicePlan
	d    *ir.Device
	p    renderers.Platform
	// before is the parsed running state before the apply, kept for
	// its wave where the target cannot roll back.
	before   renderers.State
	wave     int
	pushed   bool      // a push was started
	refused  bool      // the push returned an error
	deadline time.Time // when an unconfirmed commit rolls back by itself
	err      error     // why it failed
	state    State
	reason   string
}

// rollout is one Apply in progress.
type rollout struct {
	Rollout
	waves int
	mu    sync.Mutex
}

// Apply carries out a plan: it takes the fabric lock, re-reads every
// device the plan read and refuses the plan (a *StaleError, nothing pushed)
// when any changed within the owned scope, and (a *TamperedError, nothing
// pushed) when what it would push to any device, or the desired state the
// plan records for it, is not what the platform computes from the intent
// and that running configuration; then it pushes wave after wave (Waves).
// In each wave it pushes every device (with commit-confirm where the
// target has it), re-reads each one and checks it converged to the
// desired state the plan recorded for it, and then confirms. On the
// first failure it rolls the wave back (at once where the target can,
// else by letting the commit timer lapse, else by pushing the inverse
// change), checks each device by reading it back, and leaves the later
// waves untouched.
//
// When ctx is cancelled Apply starts no new push. A wave whose pushes all
// started is finished (gated, then confirmed or rolled back); a wave cut
// short is rolled back. Rollbacks and confirmations are not cut short by
// ctx. The report gives every device of the plan its state. The error is
// for an apply that pushed nothing: a refused lock, a stale plan, a plan
// that does not fit the devices.
func Apply(ctx context.Context, r Rollout) (*Report, error) {
	ro := &rollout{Rollout: r}
	if ro.ConfirmTimeout <= 0 {
		ro.ConfirmTimeout = 5 * time.Minute
	}
	if ro.Timeout <= 0 {
		ro.Timeout = 2 * time.Minute
	}
	if ro.LapseGrace <= 0 {
		ro.LapseGrace = 30 * time.Second
	}
	items, err := ro.items()
	if err != nil {
		return nil, err
	}
	release, err := ro.lock(ctx, items)
	if err != nil {
		return nil, err
	}
	rep, err := ro.run(ctx, items)
	if n, ok := ro.Target.(Noter); ok && rep != nil {
		rep.Notes = n.Notes()
	}
	if d, ok := ro.Target.(Differ); ok && rep != nil {
		rep.DeviceDiffs = d.DeviceDiffs()
	}
	if rerr := release(); rerr != nil {
		if rep == nil {
			return nil, errors.Join(err, rerr)
		}
		rep.Reason = strings.TrimPrefix(rep.Reason+"; "+rerr.Error(), "; ")
	}
	return rep, err
}

// items pairs each device the plan changes with its compiled device and
// platform.
func (ro *rollout) items() (map[string]*item, error) {
	byName := make(map[string]*ir.Device, len(ro.Devices))
	for _, d := range ro.Devices {
		byName[d.Name] = d
	}
	items := map[string]*item{}
	for _, dp := range ro.Plan.Devices {
		if !dp.Action.Changes() {
			continue
		}
		d := byName[dp.Device]
		if d == nil {
			return nil, fmt.Errorf("the plan changes %s, which the intent does not have: the plan was made from another intent", dp.Device)
		}
		p, err := Lookup(ro.Platforms, d, "no platform models it")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dp.Device, err)
		}
		items[dp.Device] = &item{plan: dp, d: d, p: p, state: Untouched}
	}
	return items, nil
}

// lock takes the fabric lock: the target's own, else the lock file.
func (ro *rollout) lock(ctx context.Context, items map[string]*item) (func() error, error) {
	devs := make([]*ir.Device, 0, len(items))
	for _, it := range items {
		devs = append(devs, it.d)
	}
	slices.SortFunc(devs, func(a, b *ir.Device) int { return strings.Compare(a.Name, b.Name) })
	return ro.lockDevices(ctx, devs)
}

// lockDevices takes the fabric lock for devs (sorted by name): the
// target's own, else the lock file.
func (ro *rollout) lockDevices(ctx context.Context, devs []*ir.Device) (func() error, error) {
	if l, ok := ro.Target.(Locker); ok {
		return l.Lock(ctx, devs)
	}
	if ro.LockPath != "" {
		return LockFile(ro.LockPath)
	}
	return func() error { return nil }, nil
}

// run checks the plan is current and rolls it out.
func (ro *rollout) run(ctx context.Context, items map[string]*item) (*Report, error) {
	if err := ro.checkPending(ctx); err != nil {
		return nil, err
	}
	if err := ro.checkCurrent(ctx, items); err != nil {
		return nil, err
	}
	waves := Waves(ro.Plan, ro.Canary, ro.Wave)
	ro.waves = len(waves)
	rep := &Report{Waves: len(waves)}
	var order []*item
	for k, w := range waves {
		for _, dp := range w {
			it := items[dp.Device]
			it.wave = k + 1
			order = append(order, it)
		}
	}
	for k, w := range waves {
		if ctx.Err() != nil {
			rep.Interrupted = true
			rep.Reason = fmt.Sprintf("interrupted before wave %d of %d", k+1, len(waves))
			break
		}
		wave := make([]*item, len(w))
		for i, dp := range w {
			wave[i] = items[dp.Device]
		}
		if why := ro.wave(ctx, k+1, wave); why != "" {
			rep.Failed = ctx.Err() == nil
			rep.Interrupted = ctx.Err() != nil
			rep.Reason = fmt.Sprintf("wave %d of %d: %s", k+1, len(waves), why)
			break
		}
		rep.Completed++
	}
	if rep.Reason != "" {
		for _, it := range order {
			if !it.pushed && it.reason == "" {
				it.reason = "not pushed: the rollout stopped (" + rep.Reason + ")"
			}
		}
	}
	for _, it := range order {
		rep.Devices = append(rep.Devices, Outcome{Device: it.plan.Device, Wave: it.wave, State: it.state, Reason: it.reason})
	}
	var rest []Outcome
	for _, dp := range ro.Plan.Devices {
		if items[dp.Device] != nil {
			continue
		}
		o := Outcome{Device: dp.Device, State: Untouched, Reason: string(dp.Action)}
		switch dp.Action {
		case NoOp:
			o.State, o.Reason = Unchanged, ""
		case Unreachable, Unsupported, Failed:
			o.Reason = fmt.Sprintf("%s when planned: %s", dp.Action, dp.Reason)
		}
		rest = append(rest, o)
	}
	slices.SortFunc(rest, func(a, b Outcome) int { return strings.Compare(a.Device, b.Device) })
	rep.Devices = append(rep.Devices, rest...)
	return rep, nil
}

// checkCurrent re-reads every device the plan read and refuses the plan
// when what any runs within the owned scope differs now (OwnedDigest; a
// *StaleError naming the paths, found with the desired state the plan
// recorded), or (a *TamperedError) when the desired state the plan
// records for a device, or what the plan pushes to it, is not what its
// platform computes from the intent and that running configuration. This
// is where an apply computes desired states; the waves use the recorded
// ones.
func (ro *rollout) checkCurrent(ctx context.Context, items map[string]*item) error {
	var read []DevicePlan
	for _, dp := range ro.Plan.Devices {
		if dp.Running != nil {
			read = append(read, dp)
		}
	}
	byName := make(map[string]*ir.Device, len(ro.Devices))
	for _, d := range ro.Devices {
		byName[d.Name] = d
	}
	stale := make([]*StaleDevice, len(read))
	tampered := make([]*TamperedDevice, len(read))
	done := forEach(ctx, len(read), ro.Parallelism, func(i int) {
		// The device's changes, remediation and recorded desired state
		// whole, while it is checked: one device at a time, for a plan
		// that shares them.
		dp := read[i]
		cs, prem, err := dp.Body()
		var want []renderers.Element
		if err == nil {
			want, err = dp.DesiredState()
		}
		if err == nil && want == nil && (dp.Action.Changes() || dp.Action == NoOp) {
			err = errors.New("the plan records no desired state for it")
		}
		if err != nil {
			tampered[i] = &TamperedDevice{Device: dp.Device, What: err.Error()}
			return
		}
		dp.Changes, dp.Remediation, dp.Shared = cs, prem, nil
		d := byName[dp.Device]
		if d == nil {
			// A device the plan only read and the intent no longer has:
			// the intent check before Apply refuses this; nothing of it
			// is pushed here either way.
			return
		}
		running, err := ro.read(ctx, d)
		if err != nil {
			stale[i] = &StaleDevice{Device: dp.Device, Err: err.Error()}
			return
		}
		it := items[dp.Device]
		p := renderers.Platform(nil)
		if it != nil {
			p = it.p
		} else if ro.Platforms != nil {
			p, _ = ro.Platforms(d)
		}
		if p == nil {
			return // planned without a platform: nothing of it is pushed
		}
		have, err := safeParse(p, d, running)
		if err != nil {
			stale[i] = &StaleDevice{Device: dp.Device, Err: err.Error()}
			return
		}
		if OwnedDigest(have).SHA256 != dp.Running.SHA256 {
			// The recorded desired state names the paths that changed.
			stale[i] = &StaleDevice{Device: dp.Device, Changed: staleness(dp, want, have)}
			return
		}
		if want == nil {
			return // planned failed: nothing of it is pushed
		}
		// The one computation of the device's desired state in an
		// apply: the intent must still give exactly what the plan
		// recorded, which the gate then holds the device to, and the
		// changes and remediation the plan pushes. The states are
		// dropped once checked: the wave reads the device again (ready)
		// and rebuilds its recorded state (converged), so that an apply
		// holds one wave's at a time.
		desired, err := safeDesired(p, d)
		if err != nil {
			stale[i] = &StaleDevice{Device: dp.Device, Err: fmt.Sprintf("computing its desired state: %v", err)}
			return
		}
		if tampered[i] = sameDesired(dp.Device, want, desired.Elements()); tampered[i] != nil || it == nil {
			return // read, and nothing to push
		}
		changes, rem, err := safeDiff(it.p, d, have, desired)
		if err != nil {
			stale[i] = &StaleDevice{Device: dp.Device, Err: err.Error()}
			return
		}
		tampered[i] = verify(dp, len(running) == 0, changes, rem)
		if tampered[i] == nil {
			tampered[i] = checkScope(it, dp)
		}
	})
	if !done {
		return fmt.Errorf("interrupted while checking the plan against the devices: nothing was pushed")
	}
	var e StaleError
	for _, s := range stale {
		if s != nil {
			e.Devices = append(e.Devices, *s)
		}
	}
	var te TamperedError
	for _, t := range tampered {
		if t != nil {
			te.Devices = append(te.Devices, *t)
		}
	}
	var errs []error
	if len(e.Devices) > 0 {
		slices.SortFunc(e.Devices, func(a, b StaleDevice) int { return strings.Compare(a.Device, b.Device) })
		errs = append(errs, &e)
	}
	if len(te.Devices) > 0 {
		slices.SortFunc(te.Devices, func(a, b TamperedDevice) int { return strings.Compare(a.Device, b.Device) })
		errs = append(errs, &te)
	}
	return errors.Join(errs...)
}

// wave pushes, gates and confirms one wave; it returns why the wave
// failed ("" when it was applied).
func (ro *rollout) wave(ctx context.Context, k int, wave []*item) string {
	ro.emit(Event{Wave: k, Step: StepWave, Detail: count(len(wave), "device", "devices")})
	confirmer, _ := ro.Target.(Confirmer)
	defer func() {
		for _, it := range wave {
			it.before = nil
		}
	}()
	all := forEach(ctx, len(wave), ro.Parallelism, func(i int) {
		it := wave[i]
		rem, err := ro.ready(ctx, it)
		if err != nil {
			it.err = fmt.Errorf("not pushed: %w", err)
			ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepFailed, Detail: it.err.Error()})
			return
		}
		it.pushed = true
		ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepPush, Detail: string(it.plan.Disruption)})
		c, cancel := ro.op(ctx)
		defer cancel()
		if confirmer != nil {
			it.deadline = time.Now().Add(ro.ConfirmTimeout)
			err = deviceCall(it.d, func() error { return confirmer.PushConfirmed(c, it.d, rem, ro.ConfirmTimeout) })
		} else {
			err = deviceCall(it.d, func() error { return ro.Target.Push(c, it.d, rem) })
		}
		if err != nil {
			it.refused = true
			it.err = fmt.Errorf("push failed: %w", err)
			ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepFailed, Detail: it.err.Error()})
			return
		}
		ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepPushed})
	})
	why := ro.failures(wave)
	if !all {
		why = strings.TrimPrefix(why+"; interrupted before every device of the wave was pushed", "; ")
	}
	if why == "" {
		// The gate: every device must read back as its desired state.
		forEach(context.WithoutCancel(ctx), len(wave), ro.Parallelism, func(i int) {
			it := wave[i]
			if err := ro.converged(ctx, it); err != nil {
				it.err = err
				ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepDiverged, Detail: err.Error()})
				return
			}
			ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepConverged})
		})
		why = ro.failures(wave)
	}
	if why != "" {
		ro.rollbackWave(ctx, k, wave, why)
		return why
	}
	forEach(context.WithoutCancel(ctx), len(wave), ro.Parallelism, func(i int) {
		it := wave[i]
		if confirmer != nil {
			c, cancel := ro.op(ctx)
			defer cancel()
			if err := deviceCall(it.d, func() error { return confirmer.Confirm(c, it.d) }); err != nil {
				it.err = fmt.Errorf("commit not confirmed: %w", err)
				ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepFailed, Detail: it.err.Error()})
				ro.rollback(ctx, k, it, it.err.Error())
				return
			}
		}
		it.state, it.reason = Applied, ""
		ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepConfirmed})
	})
	return ro.failures(wave)
}

// ready reads a device of the wave again just before its push, and keeps
// the state a reverse push would return it to (for a target that cannot
// roll back; the wave drops it once settled). It returns the remediation
// to push, and an error when the device runs other than what the plan
// was checked against.
func (ro *rollout) ready(ctx context.Context, it *item) (renderers.Remediation, error) {
	_, prem, err := it.plan.Body()
	if err == nil && prem == nil {
		err = errors.New("the plan has no remediation")
	}
	if err != nil {
		return renderers.Remediation{}, err
	}
	running, err := ro.read(ctx, it.d)
	if err != nil {
		return renderers.Remediation{}, fmt.Errorf("cannot read it: %w", err)
	}
	have, err := safeParse(it.p, it.d, running)
	if err != nil {
		return renderers.Remediation{}, fmt.Errorf("cannot parse it: %w", err)
	}
	if it.plan.Running != nil && OwnedDigest(have).SHA256 != it.plan.Running.SHA256 {
		// The plan's recorded desired state names what changed, as for
		// a device found stale before the first wave.
		what := []string{"what it runs within rocefab's scope changed"}
		if cs, _, err := it.plan.Body(); err == nil {
			if want, err := it.plan.DesiredState(); err == nil {
				dp := it.plan
				dp.Changes = cs
				what = staleness(dp, want, have)
			}
		}
		return renderers.Remediation{}, fmt.Errorf("it changed since the plan was checked against it: %s", strings.Join(what, ", "))
	}
	// Only a target that cannot roll back needs the state of before to
	// reverse a push; the others are checked against the plan's digest
	// of it (restored).
	if _, ok := ro.Target.(RollBacker); !ok {
		it.before = have
	}
	return prem.Remediation(), nil
}

// failures sums up why devices of a wave failed, "" when none did.
func (ro *rollout) failures(wave []*item) string {
	var failed []*item
	for _, it := range wave {
		if it.err != nil {
			failed = append(failed, it)
		}
	}
	switch len(failed) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s: %v", failed[0].d.Name, failed[0].err)
	}
	return fmt.Sprintf("%d devices failed, the first %s: %v", len(failed), failed[0].d.Name, failed[0].err)
}

// rollbackWave rolls back every device of the wave that was pushed; the
// others stay untouched.
func (ro *rollout) rollbackWave(ctx context.Context, k int, wave []*item, why string) {
	forEach(context.WithoutCancel(ctx), len(wave), ro.Parallelism, func(i int) {
		it := wave[i]
		if !it.pushed {
			it.reason = "not pushed: " + why
			return
		}
		reason := why
		if it.err != nil {
			reason = it.err.Error()
		} else {
			reason = "its wave failed (" + why + ")"
		}
		ro.rollback(ctx, k, it, reason)
	})
}

// rollback returns one pushed device to its running state of before the
// apply and says, after reading it back, whether it is.
func (ro *rollout) rollback(ctx context.Context, k int, it *item, why string) {
	ro.emit(Event{Wave: k, Device: it.d.Name, Step: StepRollback, Detail: why})
	// A push the device refused may have left nothing to undo; undoing
	// anyway could roll back an earlier commit that is not ours.
	if it.refused {
		err := ro.restored(ctx, it)
		if _, ok := errors.AsType[*PutBackError](it.err); ok {
			// The target could not take its own push back: that is not
			// a rollback, whatever a read of the device shows.
			what := "it reads as it did before the apply, which need not be all the push changed"
			if err != nil {
				what = err.Error()
			}
			ro.settle(k, it, Unknown, why+"; "+what)
			return
		}
		if err == nil {
			ro.settle(k, it, RolledBack, why+"; it runs what it ran before the apply")
			return
		}
	}
	var how string
	var undoErr error
	rb, canRollback := ro.Target.(RollBacker)
	if canRollback {
		c, cancel := ro.op(ctx)
		undoErr = deviceCall(it.d, func() error { return rb.Rollback(c, it.d) })
		cancel()
		how = "rolled back"
	}
	if !canRollback || undoErr != nil {
		if !it.deadline.IsZero() {
			how = "its commit timer lapsed"
			if err := ro.awaitLapse(ctx, it); err != nil {
				reason := why
				if undoErr != nil {
					reason += "; rollback failed: " + undoErr.Error()
				}
				ro.settle(k, it, Unknown, fmt.Sprintf("%s; waited for its commit timer to lapse: %v", reason, err))
				return
			}
			ro.settle(k, it, RolledBack, why+"; "+how)
			return
		}
		if !canRollback {
			how = "its change was reversed"
			undoErr = ro.reverse(ctx, it)
		}
	}
	if undoErr != nil {
		ro.settle(k, it, Unknown, fmt.Sprintf("%s; rollback failed: %v", why, undoErr))
		return
	}
	if err := ro.restored(ctx, it); err != nil {
		ro.settle(k, it, Unknown, fmt.Sprintf("%s; %s, but %v", why, how, err))
		return
	}
	ro.settle(k, it, RolledBack, why+"; "+how)
}

// settle records a device's final state after a rollback.
func (ro *rollout) settle(k int, it *item, s State, reason string) {
	it.state, it.reason = s, reason
	step := StepRolledBack
	if s == Unknown {
		step = StepUnknown
	}
	ro.emit(Event{Wave: k, Device: it.d.Name, Step: step, Detail: reason})
}

// awaitLapse waits until the device's commit timer has run out and the
// device shows its earlier state, for LapseGrace past the timer at most.
func (ro *rollout) awaitLapse(ctx context.Context, it *item) error {
	poll := min(time.Second, max(ro.ConfirmTimeout/10, 5*time.Millisecond))
	time.Sleep(time.Until(it.deadline))
	until := it.deadline.Add(ro.LapseGrace)
	for {
		err := ro.restored(ctx, it)
		if err == nil {
			return nil
		}
		if time.Now().After(until) {
			return fmt.Errorf("%s after its commit timer lapsed: %w", ro.LapseGrace, err)
		}
		time.Sleep(poll)
	}
}

// reverse pushes the change that makes the device's running state what it
// was before the apply, for targets that can neither roll back nor
// confirm.
func (ro *rollout) reverse(ctx context.Context, it *item) error {
	running, err := ro.read(ctx, it.d)
	if err != nil {
		return err
	}
	now, err := safeParse(it.p, it.d, running)
	if err != nil {
		return err
	}
	changes, rem, err := safeDiff(it.p, it.d, now, it.before)
	if err != nil || len(changes) == 0 {
		return err
	}
	c, cancel := ro.op(ctx)
	defer cancel()
	return deviceCall(it.d, func() error { return ro.Target.Push(c, it.d, rem) })
}

// restored reads the device back and returns nil when its owned state is
// what it was before the apply.
func (ro *rollout) restored(ctx context.Context, it *item) error {
	if it.before != nil || it.plan.Running == nil {
		var before []renderers.Element
		if it.before != nil {
			before = it.before.Elements()
		}
		return ro.matches(ctx, it, before, "before the apply")
	}
	// The digest of what it ran, which the plan recorded and ready
	// checked: an apply keeps no device's state of before.
	now, err := ro.readBack(ctx, it)
	if err != nil {
		return err
	}
	if OwnedDigest(now).SHA256 != it.plan.Running.SHA256 {
		return errors.New("what it runs within rocefab's scope differs from before the apply")
	}
	return nil
}

// converged reads the device back and returns nil when its owned state is
// the desired state the plan recorded for it: what the plan said the
// device would hold, which the check before the first wave found the
// intent still gives. It is rebuilt from the plan's shapes rather than
// kept from the check, and never rendered again: an apply holds no
// device's desired state longer than its gate.
func (ro *rollout) converged(ctx context.Context, it *item) error {
	want, err := it.plan.DesiredState()
	if err == nil && want == nil {
		err = errors.New("the plan records no desired state for it")
	}
	if err != nil {
		return fmt.Errorf("did not converge: %w", err)
	}
	if err := ro.matches(ctx, it, want, "its desired state"); err != nil {
		return fmt.Errorf("did not converge: %w", err)
	}
	return nil
}

// unmanagedState is a running state that names the settings its device
// reported it cannot take (renderers/host's State: a firmware setting,
// per-priority ECN on an inbox driver). The platform's diff leaves those
// alone rather than asking for what the device cannot do, and so does
// matches.
type unmanagedState interface {
	Unmanaged() []string
}

// matches reads the device and compares its owned state with want,
// element by element (a path and its value), as the platforms' diffs do
// but without their models: want is a plan's recorded state or one read
// from the device, not a platform's own desired state.
func (ro *rollout) matches(ctx context.Context, it *item, want []renderers.Element, what string) error {
	now, err := ro.readBack(ctx, it)
	if err != nil {
		return err
	}
	have := now.Elements()
	if u, ok := now.(unmanagedState); ok {
		if skip := u.Unmanaged(); len(skip) > 0 {
			leave := func(e renderers.Element) bool { return slices.Contains(skip, e.Path) }
			have = slices.DeleteFunc(have, leave)
			want = slices.DeleteFunc(slices.Clone(want), leave)
		}
	}
	changes := renderers.DiffElements(have, want, nil)
	if len(changes) > 0 {
		paths := make([]string, 0, 3)
		for _, c := range changes[:min(3, len(changes))] {
			paths = append(paths, c.Path)
		}
		more := ""
		if len(changes) > 3 {
			more = ", ..."
		}
		verb := "differ"
		if len(changes) == 1 {
			verb = "differs"
		}
		return fmt.Errorf("%s %s from %s (%s%s)", count(len(changes), "element", "elements"), verb, what, strings.Join(paths, ", "), more)
	}
	return nil
}

// readBack reads the device after a push or rollback and parses what it
// runs.
func (ro *rollout) readBack(ctx context.Context, it *item) (renderers.State, error) {
	running, err := ro.read(ctx, it.d)
	if err != nil {
		return nil, fmt.Errorf("cannot read it back: %w", err)
	}
	now, err := safeParse(it.p, it.d, running)
	if err != nil {
		return nil, fmt.Errorf("cannot parse it back: %w", err)
	}
	return now, nil
}

// read reads a device with the per-operation timeout; ctx's cancellation
// does not cut it short.
func (ro *rollout) read(ctx context.Context, d *ir.Device) ([]renderers.Artifact, error) {
	c, cancel := ro.op(ctx)
	defer cancel()
	return safeRead(c, ro.Target, d)
}

// op is the context of one operation on a device: bounded by Timeout and
// not cancelled with ctx, so that an interrupt never cuts a push, a
// confirmation or a rollback in half.
func (ro *rollout) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), ro.Timeout)
}

func (ro *rollout) emit(e Event) {
	if ro.Event == nil {
		return
	}
	e.Waves = ro.waves
	ro.mu.Lock()
	defer ro.mu.Unlock()
	ro.Event(e)
}

// safeCall runs a target's method, turning a panic into an error.
func safeCall(f func() error) (err error) {
	defer recoverAs(&err)
	return f()
}

// deviceCall is safeCall for an operation on d: its error leaves out d's
// name, which the report gives (see unnamed).
func deviceCall(d *ir.Device, f func() error) error { return unnamed(d.Name, safeCall(f)) }
