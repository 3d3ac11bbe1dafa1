package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// copyExample copies examples/<name> (intent and running/) to a new
// directory and returns it.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(repoRoot(t), "examples", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// smallPodServers is how many of pod-2048's 256 servers smallPod keeps:
// one leaf a rail, 42 devices in all.
const smallPodServers = 32

// smallPod copies pod-2048 cut to its first smallPodServers servers (its
// tenants cut to them too) with the running/ of the devices it still has,
// and returns the directory and the number of devices. The end-to-end
// tests whose point is not scale run on it: the same platforms, roles,
// foreign configuration and transports as the full pod, an eighth of the
// devices.
func smallPod(t *testing.T) (string, int) {
	t.Helper()
	dir := copyExample(t, "pod-2048")
	path := filepath.Join(dir, "fabric.cue")
	cutIntent(t, path, path, map[string]string{
		"servers: 256":      fmt.Sprintf("servers: %d", smallPodServers),
		`"gpu-[0000-0191]"`: fmt.Sprintf(`"gpu-[0000-%04d]"`, smallPodServers*3/4-1),
		`"gpu-[0192-0255]"`: fmt.Sprintf(`"gpu-[%04d-%04d]"`, smallPodServers*3/4, smallPodServers-1),
	})
	kept := map[string]bool{}
	for _, d := range compileIntent(t, dir).Devices {
		kept[d.Name] = true
	}
	entries, err := os.ReadDir(filepath.Join(dir, "running"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !kept[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, "running", e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, len(kept)
}

// cutIntent writes the intent file src to dst (which may be src) with
// each text of cuts replaced once by its replacement. An intent without
// one of the texts fails t: the example changed under the test.
func cutIntent(t *testing.T, src, dst string, cuts map[string]string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	intent := string(b)
	for from, to := range cuts {
		if !strings.Contains(intent, from) {
			t.Fatalf("%s has no %s to cut it with", src, from)
		}
		intent = strings.Replace(intent, from, to, 1)
	}
	if err := os.WriteFile(dst, []byte(intent), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runningFiles returns every file below dir/running, by relative path.
func runningFiles(t *testing.T, dir string) map[string]string {
	return dirtest.Files(t, filepath.Join(dir, "running"), 0)
}

// nvueForeign returns an NVUE running configuration without the subtrees
// rocefab owns (docs/ownership.md) and without the maps that leaves empty.
func nvueForeign(t *testing.T, src []byte) any {
	t.Helper()
	var doc []map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	del := func(m any, keys ...string) {
		for _, k := range keys[:len(keys)-1] {
			mm, ok := m.(map[string]any)
			if !ok {
				return
			}
			m = mm[k]
		}
		if mm, ok := m.(map[string]any); ok {
			delete(mm, keys[len(keys)-1])
		}
	}
	for _, item := range doc {
		set, ok := item["set"].(map[string]any)
		if !ok {
			continue
		}
		for _, k := range []string{"roce", "pfc", "pfc-watchdog", "traffic-pool"} {
			del(set, "qos", k)
		}
		for _, k := range []string{"mapping", "egress-queue-mapping", "egress-scheduler", "congestion-control"} {
			del(set, "qos", k, "default-global")
		}
		del(set, "router", "adaptive-routing")
		ifs, _ := set["interface"].(map[string]any)
		for _, port := range ifs {
			del(port, "description")
			for _, k := range []string{"mtu", "speed", "breakout"} {
				del(port, "link", k)
			}
			del(port, "qos", "pfc")
			del(port, "qos", "pfc-watchdog")
			del(port, "router", "adaptive-routing")
		}
	}
	return pruneEmpty(doc)
}

func pruneEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			x = pruneEmpty(x)
			if m, ok := x.(map[string]any); ok && len(m) == 0 {
				continue
			}
			out[k] = x
		}
		return out
	case []map[string]any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = pruneEmpty(x)
		}
		return out
	}
	return v
}

// hostForeign returns a server's report without the values apply
// rewrites (each setting's have) and the settings apply adds (those
// reported for the first time): what is left is the server's own.
func hostForeign(t *testing.T, src []byte, paths map[string]bool) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	settings, _ := doc["settings"].([]any)
	var kept []any
	for _, s := range settings {
		m, _ := s.(map[string]any)
		if paths != nil && !paths[m["path"].(string)] {
			continue
		}
		delete(m, "have")
		kept = append(kept, m)
	}
	doc["settings"] = kept
	return doc
}

