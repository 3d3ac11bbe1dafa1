package ssh_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	// The CLI's wiring fills the registry of platforms artifactOf reads.
	_ "github.com/rocefab/rocefab/cmd/rocefab/cli"
	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/routing"
	"github.com/rocefab/rocefab/targets/ssh"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
	gossh "golang.org/x/crypto/ssh"
)

// Every test serves emulated devices of its own, so most tests run in
// parallel. Those that wait on a second or less run alone (no
// t.Parallel): a commit timer of a second that must lapse only after the
// test saw the push take effect, a plan or step deadline under a second,
// and the scale test, whose figure is its time. Another test's load on the
// cores could make them miss it.

// testPassword is the secret every emulated device takes; no output of a
// test may carry it.
const testPassword = "s3cret-Do-Not-Print-7f3a"

var (
	examplesMu sync.Mutex
	examples   = map[string][]*ir.Device{}
)

// exampleSwitches returns the first n switches of platform in
// examples/<example>, compiled once for the whole test binary.
func exampleSwitches(t testing.TB, example, platform string, n int) []*ir.Device {
	t.Helper()
	examplesMu.Lock()
	defer examplesMu.Unlock()
	devs, ok := examples[example]
	if !ok {
		devs = compileSwitches(t, filepath.Join("..", "..", "examples", example))
		examples[example] = devs
	}
	var out []*ir.Device
	for _, d := range devs {
		if d.Platform == platform && len(out) < n {
			out = append(out, d)
		}
	}
	if len(out) < n {
		t.Fatalf("%s has %d %s switches, want %d", example, len(out), platform, n)
	}
	return out
}

// compileSwitches compiles the intent in dir and returns its switches.
func compileSwitches(t testing.TB, dir string) []*ir.Device {
	t.Helper()
	in, ds, err := schema.Load(dir)
	if err != nil || ds.HasErrors() {
		t.Fatalf("loading %s: %v %v", dir, err, ds)
	}
	f, ds := compiler.Compile(in)
	if f == nil || ds.HasErrors() {
		t.Fatalf("compiling %s: %v", dir, ds)
	}
	return f.Switches()
}

// eosLeaves returns the first n EOS switches of examples/pod-2048.
func eosLeaves(t testing.TB, n int) []*ir.Device {
	return exampleSwitches(t, "pod-2048", ir.PlatformEOS, n)
}

// eosApply enters lines into a running eos.cfg with the EOS platform.
func eosApply(running []byte, lines string) ([]byte, error) {
	return applyWith(eos.Renderer{}, eos.FileName, renderers.Text, running, lines)
}

// applyWith enters the remediation lines into the running artifact file
// of a platform, as the emulated device's own CLI would.
//
// A platform's Apply is a function of its input alone, and the emulated
// devices give it the same input test after test: every push of a plan
// stages its lines one by one, each entered with every line before it
// into the running configuration the device started from. Each input is
// therefore applied once for the test binary (appliedOnce), and the
// devices get copies of its answer.
func applyWith(p renderers.Applier, file string, format renderers.Format, running []byte, lines string) ([]byte, error) {
	key := sha256.Sum256(fmt.Appendf(nil, "%T\x00%s\x00%s\x00%s\x00%s", p, file, format, running, lines))
	v, _ := appliedOnce.LoadOrStore(key, &appliedInput{})
	in := v.(*appliedInput)
	in.once.Do(func() { in.out, in.err = applyOnce(p, file, format, running, lines) })
	return bytes.Clone(in.out), in.err
}

// appliedOnce holds the answer of applyOnce to each input applyWith was
// given, by a digest of the input.
var appliedOnce sync.Map

// appliedInput is one input's answer, computed by the first caller.
type appliedInput struct {
	once sync.Once
	out  []byte
	err  error
}

func applyOnce(p renderers.Applier, file string, format renderers.Format, running []byte, lines string) ([]byte, error) {
	arts, err := p.Apply([]renderers.Artifact{{Path: "d/" + file, Format: format, Content: running}},
		renderers.Remediation{Format: renderers.Text, Content: []byte(lines)})
	if err != nil {
		return nil, err
	}
	for _, a := range arts {
		if strings.HasSuffix(a.Path, "/"+file) {
			return a.Content, nil
		}
	}
	return running, nil
}

// fleet is emulated switches of one platform behind SSH servers, and the
// target that reaches them.
type fleet struct {
	devs       []*ir.Device
	srv        map[string]*sshtest.Server
	knownHosts string
	creds      *ssh.Credentials
	target     *ssh.Target
	platform   func(*ir.Device) (renderers.Platform, error)
	diffs      map[string]string
	mu         sync.Mutex
	// timeout bounds each device's step in apply (20s when zero).
	timeout time.Duration
}

