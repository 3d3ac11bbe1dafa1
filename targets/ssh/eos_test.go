package ssh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// TestEOSPlanApplyPlan: plan reads every leaf over SSH and finds the
// example's drift, apply pushes it through configuration sessions with a
// commit timer and confirms them, and a second plan is empty; everything
// outside the owned scope stays as it was, the device showed its own diff
// of each push, and the confirmed change was saved.
func TestEOSPlanApplyPlan(t *testing.T) {
	t.Parallel()
	w := newWorld(t, eosLeaves(t, 3))
	before := w.foreign()
	p, rep := w.planApplyPlan(t)
	sameForeign(t, before, w.foreign())
	for n, e := range w.eos {
		if e.Pending() != "" {
			t.Errorf("%s: a commit still waits for confirmation", n)
		}
		if !bytes.Equal(e.Startup(), e.Running()) {
			t.Errorf("%s: the confirmed change was not saved (write memory)", n)
		}
		if d := w.diffs[n]; !strings.Contains(d, "+++ session:/") || !strings.Contains(d, "\n+") {
			t.Errorf("%s: the device's own diff was not shown: %q", n, d)
		}
	}
	assertNoSecret(t, planJSON(p), reportJSON(rep), fmt.Sprint(w.diffs))
}

// TestEOSInvalidInputAborts: a line the device answers with `% Invalid
// input` fails the push with the device's words, the session is aborted
// and nothing of it reaches the running configuration.
func TestEOSInvalidInputAborts(t *testing.T) {
	t.Parallel()
	w := newWorld(t, eosLeaves(t, 1))
	d := w.devs[0]
	dev := w.eos[d.Name]
	before := dev.Running()
	rem := renderers.Remediation{Format: renderers.Text, Content: []byte("qos random-detect ecn allow non-ect\nthis is no eos command\n")}
	err := w.target.Push(context.Background(), d, rem)
	var de *ssh.DeviceError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "% Invalid input") || !strings.Contains(err.Error(), "this is no eos command") {
		t.Fatalf("push of an invalid line: %v", err)
	}
	if !strings.Contains(err.Error(), "aborted") {
		t.Errorf("the error does not say the session was aborted: %v", err)
	}
	if !bytes.Equal(dev.Running(), before) {
		t.Errorf("a refused session changed the running configuration")
	}
	recv := strings.Join(dev.Received(), "\n")
	for _, want := range []string{"terminal length 0", "configure session rocefab-", "abort"} {
		if !strings.Contains(recv, want) {
			t.Errorf("the device never received %q:\n%s", want, recv)
		}
	}
}

// TestEOSCommitTimerLapses: a commit with a timer that is not confirmed
// reverts by itself; one that is confirmed stays.
func TestEOSCommitTimerLapses(t *testing.T) {
	w := newWorld(t, eosLeaves(t, 1))
	d := w.devs[0]
	dev := w.eos[d.Name]
	before := dev.Running()
	p := w.plan(t)
	rem := p.Devices[0].Remediation.Remediation()
	ctx := context.Background()
	if err := w.target.PushConfirmed(ctx, d, rem, time.Second); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(dev.Running(), before) || dev.Pending() == "" {
		t.Fatalf("a commit with a timer did not take effect at once")
	}
	deadline := time.Now().Add(5 * time.Second)
	for dev.Pending() != "" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !bytes.Equal(dev.Running(), before) {
		t.Fatalf("an unconfirmed commit did not revert when its timer lapsed")
	}
	if err := w.target.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.target.Confirm(ctx, d); err != nil {
		t.Fatal(err)
	}
	if dev.Pending() != "" || bytes.Equal(dev.Running(), before) {
		t.Errorf("a confirmed commit is not permanent")
	}
	if err := w.target.Confirm(ctx, d); err == nil {
		t.Errorf("a second confirmation found a commit to confirm")
	}
}

// TestEOSFaults is the fault matrix of plan and apply on EOS over SSH: in
// each case every device's state is known and said, the failing wave is
// rolled back, later waves are untouched, and foreign configuration is as
// it was.
func TestEOSFaults(t *testing.T) {
	for _, c := range []struct {
		name   string
		faults sshtest.Faults
		// want is the failing device's state and a phrase of its reason.
		want   targets.State
		reason string
		// timeout bounds each device's step (20s when zero).
		timeout time.Duration
	}{
		{"timeout mid-push", sshtest.Faults{Delay: 100 * time.Millisecond}, targets.RolledBack, "context deadline exceeded while sending", time.Second},
		{"disconnect mid-push", sshtest.Faults{HangupAfterLines: 2}, targets.RolledBack, "connection was lost", 0},
		{"disconnect after commit", sshtest.Faults{HangupOnCommit: true}, targets.RolledBack, "rolled back", 0},
		{"rejected line", sshtest.Faults{Reject: "random-detect"}, targets.RolledBack, "% Invalid input", 0},
		{"never confirmed", sshtest.Faults{RefuseConfirm: true}, targets.RolledBack, "commit not confirmed", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A case with a step deadline of its own runs alone (see
			// world_test.go); the others share the cores.
			if c.timeout == 0 {
				t.Parallel()
			}
			w := newWorld(t, eosLeaves(t, 3))
			w.timeout = c.timeout
			p := w.plan(t)
			first := p.Devices[0].Device
			// The canary is the first device of the plan's first tier.
			canary := targets.Waves(p, 1, targets.Size{})[0][0].Device
			w.eos[canary].SetFaults(c.faults)
			before := map[string][]byte{}
			for n, e := range w.eos {
				before[n] = e.Running()
			}
			foreign := w.foreign()
			rep := w.apply(t, p, time.Minute, 1)
			if !rep.Failed {
				t.Fatalf("the rollout did not fail: %s", reportJSON(rep))
			}
			got := states(rep)
			for _, o := range rep.Devices {
				switch {
				case o.Device == canary:
					t.Logf("%s: %s: %s", o.Device, o.State, o.Reason)
					if o.State != c.want || !strings.Contains(o.Reason, c.reason) {
						t.Errorf("%s: %s (%s), want %s with %q", o.Device, o.State, o.Reason, c.want, c.reason)
					}
				case o.State != targets.Untouched:
					t.Errorf("%s, in a later wave: %s (%s), want untouched", o.Device, o.State, o.Reason)
				}
			}
			if len(got) != 3 {
				t.Errorf("the report has %d devices, want 3 (first %s)", len(got), first)
			}
			for n, e := range w.eos {
				if !bytes.Equal(e.Running(), before[n]) {
					t.Errorf("%s does not run what it ran before the apply", n)
				}
				if e.Pending() != "" {
					t.Errorf("%s: a commit still runs its timer", n)
				}
			}
			sameForeign(t, foreign, w.foreign())
			assertNoSecret(t, reportJSON(rep))
		})
	}
}

