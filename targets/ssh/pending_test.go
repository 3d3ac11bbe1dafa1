package ssh_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/ssh"
)

// TestEOSPendingSettled: an apply that pushed with a commit timer and was
// killed before it confirmed leaves the switches in a session whose timer
// runs. A later process (a new target, which knows nothing of the push)
// finds those commits on the switches, plan marks them and is not empty
// however the running configuration compares, apply refuses to push over
// them, and Settle confirms them with the operator's approval or rolls
// them back without it; then nothing is pending any more.
func TestEOSPendingSettled(t *testing.T) {
	t.Parallel()
	for _, approve := range []bool{true, false} {
		name := map[bool]string{true: "approved", false: "refused"}[approve]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, eosLeaves(t, 2))
			ctx := context.Background()
			before := map[string][]byte{}
			p := w.plan(t)
			for i, d := range w.devs {
				before[d.Name] = w.eos[d.Name].Running()
				if err := w.target.PushConfirmed(ctx, d, p.Devices[i].Remediation.Remediation(), time.Minute); err != nil {
					t.Fatal(err)
				}
			}
			pushed := map[string][]byte{}
			for _, d := range w.devs {
				pushed[d.Name] = w.eos[d.Name].Running()
			}

			w.target = w.newTarget(t, &ssh.HostKeys{File: w.knownHosts})
			found, err := targets.FindPending(ctx, w.target, w.devs, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != len(w.devs) {
				t.Fatalf("found %d pending commits, want %d: %+v", len(found), len(w.devs), found)
			}
			for _, pc := range found {
				if left := time.Until(pc.Deadline); left <= 0 || left > time.Minute+time.Second {
					t.Errorf("%s: deadline %s, %s from now, want within the minute of its timer", pc.Device, pc.Deadline, left)
				}
			}
			again := w.plan(t)
			if err := targets.MarkPending(ctx, again, w.target, w.devs, 2); err != nil {
				t.Fatal(err)
			}
			if s := again.Summary(); again.Empty() || s.Pending != len(w.devs) {
				t.Errorf("a plan over pending commits: %s, empty %v, want %d pending", s, again.Empty(), len(w.devs))
			}
			_, err = targets.Apply(ctx, targets.Rollout{Plan: again, Devices: w.devs, Target: w.target, Platforms: eosPlatform,
				ConfirmTimeout: time.Minute, Timeout: 20 * time.Second})
			if _, ok := err.(*targets.PendingError); !ok {
				t.Fatalf("apply over pending commits: %v, want a PendingError", err)
			}

			var shown []targets.PendingCommit
			settled, err := targets.Settle(ctx, targets.Settlement{Devices: w.devs, Target: w.target, Platforms: eosPlatform, Parallelism: 2,
				Timeout: 20 * time.Second, Decide: func(pc []targets.PendingCommit) (bool, error) { shown = pc; return approve, nil }})
			if err != nil {
				t.Fatal(err)
			}
			if len(shown) != len(w.devs) || len(settled) != len(w.devs) {
				t.Fatalf("shown %d, settled %d, want %d each: %+v", len(shown), len(settled), len(w.devs), settled)
			}
			want := map[bool]targets.State{true: targets.Applied, false: targets.RolledBack}[approve]
			for _, s := range settled {
				dev := w.eos[s.Device]
				if s.State != want {
					t.Errorf("%s: %s (%s), want %s", s.Device, s.State, s.Reason, want)
				}
				if dev.Pending() != "" {
					t.Errorf("%s: a commit still waits after settling", s.Device)
				}
				wantRunning := map[bool][]byte{true: pushed[s.Device], false: before[s.Device]}[approve]
				if !bytes.Equal(dev.Running(), wantRunning) {
					t.Errorf("%s: after settling (approved %v) the switch does not run what it should", s.Device, approve)
				}
				if approve && !bytes.Equal(dev.Startup(), dev.Running()) {
					t.Errorf("%s: the confirmed commit was not saved", s.Device)
				}
			}
			if left, err := targets.FindPending(ctx, w.target, w.devs, 2); err != nil || len(left) != 0 {
				t.Errorf("after settling: pending %+v, %v", left, err)
			}
			if final := w.plan(t); approve != final.Empty() {
				t.Errorf("after settling (approved %v) the plan is %s", approve, final.Summary())
			}
		})
	}
}