// TestPod2048PlanApplyPlan is plan -> apply --auto-approve -> plan on a
// copy of examples/pod-2048: the first plan changes every switch and
// server, the last has no changes, and every byte outside what rocefab
// owns is as it was: the EOS leaves' BGP, management and ACL lines, the
// NVUE spines' foreign keys, the servers' notes and their settings' wants.
func TestPod2048PlanApplyPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("applies to the 336 devices of pod-2048")
	}
	dir := copyExample(t, "pod-2048")
	before := runningFiles(t, dir)
	out, errOut := rocefabExits(t, exitPlanChanges, dir, "", "plan", ".", "--detailed-exitcode")
	says(t, "plan", out,
		"~ 252 devices (linux host): gpu-0000, ",
		"~ 4 devices (linux host): gpu-0037, gpu-0101, gpu-0166, gpu-0230: update, 28 changes each, hitless\n",
		`    ~ eth2/dscp2prio "0-47:0 48:6 49-63:0" -> "0-9:0 10:1 11-17:0 18:1 19-25:0 26:3 27-47:0 48:6 49-63:0"`,
		`    + eth0/shaping/qdisc "htb 1: default 0x11"`,
		"~ 64 devices (eos leaf): leaf-r0-00, ",
		"\nPlan: 336 devices to change: ",
	)
	if n := strings.Count(out, "\n"); n > 250 {
		t.Errorf("plan prints %d lines for 336 devices", n)
	}
	if t.Failed() {
		t.Logf("plan:\n%s", out)
	}
	code, out, errOut := rocefab(t, dir, "", "apply", ".", "--auto-approve")
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = rocefab(t, dir, "", "plan", ".", "--detailed-exitcode")
	if code != 0 || !strings.Contains(out, "Plan: no changes; 336 unchanged\n") {
		t.Fatalf("plan after apply: exit %d\n%s%s", code, out, errOut)
	}
	after := runningFiles(t, dir)
	if len(after) != len(before) {
		t.Errorf("%d running files before apply, %d after", len(before), len(after))
	}
	changed := 0
	for name, was := range before {
		now, ok := after[name]
		if !ok {
			t.Errorf("%s: gone after apply", name)
			continue
		}
		b, a := []byte(was), []byte(now)
		if string(a) != string(b) {
			changed++
		}
		switch {
		case strings.HasSuffix(name, "/eos.cfg"):
			if fb, fa := eos.Foreign(b), eos.Foreign(a); !reflect.DeepEqual(fb, fa) || len(fb) == 0 {
				t.Errorf("%s: lines outside rocefab's scope changed (or there are none):\n%q\n%q", name, fb, fa)
			}
			for _, foreign := range []string{"router bgp", "management", "access-list"} {
				if !strings.Contains(string(b), foreign) || strings.Count(string(a), foreign) != strings.Count(string(b), foreign) {
					t.Errorf("%s: %q not kept", name, foreign)
				}
			}
		case strings.HasSuffix(name, "/nvue.yaml"):
			if fb, fa := nvueForeign(t, b), nvueForeign(t, a); !reflect.DeepEqual(fb, fa) {
				t.Errorf("%s: keys outside rocefab's scope changed", name)
			}
		case strings.HasSuffix(name, "/"+host.StateFile):
			// Settings reported before keep their want; the report's
			// device, runtime, tool, notes and the rest stay.
			var doc struct {
				Settings []struct{ Path string } `json:"settings"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			had := map[string]bool{}
			for _, s := range doc.Settings {
				had[s.Path] = true
			}
			if fb, fa := hostForeign(t, b, nil), hostForeign(t, a, had); !reflect.DeepEqual(fb, fa) {
				t.Errorf("%s: the server's own part of its report changed", name)
			}
		default:
			if string(a) != string(b) {
				t.Errorf("%s: a file no platform owns changed", name)
			}
		}
	}
	if changed != 336 {
		t.Errorf("%d running files changed, want one per device (336)", changed)
	}
}

// podMismatched are the servers of examples/pod-2048 whose NICs lost the
// DSCP 26 mapping before the checkpoint fix: RoCE traffic there landed on
// the lossy priority 0. Chosen once, one per quarter of the fabric.
var podMismatched = []string{"gpu-0037", "gpu-0101", "gpu-0166", "gpu-0230"}

// Before the checkpoint fix, every server ran the settings of an older
// template: no storage class (DSCP 10 and 18 unclassified, ETS 50/50
// between bulk and RoCE), CNPs marked with DSCP 46, and eth0 unshaped.
const (
	beforeDSCP     = "0-25:0 26:3 27-47:0 48:6 49-63:0"
	mismatchedDSCP = "0-47:0 48:6 49-63:0"
	beforeETS      = "prio_tc=0,1,2,3,4,5,6,7 tc0=ets/50 tc1=ets/0 tc2=ets/0 tc3=ets/50 tc4=ets/0 tc5=ets/0 tc6=strict/0 tc7=ets/0"
	beforeCNPDSCP  = "46"
)

// podHostState is the running state of one pod-2048 server before the
// checkpoint fix, as its runtime reports it: each setting the intent now
// has, with the value the older settings gave it (have and want the same,
// but for the DSCP map of the mismatched servers).
func podHostState(t testing.TB, d *ir.Device) []byte {
	t.Helper()
	desired, err := host.Renderer{}.Desired(d)
	if err != nil {
		t.Fatal(err)
	}
	var settings []host.Setting
	for _, e := range desired.Elements() {
		have := e.Value
		_, what, _ := strings.Cut(e.Path, "/")
		switch {
		case what == "dscp2prio":
			have = beforeDSCP
		case what == "ets":
			have = beforeETS
		case what == "ecn/cnp_dscp":
			have = beforeCNPDSCP
		case strings.HasPrefix(what, "shaping/"):
			// The older settings shape nothing, and the runtime
			// reports only what its settings name.
			continue
		}
		want := have
		if what == "dscp2prio" && slices.Contains(podMismatched, d.Name) {
			have = mismatchedDSCP
		}
		settings = append(settings, host.Setting{Path: e.Path, Have: &have, Want: &want})
	}
	return host.Report(d.Name, d.Host.Profile.Tool, settings, nil)
}

// runtimeLine is the runtime's digest in a report: the runtime a server
// runs, which the example does not pin.
var runtimeLine = regexp.MustCompile(`(?m)^  "runtime": "[0-9a-f]*",$`)

// TestPod2048RunningHosts keeps examples/pod-2048/running/gpu-*/
// host-state.json as podHostState writes them (ROCEFAB_UPDATE=1 writes
// them), so that plan on the example shows the servers' side of the fix.
func TestPod2048RunningHosts(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "pod-2048")
	fab := compileIntent(t, src)
	n := 0
	for _, d := range fab.Devices {
		if d.Platform != ir.PlatformLinux || d.Host == nil {
			continue
		}
		n++
		got := podHostState(t, d)
		path := filepath.Join(src, "running", d.Name, host.StateFile)
		// A file that differs only in the runtime's digest is kept as
		// it is.
		norm := func(b []byte) []byte { return runtimeLine.ReplaceAll(b, []byte(`  "runtime": "",`)) }
		if want, err := os.ReadFile(path); err == nil && !rendertest.Update() && bytes.Equal(norm(got), norm(want)) {
			got = want
		}
		rendertest.Golden(t, path, got)
	}
	if n != 256 {
		t.Errorf("%d servers, want 256", n)
	}
}
