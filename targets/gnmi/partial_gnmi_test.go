package gnmi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

// TestNoCapabilities: a device that answers Capabilities with Unimplemented
// (openconfig/lemming v0.5.0) is pushed to as one without commit-confirmed:
// the push is taken back by the target, and its notes say so once.
func TestNoCapabilities(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	srv := serveDrifted(t, d, gnmitest.Options{CommitConfirm: true})
	srv.SetFaults(gnmitest.Faults{NoCapabilities: true})
	tg := targetOne(t, d, srv, nil)
	ctx := context.Background()
	original := srv.Config()
	for range 2 {
		_, rem, _ := planOne(t, tg, d)
		if err := tg.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
			t.Fatalf("push to a device without Capabilities: %v", err)
		}
		if srv.Pending() {
			t.Errorf("the push used the commit-confirmed extension the device never advertised")
		}
		if err := tg.Rollback(ctx, d); err != nil {
			t.Fatal(err)
		}
		if ch, _, _ := planOne(t, tg, d); len(ch) == 0 {
			t.Errorf("rolled back, yet nothing to change")
		}
		if foreign(t, srv.Config()) != foreign(t, original) {
			t.Errorf("foreign configuration changed by the rollback")
		}
	}
	notes := tg.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], d.Name) || !strings.Contains(notes[0], "Capabilities") {
		t.Errorf("notes: %q, want one naming %s and Capabilities", notes, d.Name)
	}
}

// TestOnlyTypeAll: a device that refuses a Get of type CONFIG (google/gnxi
// answers every type but ALL with Unimplemented) is read with type ALL and
// its operational state left out, both for the plan and for what a push
// without commit-confirmed must restore.
func TestOnlyTypeAll(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	srv := serveDrifted(t, d, gnmitest.Options{})
	srv.SetFaults(gnmitest.Faults{OnlyTypeAll: true})
	tg := targetOne(t, d, srv, func(o *gnmi.Options) { o.Commit = gnmi.CommitNever })
	ctx := context.Background()
	original := srv.Config()
	ch, rem, read := planOne(t, tg, d)
	if len(ch) == 0 {
		t.Fatal("no change planned")
	}
	if strings.Contains(string(read), `state"`) {
		t.Errorf("the read kept operational state:\n%.400s", read)
	}
	if canonical(t, read) != canonical(t, original) {
		t.Errorf("the read is not the device's configuration:\n%.400s\n%.400s", read, original)
	}
	if err := tg.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
		t.Fatal(err)
	}
	if ch, _, _ := planOne(t, tg, d); len(ch) != 0 {
		t.Errorf("after the push, still %d changes", len(ch))
	}
	if err := tg.Rollback(ctx, d); err != nil {
		t.Fatal(err)
	}
	if got := srv.Config(); canonical(t, got) != canonical(t, original) {
		t.Errorf("the rollback did not restore the configuration:\n%.400s\n%.400s", got, original)
	}
}

// TestIgnoredCommitConfirmed: a switch that advertises commit-confirmed
// and ignores it keeps a change its wave rolls back; apply's read-back
// finds it and reports the switch unknown, not rolled back.
func TestIgnoredCommitConfirmed(t *testing.T) {
	f := irtest.Fabric()
	ignoring, refusing := f.Device("leaf-eos"), f.Device("leaf-nvue")
	servers := map[string]*gnmitest.Server{}
	for _, d := range []*ir.Device{ignoring, refusing} {
		servers[d.Name] = serveDrifted(t, d, gnmitest.Options{CommitConfirm: true})
	}
	servers[ignoring.Name].SetFaults(gnmitest.Faults{IgnoreCommit: true})
	servers[refusing.Name].SetFaults(gnmitest.Faults{RejectSet: codes.FailedPrecondition})
	tg := target(t, servers, nil)
	devs := []*ir.Device{ignoring, refusing}
	req := targets.Request{Devices: devs, Target: tg, Parallelism: 2,
		Platforms: func(*ir.Device) (renderers.Platform, error) { return platform, nil }}
	p, err := targets.Make(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := targets.Apply(context.Background(), targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: req.Platforms,
		Canary: 0, Wave: targets.Size{Percent: 100}, ConfirmTimeout: time.Minute, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range rep.Devices {
		if o.Device == ignoring.Name {
			found = true
			if o.State != targets.Unknown || !strings.Contains(o.Reason, "rolled back, but") {
				t.Errorf("%s: %s: %s, want unknown after a rollback the read-back disproves", o.Device, o.State, o.Reason)
			}
		}
	}
	if !found || !rep.Failed {
		t.Errorf("report %+v: want a failed apply with %s in it", rep, ignoring.Name)
	}
}
