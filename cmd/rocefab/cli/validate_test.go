package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExamplesValidate runs the independent validators in ../shared/tools/validate
// (the vendors' own YANG, through yanglint) on every OpenConfig and SONiC
// artifact kept from the examples: each file alone, as a push would carry it.
func TestExamplesValidate(t *testing.T) {
	root := repoRoot(t)
	tools := filepath.Join(filepath.Dir(root), "shared", "tools", "validate")
	if _, err := os.Stat(tools); err != nil {
		t.Skipf("the validators are not beside the project (%s): %v", tools, err)
	}
	if _, err := exec.LookPath("yanglint"); err != nil {
		t.Skip("yanglint is not installed (Debian package libyang2-tools); .ci/run installs it")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	oc, _ := filepath.Glob(filepath.Join(root, "testdata", "golden", "*", "*", "openconfig.json"))
	sonic, _ := filepath.Glob(filepath.Join(root, "testdata", "golden", "*", "*", "config_db.json"))
	if len(oc) == 0 || len(sonic) == 0 {
		t.Fatalf("no golden artifacts to validate (%d openconfig.json, %d config_db.json)", len(oc), len(sonic))
	}
	for _, f := range oc {
		if out, err := exec.Command("bash", filepath.Join(tools, "oc-validate.sh"), f).CombinedOutput(); err != nil {
			t.Errorf("oc-validate %s: %v\n%s", f, err, out)
		}
	}
	for _, f := range sonic {
		if out, err := exec.Command("python3", filepath.Join(tools, "sonic-validate.py"), "--strict", "-q", f).CombinedOutput(); err != nil {
			t.Errorf("sonic-validate %s: %v\n%s", f, err, out)
		}
	}
}
