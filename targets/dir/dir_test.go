package dir_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// linePlatform models a device as "key=value" lines in <device>/run.cfg:
// keys starting with "owned." are owned, every other line is foreign. Its
// remediation is "set k v" and "unset k" lines; want is the desired
// state of every device.
type linePlatform struct {
	want map[string]string
}

func (p linePlatform) Desired(d *ir.Device) (renderers.State, error) {
	var es renderers.Elements
	for k, v := range p.want {
		es = append(es, renderers.Element{Path: k, Value: v, Kind: "pfc"})
	}
	return es, nil
}

func (p linePlatform) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	var es renderers.Elements
	for _, a := range running {
		for l := range strings.Lines(string(a.Content)) {
			if k, v, ok := strings.Cut(strings.TrimSuffix(l, "\n"), "="); ok && strings.HasPrefix(k, "owned.") {
				es = append(es, renderers.Element{Path: k, Value: v, Kind: "pfc"})
			}
		}
	}
	return es, nil
}

func (p linePlatform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	return dirtest.SetUnset(running, desired, renderers.Disruptions{"pfc": "traffic-pause"})
}

// Apply edits run.cfg in place. A "notes" line creates notes.txt, for a
// push that creates a file; an "escape" line returns a path out of the
// device's directory; any other line is refused.
// refusingApplier is a device that refuses every push.
type refusingApplier struct{}

func (refusingApplier) Apply([]renderers.Artifact, renderers.Remediation) ([]renderers.Artifact, error) {
	return nil, errors.New("line 1 rejected")
}

func (p linePlatform) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	out := slices.Clone(running)
	i := slices.IndexFunc(out, func(a renderers.Artifact) bool { return strings.HasSuffix(a.Path, "/run.cfg") })
	if i < 0 {
		// A device without one gets one, as a switch without a
		// configuration does.
		out = append(out, renderers.Artifact{Path: renderers.NewArtifactPath(running, "run.cfg")})
		i = len(out) - 1
	}
	lines := strings.SplitAfter(string(out[i].Content), "\n")
	for l := range strings.Lines(string(rem.Content)) {
		f := strings.Fields(l)
		switch f[0] {
		case "set":
			at := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(s, f[1]+"=") })
			if at < 0 {
				lines = append(lines[:len(lines)-1], f[1]+"="+f[2]+"\n", lines[len(lines)-1])
			} else {
				lines[at] = f[1] + "=" + f[2] + "\n"
			}
		case "unset":
			lines = slices.DeleteFunc(lines, func(s string) bool { return strings.HasPrefix(s, f[1]+"=") })
		case "notes":
			dev, _, _ := strings.Cut(out[i].Path, "/")
			out = append(out, renderers.Artifact{Path: dev + "/notes.txt", Content: []byte("created\n")})
		case "escape":
			out = append(out, renderers.Artifact{Path: "../../etc/passwd", Content: []byte("x")})
		default:
			return nil, fmt.Errorf("line %q rejected", strings.TrimSpace(l))
		}
	}
	out[i].Content = []byte(strings.Join(lines, ""))
	return out, nil
}

var leaf = &ir.Device{Name: "leaf-01", Role: ir.RoleLeaf, Platform: "line", Rail: 0}

// runningCfg has foreign lines around the owned ones, no final newline,
// and CRLF on one line: all of it must stay as it is.
const runningCfg = "! device: leaf-01 (DCS-7060X6)\nhostname leaf-01\nowned.pfc=0\nrouter bgp 65000\r\n   neighbor 10.1.0.1 peer group SPINE\nowned.mtu=1500\nmanagement api gnmi\n   transport grpc default\nend"

