package host

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// TestLauncherRunsTheBuildsRuntime runs host.sh as a build lays it out,
// from another working directory and below a path with a space: it hands
// its arguments to hosts/rocefab-host.sh with the host.conf beside it, and
// without a runtime says where it looked and exits 2.
func TestLauncherRunsTheBuildsRuntime(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: host.sh runs the runtime with it")
	}
	if _, err := os.Stat(RuntimePath); err == nil {
		t.Skipf("%s is installed here: host.sh without the build's runtime would run it", RuntimePath)
	}
	d := gpu(t)
	arts, err := Launcher{}.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Path != d.Name+"/"+ScriptFile {
		t.Fatalf("artifacts %+v, want %s/%s", arts, d.Name, ScriptFile)
	}
	out := filepath.Join(t.TempDir(), "out dir")
	write := func(name string, content []byte) string {
		path := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rendertest.Golden(t, filepath.Join("testdata", "launcher", ScriptFile), arts[0].Content)
	script := write(arts[0].Path, arts[0].Content)
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		if b, err := exec.Command(sc, "--severity=style", script).CombinedOutput(); err != nil {
			t.Errorf("shellcheck host.sh: %v\n%s", err, b)
		}
	}
	run := func() (string, int) {
		cmd := exec.Command("sh", script, "--check", "--only", "pfc")
		cmd.Dir = t.TempDir()
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(b), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(b), 0
	}
	if got, code := run(); code != 2 || !strings.Contains(got, "no rocefab host runtime at "+filepath.Join(out, d.Name)+"/../"+RuntimeFile+" or "+RuntimePath) {
		t.Errorf("without a runtime: exit %d, %q; want 2 and where it looked", code, got)
	}
	write(RuntimeFile, []byte("printf '%s|' \"$@\"\n"))
	want := "--settings|" + filepath.Join(out, d.Name, SettingsFile) + "|--check|--only|pfc|"
	if got, code := run(); code != 0 || got != want {
		t.Errorf("host.sh --check --only pfc ran the runtime with %q (exit %d), want %q", got, code, want)
	}

	f := irtest.Fabric()
	for _, sw := range f.Switches()[:1] {
		if _, err := (Launcher{}).Render(sw); err == nil {
			t.Errorf("Render(%s) of a switch succeeded", sw.Name)
		}
	}
	if _, err := (Launcher{}).Render(nil); err == nil {
		t.Error("a nil device was rendered")
	}
}
