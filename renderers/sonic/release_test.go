package sonic_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// compileSrc loads src, which must load, and compiles it.
func compileSrc(t *testing.T, src string) (*ir.Fabric, diag.List) {
	t.Helper()
	return linttest.CompileSource(t, src)
}

// releaseLeaf compiles a small fabric of SONiC leaves of model running
// release and returns its first leaf.
func releaseLeaf(t *testing.T, model, release string) *ir.Device {
	t.Helper()
	f, ds := compileSrc(t, fmt.Sprintf(`name: "r"
topology: {servers: 8, rails: 1, nic: {speed: "400G", cable: "3m"},
	leaf: {platform: "sonic", model: %q, release: %q, downlinks: 8, uplinks: 8, speed: "400G"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]
`, model, release))
	if f == nil {
		t.Fatalf("compile: %v", ds)
	}
	for _, d := range f.Devices {
		if d.Platform == ir.PlatformSONiC && d.Role == ir.RoleLeaf {
			return d
		}
	}
	t.Fatal("no SONiC leaf")
	return nil
}

type db = map[string]map[string]map[string]any

// firstKey is the first key of table in db with prefix.
func firstKey(t *testing.T, d db, table, prefix string) string {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(d[table])) {
		if strings.HasPrefix(k, prefix) {
			return k
		}
	}
	t.Fatalf("no %s row %s*", table, prefix)
	return ""
}

// TestDriftPerRelease: for each SONiC release the catalog names, a plan
// from a running config_db.json drifted in one way holds, in its patch,
// only operations that release's GCU validators and patch sorter admit
// on the switch's ASIC (as sonic-utilities' files of that branch say:
// compiler/platforms sonic_gcu), and otherwise carries every change by
// config reload, each labelled a reboot.
func TestDriftPerRelease(t *testing.T) {
	const (
		patch  = "apply-patch"
		reload = "config-reload"
		brk    = "breakout"
	)
	drifts := []struct {
		name string
		edit func(t *testing.T, d db)
		// want is the method by release, on a switch whose ASIC GCU knows
		// (7060X6-64PE: th5, SN5600: spc4) and on one it does not (DS5000).
		want map[string][2]string
	}{
		{"ECN threshold", func(t *testing.T, d db) { d["WRED_PROFILE"]["roce_ecn"]["green_max_threshold"] = "1" },
			// 202411: only azure_lossless fields; 202505: green_* anywhere
			// on a known ASIC; 202511: no WRED validator.
			map[string][2]string{"202411": {reload, reload}, "202505": {patch, reload}, "202511": {patch, patch}}},
		{"buffer profile added with its pool", func(t *testing.T, d db) {
			delete(d["BUFFER_PROFILE"], firstKey(t, d, "BUFFER_PROFILE", "pg_lossless_400000_"))
		}, map[string][2]string{"202411": {reload, reload}, "202505": {reload, reload}, "202511": {patch, patch}}},
		{"buffer profile dynamic_th", func(t *testing.T, d db) {
			d["BUFFER_PROFILE"][firstKey(t, d, "BUFFER_PROFILE", "pg_lossless_400000_")]["dynamic_th"] = "-7"
		}, map[string][2]string{"202411": {patch, reload}, "202505": {patch, reload}, "202511": {patch, reload}}},
		{"DSCP map", func(t *testing.T, d db) { d["DSCP_TO_TC_MAP"]["ROCEFAB"]["26"] = "0" },
			map[string][2]string{"202411": {reload, reload}, "202505": {reload, reload}, "202511": {reload, reload}}},
		{"watchdog", func(t *testing.T, d db) {
			d["PFC_WD"][firstKey(t, d, "PFC_WD", "Ethernet")]["detection_time"] = "999"
		}, map[string][2]string{"202411": {patch, reload}, "202505": {patch, reload}, "202511": {patch, reload}}},
		{"scheduler weight", func(t *testing.T, d db) { d["SCHEDULER"]["scheduler.bulk"]["weight"] = "1" },
			map[string][2]string{"202411": {patch, patch}, "202505": {patch, patch}, "202511": {patch, patch}}},
		{"scheduler type", func(t *testing.T, d db) { d["SCHEDULER"]["scheduler.bulk"]["type"] = "STRICT" },
			map[string][2]string{"202411": {reload, reload}, "202505": {reload, reload}, "202511": {reload, reload}}},
		{"breakout", func(t *testing.T, d db) {
			d["BREAKOUT_CFG"][firstKey(t, d, "BREAKOUT_CFG", "Ethernet")]["brkout_mode"] = "1x800G"
		}, map[string][2]string{"202411": {brk, brk}, "202505": {brk, brk}, "202511": {brk, brk}}},
	}
	for _, release := range []string{"202411", "202505", "202511"} {
		for _, model := range []string{"7060X6-64PE", "SN5600", "DS5000"} {
			d := releaseLeaf(t, model, release)
			want := desired(t, d)
			for _, dr := range drifts {
				what := fmt.Sprintf("%s on %s, %s", dr.name, model, release)
				running := runningArts(d, runningDB(t, d, false, func(m db) { dr.edit(t, m) }))
				changes, rem, err := sonic.Renderer{}.Diff(d, parse(t, d, running), want)
				if err != nil || len(changes) == 0 {
					t.Fatalf("%s: %d changes, %v", what, len(changes), err)
				}
				after, err := sonic.Renderer{}.Apply(running, rem)
				if err != nil {
					t.Fatalf("%s: apply: %v", what, err)
				}
				elementsEqual(t, what, parse(t, d, after).Elements(), want.Elements())
				r := decodeRemediation(t, rem)
				exp := dr.want[release][0]
				if model == "DS5000" {
					exp = dr.want[release][1]
				}
				var got string
				switch {
				case len(r.Breakout) > 0:
					got = brk
					checkBreakoutPrep(t, what, d, r)
				case len(r.ConfigReload) > 0 && len(r.ApplyPatch) == 0:
					got = reload
				case len(r.ApplyPatch) > 0 && len(r.ConfigReload) == 0:
					got = patch
				default:
					t.Fatalf("%s: a remediation of %d patch and %d reload operations", what, len(r.ApplyPatch), len(r.ConfigReload))
				}
				if got != exp {
					t.Errorf("%s: by %s, want %s\n%s", what, got, exp, rem.Content)
				}
				for _, op := range r.ApplyPatch {
					if m := opMethod(t, d, op); m != patch {
						t.Errorf("%s: the patch holds %s %s, which %s takes by %s", what, op.Op, op.Path, release, m)
					}
				}
				for _, op := range r.BreakoutPrep {
					if m := opMethod(t, d, op); m != patch {
						t.Errorf("%s: the patch before the breakout holds %s %s, which %s takes by %s", what, op.Op, op.Path, release, m)
					}
				}
				for _, c := range changes {
					label := map[string]renderers.Disruption{reload: renderers.Reboot, brk: renderers.PortFlap}[got]
					if len(r.ConfigReload)+len(r.BreakoutPrepReload) > 0 {
						label = renderers.Reboot
					}
					if c.Method != got || label != "" && c.Disruption != label {
						t.Errorf("%s: %s is %s by %s, want by %s %s", what, c.Path, c.Disruption, c.Method, got, label)
					}
				}
			}
		}
	}
}

