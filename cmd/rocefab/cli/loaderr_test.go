package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An intent that cannot be read is "could not run" (exit 2) with the
// operating system's reason, from lint and build alike; a conflict between
// two files of an intent is a finding (exit 1) that cites both.
func TestLoadErrorsExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	intent := "name: \"lab\"\ntopology: servers: 16\n"
	notDir := write("file", "x")
	pkg := filepath.Dir(write("pkg/fabric.cue", intent))
	if err := os.Mkdir(filepath.Join(pkg, "sub.cue"), 0o755); err != nil {
		t.Fatal(err)
	}
	two := filepath.Dir(write("two/a.cue", intent+"mtu: host: 4200\n"))
	write("two/b.cue", "mtu: host: 9000\n")
	cases := []struct {
		path       string
		code       int
		want, stay string
	}{
		{filepath.Join(notDir, "fabric.cue"), 2, "not a directory", ""},
		{pkg, 2, "not a regular file (a directory)", ""},
		{two, 1, "the field is set at a.cue:3:12 and b.cue:1:12", "_|_"},
	}
	if os.Geteuid() != 0 {
		unreadable := write("secret.cue", intent)
		if err := os.Chmod(unreadable, 0); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			path       string
			code       int
			want, stay string
		}{unreadable, 2, "permission denied", "add failed"})
	}
	for _, c := range cases {
		for _, cmd := range [][]string{{"lint", c.path}, {"build", c.path, "-o", filepath.Join(dir, "out")}} {
			var stdout, stderr bytes.Buffer
			got := Run(cmd, &stdout, &stderr)
			text := stdout.String() + stderr.String()
			if got != c.code || !strings.Contains(text, c.want) || (c.stay != "" && strings.Contains(text, c.stay)) {
				t.Errorf("rocefab %v: exit %d, want %d and %q\n%s", cmd, got, c.code, c.want, text)
			}
		}
	}
}
