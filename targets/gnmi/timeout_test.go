package gnmi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/gnmi"
	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

// TestSetTimeoutAfterApply: a device takes the change and answers after
// the client's deadline. The push is pending all the same: Rollback takes
// it back (by the commit's id, or by restoring what was read before it),
// and without Rollback the commit timer does.
func TestSetTimeoutAfterApply(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	ctx := context.Background()
	for _, native := range []bool{true, false} {
		t.Run(fmt.Sprintf("extension-%t", native), func(t *testing.T) {
			srv := serveDrifted(t, d, gnmitest.Options{CommitConfirm: native})
			tg := targetOne(t, d, srv, func(o *gnmi.Options) { o.Timeout = 300 * time.Millisecond })
			_, rem, _ := planOne(t, tg, d)
			original := canonical(t, srv.Config())

			srv.SetFaults(gnmitest.Faults{SlowSet: 3 * time.Second})
			err := tg.PushConfirmed(ctx, d, rem, time.Minute)
			if err == nil || !strings.Contains(err.Error(), "may or may not") || !strings.Contains(err.Error(), "DeadlineExceeded") {
				t.Fatalf("a Set answered too late: %v", err)
			}
			srv.SetFaults(gnmitest.Faults{})
			if ch, _, _ := planOne(t, tg, d); len(ch) != 0 {
				t.Fatalf("the device did not take the change (%d changes): the fault is not the one tested", len(ch))
			}
			if err := tg.Rollback(ctx, d); err != nil {
				t.Fatalf("the push that timed out is not taken back: %v", err)
			}
			if got := canonical(t, srv.Config()); got != original {
				t.Errorf("after the rollback the device does not run what it ran before")
			}
			if srv.Pending() {
				t.Errorf("a commit still pending after the rollback")
			}

			// Not rolled back: the timer takes it back.
			srv.SetFaults(gnmitest.Faults{SlowSet: 3 * time.Second})
			if err := tg.PushConfirmed(ctx, d, rem, 500*time.Millisecond); err == nil {
				t.Fatal("a Set answered too late succeeded")
			}
			srv.SetFaults(gnmitest.Faults{})
			waitFor(t, "the commit timer", func() bool { return canonical(t, srv.Config()) == original })
		})
	}
}

// TestRolloutSetTimeoutAfterApply: in a rollout, the canary takes its
// change and answers after the deadline. The report must not call it
// untouched: it is rolled back (read back to what it ran before, the
// reason saying the outcome of its push was unknown), and the later waves
// are untouched.
func TestRolloutSetTimeoutAfterApply(t *testing.T) {
	for _, native := range []bool{true, false} {
		t.Run(fmt.Sprintf("extension-%t", native), func(t *testing.T) {
			f := irtest.Fabric()
			servers := map[string]*gnmitest.Server{}
			original := map[string]string{}
			var devs []*ir.Device
			for _, d := range f.Switches() {
				servers[d.Name] = serveDrifted(t, d, gnmitest.Options{CommitConfirm: native})
				original[d.Name] = canonical(t, servers[d.Name].Config())
				devs = append(devs, d)
			}
			tg := target(t, servers, func(o *gnmi.Options) { o.Timeout = 300 * time.Millisecond })
			platforms := func(*ir.Device) (renderers.Platform, error) { return platform, nil }
			ctx := context.Background()
			p, err := targets.Make(ctx, targets.Request{Devices: devs, Target: tg, Parallelism: 4, Platforms: platforms})
			if err != nil {
				t.Fatal(err)
			}
			waves := targets.Waves(p, 1, targets.Size{N: 1})
			if len(waves) < 2 {
				t.Fatalf("%d waves: the test needs a canary and a later wave", len(waves))
			}
			slow := waves[0][0].Device
			servers[slow].SetFaults(gnmitest.Faults{SlowSet: 3 * time.Second})
			rep, err := targets.Apply(ctx, targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: platforms,
				Canary: 1, Wave: targets.Size{N: 1}, Parallelism: 4, ConfirmTimeout: time.Minute, Timeout: 10 * time.Second,
				Event: func(e targets.Event) {
					// The device answers in time again once the push
					// timed out, so that the rollback is not the fault's.
					if e.Device == slow && e.Step == targets.StepFailed {
						servers[slow].SetFaults(gnmitest.Faults{})
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Failed || rep.Completed != 0 {
				t.Errorf("report: failed %t, %d waves completed; want failed in the first", rep.Failed, rep.Completed)
			}
			for _, o := range rep.Devices {
				switch {
				case o.Device == slow:
					if o.State != targets.RolledBack || !strings.Contains(o.Reason, "may or may not") {
						t.Errorf("%s: %s (%s); want rolled-back, saying its push's outcome was unknown", o.Device, o.State, o.Reason)
					}
				case o.State != targets.Untouched:
					t.Errorf("%s in a later wave: %s (%s)", o.Device, o.State, o.Reason)
				}
			}
			for name, s := range servers {
				if canonical(t, s.Config()) != original[name] {
					t.Errorf("%s does not run what it ran before the apply", name)
				}
				if s.Pending() {
					t.Errorf("%s has a commit pending", name)
				}
			}
		})
	}
}
