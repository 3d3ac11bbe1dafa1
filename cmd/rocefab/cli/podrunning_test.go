package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

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
	in, ds, err := schema.Load(src)
	if err != nil || in == nil {
		t.Fatalf("load: %v %v", err, ds)
	}
	fab, ds := compiler.Compile(in)
	if fab == nil {
		t.Fatalf("compile: %v", ds)
	}
	n := 0
	for _, d := range fab.Devices {
		if d.Platform != ir.PlatformLinux || d.Host == nil {
			continue
		}
		n++
		got := podHostState(t, d)
		path := filepath.Join(src, "running", d.Name, host.StateFile)
		if rendertest.Update() {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (ROCEFAB_UPDATE=1 writes it)", err)
		}
		norm := func(b []byte) []byte { return runtimeLine.ReplaceAll(b, []byte(`  "runtime": "",`)) }
		if !bytes.Equal(norm(got), norm(want)) {
			t.Errorf("%s is not the state podHostState writes (ROCEFAB_UPDATE=1 rewrites it)", path)
		}
	}
	if n != 256 {
		t.Errorf("%d servers, want 256", n)
	}
}
