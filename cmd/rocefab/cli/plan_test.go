package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// linesPlatform stands in for a real platform in these tests: a device's
// running configuration is <device>/running.cfg, whose "rocefab.<key>=v"
// lines are owned and every other line is foreign. Every device wants PFC
// on priority 3; switches also want the fabric's switch MTU. A running
// file holding "reject-me" makes Apply refuse its remediation.
type linesPlatform struct{}

func (linesPlatform) Desired(d *ir.Device) (renderers.State, error) {
	es := renderers.Elements{{Path: "rocefab.pfc", Value: "3", Kind: "pfc"}}
	if d.Switch != nil {
		es = append(es, renderers.Element{Path: "rocefab.mtu", Value: strconv.Itoa(d.Switch.MTU), Kind: "mtu"})
	}
	return es, nil
}

func (linesPlatform) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	var es renderers.Elements
	for _, a := range running {
		for l := range strings.Lines(string(a.Content)) {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok && strings.HasPrefix(k, "rocefab.") {
				es = append(es, renderers.Element{Path: k, Value: v, Kind: strings.TrimPrefix(k, "rocefab.")})
			}
		}
	}
	return es, nil
}

func (linesPlatform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	return dirtest.SetUnset(running, desired, renderers.Disruptions(d.Disruption[d.Platform]))
}

func (linesPlatform) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	i := slices.IndexFunc(out, func(a renderers.Artifact) bool { return strings.HasSuffix(a.Path, "/running.cfg") })
	if i < 0 {
		return nil, errors.New("no running.cfg")
	}
	if bytes.Contains(out[i].Content, []byte("reject-me")) {
		return nil, errors.New("% Invalid input detected at '^' marker")
	}
	content, err := dirtest.EditLines(out[i].Content, rem.Content)
	if err != nil {
		return nil, err
	}
	out[i].Content = content
	return out, nil
}

// withLinesPlatform serves every platform with linesPlatform for one test.
func withLinesPlatform(t *testing.T) {
	saved := statePlatforms
	statePlatforms = map[string]renderers.Platform{}
	for _, p := range []string{ir.PlatformEOS, ir.PlatformNVUE, ir.PlatformLinux} {
		statePlatforms[p] = linesPlatform{}
	}
	t.Cleanup(func() { statePlatforms = saved })
}

const labIntent = `name: "lab"
topology: {
	servers: 4
	rails:   2
	leaf: {platform: "eos", model: "7060X6-64PE", downlinks: 4, uplinks: 4}
	spine: {platform: "nvue", model: "SN5600"}
}
hosts: nic: ports: ["eth1", "eth2"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]
`

// lab writes the lab intent and a running configuration for each of its
// seven devices: switches with PFC off and an old MTU among their BGP and
// management lines, two servers already right, two without PFC.
func lab(t *testing.T) (dir string, before map[string]string) {
	t.Helper()
	dir = t.TempDir()
	before = map[string]string{}
	write := func(rel, s string) {
		dirtest.Write(t, filepath.Join(dir, filepath.FromSlash(rel)), []byte(s), 0o644)
	}
	write("fabric.cue", labIntent)
	for _, sw := range []string{"leaf-r0-00", "leaf-r1-00", "spine-00"} {
		before[sw] = "hostname " + sw + "\nrocefab.pfc=0\nrouter bgp 65001\n   neighbor SPINE peer group\nrocefab.mtu=9000\nmanagement ssh\n   idle-timeout 60\n"
	}
	for i := range 4 {
		h := fmt.Sprintf("gpu-%04d", i)
		before[h] = "# " + h + " state\nrocefab.pfc=3\n"
		if i >= 2 {
			before[h] = "# " + h + " state\nrocefab.pfc=none\n"
		}
	}
	for name, cfg := range before {
		write("running/"+name+"/running.cfg", cfg)
	}
	return dir, before
}

