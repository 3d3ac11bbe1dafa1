package targets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
)

// A commit pushed with commit-confirm and never confirmed (an apply killed
// mid-wave) is state: the device runs the pushed configuration until its
// timer rolls it back. A plan that read it as the device's configuration
// would call the device converged, and minutes later the device would
// run something else. So plan reports pending commits first, and apply
// settles them (confirms, with the operator's approval, those that run
// their desired state, and rolls back the others) before it plans or
// pushes anything else.

// PendingReader is a target that can tell whether a device holds a commit
// that was pushed and not yet confirmed.
type PendingReader interface {
	// Pending returns d's unconfirmed commit, nil when it has none.
	Pending(ctx context.Context, d *ir.Device) (*PendingCommit, error)
}

// PendingCommit is a device's unconfirmed commit.
type PendingCommit struct {
	Device string `json:"device"`
	// Deadline is when the device rolls the commit back by itself.
	Deadline time.Time `json:"deadline,omitzero"`
}

// FindPending returns the unconfirmed commits of devices, by device name,
// reading up to parallelism devices at once; none when the target cannot
// tell (no PendingReader). A device that cannot be asked is an error.
func FindPending(ctx context.Context, t Target, devices []*ir.Device, parallelism int) ([]PendingCommit, error) {
	out, errs, err := findPending(ctx, t, devices, parallelism)
	if err != nil {
		return nil, err
	}
	var all []error
	for _, d := range devices {
		all = append(all, errs[d.Name])
	}
	if err := errors.Join(all...); err != nil {
		return nil, err
	}
	return out, nil
}

// findPending is FindPending with the devices that could not be asked
// apart: their errors by device name.
func findPending(ctx context.Context, t Target, devices []*ir.Device, parallelism int) (found []PendingCommit, unasked map[string]error, err error) {
	pr, ok := t.(PendingReader)
	if !ok {
		return nil, nil, nil
	}
	all := make([]*PendingCommit, len(devices))
	errs := make([]error, len(devices))
	done := forEach(ctx, len(devices), parallelism, func(i int) {
		err := safeCall(func() error {
			var err error
			all[i], err = pr.Pending(ctx, devices[i])
			return err
		})
		if err != nil {
			errs[i] = fmt.Errorf("%s: cannot tell whether a commit is pending: %w", devices[i].Name, err)
		}
	})
	if !done {
		return nil, nil, fmt.Errorf("interrupted while looking for pending commits: %w", context.Cause(ctx))
	}
	unasked = map[string]error{}
	for i, p := range all {
		if p != nil {
			found = append(found, *p)
		}
		if errs[i] != nil {
			unasked[devices[i].Name] = errs[i]
		}
	}
	slices.SortFunc(found, func(a, b PendingCommit) int { return strings.Compare(a.Device, b.Device) })
	return found, unasked, nil
}

// Settlement is what Settle needs.
type Settlement struct {
	Devices     []*ir.Device
	Target      Target
	Platforms   Platforms
	Parallelism int
	// Timeout bounds each read, confirm and rollback (default 2m).
	Timeout time.Duration
	// LockPath is the fabric lock file taken when the target is no Locker
	// ("" for none).
	LockPath string
	// Decide is shown the pending commits and returns whether to confirm
	// those whose devices run their desired state (true) or to roll every
	// one back (false). An error stops Settle with nothing changed.
	Decide func(pending []PendingCommit) (confirm bool, err error)
}

