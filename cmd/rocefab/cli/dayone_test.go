package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/targets"
	dirtarget "github.com/rocefab/rocefab/targets/dir"
)

// The day-one scenario of a fabric, measured: plan it from nothing to a
// file, apply that file through the directory target, plan again (no
// changes), then change one line of the intent (the RoCE class's ECN
// minimum, on every switch), plan and apply that. At a reduced size it
// runs with every go test; ROCEFAB_SCALE=hyperscale runs it on
// examples/hyperscale-100k's topology (16,468 devices), ROCEFAB_SCALE=N
// on N servers of it.

// scaleClasses are the default classes written out, so that the ECN
// minimum can change by one line; minimum is its value.
func scaleClasses(minimum string) string {
	return `classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: "` + minimum + `", max: "100KB"}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 50}
}
`
}

// scaleIntent writes hyperscale-100k's intent with servers servers (its
// tenants over them) and the classes written out, into a new directory.
func scaleIntent(tb testing.TB, servers int) string {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "hyperscale-100k", "fabric.cue"))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(src)
	if servers != 12500 {
		// Server names are zero-padded to four digits at least.
		last := servers - 1
		w := max(4, len(strconv.Itoa(last)))
		s = strings.Replace(s, "servers: 12500", "servers: "+strconv.Itoa(servers), 1)
		s = strings.Replace(s, `"gpu-[00000-09999]"`, fmt.Sprintf(`"gpu-[%0*d-%0*d]"`, w, 0, w, last/2), 1)
		s = strings.Replace(s, `"gpu-[10000-12499]"`, fmt.Sprintf(`"gpu-[%0*d-%0*d]"`, w, last/2+1, w, last), 1)
	}
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(s+scaleClasses("50KB")), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// scaleServers is the size of the scenario: the reduced one, or what
// ROCEFAB_SCALE asks for.
func scaleServers(tb testing.TB) int {
	switch v := os.Getenv("ROCEFAB_SCALE"); v {
	case "":
		return 16
	case "hyperscale":
		return 12500
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 8 {
			tb.Fatalf("ROCEFAB_SCALE=%q: hyperscale, or a number of servers of at least 8", v)
		}
		return n
	}
}

// dayOneRun runs rocefab in dir and fails unless it exits with code; it
// returns stdout and how long the run took.
func dayOneRun(tb testing.TB, dir string, code int, args ...string) (string, time.Duration) {
	tb.Helper()
	var out, errOut bytes.Buffer
	prev, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		tb.Fatal(err)
	}
	defer os.Chdir(prev)
	start := time.Now()
	got := Run(args, &out, &errOut)
	took := time.Since(start)
	if got != code {
		tb.Fatalf("rocefab %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, clipOut(out.String()), clipOut(errOut.String()))
	}
	return out.String(), took
}

// clipOut keeps the end of a long output for a failure message.
func clipOut(s string) string {
	const most = 4000
	if len(s) > most {
		return "…" + s[len(s)-most:]
	}
	return s
}