// serveFleet serves each device with the shell shellFor gives it, to user
// with the test password, and reaches them through one target that
// checks their host keys and records the diffs it pushes.
func serveFleet(t testing.TB, devs []*ir.Device, user string, platform func(*ir.Device) (renderers.Platform, error), shellFor func(d *ir.Device) sshtest.Shell) *fleet {
	t.Helper()
	hk, err := sshtest.NewHostKey()
	if err != nil {
		t.Fatal(err)
	}
	f := &fleet{devs: devs, srv: map[string]*sshtest.Server{}, platform: platform, diffs: map[string]string{}}
	var kh bytes.Buffer
	for _, d := range devs {
		s, err := sshtest.Serve(shellFor(d), hk, sshtest.Credentials{User: user, Password: testPassword})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		f.srv[d.Name] = s
		kh.WriteString(s.KnownHostsLine() + "\n")
	}
	f.knownHosts = filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(f.knownHosts, kh.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f.creds = &ssh.Credentials{Username: user, Auth: ssh.AuthPassword, Password: testPassword}
	f.target = f.newTarget(t, &ssh.HostKeys{File: f.knownHosts})
	return f
}

// options reach the fleet's switches with its credentials, checking host
// keys with hk, and record the diffs pushed.
func (f *fleet) options(hk *ssh.HostKeys) ssh.Options {
	return ssh.Options{
		Endpoint: func(d *ir.Device) (ssh.Endpoint, error) {
			return ssh.Endpoint{Address: f.srv[d.Name].Addr, Credentials: f.creds, Artifact: artifactOf(d)}, nil
		},
		HostKeys:       hk,
		CommandTimeout: 10 * time.Second,
		Diff: func(device, diff string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.diffs[device] = diff
		},
	}
}

func (f *fleet) newTarget(t testing.TB, hk *ssh.HostKeys) *ssh.Target {
	t.Helper()
	return f.newTargetWith(t, hk, nil)
}

// newTargetWith is newTarget keeping its pushes in journal (nil: none):
// a new target is a new process's.
func (f *fleet) newTargetWith(t testing.TB, hk *ssh.HostKeys, journal *targets.Journal) *ssh.Target {
	t.Helper()
	opts := f.options(hk)
	opts.Journal = journal
	tg, err := ssh.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func (f *fleet) plan(t *testing.T) *targets.Plan {
	t.Helper()
	p, err := targets.Make(context.Background(), targets.Request{Devices: f.devs, Target: f.target, Platforms: f.platform, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fleet) apply(t testing.TB, p *targets.Plan, confirm time.Duration, canary int) *targets.Report {
	t.Helper()
	rep, err := targets.Apply(context.Background(), targets.Rollout{
		Plan: p, Devices: f.devs, Target: f.target, Platforms: f.platform, Canary: canary,
		ConfirmTimeout: confirm, Timeout: cmp.Or(f.timeout, 20*time.Second), LapseGrace: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// planApplyPlan plans the fleet, in which every switch drifts, applies
// the plan in waves behind a canary with a minute to confirm, and plans
// again: every switch changes, is applied, and the second plan is empty.
func (f *fleet) planApplyPlan(t *testing.T) (*targets.Plan, *targets.Report) {
	t.Helper()
	p := f.plan(t)
	if s := p.Summary(); s.Change != len(f.devs) {
		t.Fatalf("plan: %s, want %d devices to change\n%s", s, len(f.devs), planJSON(p))
	}
	return p, f.converges(t, p)
}

// converges applies p in waves behind a canary with a minute to confirm:
// every switch is applied, and a second plan is empty.
func (f *fleet) converges(t *testing.T, p *targets.Plan) *targets.Report {
	t.Helper()
	rep := f.apply(t, p, time.Minute, 1)
	for _, d := range rep.Devices {
		if d.State != targets.Applied {
			t.Errorf("%s: %s (%s)", d.Device, d.State, d.Reason)
		}
	}
	if again := f.plan(t); !again.Empty() {
		t.Errorf("a second plan is not empty: %s\n%s", again.Summary(), planJSON(again))
	}
	return rep
}

// remediationOf is the remediation p plans for the device named name.
func remediationOf(p *targets.Plan, name string) renderers.Remediation {
	for _, dp := range p.Devices {
		if dp.Device == name {
			return dp.Remediation.Remediation()
		}
	}
	return renderers.Remediation{}
}

// eventually polls done until it holds, for five seconds at the most (a
// one-second commit timer lapses well within), and says whether it held.
func eventually(done func() bool) bool {
	deadline := time.Now().Add(5 * time.Second)
	for !done() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return done()
}

// pushLapses pushes d's remediation in a fresh plan with a one-second
// timer that nobody confirms: what d runs (running) changes at once, is
// what it ran before again once the timer lapsed, with nothing left on
// the switch (leftovers), and confirming afterwards fails.
func (f *fleet) pushLapses(t *testing.T, d *ir.Device, running func() []byte, leftovers func() []string) {
	t.Helper()
	before := running()
	ctx := context.Background()
	if err := f.target.PushConfirmed(ctx, d, remediationOf(f.plan(t), d.Name), time.Second); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(running(), before) {
		t.Fatal("the push changed nothing")
	}
	eventually(func() bool { return bytes.Equal(running(), before) && len(leftovers()) == 0 })
	if !bytes.Equal(running(), before) {
		t.Fatal("an unconfirmed push was not rolled back when its timer lapsed")
	}
	if l := leftovers(); len(l) > 0 {
		t.Errorf("left on the switch: %v", l)
	}
	if err := f.target.Confirm(ctx, d); err == nil {
		t.Error("a lapsed push was confirmed")
	}
}

// applyFaultyCanary plans the fleet, gives the canary of the first wave
// faults (setFaults) and applies the plan with confirm to confirm: the
// rollout fails, the canary is rolled back with reason and every other
// switch is untouched. running reads what a switch runs, which the
// rollback must leave as it was.
func (f *fleet) applyFaultyCanary(t *testing.T, confirm time.Duration, setFaults func(canary string), running func(name string) []byte, reason string) *targets.Report {
	t.Helper()
	p := f.plan(t)
	canary := targets.Waves(p, 1, targets.Size{})[0][0].Device
	setFaults(canary)
	before := map[string][]byte{}
	for _, d := range f.devs {
		before[d.Name] = running(d.Name)
	}
	rep := f.apply(t, p, confirm, 1)
	if !rep.Failed {
		t.Fatalf("the rollout did not fail: %s", reportJSON(rep))
	}
	for _, o := range rep.Devices {
		t.Logf("%s: %s: %s", o.Device, o.State, o.Reason)
		switch {
		case o.Device == canary && (o.State != targets.RolledBack || !strings.Contains(o.Reason, reason)):
			t.Errorf("%s: %s (%s), want rolled-back with %q", o.Device, o.State, o.Reason, reason)
		case o.Device != canary && o.State != targets.Untouched:
			t.Errorf("%s: %s, want untouched", o.Device, o.State)
		}
	}
	for _, d := range f.devs {
		if !bytes.Equal(running(d.Name), before[d.Name]) {
			t.Errorf("%s does not run what it ran before", d.Name)
		}
	}
	return rep
}

// world is a fabric of emulated EOS switches behind SSH servers.
type world struct {
	*fleet
	eos map[string]*sshtest.EOS
}

func newWorld(t testing.TB, devs []*ir.Device) *world {
	t.Helper()
	return newWorldWith(t, devs, func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "pod-2048", "running", name, eos.FileName))
		if err != nil {
			t.Fatal(err)
		}
		return b
	})
}

// newWorldWith serves each device with the running configuration
// runningFor gives it.
func newWorldWith(t testing.TB, devs []*ir.Device, runningFor func(name string) []byte) *world {
	t.Helper()
	w := &world{eos: map[string]*sshtest.EOS{}}
	w.fleet = serveFleet(t, devs, "netops", eosPlatform, func(d *ir.Device) sshtest.Shell {
		w.eos[d.Name] = sshtest.NewEOS(d.Name, runningFor(d.Name), eosApply)
		return w.eos[d.Name]
	})
	return w
}

func eosPlatform(*ir.Device) (renderers.Platform, error) { return eos.Renderer{}, nil }

// foreign returns every device's configuration outside rocefab's scope.
func (w *world) foreign() map[string][]string {
	out := map[string][]string{}
	for n, e := range w.eos {
		out[n] = eos.Foreign(e.Running())
	}
	return out
}

func states(rep *targets.Report) map[string]targets.State {
	out := map[string]targets.State{}
	for _, d := range rep.Devices {
		out[d.Device] = d.State
	}
	return out
}

func sameForeign(t *testing.T, before, after map[string][]string) {
	t.Helper()
	for n, b := range before {
		if !slices.Equal(b, after[n]) {
			t.Errorf("%s: foreign configuration changed", n)
		}
	}
}

// knownHostsLine is a known_hosts line for addr with key.
func knownHostsLine(addr string, key gossh.PublicKey) string {
	return (&sshtest.Server{Addr: addr, HostKey: key}).KnownHostsLine()
}

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// artifactOf is the name a switch's running configuration is read as: its
// platform's artifact, from the registry of platforms.
func artifactOf(d *ir.Device) string {
	desc, _ := routing.Lookup(d.Platform)
	return desc.Artifact
}
