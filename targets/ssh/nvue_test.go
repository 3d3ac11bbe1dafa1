package ssh_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// nvueSpines returns the first n NVUE spines of examples/pod-2048, whose
// running nvue.yaml drifts from the intent.
func nvueSpines(t testing.TB, n int) []*ir.Device {
	return exampleSwitches(t, "pod-2048", ir.PlatformNVUE, n)
}

func nvueApply(applied []byte, lines string) ([]byte, error) {
	return applyWith(nvue.Renderer{}, nvue.File, renderers.YAML, applied, lines)
}

func nvuePlatform(*ir.Device) (renderers.Platform, error) { return nvue.Renderer{}, nil }

// nvWorld is emulated NVUE spines running the example's drifted
// configuration.
type nvWorld struct {
	*fleet
	dev map[string]*sshtest.NVUE
}

// nvSpine serves one NVUE spine: its world, the spine, its emulator and
// what it applied before the test.
func nvSpine(t *testing.T) (*nvWorld, *ir.Device, *sshtest.NVUE, []byte) {
	t.Helper()
	w := newNVWorld(t, 1)
	d := w.devs[0]
	return w, d, w.dev[d.Name], w.dev[d.Name].Applied()
}

func newNVWorld(t testing.TB, n int) *nvWorld {
	t.Helper()
	w := &nvWorld{dev: map[string]*sshtest.NVUE{}}
	w.fleet = serveFleet(t, nvueSpines(t, n), "cumulus", nvuePlatform, func(d *ir.Device) sshtest.Shell {
		running, err := os.ReadFile(filepath.Join("..", "..", "examples", "pod-2048", "running", d.Name, nvue.File))
		if err != nil {
			t.Fatal(err)
		}
		w.dev[d.Name] = sshtest.NewNVUE(d.Name, "cumulus", running, nvueApply)
		return w.dev[d.Name]
	})
	return w
}

// nvueForeign returns the parts of an NVUE document rocefab does not own:
// the management and loopback interfaces, BGP, the system and the VRFs.
func nvueForeign(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var items []map[string]any
	if err := yaml.Unmarshal(doc, &items); err != nil {
		t.Fatalf("the applied configuration is no NVUE document: %v", err)
	}
	out := map[string]any{}
	for _, it := range items {
		set, ok := it["set"].(map[string]any)
		if !ok {
			continue
		}
		ifs, _ := set["interface"].(map[string]any)
		out["eth0"], out["lo"] = ifs["eth0"], ifs["lo"]
		router, _ := set["router"].(map[string]any)
		out["bgp"] = router["bgp"]
		out["system"], out["vrf"] = set["system"], set["vrf"]
	}
	return out
}

func (w *nvWorld) foreign(t *testing.T) map[string]map[string]any {
	out := map[string]map[string]any{}
	for n, d := range w.dev {
		out[n] = nvueForeign(t, d.Applied())
	}
	return out
}

// TestNVUEPlanApplyPlan: plan reads the spines' applied configuration,
// apply stages the nv set/unset lines into a revision, shows NVUE's diff,
// applies it with a confirm timer and confirms it; a second plan is empty,
// no revision is left behind, the confirmed configuration is saved and
// everything outside the owned scope is as it was.
func TestNVUEPlanApplyPlan(t *testing.T) {
	t.Parallel()
	w := newNVWorld(t, 2)
	foreign := w.foreign(t)
	p, rep := w.planApplyPlan(t)
	after := w.foreign(t)
	for n, d := range w.dev {
		if d.Pending() != 0 || d.Revisions() != 0 {
			t.Errorf("%s: a revision is left: pending confirm %d, unapplied %d", n, d.Pending(), d.Revisions())
		}
		if !bytes.Equal(d.Startup(), d.Applied()) {
			t.Errorf("%s: the confirmed revision is not saved", n)
		}
		if !reflect.DeepEqual(foreign[n], after[n]) {
			t.Errorf("%s: configuration outside the owned scope changed", n)
		}
		if diff := w.diffs[n]; !strings.Contains(diff, "nv set ") {
			t.Errorf("%s: NVUE's diff of the revision was not shown: %q", n, diff)
		}
		recv := strings.Join(d.Received(), "\n")
		for _, want := range []string{"nv config show -o yaml | cat", "nv config attach applied -y", "nv config apply --confirm 60s -y", "--confirm-yes", "nv config save"} {
			if !strings.Contains(recv, want) {
				t.Errorf("%s never received %q", n, want)
			}
		}
	}
	assertNoSecret(t, planJSON(p), reportJSON(rep))
}

