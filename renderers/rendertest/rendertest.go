// Package rendertest holds the golden-file helper every renderer test uses.
//
// Golden files are rewritten by running the tests with ROCEFAB_UPDATE=1 set
// (an environment variable rather than a flag, so that `go test ./...` works
// in every package); without it a difference fails the test with a unified
// diff.
package rendertest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

// Update reports whether golden files should be rewritten. It reads the
// environment while the test runs, so the go test cache does not hide it.
func Update() bool { return os.Getenv("ROCEFAB_UPDATE") != "" }

// Golden compares got with the file at path (relative to the test's
// package directory), or rewrites the file when updating.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file: %v (run with ROCEFAB_UPDATE=1 to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s is stale (run with ROCEFAB_UPDATE=1 to rewrite it):\n%s", path, diff.Diff(path, want, "got", got))
	}
}

// RepoRoot returns the module's root directory (the one holding go.mod),
// found by walking up from the test's working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Shared returns rel inside the shared/ directory that sits beside the
// project's checkout (the vendors' YANG and the independent validators),
// or skips the test with the reason when it is not there.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(RepoRoot(t)), "shared", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not beside the project: %v", p, err)
	}
	return p
}
