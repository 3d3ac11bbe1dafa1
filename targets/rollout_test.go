package targets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
)

func TestWaves(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	p := w.plan(t, w.t)
	names := func(ws [][]targets.DevicePlan) [][]string {
		var out [][]string
		for _, w := range ws {
			var n []string
			for _, d := range w {
				n = append(n, d.Device)
			}
			out = append(out, n)
		}
		return out
	}
	for _, c := range []struct {
		canary int
		size   string
		want   [][]string
	}{
		{1, "3", [][]string{
			{"leaf-r0-00"},
			{"leaf-r0-01", "leaf-r1-00", "leaf-r1-01"},
			{"gpu-000", "gpu-001", "gpu-002"},
			{"gpu-003", "gpu-004", "gpu-005"},
			{"gpu-006", "gpu-007"},
			{"spine-00", "spine-01"}}},
		// 25% of 14 devices is 3.5: waves of 4. A wave ends at a tier.
		{0, "25%", [][]string{
			{"leaf-r0-00", "leaf-r0-01", "leaf-r1-00", "leaf-r1-01"},
			{"gpu-000", "gpu-001", "gpu-002", "gpu-003"},
			{"gpu-004", "gpu-005", "gpu-006", "gpu-007"},
			{"spine-00", "spine-01"}}},
		// A canary larger than the edge tier stops at the tier.
		{20, "100%", [][]string{
			{"leaf-r0-00", "leaf-r0-01", "leaf-r1-00", "leaf-r1-01", "gpu-000", "gpu-001", "gpu-002", "gpu-003", "gpu-004", "gpu-005", "gpu-006", "gpu-007"},
			{"spine-00", "spine-01"}}},
	} {
		size, err := targets.ParseSize(c.size)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, names(targets.Waves(p, c.canary, size))); diff != "" {
			t.Errorf("canary %d wave %s (-want +got):\n%s", c.canary, c.size, diff)
		}
	}
	for _, bad := range []string{"0", "-1", "0%", "101%", "x", "5 %", ""} {
		if _, err := targets.ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// foreignLines returns a configuration's lines outside the owned scope.
func foreignLines(cfg string) []string {
	var out []string
	for l := range strings.Lines(cfg) {
		if !strings.HasPrefix(l, "owned.") {
			out = append(out, l)
		}
	}
	return out
}

// ownedOf returns the owned keys and values of a configuration.
func ownedOf(cfg string) map[string]string {
	out := map[string]string{}
	for l := range strings.Lines(cfg) {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && strings.HasPrefix(k, "owned.") {
			out[k] = v
		}
	}
	return out
}

// check verifies that the report gives every device of the plan exactly
// once, in the state want gives it, with a reason wherever it is not
// simply applied or unchanged; and that the devices are in the state the
// report says: applied ones run their desired state, rolled-back,
// untouched and unchanged ones what they ran before (byte for byte when
// exact), and no device's foreign configuration changed at all.
func (w *world) check(t *testing.T, p *targets.Plan, rep *targets.Report, exact bool, want map[string]targets.State) {
	t.Helper()
	got := map[string]targets.State{}
	for _, o := range rep.Devices {
		if _, dup := got[o.Device]; dup {
			t.Errorf("%s reported twice", o.Device)
		}
		got[o.Device] = o.State
		if o.Reason == "" && o.State != targets.Applied && o.State != targets.Unchanged {
			t.Errorf("%s is %s without a reason", o.Device, o.State)
		}
	}
	for _, d := range p.Devices {
		if _, ok := got[d.Device]; !ok {
			t.Errorf("%s is not in the report", d.Device)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	for name, s := range got {
		cfg := w.t.cfg(name)
		if diff := cmp.Diff(foreignLines(w.before[name]), foreignLines(cfg)); diff != "" {
			t.Errorf("%s (%s): foreign configuration changed (-before +after):\n%s", name, s, diff)
		}
		switch s {
		case targets.Applied:
			if diff := cmp.Diff(w.p.want[name], ownedOf(cfg)); diff != "" {
				t.Errorf("%s applied but does not run its desired state (-want +running):\n%s", name, diff)
			}
		case targets.RolledBack, targets.Untouched, targets.Unchanged:
			if exact && cfg != w.before[name] {
				t.Errorf("%s %s but its configuration is not what it was:\n%s\nwas:\n%s", name, s, cfg, w.before[name])
			}
			if diff := cmp.Diff(ownedOf(w.before[name]), ownedOf(cfg)); diff != "" {
				t.Errorf("%s %s but runs other owned settings (-before +now):\n%s", name, s, diff)
			}
		}
	}
}

// states gives every device of devs state s, then the exceptions.
func states(p *targets.Plan, s targets.State, except map[string]targets.State) map[string]targets.State {
	out := map[string]targets.State{}
	for _, d := range p.Devices {
		out[d.Device] = s
	}
	maps.Copy(out, except)
	return out
}

// waveStates gives each device the state of its wave: waves before
// failed are applied, wave failed is rolled back, later ones untouched.
func waveStates(p *targets.Plan, canary int, size targets.Size, failed int) map[string]targets.State {
	out := map[string]targets.State{}
	for k, w := range targets.Waves(p, canary, size) {
		for _, d := range w {
			switch {
			case k+1 < failed:
				out[d.Device] = targets.Applied
			case k+1 == failed:
				out[d.Device] = targets.RolledBack
			default:
				out[d.Device] = targets.Untouched
			}
		}
	}
	return out
}

func (w *world) rollout(p *targets.Plan, tg targets.Target) targets.Rollout {
	return targets.Rollout{Plan: p, Devices: w.devs, Target: tg, Platforms: w.platforms, Canary: 1, Wave: targets.Size{N: 3},
		Parallelism: 4, ConfirmTimeout: 300 * time.Millisecond, Timeout: 2 * time.Second, LapseGrace: 2 * time.Second}
}

// fullPlan returns the world of a fabric of 4 leaves, 2 spines and 8
// servers, a target over it with commit-confirm and rollback, and the
// plan made through that target: where most rollout tests start.
func fullPlan(t *testing.T) (*world, fullTarget, *targets.Plan) {
	t.Helper()
	w := newWorld(fabric(4, 2, 8))
	tg := fullTarget{confirmTarget{w.t}}
	return w, tg, w.plan(t, tg)
}

// apply runs r and fails the test when the rollout returns an error.
func apply(t *testing.T, r targets.Rollout) *targets.Report {
	t.Helper()
	rep, err := targets.Apply(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// outcome returns what rep says of device, failing the test when it says
// nothing of it.
func outcome(t *testing.T, rep *targets.Report, device string) targets.Outcome {
	t.Helper()
	for _, o := range rep.Devices {
		if o.Device == device {
			return o
		}
	}
	t.Fatalf("the report does not name %s", device)
	return targets.Outcome{}
}

func TestApplyAll(t *testing.T) {
	w, tg, p := fullPlan(t)
	var events []string
	r := w.rollout(p, tg)
	r.Event = func(e targets.Event) {
		if e.Step == targets.StepWave || e.Step == targets.StepConfirmed {
			events = append(events, fmt.Sprintf("%d/%d %s %s", e.Wave, e.Waves, e.Step, e.Device))
		}
	}
	rep := apply(t, r)
	w.check(t, p, rep, false, states(p, targets.Applied, nil))
	if rep.Failed || rep.Interrupted || rep.Waves != 6 || rep.Completed != 6 {
		t.Errorf("report %+v", rep)
	}
	if !slices.Contains(events, "1/6 wave ") || !slices.Contains(events, "1/6 confirmed leaf-r0-00") || !slices.Contains(events, "6/6 confirmed spine-01") {
		t.Errorf("events: %v", events)
	}
	// The commits were confirmed: when their timers would have run out,
	// nothing rolls back.
	time.Sleep(400 * time.Millisecond)
	again := w.plan(t, tg)
	if !again.Empty() {
		t.Errorf("plan after apply: %s", again.Summary())
	}
	// Foreign configuration and the order of the lines are untouched.
	if got := w.t.cfg("leaf-r0-00"); got != "owned.pfc=3\n# managed by netops\nhostname leaf-r0-00\nrouter bgp 65000\n  neighbor 10.0.0.1 remote-as 65001\nowned.ecn=150\n! end\n" {
		t.Errorf("leaf-r0-00 after apply:\n%s", got)
	}
}

func TestApplyNothingToDo(t *testing.T) {
	w := newWorld(fabric(1, 1, 1))
	w.t.readErr["gpu-000"] = errors.New("no route to host")
	for _, name := range []string{"leaf-r0-00", "spine-00"} {
		w.t.set(name, "owned.pfc=3\nowned.ecn=150\n")
		w.before[name] = "owned.pfc=3\nowned.ecn=150\n"
	}
	p := w.plan(t, w.t)
	delete(w.t.readErr, "gpu-000")
	rep := apply(t, w.rollout(p, w.t))
	w.check(t, p, rep, true, map[string]targets.State{"leaf-r0-00": targets.Unchanged, "spine-00": targets.Unchanged, "gpu-000": targets.Untouched})
	if rep.Waves != 0 || rep.Devices[0].Reason != "unreachable when planned: no route to host" {
		t.Errorf("report %+v", rep)
	}
}

// A device that rejects its change in the second wave: the wave is rolled
// back, the first stays applied, the later ones are never touched.
func TestApplyRejected(t *testing.T) {
	w, tg, p := fullPlan(t)
	w.t.reject["leaf-r1-00"] = errors.New("% Invalid input (at token 3: 'pfc')")
	rep := apply(t, w.rollout(p, tg))
	w.check(t, p, rep, true, waveStates(p, 1, targets.Size{N: 3}, 2))
	if !rep.Failed || rep.Completed != 1 || !strings.Contains(rep.Reason, "wave 2 of 6: leaf-r1-00: push failed: % Invalid input") {
		t.Errorf("report %+v", rep)
	}
	if o := outcome(t, rep, "leaf-r1-00"); !strings.Contains(o.Reason, "it runs what it ran before the apply") {
		t.Errorf("rejecting device: %+v", o)
	}
	if o := outcome(t, rep, "leaf-r0-01"); !strings.Contains(o.Reason, "its wave failed") || !strings.HasSuffix(o.Reason, "rolled back") {
		t.Errorf("wave-mate: %+v", o)
	}
	if o := outcome(t, rep, "spine-00"); !strings.HasPrefix(o.Reason, "not pushed: the rollout stopped") {
		t.Errorf("later wave: %+v", o)
	}
	if n := w.t.pushes["spine-00"]; n != 0 {
		t.Errorf("spine-00 took %d pushes after the rollout stopped", n)
	}
}

// A push that hangs runs into the timeout; the target has no rollback, so
// the wave-mates roll back when their commit timers lapse.
func TestApplyTimeout(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	tg := confirmTarget{w.t}
	p := w.plan(t, tg)
	w.t.hang["leaf-r0-00"] = true
	r := w.rollout(p, tg)
	r.Timeout = 100 * time.Millisecond
	start := time.Now()
	rep := apply(t, r)
	w.check(t, p, rep, true, waveStates(p, 1, targets.Size{N: 3}, 1))
	if !strings.Contains(rep.Reason, "context deadline exceeded") {
		t.Errorf("reason %q", rep.Reason)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("apply took %s", d)
	}
}

// A commit whose confirmation fails rolls back when its timer lapses; the
// devices of its wave that were confirmed stay applied, and the rollout
// stops.
func TestApplyNeverConfirmed(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	tg := confirmTarget{w.t}
	p := w.plan(t, tg)
	w.t.confirmErr["gpu-001"] = errors.New("session closed")
	rep := apply(t, w.rollout(p, tg))
	want := waveStates(p, 1, targets.Size{N: 3}, 3) // gpu-000..002 are wave 3
	want["gpu-000"], want["gpu-002"] = targets.Applied, targets.Applied
	want["gpu-001"] = targets.RolledBack
	w.check(t, p, rep, true, want)
	if !rep.Failed || rep.Completed != 2 {
		t.Errorf("report %+v", rep)
	}
	if o := outcome(t, rep, "gpu-001"); !strings.Contains(o.Reason, "commit not confirmed: session closed; its commit timer lapsed") {
		t.Errorf("gpu-001: %s", o.Reason)
	}
}

// One device of a wave of sixty takes its push but does not change: the
// gate catches it, and the whole wave is rolled back.
func TestApplyOneFailingInWaveOfMany(t *testing.T) {
	w := newWorld(fabric(0, 0, 60))
	tg := fullTarget{confirmTarget{w.t}}
	p := w.plan(t, tg)
	w.t.ignore["gpu-042"] = true
	r := w.rollout(p, tg)
	r.Canary, r.Wave, r.Parallelism = 0, targets.Size{Percent: 100}, 16
	// Sixty devices are read, pushed and read back before any is
	// confirmed: on a loaded machine that takes longer than the world's
	// short timer, which would roll back devices that did converge (the
	// wave's rollback waits out the timer of the device that ignored its
	// push, so not much longer).
	r.ConfirmTimeout = 3 * time.Second
	rep := apply(t, r)
	w.check(t, p, rep, true, states(p, targets.RolledBack, nil))
	if !strings.Contains(rep.Reason, "gpu-042: did not converge: 1 element differ") {
		t.Errorf("reason %q", rep.Reason)
	}
	for _, d := range w.devs {
		if w.t.pushes[d.Name] != 1 {
			t.Errorf("%s took %d pushes", d.Name, w.t.pushes[d.Name])
		}
	}
}

// The connection drops in the middle of a push and the device stays
// unreachable: it is reported unknown, saying why, and nothing else is
// left in doubt.
func TestApplyDisconnect(t *testing.T) {
	w, tg, p := fullPlan(t)
	w.t.drop["leaf-r1-01"] = true
	r := w.rollout(p, tg)
	r.LapseGrace = 200 * time.Millisecond
	rep := apply(t, r)
	want := waveStates(p, 1, targets.Size{N: 3}, 2)
	want["leaf-r1-01"] = targets.Unknown
	w.check(t, p, rep, true, want)
	if o := outcome(t, rep, "leaf-r1-01"); !strings.Contains(o.Reason, "cannot read it back: connection refused") {
		t.Errorf("leaf-r1-01: %s", o.Reason)
	}
}

// Without commit-confirm or rollback, a failed wave is undone by pushing
// the inverse change: the owned settings come back, the foreign lines stay.
func TestApplyPlainTargetReverses(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	p := w.plan(t, w.t)
	w.t.reject["leaf-r1-01"] = errors.New("line 2 rejected")
	rep := apply(t, w.rollout(p, w.t))
	w.check(t, p, rep, false, waveStates(p, 1, targets.Size{N: 3}, 2))
	if o := outcome(t, rep, "leaf-r0-01"); !strings.HasSuffix(o.Reason, "its change was reversed") {
		t.Errorf("leaf-r0-01: %s", o.Reason)
	}
}

// A plan whose devices changed since within the owned scope is refused
// before any push, naming the devices and the paths; a change outside
// the scope (an ACL on spine-01) does not stale it.
func TestApplyStalePlan(t *testing.T) {
	w, tg, p := fullPlan(t)
	w.t.set("spine-01", w.before["spine-01"]+"ip access-list MGMT\n")
	w.t.set("gpu-003", strings.Replace(w.before["gpu-003"], "owned.ecn=100", "owned.ecn=120", 1))
	w.t.readErr["leaf-r0-00"] = errors.New("timeout")
	_, err := targets.Apply(t.Context(), w.rollout(p, tg))
	se, ok := errors.AsType[*targets.StaleError](err)
	if !ok {
		t.Fatalf("error %v, want a StaleError", err)
	}
	want := []targets.StaleDevice{
		{Device: "gpu-003", Changed: []string{"owned.ecn changed"}},
		{Device: "leaf-r0-00", Err: "timeout"},
	}
	if diff := cmp.Diff(want, se.Devices); diff != "" {
		t.Errorf("stale devices (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "gpu-003: owned.ecn changed") {
		t.Errorf("error: %v", err)
	}
	if len(w.t.pushes) != 0 {
		t.Errorf("pushes after a stale plan: %v", w.t.pushes)
	}
}

// A device whose push failed and whose target could not put back what
// the push had changed is reported unknown, never rolled back, even when
// it reads as before.
func TestApplyPutBackFailed(t *testing.T) {
	w, tg, p := fullPlan(t)
	w.t.reject["leaf-r0-00"] = &targets.PutBackError{Err: errors.New("the runtime failed"), PutBack: errors.New("sudo: a password is required")}
	rep := apply(t, w.rollout(p, tg))
	if o := outcome(t, rep, "leaf-r0-00"); o.State != targets.Unknown || !strings.Contains(o.Reason, "putting it back failed") {
		t.Errorf("leaf-r0-00: %s: %s, want unknown", o.State, o.Reason)
	}
}

// A plan whose devices changed since only outside the owned scope (an
// ACL, the hostname) is applied, and the foreign change stays.
func TestApplyForeignChangeNotStale(t *testing.T) {
	w, tg, p := fullPlan(t)
	w.t.set("spine-01", w.before["spine-01"]+"ip access-list MGMT\n")
	w.t.set("leaf-r0-00", strings.Replace(w.before["leaf-r0-00"], "hostname leaf-r0-00", "hostname leaf-r0-00-new", 1))
	rep, err := targets.Apply(t.Context(), w.rollout(p, tg))
	if err != nil {
		t.Fatalf("a foreign change staled the plan: %v", err)
	}
	if rep.Failed || rep.Counts()[targets.Applied] != p.Summary().Change {
		t.Errorf("apply: %+v", rep)
	}
	if !strings.Contains(w.t.cfg("spine-01"), "ip access-list MGMT") || !strings.Contains(w.t.cfg("leaf-r0-00"), "hostname leaf-r0-00-new") {
		t.Errorf("the foreign changes are gone")
	}
}

// A second apply on the same fabric is refused while the first holds the
// lock, through the target's lock or the lock file.
func TestApplyLocked(t *testing.T) {
	w := newWorld(fabric(2, 1, 2))
	var held sync.Mutex
	tg := lockingTarget{fullTarget{confirmTarget{w.t}}, &held}
	p := w.plan(t, tg)
	held.Lock()
	if _, err := targets.Apply(t.Context(), w.rollout(p, tg)); err == nil || !strings.Contains(err.Error(), "locked by another apply") {
		t.Errorf("apply under a held lock: %v", err)
	}
	held.Unlock()

	lock := filepath.Join(t.TempDir(), "fabric.lock")
	release, err := targets.LockFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	r := w.rollout(p, w.t)
	r.LockPath = lock
	_, err = targets.Apply(t.Context(), r)
	if le, ok := errors.AsType[*targets.LockError](err); !ok || le.Holder.PID == 0 {
		t.Errorf("apply under a held lock file: %v", err)
	}
	if len(w.t.pushes) != 0 {
		t.Errorf("pushes while locked: %v", w.t.pushes)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	rep := apply(t, r)
	w.check(t, p, rep, false, states(p, targets.Applied, nil))
	if _, err := targets.LockFile(lock); err != nil {
		t.Errorf("the lock file was not released: %v", err)
	}
}

// An interrupt in the middle of a wave's pushes: the push under way
// finishes, no other starts, the wave is rolled back and the later waves
// are left untouched.
func TestApplyInterrupted(t *testing.T) {
	w, tg, p := fullPlan(t)
	ctx, cancel := context.WithCancel(t.Context())
	gate := make(chan struct{})
	w.t.gate["leaf-r0-01"] = gate // the first push of wave 2
	w.t.started = make(chan string, 100)
	go func() {
		for name := range w.t.started {
			if name == "leaf-r0-01" {
				cancel()
				close(gate)
			}
		}
	}()
	r := w.rollout(p, tg)
	r.Parallelism = 1
	rep, err := targets.Apply(ctx, r)
	close(w.t.started)
	if err != nil {
		t.Fatal(err)
	}
	want := waveStates(p, 1, targets.Size{N: 3}, 2)
	want["leaf-r1-00"], want["leaf-r1-01"] = targets.Untouched, targets.Untouched
	w.check(t, p, rep, true, want)
	if !rep.Interrupted || rep.Failed {
		t.Errorf("report %+v", rep)
	}
	if w.t.pushes["leaf-r0-01"] != 1 || w.t.pushes["leaf-r1-00"] != 0 {
		t.Errorf("pushes %v", w.t.pushes)
	}
}

// An interrupt after every push of a wave started lets the wave finish:
// it is gated and confirmed, and the rollout stops after it.
func TestApplyInterruptedLetsWaveFinish(t *testing.T) {
	w, tg, p := fullPlan(t)
	ctx, cancel := context.WithCancel(t.Context())
	r := w.rollout(p, tg)
	r.Event = func(e targets.Event) {
		if e.Step == targets.StepPushed && e.Device == "leaf-r1-01" { // the last push of wave 2
			cancel()
		}
	}
	rep, err := targets.Apply(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	want := waveStates(p, 1, targets.Size{N: 3}, 3)
	for _, d := range []string{"gpu-000", "gpu-001", "gpu-002"} {
		want[d] = targets.Untouched
	}
	w.check(t, p, rep, true, want)
	if !rep.Interrupted || rep.Completed != 2 || rep.Reason != "interrupted before wave 3 of 6" {
		t.Errorf("report %+v", rep)
	}
}

// Plans of 100, 1,000 and 5,000 devices, each read and diffed.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			w := newWorld(fabric(n*6/10, n/16, n-n*6/10-n/16))
			for b.Loop() {
				if _, err := targets.Make(b.Context(), targets.Request{Devices: w.devs, Target: w.t, Platforms: w.platforms}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Applying plans of 100, 1,000 and 5,000 devices in waves of 10%, with
// commit-confirm: the stale check, pushes, gates and confirmations.
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				w := newWorld(fabric(n*6/10, n/16, n-n*6/10-n/16))
				tg := confirmTarget{w.t}
				p, err := targets.Make(b.Context(), targets.Request{Devices: w.devs, Target: tg, Platforms: w.platforms})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				rep, err := targets.Apply(b.Context(), targets.Rollout{Plan: p, Devices: w.devs, Target: tg, Platforms: w.platforms,
					Canary: 1, Wave: targets.Size{Percent: 10}})
				if err != nil || rep.Failed {
					b.Fatal(err, rep.Reason)
				}
			}
		})
	}
}

// A transport names the device in its errors, and so does every report of
// them: the plan's reason and a failed wave give the name once, and the
// error still wraps the transport's.
func TestDeviceNamedOnce(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	login := errors.New("leaf-r0-00: SSH login to 10.0.0.9:22 as netops: ssh: unable to authenticate")
	w.t.readErr["leaf-r0-00"] = login
	p := w.plan(t, w.t)
	for _, d := range p.Devices {
		if d.Device == "leaf-r0-00" && d.Reason != "SSH login to 10.0.0.9:22 as netops: ssh: unable to authenticate" {
			t.Errorf("plan reason %q", d.Reason)
		}
	}
	delete(w.t.readErr, "leaf-r0-00")
	tg := fullTarget{confirmTarget{w.t}}
	p = w.plan(t, tg)
	rejected := errors.New("leaf-r1-00: leaf-r1-00: % Invalid input (at token 3: 'pfc')")
	w.t.reject["leaf-r1-00"] = rejected
	rep := apply(t, w.rollout(p, tg))
	if !strings.Contains(rep.Reason, "wave 2 of 6: leaf-r1-00: push failed: % Invalid input") || strings.Count(rep.Reason, "leaf-r1-00") != 1 {
		t.Errorf("report reason %q", rep.Reason)
	}
}

// A plan whose remediation or changes were edited after it was made is
// refused before any device is pushed to, naming the device and the first
// line that differs: a flipped byte, an appended line, a change moved to
// a milder disruption, a no-op turned into an update.
func TestApplyTamperedPlan(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(dp *targets.DevicePlan)
		device string
		want   string
	}{
		{"flipped byte", func(dp *targets.DevicePlan) {
			c := bytes.Clone(dp.Remediation.Content)
			c[len(c)-2] ^= 1
			dp.Remediation.Content = c
		}, "spine-01", `spine-01: the remediation differs at remediation line 2: the plan has "set owned.pfc 2", the intent gives "set owned.pfc 3"`},
		{"appended line", func(dp *targets.DevicePlan) {
			dp.Remediation.Content = append(bytes.Clone(dp.Remediation.Content), "set hostname pwned\n"...)
		}, "gpu-003", `gpu-003: the remediation differs at remediation line 2: the plan has "set hostname pwned", the intent gives nothing`},
		{"milder disruption", func(dp *targets.DevicePlan) {
			dp.Disruption = renderers.Hitless
		}, "leaf-r0-00", `leaf-r0-00: the plan says its disruption is "hitless", the changes are "traffic-pause"`},
		{"dropped change", func(dp *targets.DevicePlan) {
			dp.Changes = dp.Changes[1:]
		}, "leaf-r1-00", "leaf-r1-00: the plan lists 1 change, the intent gives 2 changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, tg, p := fullPlan(t)
			at := slices.IndexFunc(p.Devices, func(dp targets.DevicePlan) bool { return dp.Device == tc.device })
			if at < 0 || !p.Devices[at].Action.Changes() {
				t.Fatalf("the plan does not change %s: %+v", tc.device, p.Devices)
			}
			tc.edit(&p.Devices[at])
			w.refused(t, p, tg, tc.want)
		})
	}
}

// refused applies p and checks that it is refused as a plan that does not
// match its intent, for one device and saying want, before any push.
func (w *world) refused(t *testing.T, p *targets.Plan, tg targets.Target, want string) {
	t.Helper()
	_, err := targets.Apply(t.Context(), w.rollout(p, tg))
	te, ok := errors.AsType[*targets.TamperedError](err)
	if !ok {
		t.Fatalf("error %v, want a TamperedError", err)
	}
	if len(te.Devices) != 1 || !strings.Contains(err.Error(), want) {
		t.Errorf("error:\n%v\nwant one device and %q", err, want)
	}
	if len(w.t.pushes) != 0 {
		t.Errorf("pushes after a refused plan: %v", w.t.pushes)
	}
}

// leakyPlatform is fakePlatform with a bug: its remediation for one
// device also sets a key outside the owned scope, which its CheckScope,
// reading the remediation alone, refuses.
type leakyPlatform struct {
	*fakePlatform
	leak string
}

func (p leakyPlatform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	changes, rem, err := p.fakePlatform.Diff(d, running, desired)
	if d.Name == p.leak {
		rem.Content = append(rem.Content, "set hostname pwned\n"...)
	}
	return changes, rem, err
}

func (leakyPlatform) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	for l := range strings.Lines(string(rem.Content)) {
		if f := strings.Fields(l); len(f) < 2 || !strings.HasPrefix(f[1], "owned.") {
			return fmt.Errorf("line %q: outside the owned scope", strings.TrimSpace(l))
		}
	}
	return nil
}

// A remediation outside the owned scope is refused before any push even
// when the plan and the platform's diff agree on it: the platform's scope
// check is a guard of its own.
func TestApplyScopeGuard(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	tg := fullTarget{confirmTarget{w.t}}
	leaky := leakyPlatform{w.p, "spine-01"}
	platforms := func(d *ir.Device) (renderers.Platform, error) { return leaky, nil }
	p, err := targets.Make(t.Context(), targets.Request{Devices: w.devs, Target: tg, Platforms: platforms})
	if err != nil {
		t.Fatal(err)
	}
	r := w.rollout(p, tg)
	r.Platforms = platforms
	_, err = targets.Apply(t.Context(), r)
	te, ok := errors.AsType[*targets.TamperedError](err)
	if !ok || len(te.Devices) != 1 || !strings.Contains(err.Error(), `spine-01: line "set hostname pwned": outside the owned scope`) {
		t.Fatalf("error %v, want spine-01 refused by its scope", err)
	}
	if len(w.t.pushes) != 0 {
		t.Errorf("pushes after a remediation outside the scope: %v", w.t.pushes)
	}
}

// differTarget is a full target whose devices print their own diff of
// each push, as EOS and NVUE do over SSH.
type differTarget struct {
	fullTarget
	mu    sync.Mutex
	diffs map[string]string
}

func (t *differTarget) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	t.mu.Lock()
	t.diffs[d.Name] = "+" + strings.TrimSpace(string(rem.Content))
	t.mu.Unlock()
	return t.fullTarget.PushConfirmed(ctx, d, rem, timeout)
}

func (t *differTarget) DeviceDiffs() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.diffs)
}

