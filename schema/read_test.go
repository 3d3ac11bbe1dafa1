package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An intent that cannot be read is an error that keeps its cause (the CLI
// answers "could not run"), never a schema finding such as "add failed".
// These forms fail for every user, root included.
func TestLoadKeepsTheCause(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(dir, "pkg")
	if err := os.MkdirAll(filepath.Join(pkg, "sub.cue"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "fabric.cue"), []byte(head("")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "file", "fabric.cue"), "not a directory"},
		{filepath.Join(dir, "missing.cue"), "no such file or directory"},
		{pkg, "sub.cue: not a regular file (a directory)"},
		{filepath.Join(dir, "file"), "want a .cue file, a .json file or a directory"},
	} {
		in, ds, err := Load(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || in != nil || len(ds) > 0 {
			t.Errorf("Load(%s) = %v, %v, %v; want an error saying %q", c.path, in, ds, err, c.want)
		}
	}
}

// A file the user may not read says "permission denied". Root reads
// anything, so there the test has nothing to show.
func TestLoadPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file of mode 000; TestLoadKeepsTheCause covers the forms root cannot read")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "fabric.cue")
	if err := os.WriteFile(p, []byte(head("")), 0o000); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, dir} {
		_, ds, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), "permission denied") || len(ds) > 0 {
			t.Errorf("Load(%s) = %v, %v; want permission denied", path, ds, err)
		}
	}
	if err := os.Chmod(dir, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("Load of an unreadable directory: %v; want permission denied", err)
	}
}

// Two files of one package that set a field differently: the finding
// cites both, in words, without CUE's bottom value.
func TestConflictBetweenFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.cue"), []byte(head("mtu: host: 4200\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.cue"), []byte("\nmtu: host: 9000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds, err := Load(dir)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Load: %v %v", err, ds)
	}
	d := ds[0]
	for _, w := range []string{"mtu.host: conflicting values", "a.cue:3:12", "b.cue:2:12"} {
		if !strings.Contains(d.Message, w) {
			t.Errorf("%s: want %q in the message", d, w)
		}
	}
	if strings.Contains(d.Message, "_|_") || strings.Contains(d.Message, "invalid value") {
		t.Errorf("%s: CUE's bottom value reached the user", d)
	}
	if d.Pos.Line != 3 || filepath.Base(d.Pos.File) != "a.cue" {
		t.Errorf("%s: want the position of the first declaration", d)
	}
}