// rocefabExits runs the command line in dir with stdin as rocefab does,
// and fails t at once unless it exits want: the step a test takes before
// it looks at what the command said.
func rocefabExits(t *testing.T, want int, dir, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	code, stdout, stderr := rocefab(t, dir, stdin, args...)
	if code != want {
		t.Fatalf("rocefab %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout, stderr
}

// rocefab runs the command line in dir with stdin, as Run does.
func rocefab(t *testing.T, dir, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir(dir)
	var out, errw bytes.Buffer
	root := newRoot(&out, &errw)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	code = exitOK
	if err != nil {
		code = exitError
		if ce, ok := errors.AsType[*codeError](err); ok {
			code = ce.code
			if ce.err != nil {
				fmt.Fprintf(&errw, "rocefab: %v\n", ce.err)
			}
		} else {
			fmt.Fprintf(&errw, "rocefab: %v\n", err)
		}
	}
	return code, out.String(), errw.String()
}

// running returns each device's running.cfg.
func running(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(filepath.Join(dir, "running"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left in running/: %s", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "running", e.Name(), "running.cfg"))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// foreignOf returns the lines of a configuration rocefab does not own.
func foreignOf(cfg string) string {
	var b strings.Builder
	for l := range strings.Lines(cfg) {
		if !strings.HasPrefix(l, "rocefab.") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestPlanApplyPlan(t *testing.T) {
	withLinesPlatform(t)
	dir, before := lab(t)

	out, _ := rocefabExits(t, exitPlanChanges, dir, "", "plan", ".", "--detailed-exitcode")
	says(t, "plan output", out,
		"Plan for lab: 7 devices, running configurations from directory running\n",
		// The disruption classes are the catalog's (compiler/platforms).
		"~ leaf-r0-00 (eos leaf, rail 0): update, 2 changes, ",
		"    ~ rocefab.mtu \"9000\" -> \"9216\"  [",
		"  remediation (text):\n"+
			"    | set rocefab.mtu 9216\n"+
			"    | set rocefab.pfc 3\n",
		"~ spine-00 (nvue spine): update, 2 changes, traffic-pause\n",
		"    ~ rocefab.pfc \"0\" -> \"3\"        [traffic-pause]\n",
		"~ gpu-0002 (linux host): update, 1 change, ",
		"\nPlan: 5 devices to change: ",
		"; 2 unchanged\n",
	)
	for _, foreign := range []string{"bgp", "hostname", "management", "state"} {
		if strings.Contains(out, foreign) {
			t.Errorf("plan shows foreign configuration %q", foreign)
		}
	}

	// The saved plan and the JSON view are the same data.
	if code, out, errOut := rocefab(t, dir, "", "plan", ".", "-o", "lab.plan"); code != 0 || !strings.Contains(out, "Saved the plan to lab.plan") {
		t.Fatalf("plan -o: exit %d\n%s%s", code, out, errOut)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "lab.plan"))
	if err != nil {
		t.Fatal(err)
	}
	if code, js, _ := rocefab(t, dir, "", "plan", ".", "--format", "json"); code != 0 || js != string(saved) {
		t.Errorf("--format json differs from the saved plan (exit %d):\n%s", code, cmp.Diff(string(saved), js))
	}

	// A plan whose device changed within the owned scope is stale: it is
	// refused, naming the device and the path.
	leaf := filepath.Join(dir, "running", "leaf-r1-00", "running.cfg")
	if err := os.WriteFile(leaf, []byte(strings.Replace(before["leaf-r1-00"], "rocefab.pfc=0", "rocefab.pfc=1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := rocefab(t, dir, "", "apply", "lab.plan")
	if code != exitPlanError || !strings.Contains(errOut, "the plan is stale") || !strings.Contains(errOut, "leaf-r1-00: rocefab.pfc changed") {
		t.Errorf("stale plan: exit %d\n%s", code, errOut)
	}
	// Outside the owned scope (an ACL by other automation) it is not.
	before["leaf-r1-00"] += "ip access-list MGMT\n"
	if err := os.WriteFile(leaf, []byte(before["leaf-r1-00"]), 0o644); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, running(t, dir)); diff != "" {
		t.Fatalf("a refused apply changed running configurations:\n%s", diff)
	}

	// Applied in waves: servers and leaves before the spine.
	code, out, errOut = rocefab(t, dir, "", "apply", "lab.plan", "--canary", "1", "--wave", "2")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Apply complete: 4 of 4 waves\n") || !strings.Contains(out, "Apply: 5 applied, 0 rolled back, 0 untouched, 0 unknown; 2 unchanged\n") {
		t.Errorf("apply report:\n%s", out)
	}
	lines := strings.Split(errOut, "\n")
	if i, j := slices.Index(lines, "wave 1/4: leaf-r0-00 confirmed"), slices.Index(lines, "wave 4/4: spine-00 confirmed"); i < 0 || j < i {
		t.Errorf("wave order in the events:\n%s", errOut)
	}
	after := running(t, dir)
	for name := range before {
		if foreignOf(after[name]) != foreignOf(before[name]) {
			t.Errorf("%s: foreign configuration changed:\n%s\nwas\n%s", name, after[name], before[name])
		}
	}
	if after["gpu-0000"] != before["gpu-0000"] {
		t.Error("an unchanged device's file changed")
	}
	if code, out, _ := rocefab(t, dir, "", "plan", ".", "--detailed-exitcode"); code != 0 || !strings.Contains(out, "Plan: no changes; 7 unchanged\n") {
		t.Errorf("plan after apply: exit %d\n%s", code, out)
	}
	// The plan was applied: it is stale now.
	if code, _, errOut := rocefab(t, dir, "", "apply", "lab.plan"); code != exitPlanError || !strings.Contains(errOut, "stale") {
		t.Errorf("applying a plan twice: exit %d\n%s", code, errOut)
	}
}

func TestApplyAsks(t *testing.T) {
	withLinesPlatform(t)
	dir, before := lab(t)
	for _, answer := range []string{"", "no\n", "y\n"} {
		code, out, errOut := rocefab(t, dir, answer, "apply", ".")
		if code != exitPlanError || !strings.Contains(out, "Apply this plan to 5 devices? Only 'yes' is accepted: ") || !strings.Contains(errOut, "cancelled") {
			t.Errorf("answer %q: exit %d\n%s%s", answer, code, out, errOut)
		}
	}
	if diff := cmp.Diff(before, running(t, dir)); diff != "" {
		t.Fatalf("an unapproved apply changed running configurations:\n%s", diff)
	}
	if code, out, errOut := rocefab(t, dir, "yes\n", "apply", "."); code != 0 || !strings.Contains(out, "Apply complete") {
		t.Errorf("answer yes: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := rocefab(t, dir, "", "apply", "."); code != 0 || !strings.Contains(out, "Nothing to apply.") {
		t.Errorf("nothing to apply: exit %d\n%s", code, out)
	}
}

// A device that refuses its change: its wave is rolled back to the exact
// bytes, the rest is untouched, and the JSON report gives every device.
func TestApplyFailureReport(t *testing.T) {
	withLinesPlatform(t)
	dir, before := lab(t)
	before["gpu-0003"] += "# reject-me\n"
	if err := os.WriteFile(filepath.Join(dir, "running", "gpu-0003", "running.cfg"), []byte(before["gpu-0003"]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut := rocefabExits(t, exitPlanError, dir, "", "apply", ".", "--auto-approve", "--format", "json", "--canary", "0", "--wave", "3")
	var rep struct {
		Failed  bool
		Reason  string
		Counts  map[string]int
		Devices []targets.Outcome
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, o := range rep.Devices {
		got[o.Device] = string(o.State)
	}
	// Waves of three: leaf-r0-00, leaf-r1-00, gpu-0002; then gpu-0003;
	// then spine-00.
	want := map[string]string{"leaf-r0-00": "applied", "leaf-r1-00": "applied", "gpu-0002": "applied",
		"gpu-0003": "rolled-back", "spine-00": "untouched", "gpu-0000": "unchanged", "gpu-0001": "unchanged"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s\n%s", diff, out)
	}
	if !rep.Failed || !strings.Contains(rep.Reason, "gpu-0003: push failed") || rep.Counts["applied"] != 3 {
		t.Errorf("report: %+v", rep)
	}
	after := running(t, dir)
	for _, name := range []string{"gpu-0003", "spine-00", "gpu-0000"} {
		if after[name] != before[name] {
			t.Errorf("%s: %q, was %q", name, after[name], before[name])
		}
	}
	if !strings.Contains(errOut, "The plan") && !strings.Contains(errOut, "Plan for lab") {
		t.Errorf("with --format json the plan goes to stderr:\n%s", errOut)
	}
}

// Refusals before any push: a held lock, a plan of another format, an
// intent changed since the plan, flags that mean something else.
func TestApplyRefusals(t *testing.T) {
	withLinesPlatform(t)
	dir, before := lab(t)
	if code, _, errOut := rocefab(t, dir, "", "plan", ".", "-o", "lab.plan"); code != 0 {
		t.Fatal(errOut)
	}
	host, _ := os.Hostname()
	lock := filepath.Join(dir, "running", ".rocefab.lock")
	if err := os.WriteFile(lock, fmt.Appendf(nil, `{"pid": %d, "host": %q, "since": "2026-01-01T00:00:00Z"}`, os.Getpid(), host), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := rocefab(t, dir, "", "apply", "lab.plan"); code != exitPlanError || !strings.Contains(errOut, "another apply holds the fabric") {
		t.Errorf("locked: exit %d\n%s", code, errOut)
	}
	os.Remove(lock)

	saved, _ := os.ReadFile(filepath.Join(dir, "lab.plan"))
	v := targets.PlanFormatVersion
	old := bytes.Replace(saved, fmt.Appendf(nil, `"format_version": %d`, v), fmt.Appendf(nil, `"format_version": %d`, v-1), 1)
	if err := os.WriteFile(filepath.Join(dir, "old.plan"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := rocefab(t, dir, "", "apply", "old.plan"); code != exitPlanError || !strings.Contains(errOut, fmt.Sprintf("plan file format version %d: this rocefab reads version %d only; make the plan again", v-1, v)) {
		t.Errorf("format %d: exit %d\n%s", v-1, code, errOut)
	}

	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(labIntent+"// edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := rocefab(t, dir, "", "apply", "lab.plan"); code != exitPlanError || !strings.Contains(errOut, "made from another version of the intent") {
		t.Errorf("intent changed: exit %d\n%s", code, errOut)
	}

	for _, args := range [][]string{
		{"plan", ".", "--format", "yaml"},
		{"plan", ".", "--parallelism", "0"},
		{"plan", ".", "--bogus"},
		{"plan", ".", "--only", "[x"},
		{"plan", "a", "b"},
		{"apply", ".", "--wave", "0"},
		{"apply", ".", "--canary", "-1"},
		{"apply", "lab.plan", "--only", "leaf-*"},
	} {
		if code, _, errOut := rocefab(t, dir, "", args...); code != exitPlanError {
			t.Errorf("%v: exit %d, want 1\n%s", args, code, errOut)
		}
	}
	if diff := cmp.Diff(before, running(t, dir)); diff != "" {
		t.Errorf("refused applies changed running configurations:\n%s", diff)
	}
}

// TestWritePlanFileInterrupted: an interrupt while the plan file is
// written stops the write, and leaves neither the file nor its temporary.
func TestWritePlanFileInterrupted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.plan")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := writePlanFile(ctx, out, &targets.Plan{})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("writing after an interrupt: %v, want interrupted", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if err := writePlanFile(t.Context(), out, &targets.Plan{}); err != nil {
		t.Fatal(err)
	}
}

// createPlan is the plan of a fabric that runs nothing yet: n leaves and
// 4n servers to create, each with changes and a remediation of its own.
func createPlan(n int) *targets.Plan {
	p := &targets.Plan{PlanHead: targets.PlanHead{Fabric: "big", Target: "directory running"}}
	add := func(name string, role ir.Role, platform string, d renderers.Disruption) {
		var rem strings.Builder
		var cs []renderers.Change
		for i := range 4 {
			v := fmt.Sprintf("%s-port-%d", name, i)
			cs = append(cs, renderers.Change{Path: fmt.Sprintf("port/%d/description", i), After: &v, Disruption: d})
			fmt.Fprintf(&rem, "set port %d description %s\n", i, v)
		}
		p.Devices = append(p.Devices, targets.DevicePlan{Device: name, Role: role, Platform: platform, Action: targets.Create,
			Disruption: d, Changes: cs, Remediation: &targets.Remediation{Format: renderers.Text, Content: []byte(rem.String())}})
	}
	for i := range n {
		add(fmt.Sprintf("leaf-%04d", i), ir.RoleLeaf, "sonic", renderers.Reboot)
	}
	for i := range 4 * n {
		add(fmt.Sprintf("gpu-%05d", i), ir.RoleHost, "linux", renderers.TrafficPause)
	}
	p.Devices = append(p.Devices, targets.DevicePlan{Device: "spine-00", Role: ir.RoleSpine, Platform: "nvue", Action: targets.NoOp})
	return p
}

// TestPlanViewCounts: the text view of a plan too large to list (every
// device creating its own configuration) is a table of the devices to
// change by role and platform, and no change or remediation line; a small
// one lists them.
func TestPlanViewCounts(t *testing.T) {
	var big bytes.Buffer
	printPlan(&big, createPlan(500))
	out := big.String()
	says(t, "the view of 2,500 creates", out,
		"too many to list: the devices to change by role and platform (--format json, or -o PLAN, has every device's):",
		"action  role  platform  devices  changes  worst disruption",
		"+  create  leaf  sonic     500      2000     reboot",
		"+  create  host  linux     2000     8000     traffic-pause",
		"Plan: 2500 devices to change: 2000 traffic-pause, 500 reboot; 1 unchanged",
	)
	if strings.Contains(out, "description") || strings.Count(out, "\n") > 20 {
		t.Errorf("the view of 2,500 creates lists changes or remediations (%d lines):\n%s", strings.Count(out, "\n"), out)
	}
	var small bytes.Buffer
	printPlan(&small, createPlan(2))
	if !strings.Contains(small.String(), "set port 3 description gpu-00007-port-3") || strings.Contains(small.String(), "too many to list") {
		t.Errorf("the view of 10 creates does not list them:\n%s", small.String())
	}
}

// TestApplyRefusesEditedDesiredState: a saved plan whose recorded desired
// state of a switch was edited, and written again so that its digests
// agree with the edit, is refused before anything is pushed, naming the
// switch and the element: the state apply gates the wave on is the one
// the intent gives.
func TestApplyRefusesEditedDesiredState(t *testing.T) {
	dir, _ := smallPod(t)
	if code, _, errOut := rocefab(t, dir, "", "plan", ".", "--only", "leaf-r0-00", "-o", "p.plan"); code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	planPath := filepath.Join(dir, "p.plan")
	p := readPlanFile(t, planPath)
	es := p.Devices[0].Desired
	at := slices.IndexFunc(es, func(e renderers.Element) bool { return e.Value != "" })
	if p.Devices[0].Device != "leaf-r0-00" || !p.Devices[0].Action.Changes() || at < 0 {
		t.Fatalf("the plan does not change leaf-r0-00 to a state with values: %+v", p.Devices)
	}
	es[at].Value += "0"
	var b bytes.Buffer
	if err := targets.WritePlan(&b, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "running", "leaf-r0-00", "eos.cfg")
	before, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := rocefab(t, dir, "", "apply", "p.plan", "--auto-approve")
	if code != exitPlanError {
		t.Errorf("apply of an edited desired state: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"the plan does not match its intent", "\n  leaf-r0-00: the desired state differs at " + strconv.Quote(es[at].Path), "nothing was pushed"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("apply does not say %q:\n%s", want, errOut)
		}
	}
	if after, _ := os.ReadFile(cfg); !bytes.Equal(after, before) {
		t.Error("leaf-r0-00 changed after a refused apply")
	}
}