// Settled is what Settle did with one pending commit: State is Applied
// (confirmed), RolledBack, or Unknown, with the reason.
type Settled struct {
	Device string `json:"device"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// Settle takes the fabric lock, finds the devices' pending commits and,
// when there are any, asks Decide, then confirms or rolls back each one:
// a commit is confirmed only when its device, read back, runs its desired
// state; any other is rolled back (where the target cannot roll back at
// once, it is left to its timer and reported unknown). It returns what it
// did, nothing when no commit was pending.
func Settle(ctx context.Context, s Settlement) ([]Settled, error) {
	ro := &rollout{Rollout: Rollout{Devices: s.Devices, Target: s.Target, Platforms: s.Platforms, Parallelism: s.Parallelism, Timeout: s.Timeout, LockPath: s.LockPath}}
	if ro.Timeout <= 0 {
		ro.Timeout = 2 * time.Minute
	}
	devs := slices.Clone(s.Devices)
	slices.SortFunc(devs, func(a, b *ir.Device) int { return strings.Compare(a.Name, b.Name) })
	release, err := ro.lockDevices(ctx, devs)
	if err != nil {
		return nil, err
	}
	out, err := ro.settlePending(ctx, s)
	if rerr := release(); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return out, err
}

func (ro *rollout) settlePending(ctx context.Context, s Settlement) ([]Settled, error) {
	// A device that cannot be asked is left to the plan, which cannot
	// read it either and reports it, and to MarkPending.
	pending, _, err := findPending(ctx, s.Target, s.Devices, s.Parallelism)
	if err != nil || len(pending) == 0 {
		return nil, err
	}
	confirm, err := s.Decide(pending)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*ir.Device, len(s.Devices))
	for _, d := range s.Devices {
		byName[d.Name] = d
	}
	out := make([]Settled, len(pending))
	confirmer, _ := s.Target.(Confirmer)
	rb, _ := s.Target.(RollBacker)
	forEach(context.WithoutCancel(ctx), len(pending), s.Parallelism, func(i int) {
		d := byName[pending[i].Device]
		out[i] = Settled{Device: d.Name}
		why := "the operator chose to roll it back"
		if confirm {
			err := ro.runsDesired(ctx, d)
			if err == nil && confirmer != nil {
				c, cancel := ro.op(ctx)
				err = safeCall(func() error { return confirmer.Confirm(c, d) })
				cancel()
				if err == nil {
					out[i].State, out[i].Reason = Applied, "confirmed: it runs its desired state"
					return
				}
			}
			why = err.Error()
		}
		if rb == nil {
			out[i].State, out[i].Reason = Unknown, why+"; the target cannot roll it back at once: it rolls back by itself when its timer runs out"
			return
		}
		c, cancel := ro.op(ctx)
		err := safeCall(func() error { return rb.Rollback(c, d) })
		cancel()
		if err != nil {
			out[i].State, out[i].Reason = Unknown, why+"; rollback failed: "+err.Error()
			return
		}
		out[i].State, out[i].Reason = RolledBack, why+"; rolled back"
	})
	return out, nil
}

// runsDesired reads d and returns nil when its owned state is its desired
// state.
func (ro *rollout) runsDesired(ctx context.Context, d *ir.Device) error {
	p, err := Lookup(ro.Platforms, d, "no platform models it")
	if err != nil {
		return err
	}
	// Computed from the intent: commits are settled before there is a
	// plan, and whatever plan comes next is made against what they
	// leave.
	want, err := safeDesired(p, d)
	if err != nil {
		return err
	}
	return ro.matches(ctx, &item{d: d, p: p}, want.Elements(), "its desired state")
}

// MarkPending records in p each device's unconfirmed commit, as
// FindPending finds them among devices. Devices the plan could not read
// are not asked; one that can be read but not asked whether a commit is
// pending fails in the plan, which then converges nothing.
func MarkPending(ctx context.Context, p *Plan, t Target, devices []*ir.Device, parallelism int) error {
	read := make(map[string]int, len(p.Devices))
	for i, dp := range p.Devices {
		if dp.Action != Unreachable && dp.Action != Unsupported {
			read[dp.Device] = i
		}
	}
	var ask []*ir.Device
	for _, d := range devices {
		if _, ok := read[d.Name]; ok {
			ask = append(ask, d)
		}
	}
	pending, unasked, err := findPending(ctx, t, ask, parallelism)
	if err != nil {
		return err
	}
	for _, pc := range pending {
		p.Devices[read[pc.Device]].Pending = &pc
	}
	for name, err := range unasked {
		dp := &p.Devices[read[name]]
		dp.Action, dp.Reason = Failed, err.Error()
	}
	return nil
}

// PendingError refuses an apply while devices hold unconfirmed commits:
// what they run may roll back by itself, so no plan of them holds.
type PendingError struct {
	Pending []PendingCommit
}

func (e *PendingError) Error() string {
	names := make([]string, len(e.Pending))
	for i, p := range e.Pending {
		names[i] = p.Device
	}
	return fmt.Sprintf("%s hold a commit that was pushed and not confirmed (an apply that did not finish): %s; nothing was pushed: settle them first (rocefab apply confirms or rolls them back)",
		count(len(e.Pending), "device", "devices"), strings.Join(names, ", "))
}

// checkPending refuses the rollout while any device of the plan holds an
// unconfirmed commit.
func (ro *rollout) checkPending(ctx context.Context) error {
	// Devices the plan could not read are not pushed to: the rollout
	// reports them as the plan did.
	in := make(map[string]bool, len(ro.Plan.Devices))
	for _, dp := range ro.Plan.Devices {
		in[dp.Device] = dp.Action == Create || dp.Action == Update || dp.Action == NoOp
	}
	var devs []*ir.Device
	for _, d := range ro.Devices {
		if in[d.Name] {
			devs = append(devs, d)
		}
	}
	pending, err := FindPending(ctx, ro.Target, devs, ro.Parallelism)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return &PendingError{Pending: pending}
	}
	return nil
}