func setup(t *testing.T) (string, *dir.Target, linePlatform) {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, "leaf-01", "run.cfg"), runningCfg, 0o600)
	write(t, filepath.Join(root, "leaf-01", ".swp"), "hidden", 0o644)
	if err := os.MkdirAll(filepath.Join(root, "leaf-01", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := linePlatform{want: map[string]string{"owned.pfc": "3", "owned.ecn": "150"}}
	return root, dir.New(root, func(*ir.Device) (renderers.Applier, error) { return p, nil }), p
}

func write(t testing.TB, p, s string, mode os.FileMode) {
	t.Helper()
	dirtest.Write(t, p, []byte(s), mode)
}

// lineLeaves writes n leaves of the line platform under root, named by
// format from their index, each running runningCfg as its own, spread
// over rails rails.
func lineLeaves(t testing.TB, root string, n int, format string, rails int) []*ir.Device {
	t.Helper()
	var devs []*ir.Device
	for i := range n {
		name := fmt.Sprintf(format, i)
		devs = append(devs, &ir.Device{Name: name, Role: ir.RoleLeaf, Platform: "line", Rail: i % rails})
		write(t, filepath.Join(root, name, "run.cfg"), strings.ReplaceAll(runningCfg, "leaf-01", name), 0o644)
	}
	return devs
}

// tree returns every file below root with its bytes and mode.
func tree(t *testing.T, root string) map[string]string {
	return dirtest.Files(t, root, dirtest.Mode)
}

func TestRead(t *testing.T) {
	root, tg, _ := setup(t)
	write(t, filepath.Join(root, "leaf-01", "openconfig.json"), "{}", 0o644)
	got, err := tg.Read(t.Context(), leaf)
	if err != nil {
		t.Fatal(err)
	}
	want := []renderers.Artifact{
		{Path: "leaf-01/openconfig.json", Format: renderers.JSON, Content: []byte("{}")},
		{Path: "leaf-01/run.cfg", Format: renderers.Text, Content: []byte(runningCfg)},
	}
	// A read artifact's buffer pool is the build's, never compared.
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(renderers.Artifact{})); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	none, err := tg.Read(t.Context(), &ir.Device{Name: "leaf-02"})
	if err != nil || none != nil {
		t.Errorf("a device without a directory: %v, %v", none, err)
	}
	for _, bad := range []string{"..", "../x", ".hidden", "a/b", ""} {
		if _, err := tg.Read(t.Context(), &ir.Device{Name: bad}); err == nil {
			t.Errorf("device %q read", bad)
		}
	}
}

func TestPushKeepsForeignBytes(t *testing.T) {
	root, tg, _ := setup(t)
	before := tree(t, root)
	rem := renderers.Remediation{Format: renderers.Text, Content: []byte("set owned.pfc 3\nunset owned.mtu\nset owned.ecn 150\n")}
	if err := tg.Push(t.Context(), leaf, rem); err != nil {
		t.Fatal(err)
	}
	after := tree(t, root)
	want := "-rw------- ! device: leaf-01 (DCS-7060X6)\nhostname leaf-01\nowned.pfc=3\nrouter bgp 65000\r\n   neighbor 10.1.0.1 peer group SPINE\nmanagement api gnmi\n   transport grpc default\nowned.ecn=150\nend"
	if after["leaf-01/run.cfg"] != want {
		t.Errorf("run.cfg after push:\n%q\nwant\n%q", after["leaf-01/run.cfg"], want)
	}
	delete(before, "leaf-01/run.cfg")
	delete(after, "leaf-01/run.cfg")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("other files changed (-before +after):\n%s", diff)
	}
	// A remediation the platform refuses writes nothing; a path out of
	// the device's directory is refused before anything is written.
	for _, rem := range []string{"set owned.pfc 4\nbogus\n", "set owned.pfc 4\nescape\n"} {
		mid := tree(t, root)
		if err := tg.Push(t.Context(), leaf, renderers.Remediation{Content: []byte(rem)}); err == nil {
			t.Errorf("push of %q accepted", rem)
		}
		if diff := cmp.Diff(mid, tree(t, root)); diff != "" {
			t.Errorf("a refused push changed files:\n%s", diff)
		}
	}
}

// TestConfirmKeeps runs in a synctest bubble: its clock moves only when
// every goroutine of the test waits, so the confirm always lands before
// the 200 ms timer however loaded the machine is, and the sleep past the
// deadline always lets a timer that was not stopped fire.
func TestConfirmKeeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, tg, _ := setup(t)
		rem := renderers.Remediation{Content: []byte("set owned.pfc 3\nnotes\n")}
		if err := tg.PushConfirmed(t.Context(), leaf, rem, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if err := tg.Push(t.Context(), leaf, rem); err == nil {
			t.Error("a push while a commit is pending was accepted")
		}
		if err := tg.Confirm(t.Context(), leaf); err != nil {
			t.Fatal(err)
		}
		pushed := tree(t, root)
		time.Sleep(300 * time.Millisecond)
		if diff := cmp.Diff(pushed, tree(t, root)); diff != "" {
			t.Errorf("a confirmed commit changed after its timer (-confirmed +now):\n%s", diff)
		}
		if _, ok := pushed["leaf-01/notes.txt"]; !ok {
			t.Error("the created file is gone")
		}
		for p := range pushed {
			if strings.HasPrefix(p, ".rocefab") {
				t.Errorf("left behind: %s", p)
			}
		}
		if err := tg.Confirm(t.Context(), leaf); err == nil {
			t.Error("a second confirm succeeded")
		}
	})
}