// TestNVUEInvalidLine: a line NVUE answers with an Error: fails the push
// with NVUE's words; the revision is dropped and nothing is applied, and
// nothing waits to be confirmed or rolled back.
func TestNVUEInvalidLine(t *testing.T) {
	t.Parallel()
	w, d, dev, before := nvSpine(t)
	// The switch refuses the path as NVUE refuses one its schema lacks.
	dev.SetFaults(sshtest.Faults{Reject: "no-such-branch"})
	rem := renderers.Remediation{Format: renderers.Text, Content: []byte("nv set qos roce mode lossless\nnv set no-such-branch here 1\n")}
	err := w.target.PushConfirmed(context.Background(), d, rem, time.Minute)
	var de *ssh.DeviceError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "Error:") || !strings.Contains(err.Error(), "no-such-branch") {
		t.Fatalf("push of an invalid line: %v", err)
	}
	if !strings.Contains(err.Error(), "dropped") {
		t.Errorf("the error does not say the revision was dropped: %v", err)
	}
	if !bytes.Equal(dev.Applied(), before) || dev.Revisions() != 0 || dev.Pending() != 0 {
		t.Errorf("a refused revision left something: applied changed %v, revisions %d, pending %d",
			!bytes.Equal(dev.Applied(), before), dev.Revisions(), dev.Pending())
	}
	if err := w.target.Rollback(context.Background(), d); err == nil {
		t.Errorf("a dropped revision still waits to be rolled back")
	}
}

// TestNVUEConfirmTimerLapses: a revision applied with --confirm and not
// confirmed is rolled back by the switch itself when its timer lapses, and
// confirming it then fails; one confirmed in time stays.
func TestNVUEConfirmTimerLapses(t *testing.T) {
	w, d, dev, before := nvSpine(t)
	p := w.plan(t)
	rem := p.Devices[0].Remediation.Remediation()
	ctx := context.Background()
	if err := w.target.PushConfirmed(ctx, d, rem, time.Second); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(dev.Applied(), before) || dev.Pending() == 0 {
		t.Fatal("an apply with --confirm did not take effect at once")
	}
	deadline := time.Now().Add(5 * time.Second)
	for dev.Pending() != 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !bytes.Equal(dev.Applied(), before) {
		t.Fatal("an unconfirmed revision was not rolled back when its timer lapsed")
	}
	if err := w.target.Confirm(ctx, d); err == nil {
		t.Error("a lapsed revision was confirmed")
	}
	if err := w.target.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.target.Confirm(ctx, d); err != nil {
		t.Fatal(err)
	}
	if dev.Pending() != 0 || bytes.Equal(dev.Applied(), before) {
		t.Error("a confirmed revision is not permanent")
	}
}

