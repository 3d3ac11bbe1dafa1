package targets_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets"
)

// askTarget is a fakeTarget that says which devices hold a pending commit;
// asking fails for the devices in askErr, as for a device that answers
// reads but not the command that lists its sessions.
type askTarget struct {
	*fakeTarget
	pending map[string]bool
	askErr  map[string]error
}

func (t *askTarget) Pending(ctx context.Context, d *ir.Device) (*targets.PendingCommit, error) {
	if err := t.askErr[d.Name]; err != nil {
		return nil, err
	}
	if t.fakeTarget.gone[d.Name] || t.fakeTarget.readErr[d.Name] != nil {
		return nil, errors.New("connection refused")
	}
	if t.pending[d.Name] {
		return &targets.PendingCommit{Device: d.Name}, nil
	}
	return nil, nil
}

// TestMarkPendingAsksWhatThePlanRead: a device the plan could not read is
// reported unreachable as before, not an error of the whole plan; one it
// read but could not ask whether a commit is pending fails in the plan
// (nothing about it is known to be converged); a pending commit is
// marked, and the plan is not empty even where nothing else changes.
func TestMarkPendingAsksWhatThePlanRead(t *testing.T) {
	devs := fabric(1, 1, 1)
	w := newWorld(devs)
	w.t.readErr["spine-00"] = errors.New("dial tcp 10.0.0.9:22: connection refused")
	tg := &askTarget{fakeTarget: w.t, pending: map[string]bool{"gpu-000": true},
		askErr: map[string]error{"leaf-r0-00": errors.New("show configuration sessions: % Invalid input")}}
	for _, d := range devs {
		w.t.set(d.Name, fmt.Sprintf(foreign, d.Name)+"owned.pfc=3\nowned.ecn=150\n")
	}
	p := w.plan(t, tg)
	got := map[string]*targets.DevicePlan{}
	for i := range p.Devices {
		got[p.Devices[i].Device] = &p.Devices[i]
	}
	if a := got["spine-00"].Action; a != targets.Unreachable {
		t.Errorf("spine-00: %s, want unreachable", a)
	}
	if dp := got["leaf-r0-00"]; dp.Action != targets.Failed || !strings.Contains(dp.Reason, "cannot tell whether a commit is pending") || !strings.Contains(dp.Reason, "Invalid input") {
		t.Errorf("leaf-r0-00: %s %q, want an error that says it could not be asked", dp.Action, dp.Reason)
	}
	if dp := got["gpu-000"]; dp.Pending == nil || dp.Action != targets.NoOp {
		t.Errorf("gpu-000: %s, pending %v, want a no-op marked pending", dp.Action, dp.Pending)
	}
	if p.Empty() || p.Complete() {
		t.Errorf("a plan with a pending commit and a device not asked: empty %v, complete %v", p.Empty(), p.Complete())
	}
}