func TestRollbackRestoresExactly(t *testing.T) {
	for _, how := range []string{"rollback", "timer", "next read", "refused"} {
		t.Run(how, func(t *testing.T) {
			root, tg, _ := setup(t)
			before := tree(t, root)
			rem := "set owned.pfc 3\nnotes\nunset owned.mtu\n"
			if how == "refused" {
				rem += "bogus\n"
			}
			timeout := time.Hour
			if how == "timer" {
				timeout = 100 * time.Millisecond
			}
			err := tg.PushConfirmed(t.Context(), leaf, renderers.Remediation{Content: []byte(rem)}, timeout)
			if (err != nil) != (how == "refused") {
				t.Fatalf("push: %v", err)
			}
			switch how {
			case "rollback":
				if err := tg.Rollback(t.Context(), leaf); err != nil {
					t.Fatal(err)
				}
			case "timer":
				time.Sleep(250 * time.Millisecond)
			case "next read":
				// The process that pushed is gone and the deadline has
				// passed: another process's first read rolls back.
				p := filepath.Join(root, ".rocefab-pending", "leaf-01", "pending.json")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				var rec map[string]any
				if err := json.Unmarshal(b, &rec); err != nil {
					t.Fatal(err)
				}
				rec["deadline"] = time.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
				b, _ = json.Marshal(rec)
				write(t, p, string(b), 0o644)
				other := dir.New(root, nil)
				arts, err := other.Read(t.Context(), leaf)
				if err != nil || len(arts) != 1 || string(arts[0].Content) != runningCfg {
					t.Fatalf("read after the deadline: %v %v", arts, err)
				}
			}
			if diff := cmp.Diff(before, tree(t, root)); diff != "" {
				t.Errorf("not restored exactly (-before +after):\n%s", diff)
			}
			if err := tg.Confirm(t.Context(), leaf); err == nil {
				t.Error("confirm after the rollback succeeded")
			}
		})
	}
}