// checkBreakoutPrep: before a breakout, rocefab's rows naming the ports
// it deletes are removed (by patch, or by config reload when the release
// refuses a removal: PORT_QOS_MAP takes only add and replace, sonic-utilities
// PR #4219), and after it they are added back.
func checkBreakoutPrep(t *testing.T, what string, d *ir.Device, r sonic.Remediation) {
	t.Helper()
	var port string
	for _, p := range d.Switch.Ports {
		if p.SKU != nil && p.SKU.BreakoutParent == r.Breakout[0].Port {
			port = p.Name
			break
		}
	}
	prep := append(slices.Clone(r.BreakoutPrep), r.BreakoutPrepReload...)
	main := append(slices.Clone(r.ApplyPatch), r.ConfigReload...)
	has := func(ops []sonic.PatchOp, op, path string) bool {
		return slices.ContainsFunc(ops, func(o sonic.PatchOp) bool { return o.Op == op && o.Path == path })
	}
	for _, path := range []string{"/PFC_WD/" + port, "/QUEUE/" + port + "|3", "/CABLE_LENGTH/AZURE/" + port} {
		if !has(prep, "remove", path) || !has(main, "add", path) {
			t.Errorf("%s: %s is not removed before the breakout and added after it:\nbefore %+v\nafter %+v", what, path, prep, main)
		}
	}
	if len(r.BreakoutPrep) > 0 || len(r.BreakoutPrepReload) == 0 {
		t.Errorf("%s: the PORT_QOS_MAP fields of %s are removed by patch, which the patch sorter refuses", what, port)
	}
}

func decodeRemediation(t *testing.T, rem renderers.Remediation) sonic.Remediation {
	t.Helper()
	var r sonic.Remediation
	if err := json.Unmarshal(rem.Content, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
