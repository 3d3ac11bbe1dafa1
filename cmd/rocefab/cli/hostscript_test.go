package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEmitHostScript builds one server with and without --emit
// host-script. host.conf and hosts/ are always written, host.sh only on
// request; host.sh is executable and holds host.conf's settings and the
// body of hosts/rocefab-host.sh.
func TestEmitHostScript(t *testing.T) {
	src := filepath.Join(repoRoot(t), "examples", "pod-2048")
	build := func(args ...string) string {
		t.Helper()
		return buildQuiet(t, src, append([]string{"--only", "gpu-0000"}, args...)...)
	}
	read := func(path string, mode os.FileMode) string {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), mode)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	out := build()
	read(filepath.Join(out, "gpu-0000", "host.conf"), 0o644)
	read(filepath.Join(out, "hosts", "rocefab-qos@.service"), 0o644)
	read(filepath.Join(out, "hosts", "rocefab-host.sh"), 0o755)
	if _, err := os.Stat(filepath.Join(out, "gpu-0000", "host.sh")); err == nil {
		t.Error("host.sh is written without --emit host-script")
	}

	out = build("--emit", "host-script")
	conf := read(filepath.Join(out, "gpu-0000", "host.conf"), 0o644)
	runtime := read(filepath.Join(out, "hosts", "rocefab-host.sh"), 0o755)
	script := read(filepath.Join(out, "gpu-0000", "host.sh"), 0o755)
	m := regexp.MustCompile(`from line (\d+) on`).FindStringSubmatch(runtime)
	if m == nil {
		t.Fatal("the runtime's header does not say where its body starts")
	}
	first, _ := strconv.Atoi(m[1])
	body := strings.Join(strings.SplitAfter(runtime, "\n")[first-1:], "")
	settings := conf[strings.Index(conf, "# ------"):]
	if !strings.HasPrefix(script, "#!/usr/bin/env bash\n") || !strings.Contains(script, settings) || !strings.HasSuffix(script, body) {
		t.Error("host.sh is not a shebang, host.conf's settings and the runtime's body")
	}

	var stdout, stderr bytes.Buffer
	if code := Run([]string{"build", src, "-o", filepath.Join(t.TempDir(), "out"), "--emit", "host-scripts"}, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), `--emit "host-scripts": allowed are model, host-script`) {
		t.Errorf("--emit host-scripts: exit %d\n%s", code, stderr.String())
	}
}