func TestLock(t *testing.T) {
	root, tg, _ := setup(t)
	release, err := tg.Lock(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dir.New(root, nil).Lock(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "another apply holds the fabric") {
		t.Errorf("second lock: %v", err)
	}
	// A lock file is not a device.
	arts, _ := tg.Read(t.Context(), &ir.Device{Name: "leaf-01"})
	if len(arts) != 1 {
		t.Errorf("read %d files", len(arts))
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	again, err := tg.Lock(t.Context(), nil)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
}

// Plan, apply and plan again through the directory target: the second
// plan is empty and the foreign bytes are as they were; and a device
// that fails its push in the middle of a wave rolls the wave back to the
// exact bytes.
func TestPlanApplyPlan(t *testing.T) {
	root := t.TempDir()
	p := linePlatform{want: map[string]string{"owned.pfc": "3", "owned.ecn": "150"}}
	devs := lineLeaves(t, root, 6, "leaf-%02d", 2)
	// leaf-04's device refuses its push while reject is set.
	reject := true
	tg := dir.New(root, func(d *ir.Device) (renderers.Applier, error) {
		if reject && d.Name == "leaf-04" {
			return refusingApplier{}, nil
		}
		return p, nil
	})
	platforms := func(*ir.Device) (renderers.Platform, error) { return p, nil }
	plan := func() *targets.Plan {
		pl, err := targets.Make(t.Context(), targets.Request{Devices: devs, Target: tg, Platforms: platforms})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	before := tree(t, root)

	// A device whose push the platform refuses in wave 2 (leaf-02 and
	// leaf-04, after the canary leaf-00): that wave is rolled back, and
	// rail 1's waves are never touched.
	pl := plan()
	rep, err := targets.Apply(t.Context(), targets.Rollout{Plan: pl, Devices: devs, Target: tg, Platforms: platforms,
		Canary: 1, Wave: targets.Size{N: 2}, ConfirmTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]targets.State{}
	for _, o := range rep.Devices {
		got[o.Device] = o.State
	}
	// Rail order: leaf-00, 02, 04 are rail 0; 01, 03, 05 rail 1.
	want := map[string]targets.State{"leaf-00": targets.Applied, "leaf-02": targets.RolledBack, "leaf-04": targets.RolledBack,
		"leaf-01": targets.Untouched, "leaf-03": targets.Untouched, "leaf-05": targets.Untouched}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s\n%+v", diff, rep)
	}
	now := tree(t, root)
	if now["leaf-00/run.cfg"] == before["leaf-00/run.cfg"] {
		t.Error("leaf-00 was not applied")
	}
	delete(now, "leaf-00/run.cfg")
	b2 := maps.Clone(before)
	delete(b2, "leaf-00/run.cfg")
	if diff := cmp.Diff(b2, now); diff != "" {
		t.Errorf("rolled back and untouched devices differ from before (-before +now):\n%s", diff)
	}

	// The rest, from a fresh plan.
	reject = false
	pl = plan()
	rep, err = targets.Apply(t.Context(), targets.Rollout{Plan: pl, Devices: devs, Target: tg, Platforms: platforms, Wave: targets.Size{Percent: 50}})
	if err != nil || rep.Failed {
		t.Fatalf("%v %+v", err, rep)
	}
	if again := plan(); !again.Empty() {
		t.Errorf("plan after apply: %s", again.Summary())
	}
	for name, content := range tree(t, root) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("left behind: %s", name)
			continue
		}
		var foreign []string
		for l := range strings.Lines(content) {
			if !strings.Contains(l, "owned.") {
				foreign = append(foreign, l)
			}
		}
		var was []string
		for l := range strings.Lines(before[name]) {
			if !strings.Contains(l, "owned.") {
				was = append(was, l)
			}
		}
		if diff := cmp.Diff(was, foreign); diff != "" {
			t.Errorf("%s: foreign lines changed (-before +after):\n%s", name, diff)
		}
	}
}

// Planning 1,000 devices read from their files, and applying the plan in
// waves of 10% with the backup, the gate and the confirmation.
func BenchmarkDirectory1000(b *testing.B) {
	root := b.TempDir()
	p := linePlatform{want: map[string]string{"owned.pfc": "3", "owned.ecn": "150"}}
	devs := lineLeaves(b, root, 1000, "leaf-%04d", 8)
	tg := dir.New(root, func(*ir.Device) (renderers.Applier, error) { return p, nil })
	req := targets.Request{Devices: devs, Target: tg, Platforms: func(*ir.Device) (renderers.Platform, error) { return p, nil }}
	b.Run("plan", func(b *testing.B) {
		for b.Loop() {
			if _, err := targets.Make(b.Context(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			pl, err := targets.Make(b.Context(), req)
			if err != nil {
				b.Fatal(err)
			}
			// Each round applies one change: alternate the ECN value.
			p.want["owned.ecn"] = map[string]string{"150": "160", "160": "150"}[p.want["owned.ecn"]]
			pl, err = targets.Make(b.Context(), req)
			if err != nil {
				b.Fatal(err)
			}
			rep, err := targets.Apply(b.Context(), targets.Rollout{Plan: pl, Devices: devs, Target: tg, Platforms: req.Platforms,
				Canary: 1, Wave: targets.Size{Percent: 10}})
			if err != nil || rep.Failed {
				b.Fatal(err, rep.Reason)
			}
		}
	})
}

// A device that runs nothing yet, with no directory or with an empty one
// that someone made, takes its first push: its files are created, and a
// rollback removes them, and the directory only when the push made it.
func TestFreshDevice(t *testing.T) {
	root := t.TempDir()
	p := linePlatform{}
	tg := dir.New(root, func(*ir.Device) (renderers.Applier, error) { return p, nil })
	made := &ir.Device{Name: "leaf-02", Role: ir.RoleLeaf, Platform: "line"}
	empty := &ir.Device{Name: "leaf-03", Role: ir.RoleLeaf, Platform: "line"}
	if err := os.Mkdir(filepath.Join(root, empty.Name), 0o755); err != nil {
		t.Fatal(err)
	}
	rem := renderers.Remediation{Content: []byte("set owned.pfc 3\n")}
	for _, d := range []*ir.Device{made, empty} {
		if arts, err := tg.Read(t.Context(), d); err != nil || len(arts) != 0 {
			t.Fatalf("%s: read %v, %v: want nothing", d.Name, arts, err)
		}
		if err := tg.PushConfirmed(t.Context(), d, rem, time.Minute); err != nil {
			t.Fatalf("%s: first push: %v", d.Name, err)
		}
		arts, err := tg.Read(t.Context(), d)
		if err != nil || len(arts) != 1 || arts[0].Path != d.Name+"/run.cfg" || string(arts[0].Content) != "owned.pfc=3\n" {
			t.Fatalf("%s after its first push: %+v, %v", d.Name, arts, err)
		}
		if err := tg.Rollback(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, made.Name)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: the directory its push made is left after the rollback: %v", made.Name, err)
	}
	if ents, err := os.ReadDir(filepath.Join(root, empty.Name)); err != nil || len(ents) != 0 {
		t.Errorf("%s: the empty directory that was there before is not as it was: %v, %v", empty.Name, ents, err)
	}
	if diff := cmp.Diff(map[string]string{}, tree(t, root)); diff != "" {
		t.Errorf("files left after the rollbacks:\n%s", diff)
	}
}

// Pending tells a device's unconfirmed commit and its deadline, and none
// once it is confirmed; apply refuses a plan while one is pending.
func TestPending(t *testing.T) {
	_, tg, _ := setup(t)
	if pc, err := tg.Pending(t.Context(), leaf); err != nil || pc != nil {
		t.Fatalf("before any push: %v, %v", pc, err)
	}
	before := time.Now()
	if err := tg.PushConfirmed(t.Context(), leaf, renderers.Remediation{Content: []byte("set owned.pfc 3\n")}, time.Minute); err != nil {
		t.Fatal(err)
	}
	pc, err := tg.Pending(t.Context(), leaf)
	if err != nil || pc == nil || pc.Device != leaf.Name || pc.Deadline.Before(before.Add(time.Minute-time.Second)) {
		t.Fatalf("after an unconfirmed push: %+v, %v", pc, err)
	}
	p := &targets.Plan{Devices: []targets.DevicePlan{{Device: leaf.Name, Action: targets.NoOp}}}
	platforms := func(*ir.Device) (renderers.Platform, error) { return linePlatform{}, nil }
	_, err = targets.Apply(t.Context(), targets.Rollout{Plan: p, Devices: []*ir.Device{leaf}, Target: tg, Platforms: platforms})
	if pe, ok := errors.AsType[*targets.PendingError](err); !ok || len(pe.Pending) != 1 {
		t.Errorf("apply while a commit is pending: %v", err)
	}
	if err := tg.Confirm(t.Context(), leaf); err != nil {
		t.Fatal(err)
	}
	if pc, err := tg.Pending(t.Context(), leaf); err != nil || pc != nil {
		t.Errorf("after confirm: %v, %v", pc, err)
	}
}

// Settle shows the pending commits and, as the operator decides, confirms
// those whose devices run their desired state or rolls every one back.
func TestSettle(t *testing.T) {
	for _, confirm := range []bool{true, false} {
		root, tg, p := setup(t)
		before := tree(t, root)
		platforms := func(*ir.Device) (renderers.Platform, error) { return p, nil }
		running, err := tg.Read(t.Context(), leaf)
		if err != nil {
			t.Fatal(err)
		}
		have, _ := p.Parse(leaf, running)
		want, _ := p.Desired(leaf)
		_, rem, err := p.Diff(leaf, have, want)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.PushConfirmed(t.Context(), leaf, rem, time.Minute); err != nil {
			t.Fatal(err)
		}
		var shown []targets.PendingCommit
		settled, err := targets.Settle(t.Context(), targets.Settlement{Devices: []*ir.Device{leaf}, Target: tg, Platforms: platforms,
			Decide: func(pending []targets.PendingCommit) (bool, error) { shown = pending; return confirm, nil }})
		if err != nil || len(shown) != 1 || len(settled) != 1 {
			t.Fatalf("confirm %v: shown %v, settled %v, %v", confirm, shown, settled, err)
		}
		wantState := targets.RolledBack
		if confirm {
			wantState = targets.Applied
		}
		if settled[0].State != wantState {
			t.Errorf("confirm %v: %+v, want %s", confirm, settled[0], wantState)
		}
		if pc, _ := tg.Pending(t.Context(), leaf); pc != nil {
			t.Errorf("confirm %v: still pending", confirm)
		}
		if after := tree(t, root); !confirm && !maps.Equal(after, before) {
			t.Errorf("rolled back, but the files are not as they were:\n%s", cmp.Diff(before, after))
		}
		again, err := targets.Settle(t.Context(), targets.Settlement{Devices: []*ir.Device{leaf}, Target: tg, Platforms: platforms,
			Decide: func([]targets.PendingCommit) (bool, error) { t.Error("asked with nothing pending"); return false, nil }})
		if err != nil || len(again) != 0 {
			t.Errorf("a second settle: %v, %v", again, err)
		}
	}
}
