package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
