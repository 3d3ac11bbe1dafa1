package ssh_test

import (
	"context"
	"testing"
	"time"

	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// fault is one case of a fault matrix: the faults the canary is given
// and a phrase of the reason it is rolled back with.
type fault struct {
	name   string
	faults sshtest.Faults
	reason string
}

// faultyFleet is a fleet of one platform's emulated switches, how to
// give one of them faults, and what one runs.
type faultyFleet struct {
	*fleet
	setFaults func(name string, f sshtest.Faults)
	running   func(name string) []byte
	// check, when not nil, checks what the platform must not leave
	// behind after the rollout.
	check func(t *testing.T, rep *targets.Report)
}

// TestCanaryFaults is the fault matrix of plan and apply over SSH on the
// platforms whose canary is rolled back alone (EOS has its own, which
// also times out and checks later waves): the canary fails with the
// platform's reason and runs what it ran before, the other switch is
// untouched.
//
// NX-OS applies lines as they come, so every fault is undone from the
// checkpoint taken before the push: a refused line at once, a dropped
// connection and a refused save by the rollback. On SONiC a refused
// patch is rolled back to its checkpoint at once, a connection dropped
// after the patch took effect and a refused save are rolled back. On
// NVUE the canary is rolled back by dropping a revision never applied,
// by --confirm-no, or by the switch's own timer, and no revision is left
// waiting for its confirmation.
func TestCanaryFaults(t *testing.T) {
	t.Parallel()
	for _, pl := range []struct {
		name    string
		serve   func(t *testing.T) faultyFleet
		confirm time.Duration
		cases   []fault
	}{
		{name: "nxos", confirm: time.Minute, serve: func(t *testing.T) faultyFleet {
			w := newNXWorld(t, 2)
			return faultyFleet{fleet: w.fleet, setFaults: func(n string, f sshtest.Faults) { w.dev[n].SetFaults(f) },
				running: func(n string) []byte { return w.dev[n].Running() }}
		}, cases: []fault{
			{"disconnect mid-push", sshtest.Faults{HangupAfterLines: 2}, "which NX-OS applied as they came"},
			{"rejected line", sshtest.Faults{Reject: "random-detect"}, "rolled back to the checkpoint taken before the push"},
			{"save refused", sshtest.Faults{RefuseConfirm: true}, "commit not confirmed"},
		}},
		{name: "sonic", confirm: time.Minute, serve: func(t *testing.T) faultyFleet {
			w := newSonicWorld(t)
			return faultyFleet{fleet: w.fleet, setFaults: func(n string, f sshtest.Faults) { w.dev[n].SetFaults(f) },
				running: func(n string) []byte { return w.dev[n].ConfigDB() }}
		}, cases: []fault{
			{"rejected patch", sshtest.Faults{Reject: "WRED_PROFILE"}, "Failed to apply patch due to"},
			{"disconnect after the patch", sshtest.Faults{HangupOnCommit: true}, "the patch may be partly applied"},
			{"save refused", sshtest.Faults{RefuseConfirm: true}, "commit not confirmed"},
		}},
		{name: "nvue", confirm: 2 * time.Second, serve: func(t *testing.T) faultyFleet {
			w := newNVWorld(t, 2)
			return faultyFleet{fleet: w.fleet, setFaults: func(n string, f sshtest.Faults) { w.dev[n].SetFaults(f) },
				running: func(n string) []byte { return w.dev[n].Applied() },
				check: func(t *testing.T, rep *targets.Report) {
					for n, d := range w.dev {
						if d.Pending() != 0 {
							t.Errorf("%s: a revision still waits for its confirmation", n)
						}
					}
					assertNoSecret(t, reportJSON(rep))
				}}
		}, cases: []fault{
			{"disconnect mid-push", sshtest.Faults{HangupAfterLines: 3}, "connection was lost"},
			{"disconnect after apply", sshtest.Faults{HangupOnCommit: true}, "rolled back"},
			{"rejected line", sshtest.Faults{Reject: "qos"}, "Error: Invalid config"},
			{"never confirmed", sshtest.Faults{RefuseConfirm: true}, "commit not confirmed"},
		}},
	} {
		for _, c := range pl.cases {
			t.Run(pl.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				f := pl.serve(t)
				rep := f.applyFaultyCanary(t, pl.confirm, func(canary string) { f.setFaults(canary, c.faults) }, f.running, c.reason)
				if f.check != nil {
					f.check(t, rep)
				}
			})
		}
	}
}

// TestSlowDevice: a switch slower than the plan's timeout is planned
// unreachable, with why, and the others are planned, on EOS (leaves) and
// NVUE (spines).
func TestSlowDevice(t *testing.T) {
	for _, c := range []struct {
		name  string
		delay time.Duration
		serve func(t *testing.T) faultyFleet
	}{
		{"eos", 400 * time.Millisecond, func(t *testing.T) faultyFleet {
			w := newWorld(t, eosLeaves(t, 2))
			return faultyFleet{fleet: w.fleet, setFaults: func(n string, f sshtest.Faults) { w.eos[n].SetFaults(f) }}
		}},
		{"nvue", 600 * time.Millisecond, func(t *testing.T) faultyFleet {
			w := newNVWorld(t, 2)
			return faultyFleet{fleet: w.fleet, setFaults: func(n string, f sshtest.Faults) { w.dev[n].SetFaults(f) }}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.serve(t)
			slow := f.devs[0].Name
			f.setFaults(slow, sshtest.Faults{Delay: c.delay})
			p, err := targets.Make(context.Background(), targets.Request{Devices: f.devs, Target: f.target, Platforms: f.platform, Timeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range p.Devices {
				switch {
				case d.Device == slow && (d.Action != targets.Unreachable || d.Reason == ""):
					t.Errorf("%s, slower than the timeout: %s (%s)", d.Device, d.Action, d.Reason)
				case d.Device != slow && !d.Action.Changes():
					t.Errorf("%s: %s (%s)", d.Device, d.Action, d.Reason)
				}
			}
		})
	}
}