// TestDayOne runs the day-one scenario at the reduced size (or the one
// ROCEFAB_SCALE asks for) and logs how long each step took and the size
// of the greenfield plan file.
func TestDayOne(t *testing.T) {
	servers := scaleServers(t)
	dir := scaleIntent(t, servers)
	for _, st := range []struct {
		name string
		// edit, when set, changes the intent before the step.
		edit []string
		args []string
		code int
		want []string
		not  string
	}{
		{name: "greenfield plan", args: []string{"plan", ".", "-o", "p.plan", "--detailed-exitcode"}, code: exitPlanChanges,
			want: []string{"devices to change", "; 0 unchanged"}},
		{name: "greenfield apply", args: []string{"apply", "p.plan", "--auto-approve"},
			want: []string{" 0 rolled back, 0 untouched, 0 unknown; 0 unchanged"}},
		{name: "plan with no change", args: []string{"plan", ".", "--detailed-exitcode"}, want: []string{"Plan: no changes;"}},
		{name: "one-line-change plan", edit: []string{`min: "50KB"`, `min: "60KB"`}, args: []string{"plan", ".", "-o", "p2.plan", "--detailed-exitcode"},
			code: exitPlanChanges, want: []string{`min-threshold "50000" -> "60000"`}, not: "too many to list"},
		{name: "one-line-change apply", args: []string{"apply", "p2.plan", "--auto-approve"}, want: []string{" 0 rolled back, 0 untouched, 0 unknown;"}},
		{name: "plan after it", args: []string{"plan", ".", "--detailed-exitcode"}, want: []string{"Plan: no changes;"}},
	} {
		if st.edit != nil {
			p := filepath.Join(dir, "fabric.cue")
			if err := os.WriteFile(p, bytes.Replace(mustRead(t, p), []byte(st.edit[0]), []byte(st.edit[1]), 1), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, took := dayOneRun(t, dir, st.code, st.args...)
		for _, w := range st.want {
			if !strings.Contains(out, w) || (st.not != "" && strings.Contains(out, st.not)) {
				t.Fatalf("%s: the output does not say %q (or says %q):\n%s", st.name, w, st.not, clipOut(out))
			}
		}
		t.Logf("%d servers: %s %v, %d lines of text", servers, st.name, took.Round(time.Millisecond), strings.Count(out, "\n"))
	}
	if st, err := os.Stat(filepath.Join(dir, "p.plan")); err == nil {
		t.Logf("greenfield plan file: %d bytes", st.Size())
	}
}

func mustRead(tb testing.TB, p string) []byte {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkGreenfieldPlan plans the fabric (reduced, or as ROCEFAB_SCALE
// asks) from nothing to a plan file.
func BenchmarkGreenfieldPlan(b *testing.B) {
	dir := scaleIntent(b, scaleServers(b))
	b.ReportAllocs()
	for b.Loop() {
		dayOneRun(b, dir, exitOK, "plan", ".", "-o", "p.plan")
	}
}

// benchApplied returns a fabric whose greenfield plan is applied.
func benchApplied(b *testing.B) string {
	b.Helper()
	dir := scaleIntent(b, scaleServers(b))
	dayOneRun(b, dir, exitOK, "plan", ".", "-o", "p.plan")
	dayOneRun(b, dir, exitOK, "apply", "p.plan", "--auto-approve")
	return dir
}

// setMinimum writes the intent with the ECN minimum m.
func setMinimum(b *testing.B, dir, m string) {
	b.Helper()
	p := filepath.Join(dir, "fabric.cue")
	src := mustRead(b, p)
	i := bytes.Index(src, []byte("classes: {"))
	if err := os.WriteFile(p, append(src[:i:i], scaleClasses(m)...), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOneLineChangePlan plans a change of the ECN minimum on every
// switch of an applied fabric.
func BenchmarkOneLineChangePlan(b *testing.B) {
	dir := benchApplied(b)
	setMinimum(b, dir, "60KB")
	b.ReportAllocs()
	for b.Loop() {
		dayOneRun(b, dir, exitOK, "plan", ".", "-o", "p2.plan")
	}
}

// BenchmarkOneLineChangeApply applies a saved plan of a change of the ECN
// minimum on every switch, alternating between two values.
func BenchmarkOneLineChangeApply(b *testing.B) {
	dir := benchApplied(b)
	values := []string{"60KB", "50KB"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		setMinimum(b, dir, values[i%2])
		dayOneRun(b, dir, exitOK, "plan", ".", "-o", "p2.plan")
		b.StartTimer()
		dayOneRun(b, dir, exitOK, "apply", "p2.plan", "--auto-approve")
	}
}

// TestFreshFabricApply: a fabric without running/ (one leaf with an empty
// directory someone made) plans every device as create, apply configures
// every switch and server through the directory target, and the next
// plan has nothing to do.
func TestFreshFabricApply(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(labIntent), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := rocefab(t, dir, "", "plan", ".", "--detailed-exitcode")
	if code != exitPlanChanges || !strings.Contains(out, "Plan: 7 devices to change") || strings.Count(out, "create") == 0 || strings.Contains(out, "update") {
		t.Fatalf("plan of a fresh fabric: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.MkdirAll(filepath.Join(dir, "running", "leaf-r0-00"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = rocefab(t, dir, "", "apply", ".", "--auto-approve")
	if code != exitOK || !strings.Contains(out, "Apply: 7 applied, 0 rolled back, 0 untouched, 0 unknown") {
		t.Fatalf("apply of a fresh fabric: exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"leaf-r0-00/eos.cfg", "leaf-r1-00/eos.cfg", "spine-00/nvue.yaml", "gpu-0000/host-state.json"} {
		if _, err := os.Stat(filepath.Join(dir, "running", f)); err != nil {
			t.Errorf("apply did not create %s: %v", f, err)
		}
	}
	code, out, errOut = rocefab(t, dir, "", "plan", ".", "--detailed-exitcode")
	if code != exitOK || !strings.Contains(out, "Plan: no changes; 7 unchanged") {
		t.Errorf("plan after apply: exit %d\n%s%s", code, out, errOut)
	}
}

// everyPlatformIntent has a switch tier of each CLI platform the directory
// target keeps as files (SONiC leaves, NX-OS spines, NVUE superspines;
// EOS is labIntent's) over servers.
const everyPlatformIntent = `name: "fresh"
topology: {
	servers: 4
	rails:   2
	leaf: {platform: "sonic", model: "DS5000", downlinks: 4, uplinks: 4}
	spine: {platform: "nxos"}
	superspine: {platform: "nvue"}
}
hosts: nic: ports: ["eth1", "eth2"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]
`

// TestFreshFabricSavedPlan: a fabric of SONiC leaves, NX-OS spines and
// NVUE superspines that runs nothing yet is planned to a file, every
// device as create; apply of that file creates each device's files
// through the directory target in the same waves (canary first, rail by
// rail, tier by tier) with the same checks, and the next plan has
// nothing to do.
func TestFreshFabricSavedPlan(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(everyPlatformIntent), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := rocefab(t, dir, "", "plan", ".", "-o", "fresh.plan", "--detailed-exitcode")
	if code != exitPlanChanges || !strings.Contains(out, "Plan: 8 devices to change") || strings.Contains(out, "update") {
		t.Fatalf("plan of a fresh fabric: exit %d\n%s%s", code, out, errOut)
	}
	for _, d := range readPlanFile(t, filepath.Join(dir, "fresh.plan")).Devices {
		if d.Action != targets.Create {
			t.Errorf("%s: planned %s, want create", d.Device, d.Action)
		}
	}
	code, out, errOut = rocefab(t, dir, "", "apply", "fresh.plan", "--auto-approve", "--canary", "1")
	if code != exitOK || !strings.Contains(out, "Apply: 8 applied, 0 rolled back, 0 untouched, 0 unknown") {
		t.Fatalf("apply of a fresh fabric's plan: exit %d\n%s%s", code, out, errOut)
	}
	// The canary alone in the first wave; the tiers in waves of their own.
	waves := map[string]int{}
	for l := range strings.Lines(out) {
		if f := strings.Fields(l); len(f) >= 4 && f[0] == "applied" && f[2] == "wave" {
			waves[f[1]], _ = strconv.Atoi(f[3])
		}
	}
	if waves["leaf-r0-00"] != 1 || waves["spine-00"] <= waves["leaf-r1-00"] || waves["superspine-00"] <= waves["spine-00"] {
		t.Errorf("waves: %v, want the canary leaf-r0-00 first, then leaves, spines, superspines", waves)
	}
	for _, f := range []string{"leaf-r0-00/config_db.json", "leaf-r1-00/config_db.json", "spine-00/nxos.cfg", "superspine-00/nvue.yaml", "gpu-0003/host-state.json"} {
		if _, err := os.Stat(filepath.Join(dir, "running", f)); err != nil {
			t.Errorf("apply did not create %s: %v", f, err)
		}
	}
	code, out, errOut = rocefab(t, dir, "", "plan", ".", "--detailed-exitcode")
	if code != exitOK || !strings.Contains(out, "Plan: no changes; 8 unchanged") {
		t.Errorf("plan after apply: exit %d\n%s%s", code, out, errOut)
	}
}

// TestFreshOpenConfig: switches whose running configuration is an
// OpenConfig tree, kept as files by the directory target, are created from
// nothing by the same plan and rollout, and the next plan has nothing to
// do.
func TestFreshOpenConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(everyPlatformIntent), 0o644); err != nil {
		t.Fatal(err)
	}
	fab := compileIntent(t, dir)
	var switches []*ir.Device
	for _, d := range fab.Devices {
		if d.Switch != nil {
			switches = append(switches, d)
		}
	}
	oc := openconfig.Platform{}
	platforms := func(*ir.Device) (renderers.Platform, error) { return oc, nil }
	tg := dirtarget.New(filepath.Join(dir, "running"), func(*ir.Device) (renderers.Applier, error) { return oc, nil })
	req := targets.Request{Devices: switches, Target: tg, Platforms: platforms}
	p, err := targets.Make(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Summary(); s.Change != len(switches) {
		t.Fatalf("plan of fresh OpenConfig switches: %s", s)
	}
	rep, err := targets.Apply(t.Context(), targets.Rollout{Plan: p, Devices: switches, Target: tg, Platforms: platforms, Canary: 1, ConfirmTimeout: time.Minute})
	if err != nil || rep.Failed {
		t.Fatalf("apply: %v %+v", err, rep)
	}
	if c := rep.Counts(); c[targets.Applied] != len(switches) {
		t.Errorf("apply: %v", c)
	}
	for _, d := range switches {
		if _, err := os.Stat(filepath.Join(dir, "running", d.Name, openconfig.FileName)); err != nil {
			t.Errorf("apply did not create %s's %s: %v", d.Name, openconfig.FileName, err)
		}
	}
	again, err := targets.Make(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Empty() {
		t.Errorf("plan after apply: %s", again.Summary())
	}
}
