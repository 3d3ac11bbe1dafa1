// Package dirtest is the test kit for code that writes trees of files
// (the dir target, build's output directory): one snapshot of a tree
// that a test compares before and after an operation, so that each
// package's tests walk a directory the same way, and the remediation of
// the line platforms those tests keep their devices' files in.
package dirtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers"
)

// Show says what a snapshot records of each file besides its bytes.
type Show uint8

const (
	// Mode puts each file's permission bits before its bytes
	// ("-rw-r--r-- bytes"), for the tests where a push must keep a
	// file's mode.
	Mode Show = 1 << iota
	// Links records a symbolic link as "-> target" rather than the bytes
	// it points to, for the tests where a link is swapped in place.
	Links
	// Absent takes a root that does not exist as a tree with no files
	// rather than a failure, for the tests where nothing was written yet.
	Absent
)

// Files returns every file below root, by slashed path relative to
// root, with its bytes and what show asks for; it fails t when the tree
// cannot be read.
func Files(t testing.TB, root string, show Show) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if show&Links != 0 && e.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		if show&Mode != 0 {
			st, _ := os.Stat(p)
			out[rel] = fmt.Sprintf("%v %s", st.Mode().Perm(), b)
		} else {
			out[rel] = string(b)
		}
		return err
	})
	if err != nil && (show&Absent == 0 || !errors.Is(err, os.ErrNotExist)) {
		t.Fatal(err)
	}
	return out
}

// SetUnset is the Diff of a test platform whose device is "key=value"
// lines: the changes from running to desired, with dis saying what each
// kind of change disrupts, and as remediation one "set k v" or "unset k"
// line per change, which the platform's Apply edits the lines by.
func SetUnset(running, desired renderers.State, dis renderers.Disruptions) ([]renderers.Change, renderers.Remediation, error) {
	cs := renderers.DiffElements(running.Elements(), desired.Elements(), dis)
	var b strings.Builder
	for _, c := range cs {
		if c.After == nil {
			fmt.Fprintf(&b, "unset %s\n", c.Path)
		} else {
			fmt.Fprintf(&b, "set %s %s\n", c.Path, *c.After)
		}
	}
	return cs, renderers.Remediation{Format: renderers.Text, Content: []byte(b.String())}, nil
}

// EditLines applies a remediation of SetUnset to content, the device's
// "key=value" lines: a set replaces the key's line where it is or
// appends it, an unset drops it, every other line stays as it is; any
// other remediation line is an error naming it.
func EditLines(content, rem []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(content), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for l := range strings.Lines(string(rem)) {
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[0] == "set":
			at := slices.IndexFunc(lines, func(s string) bool { return strings.HasPrefix(s, f[1]+"=") })
			if at >= 0 {
				lines[at] = f[1] + "=" + f[2] + "\n"
				continue
			}
			if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] += "\n"
			}
			lines = append(lines, f[1]+"="+f[2]+"\n")
		case len(f) == 2 && f[0] == "unset":
			lines = slices.DeleteFunc(lines, func(s string) bool { return strings.HasPrefix(s, f[1]+"=") })
		default:
			return nil, fmt.Errorf("remediation line %q: not set or unset", strings.TrimSuffix(l, "\n"))
		}
	}
	return []byte(strings.Join(lines, "")), nil
}

// Write writes content to the file at path with mode, making the
// directories above it, and fails t when it cannot: how a test lays out
// a tree of files before the operation it checks.
func Write(t testing.TB, path string, content []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, content, mode); err != nil {
		t.Fatal(err)
	}
}
