package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets"
)

// TestOneIsSingular: a count of one takes the singular noun in what build
// and plan print ("1 device", not "1 devices"; "1 error", not "1 errors").
func TestOneIsSingular(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(repoRoot(t), "examples", "pod-2048")
	out := filepath.Join(dir, "out")
	for _, want := range []string{"for 1 device to ", "for 1 device, nothing written"} {
		var stdout, stderr bytes.Buffer
		if code := Run([]string{"build", src, "-o", out, "--only", "gpu-0000"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), want) {
			t.Errorf("build --only gpu-0000: exit %d, want %q\nstdout: %s\nstderr: %s", code, want, stdout.String(), stderr.String())
		}
	}
	bad := filepath.Join(dir, "bad.cue")
	if err := os.WriteFile(bad, []byte("name: \"lab\"\ntopology: servers: 16\nmtu: host: 2000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", bad, "-o", filepath.Join(dir, "bad-out")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "build stopped: 1 error\n") {
		t.Errorf("build of an intent with one error: exit %d\nstderr: %s", code, stderr.String())
	}
	var b bytes.Buffer
	printPlan(&b, &targets.Plan{Fabric: "lab", Target: "running", Devices: []targets.DevicePlan{{Device: "leaf-1", Platform: "eos", Action: targets.NoOp}}})
	if !strings.HasPrefix(b.String(), "Plan for lab: 1 device, running configurations from running\n") {
		t.Errorf("a plan of one device:\n%s", b.String())
	}
}