func planJSON(p *targets.Plan) string {
	b, _ := json.MarshalIndent(p, "", " ")
	return string(b)
}

func reportJSON(r *targets.Report) string {
	b, _ := json.MarshalIndent(r, "", " ")
	return string(b)
}

// assertNoSecret fails when any output carries the test password.
func assertNoSecret(t *testing.T, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		if strings.Contains(o, testPassword) {
			t.Fatalf("an output carries the password:\n%s", o)
		}
	}
}

// TestEOSStalePlan: a leaf whose owned configuration another operator
// changed after the plan makes apply refuse the plan, naming the leaf and
// the line, and nothing is pushed to any leaf; a leaf changed outside the
// owned scope (a name server) does not stale it.
func TestEOSStalePlan(t *testing.T) {
	t.Parallel()
	w := newWorld(t, eosLeaves(t, 2))
	p := w.plan(t)
	other := w.eos[w.devs[0].Name]
	other.SetRunning(append(other.Running(), []byte("ip name-server vrf MGMT 192.168.0.2\n")...))
	changed := w.devs[1].Name
	dev := w.eos[changed]
	port := w.devs[1].Switch.Ports[0].Name
	running, err := eosApply(dev.Running(), "interface "+port+"\n   mtu 1234\n")
	if err != nil {
		t.Fatal(err)
	}
	dev.SetRunning(running)
	_, err = targets.Apply(context.Background(), targets.Rollout{Plan: p, Devices: w.devs, Target: w.target, Platforms: eosPlatform,
		ConfirmTimeout: time.Minute, Timeout: 20 * time.Second})
	var stale *targets.StaleError
	if !errors.As(err, &stale) || len(stale.Devices) != 1 || stale.Devices[0].Device != changed ||
		!strings.Contains(err.Error(), "interface "+port+" > mtu changed") {
		t.Fatalf("apply of a stale plan: %v", err)
	}
	for n, e := range w.eos {
		for _, l := range e.Received() {
			if strings.HasPrefix(l, "configure session") {
				t.Errorf("%s was pushed to: %q", n, l)
			}
		}
	}
}

// TestEOSSaveFails: a leaf that cannot save its confirmed change keeps it
// (it cannot be taken back once committed): the apply succeeds, and the
// failure is a warning naming the leaf and the device's words.
func TestEOSSaveFails(t *testing.T) {
	t.Parallel()
	devs := eosLeaves(t, 1)
	w := newWorld(t, devs)
	var warnings []string
	tg, err := ssh.New(ssh.Options{
		Endpoint: func(d *ir.Device) (ssh.Endpoint, error) {
			return ssh.Endpoint{Address: w.srv[d.Name].Addr, Credentials: w.creds, Artifact: artifactOf(d)}, nil
		},
		HostKeys: &ssh.HostKeys{File: w.knownHosts},
		Warn:     func(device, msg string) { warnings = append(warnings, device+": "+msg) },
	})
	if err != nil {
		t.Fatal(err)
	}
	w.target = tg
	w.eos[devs[0].Name].SetFaults(sshtest.Faults{RefuseSave: true})
	rep := w.apply(t, w.plan(t), time.Minute, 0)
	if s := states(rep)[devs[0].Name]; s != targets.Applied {
		t.Fatalf("%s: %s\n%s", devs[0].Name, s, reportJSON(rep))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], devs[0].Name+": the change is committed but not saved") ||
		!strings.Contains(warnings[0], "No space left on device") {
		t.Errorf("warnings: %q", warnings)
	}
	if w.eos[devs[0].Name].Pending() != "" {
		t.Errorf("the commit is not confirmed")
	}
}

// TestEmptyPush: a push of nothing reaches no device, and its
// confirmation and rollback succeed without one.
func TestEmptyPush(t *testing.T) {
	t.Parallel()
	w := newWorld(t, eosLeaves(t, 1))
	d := w.devs[0]
	ctx := context.Background()
	empty := renderers.Remediation{Format: renderers.Text, Content: []byte("\n")}
	if err := w.target.PushConfirmed(ctx, d, empty, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.target.Confirm(ctx, d); err != nil {
		t.Errorf("confirming an empty push: %v", err)
	}
	if err := w.target.PushConfirmed(ctx, d, empty, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.target.Rollback(ctx, d); err != nil {
		t.Errorf("rolling back an empty push: %v", err)
	}
	if n := w.srv[d.Name].Logins(); n != 0 {
		t.Errorf("%d logins for nothing to push", n)
	}
}
