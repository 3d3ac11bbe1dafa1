package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMixedFleetConverges plans and applies examples/mixed-fleet against
// the directory target (running/ beside the intent): a first plan has
// changes, apply takes them, and the next plan has none, for the
// ConnectX-7 and the Thor 2 servers alike.
func TestMixedFleetConverges(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "mixed-fleet", "fabric.cue"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Run(append(args, dir), &stdout, &stderr); code != want {
			t.Fatalf("rocefab %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	run(2, "plan", "--detailed-exitcode")
	run(0, "apply", "--auto-approve")
	if out := run(0, "plan", "--detailed-exitcode"); !strings.Contains(out, "Plan: no changes") {
		t.Errorf("plan after apply:\n%s", out)
	}
	for server, want := range map[string]string{
		"gpu-0000": `"eth2/ecn/rp/3"`,
		"gpu-0016": `"bnxt_re0/cc/roce_dscp"`,
	} {
		b, err := os.ReadFile(filepath.Join(dir, "running", server, "host-state.json"))
		if err != nil || !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s's state after apply lacks %s: %v", server, want, err)
		}
	}
}