// TestNVUERollback: Rollback answers a revision whose timer runs with
// --confirm-no, which reverts it at once.
func TestNVUERollback(t *testing.T) {
	t.Parallel()
	w, d, dev, before := nvSpine(t)
	p := w.plan(t)
	ctx := context.Background()
	if err := w.target.PushConfirmed(ctx, d, p.Devices[0].Remediation.Remediation(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := w.target.Rollback(ctx, d); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dev.Applied(), before) || dev.Pending() != 0 {
		t.Error("a rolled-back revision is still applied")
	}
}

// TestNVUEStalePlan: a spine whose owned configuration another operator
// changed after the plan refuses the plan, naming the spine and the path,
// and nothing is pushed; a change outside the owned scope (the timezone)
// does not stale it.
func TestNVUEStalePlan(t *testing.T) {
	t.Parallel()
	w := newNVWorld(t, 2)
	p := w.plan(t)
	// Another operator renames the first spine: outside what rocefab owns,
	// so rocefab's own applier would refuse the line; it is edited into
	// the switch's configuration as that operator's tool would.
	other := w.devs[0]
	was := w.dev[other.Name].Applied()
	foreign := bytes.Replace(was, []byte("hostname: "+other.Name+"\n"), []byte("hostname: "+other.Name+"-renamed\n"), 1)
	if bytes.Equal(foreign, was) {
		t.Fatalf("%s runs no hostname to change:\n%s", other.Name, was)
	}
	w.dev[other.Name].SetApplied(foreign)
	d := w.devs[1]
	port := d.Switch.Ports[0].Name
	changed, err := nvueApply(w.dev[d.Name].Applied(), "nv set interface "+port+" link mtu 1500\n")
	if err != nil {
		t.Fatal(err)
	}
	w.dev[d.Name].SetApplied(changed)
	_, err = targets.Apply(context.Background(), targets.Rollout{Plan: p, Devices: w.devs, Target: w.target, Platforms: nvuePlatform,
		Canary: 1, ConfirmTimeout: time.Minute, Timeout: 20 * time.Second})
	var se *targets.StaleError
	if !errors.As(err, &se) || len(se.Devices) != 1 || se.Devices[0].Device != d.Name ||
		!strings.Contains(err.Error(), "interface/"+port+"/link/mtu changed") {
		t.Fatalf("apply of a stale plan: %v", err)
	}
	for n, dev := range w.dev {
		for _, l := range dev.Received() {
			if strings.HasPrefix(l, "nv set") || strings.HasPrefix(l, "nv config apply") {
				t.Errorf("%s was pushed to under a stale plan: %q", n, l)
			}
		}
	}
}

// TestNVUEPushWithoutTimer: a push without a timer applies the revision
// for good with `nv config apply -y`; nothing waits to be confirmed.
func TestNVUEPushWithoutTimer(t *testing.T) {
	t.Parallel()
	w, d, dev, before := nvSpine(t)
	p := w.plan(t)
	ctx := context.Background()
	if err := w.target.Push(ctx, d, p.Devices[0].Remediation.Remediation()); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(dev.Applied(), before) || dev.Pending() != 0 || dev.Revisions() != 0 {
		t.Fatalf("a push without a timer: applied changed %v, pending %d, revisions %d",
			!bytes.Equal(dev.Applied(), before), dev.Pending(), dev.Revisions())
	}
	if !slices.Contains(dev.Received(), "nv config apply -y") {
		t.Errorf("the revision was not applied with nv config apply -y: %q", dev.Received())
	}
	if err := w.target.Confirm(ctx, d); err == nil {
		t.Error("a push without a timer left something to confirm")
	}
	if again := w.plan(t); !again.Empty() {
		t.Errorf("a second plan is not empty: %s", again.Summary())
	}
}

// BenchmarkNVUEProbe is the cost of reaching one NVUE switch: the SSH
// handshake, the login and the shell's first prompt.
func BenchmarkNVUEProbe(b *testing.B) {
	w := newNVWorld(b, 1)
	ctx := context.Background()
	for b.Loop() {
		if err := w.target.Probe(ctx, w.devs[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNVUERead adds reading the applied configuration of a spine
// (about 2,700 lines of YAML) to the probe.
func BenchmarkNVUERead(b *testing.B) {
	w := newNVWorld(b, 1)
	ctx := context.Background()
	for b.Loop() {
		if _, err := w.target.Read(ctx, w.devs[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNVUEParseDiff is what plan does with a spine's configuration
// once read: parse it, compute the desired state, diff.
func BenchmarkNVUEParseDiff(b *testing.B) {
	w := newNVWorld(b, 1)
	d := w.devs[0]
	arts, err := w.target.Read(context.Background(), d)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rendertest.ParseDiff(b, nvue.Renderer{}, d, arts)
	}
}