// TestApplyDeviceDiffs: what the devices print as their diff of a push
// reaches the report, by device, for the devices pushed.
func TestApplyDeviceDiffs(t *testing.T) {
	w := newWorld(fabric(2, 1, 0))
	tg := &differTarget{fullTarget: fullTarget{confirmTarget{w.t}}, diffs: map[string]string{}}
	p := w.plan(t, tg)
	rep := apply(t, w.rollout(p, tg))
	if len(rep.DeviceDiffs) != 3 || !strings.HasPrefix(rep.DeviceDiffs["spine-00"], "+") {
		t.Errorf("device diffs %v, want one for each of the 3 devices pushed", rep.DeviceDiffs)
	}
	plain, err := targets.Apply(t.Context(), w.rollout(w.plan(t, w.t), w.t))
	if err != nil || plain.DeviceDiffs != nil {
		t.Errorf("a target that prints no diffs: %v, %v", plain.DeviceDiffs, err)
	}
}

// savedAndRead is p written to a plan file and read back shared by shape,
// as apply reads a saved plan.
func savedAndRead(t *testing.T, p *targets.Plan) *targets.Plan {
	t.Helper()
	var b bytes.Buffer
	if err := targets.WritePlan(&b, p); err != nil {
		t.Fatal(err)
	}
	back, err := targets.ReadSharedPlan(&b)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestApplyDesiredEdited: a plan whose recorded desired state was edited,
// and written again so that every digest in the file agrees with the
// edit, is refused before any device is pushed to, naming the device and
// the first element that differs: on a device the plan changes, and on
// one it leaves.
func TestApplyDesiredEdited(t *testing.T) {
	for _, tc := range []struct {
		name, device string
		edit         func([]renderers.Element) []renderers.Element
		want         string
	}{
		{"value", "spine-01", func(es []renderers.Element) []renderers.Element {
			es[slices.IndexFunc(es, func(e renderers.Element) bool { return e.Path == "owned.pfc" })].Value = "2"
			return es
		}, `spine-01: the desired state differs at "owned.pfc": the plan has "owned.pfc" = "2" (element "pfc"), the intent gives "owned.pfc" = "3" (element "pfc")`},
		{"element added", "leaf-r1-00", func(es []renderers.Element) []renderers.Element {
			return append(es, renderers.Element{Path: "owned.zz", Value: "1"})
		}, `leaf-r1-00: the desired state differs at element 3 of 2: the plan has "owned.zz" = "1", the intent gives nothing`},
		{"element dropped on a device left as it is", "gpu-same", func(es []renderers.Element) []renderers.Element {
			return es[1:]
		}, `gpu-same: the desired state differs at element 1 of 2: the plan has "owned.pfc" = "3" (element "pfc"), the intent gives "owned.ecn" = "150" (element "ecn")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(append(fabric(4, 2, 8), &ir.Device{Name: "gpu-same", Role: ir.RoleHost, Platform: "fake", Rail: -1, Pod: -1}))
			w.t.set("gpu-same", "owned.ecn=150\nowned.pfc=3\n")
			tg := fullTarget{confirmTarget{w.t}}
			p := w.plan(t, tg)
			at := slices.IndexFunc(p.Devices, func(dp targets.DevicePlan) bool { return dp.Device == tc.device })
			if at < 0 || p.Devices[at].Desired == nil {
				t.Fatalf("the plan records no desired state of %s", tc.device)
			}
			p.Devices[at].Desired = tc.edit(slices.Clone(p.Devices[at].Desired))
			w.refused(t, savedAndRead(t, p), tg, tc.want)
		})
	}
}

// shiftingPlatform is fakePlatform whose desired state of a device
// changes once apply has checked the plan: from its second call for a
// device on, Desired gives later instead. An apply that rendered the
// desired state again for its gate would hold the devices to that.
type shiftingPlatform struct {
	*fakePlatform
	later map[string]string
	mu    sync.Mutex
	calls map[string]int
}

func (p *shiftingPlatform) Desired(d *ir.Device) (renderers.State, error) {
	p.mu.Lock()
	p.calls[d.Name]++
	n := p.calls[d.Name]
	p.mu.Unlock()
	if n == 1 {
		return p.fakePlatform.Desired(d)
	}
	var es renderers.Elements
	for k, v := range p.later {
		es = append(es, renderers.Element{Path: k, Value: v, Kind: kinds[k]})
	}
	return es, nil
}

// skewTarget is a full target that leaves one device, once pushed, with
// an ECN threshold other than the one pushed: a device that took its
// push and does not hold what the plan wants.
type skewTarget struct {
	fullTarget
	device, ecn string
}

func (t skewTarget) PushConfirmed(ctx context.Context, d *ir.Device, rem renderers.Remediation, timeout time.Duration) error {
	if err := t.fullTarget.PushConfirmed(ctx, d, rem, timeout); err != nil || d.Name != t.device {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.running[d.Name][0]
	a.Content = []byte(strings.Replace(string(a.Content), "owned.ecn=150", "owned.ecn="+t.ecn, 1))
	t.running[d.Name] = []renderers.Artifact{a}
	return nil
}

// TestApplyGatesOnRecordedState: each wave's gate holds a device to the
// desired state the plan recorded, not to one rendered again after the
// check: a device that holds what a later rendering gives, and not what
// was planned, fails its wave and is rolled back; devices that hold what
// was planned pass, however the rendering changed since the check. An
// apply renders each device's desired state once, to check the plan.
func TestApplyGatesOnRecordedState(t *testing.T) {
	t.Run("held to the plan", func(t *testing.T) {
		w := newWorld(fabric(4, 2, 8))
		tg := skewTarget{fullTarget{confirmTarget{w.t}}, "leaf-r0-00", "151"}
		p := w.plan(t, tg)
		sp := &shiftingPlatform{fakePlatform: w.p, later: map[string]string{"owned.pfc": "3", "owned.ecn": "151"}, calls: map[string]int{}}
		r := w.rollout(savedAndRead(t, p), tg)
		r.Platforms = func(*ir.Device) (renderers.Platform, error) { return sp, nil }
		rep := apply(t, r)
		if !rep.Failed || rep.Completed != 0 || !strings.Contains(rep.Reason, "leaf-r0-00: did not converge: 1 element differs from its desired state (owned.ecn)") {
			t.Errorf("report: failed %v, %d waves completed, %s", rep.Failed, rep.Completed, rep.Reason)
		}
		if got := w.t.cfg("leaf-r0-00"); got != w.before["leaf-r0-00"] {
			t.Errorf("leaf-r0-00 was not rolled back:\n%s", got)
		}
	})
	t.Run("rendered once", func(t *testing.T) {
		w, tg, p := fullPlan(t)
		sp := &shiftingPlatform{fakePlatform: w.p, later: map[string]string{"owned.pfc": "9"}, calls: map[string]int{}}
		r := w.rollout(savedAndRead(t, p), tg)
		r.Platforms = func(*ir.Device) (renderers.Platform, error) { return sp, nil }
		rep := apply(t, r)
		w.check(t, p, rep, false, states(p, targets.Applied, nil))
		for _, d := range w.devs {
			if n := sp.calls[d.Name]; n != 1 {
				t.Errorf("%s: its desired state was computed %d times in an apply, want once (the check)", d.Name, n)
			}
		}
	})
}

// TestApplyStaleInWave: a device that changes between the check and its
// wave is not pushed, and the wave says what changed, named from the
// plan's recorded desired state.
func TestApplyStaleInWave(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	tg := fullTarget{confirmTarget{w.t}}
	p := savedAndRead(t, w.plan(t, tg))
	second := targets.Waves(p, 1, targets.Size{N: 3})[1][0].Device
	r := w.rollout(p, tg)
	r.Event = func(e targets.Event) {
		if e.Step == targets.StepWave && e.Wave == 2 {
			w.t.set(second, strings.Replace(w.before[second], "owned.mtu=1500", "owned.mtu=9000", 1))
		}
	}
	rep := apply(t, r)
	want := second + ": not pushed: it changed since the plan was checked against it: owned.mtu changed"
	if !rep.Failed || rep.Completed != 1 || !strings.Contains(rep.Reason, want) {
		t.Errorf("report: failed %v, %d waves completed, %s; want %q", rep.Failed, rep.Completed, rep.Reason, want)
	}
	if w.t.pushes[second] != 0 {
		t.Errorf("%s was pushed after it changed", second)
	}
}

// heldState is a running state whose device reported that it cannot take
// some of its settings, as renderers/host's State does for a server.
type heldState struct {
	es   renderers.Elements
	held []string
}

func (s heldState) Elements() []renderers.Element { return s.es.Elements() }
func (s heldState) Unmanaged() []string           { return s.held }

// heldPlatform is fakePlatform on devices that cannot take the settings
// held names: their running state says so, and the diff leaves those
// settings alone, as renderers/host's does.
type heldPlatform struct {
	*fakePlatform
	held map[string][]string
}

func (p heldPlatform) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	s, err := p.fakePlatform.Parse(d, running)
	if err != nil || p.held[d.Name] == nil {
		return s, err
	}
	return heldState{renderers.Elements(s.Elements()), p.held[d.Name]}, nil
}

func (p heldPlatform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	keep := func(s renderers.State) renderers.Elements {
		return slices.DeleteFunc(s.Elements(), func(e renderers.Element) bool { return slices.Contains(p.held[d.Name], e.Path) })
	}
	return p.fakePlatform.Diff(d, keep(running), keep(desired))
}

// TestApplyGateLeavesUnmanaged: a setting its device reported it cannot
// take, which the plan therefore does not change, does not fail the gate
// although it differs from the recorded desired state.
func TestApplyGateLeavesUnmanaged(t *testing.T) {
	w := newWorld(fabric(4, 2, 8))
	tg := fullTarget{confirmTarget{w.t}}
	hp := heldPlatform{w.p, map[string][]string{"leaf-r0-00": {"owned.pfc"}}}
	platforms := func(*ir.Device) (renderers.Platform, error) { return hp, nil }
	p, err := targets.Make(t.Context(), targets.Request{Devices: w.devs, Target: tg, Platforms: platforms})
	if err != nil {
		t.Fatal(err)
	}
	r := w.rollout(savedAndRead(t, p), tg)
	r.Platforms = platforms
	rep := apply(t, r)
	if rep.Failed || rep.Counts()[targets.Applied] != p.Summary().Change {
		t.Errorf("apply: %s; %v, want every device to change applied", rep.Reason, rep.Counts())
	}
	if cfg := w.t.cfg("leaf-r0-00"); !strings.Contains(cfg, "owned.pfc=0") || strings.Contains(cfg, "owned.mtu") {
		t.Errorf("leaf-r0-00 after apply, want its MTU line gone and its PFC as it was:\n%s", cfg)
	}
}