// TestNXOSPendingInProcess: NX-OS has no commit timer of its own, so its
// pending commit is the one this process pushed and keeps the timer of:
// reported with that timer's deadline until it is confirmed, and a new
// process (a new target) without the journal has none to report
// (TestJournalOutlivesTheProcess: with it, it has).
func TestNXOSPendingInProcess(t *testing.T) {
	t.Parallel()
	w := newNXWorld(t, 1)
	d := w.devs[0]
	p := w.plan(t)
	ctx := context.Background()
	if err := w.target.PushConfirmed(ctx, d, p.Devices[0].Remediation.Remediation(), time.Minute); err != nil {
		t.Fatal(err)
	}
	found, err := targets.FindPending(ctx, w.target, w.devs, 1)
	if err != nil || len(found) != 1 || found[0].Device != d.Name {
		t.Fatalf("pending after an unconfirmed push: %+v, %v", found, err)
	}
	if left := time.Until(found[0].Deadline); left <= 0 || left > time.Minute {
		t.Errorf("deadline %s from now, want within the push's minute", left)
	}
	fresh, err := ssh.New(ssh.Options{Endpoint: func(*ir.Device) (ssh.Endpoint, error) {
		return ssh.Endpoint{}, errors.New("a switch without a timer of its own is not asked")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if other, err := targets.FindPending(ctx, fresh, w.devs, 1); err != nil || len(other) != 0 {
		t.Errorf("a new process reports %+v, %v: it keeps no timer", other, err)
	}
	if err := w.target.Confirm(ctx, d); err != nil {
		t.Fatal(err)
	}
	if left, err := targets.FindPending(ctx, w.target, w.devs, 1); err != nil || len(left) != 0 {
		t.Errorf("pending after the confirmation: %+v, %v", left, err)
	}
}

// TestJournalOutlivesTheProcess: on the switches that cannot show their
// pending commits, a push left unconfirmed by an apply that ended (its
// target closed: a new target is a new process) is found by the next one
// through the journal: on NX-OS, whose commit timer was rocefab's and died
// with it, with no deadline, and the push stays until it is settled; on
// NVUE, which keeps the timer, with the deadline of the switch's timer.
// Settling confirms it (the switch keeps the push) or rolls it back (the
// switch runs what it ran before), and crosses it out of the journal.
func TestJournalOutlivesTheProcess(t *testing.T) {
	t.Parallel()
	type world struct {
		*fleet
		running func(name string) []byte
	}
	worlds := map[string]func(t *testing.T) world{
		"nxos": func(t *testing.T) world {
			w := newNXWorld(t, 1)
			return world{w.fleet, func(n string) []byte { return w.dev[n].Running() }}
		},
		"nvue": func(t *testing.T) world {
			w := newNVWorld(t, 1)
			return world{w.fleet, func(n string) []byte { return w.dev[n].Applied() }}
		},
	}
	for _, platform := range []string{"nxos", "nvue"} {
		for _, approve := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/approved-%t", platform, approve), func(t *testing.T) {
				t.Parallel()
				w := worlds[platform](t)
				d := w.devs[0]
				journal := targets.NewJournal(filepath.Join(t.TempDir(), "pending"))
				hk := &ssh.HostKeys{File: w.knownHosts}
				first := w.newTargetWith(t, hk, journal)
				before := w.running(d.Name)
				ctx := context.Background()
				if err := first.PushConfirmed(ctx, d, w.plan(t).Devices[0].Remediation.Remediation(), time.Minute); err != nil {
					t.Fatal(err)
				}
				pushed := w.running(d.Name)
				first.Close() // the apply ends without a confirmation

				next := w.newTargetWith(t, hk, journal)
				found, err := targets.FindPending(ctx, next, w.devs, 1)
				if err != nil || len(found) != 1 {
					t.Fatalf("the next process finds %+v, %v, want %s's push", found, err, d.Name)
				}
				if hasTimer := platform == "nvue"; hasTimer == found[0].Deadline.IsZero() {
					t.Errorf("deadline %v: the switch keeps a timer %t", found[0].Deadline, hasTimer)
				}
				settled, err := targets.Settle(ctx, targets.Settlement{Devices: w.devs, Target: next, Platforms: w.platform, Parallelism: 1,
					Timeout: 20 * time.Second, Decide: func([]targets.PendingCommit) (bool, error) { return approve, nil }})
				if err != nil || len(settled) != 1 {
					t.Fatalf("settled %+v, %v", settled, err)
				}
				want, wantRunning := targets.RolledBack, before
				if approve {
					want, wantRunning = targets.Applied, pushed
				}
				if settled[0].State != want {
					t.Errorf("%s (%s), want %s", settled[0].State, settled[0].Reason, want)
				}
				if !bytes.Equal(w.running(d.Name), wantRunning) {
					t.Errorf("after settling (approved %t) the switch does not run what it should", approve)
				}
				if e, err := journal.Load(d.Name); e != nil || err != nil {
					t.Errorf("the journal still records %+v, %v", e, err)
				}
				if left, err := targets.FindPending(ctx, next, w.devs, 1); err != nil || len(left) != 0 {
					t.Errorf("after settling: pending %+v, %v", left, err)
				}
			})
		}
	}
}
