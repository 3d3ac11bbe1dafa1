package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets"
	dirtarget "github.com/rocefab/rocefab/targets/dir"
)

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
	in, ds, err := schema.Load(dir)
	if err != nil || ds.HasErrors() {
		t.Fatal(err, ds)
	}
	fab, ds := compiler.Compile(in)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
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
