package openconfig_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// TestValidator runs the independent validator, yanglint against the pinned
// OpenConfig YANG in the shared directory beside the repository, on every
// artifact this package renders for the test fabric and its variants, and
// on one broken copy to show that it is not vacuous.
func TestValidator(t *testing.T) {
	run := rendertest.OCValidator(t)

	dir := t.TempDir()
	var files []string
	write := func(name string, js []byte) string {
		p := filepath.Join(dir, name, "openconfig.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, js, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, d := range irtest.Fabric().Switches() {
		files = append(files, write(d.Name, render(t, d)))
	}
	for name, mk := range variants() {
		files = append(files, write("variant-"+name, render(t, mk())))
	}

	code, out := run(files...)
	if code != 0 {
		t.Fatalf("oc-validate.sh rejected rendered artifacts (exit %d):\n%s", code, out)
	}
	if n := strings.Count(out, ": valid ("); n != len(files) {
		t.Errorf("oc-validate.sh reported %d valid files, want %d:\n%s", n, len(files), out)
	}
	t.Logf("%d artifacts valid", len(files))

	// A forwarding group that does not exist: a dangling leafref.
	js := render(t, irtest.Fabric().Device("leaf-eos"))
	bad := bytes.Replace(js, []byte(`"target-group": "roce"`), []byte(`"target-group": "rocev2"`), 1)
	if bytes.Equal(bad, js) {
		t.Fatal(`no "target-group": "roce" to break`)
	}
	if code, out := run(write("broken", bad)); code != 1 {
		t.Errorf("oc-validate.sh on a dangling target-group: exit %d, want 1:\n%s", code, out)
	}
}

func repoRoot(t *testing.T) string { return rendertest.RepoRoot(t) }

func lookPath(t *testing.T, name, why string) string { return rendertest.LookPath(t, name, why) }
