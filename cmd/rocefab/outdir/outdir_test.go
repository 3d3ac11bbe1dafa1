package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// tree returns every file below dir with its contents, relative paths,
// a symbolic link as its target; a missing dir has no files.
func tree(t *testing.T, dir string) map[string]string {
	return dirtest.Files(t, dir, dirtest.Links|dirtest.Absent)
}

func write(t *testing.T, p, content string) {
	t.Helper()
	dirtest.Write(t, p, []byte(content), 0o644)
}

// build writes files as one build into dir.
func build(t *testing.T, dir string, opt Options, files map[string]string) error {
	t.Helper()
	s, err := Begin(dir, opt)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := s.Write(k, []byte(files[k]), 0o644); err != nil {
			s.Abort()
			return err
		}
	}
	return s.Commit(Manifest{Rocefab: "test", Intent: "i", Key: "k"})
}

func TestBuildThenRebuildReplacesOnlyItsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := build(t, dir, Options{}, map[string]string{"a/x.cfg": "1", "b/y.cfg": "2", "SUMMARY.md": "s"}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range m.Files {
		paths = append(paths, e.Path)
	}
	if diff := cmp.Diff([]string{"SUMMARY.md", "a/x.cfg", "b/y.cfg"}, paths); diff != "" {
		t.Errorf("manifest paths (-want +got):\n%s", diff)
	}
	if m.Files[1].SHA256 != "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b" || m.Files[1].Size != 1 {
		t.Errorf("a/x.cfg entry = %+v, want the SHA-256 of %q", m.Files[1], "1")
	}
	// The next build drops b/ and changes a/x.cfg: b/ goes, nothing else stays.
	if err := build(t, dir, Options{}, map[string]string{"a/x.cfg": "3", "SUMMARY.md": "s"}); err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	delete(got, ManifestName)
	if diff := cmp.Diff(map[string]string{"a/x.cfg": "3", "SUMMARY.md": "s"}, got); diff != "" {
		t.Errorf("after rebuild (-want +got):\n%s", diff)
	}
	if rest, _ := os.ReadDir(filepath.Dir(dir)); len(rest) != 1 {
		t.Errorf("beside the output: %v, want only the output (no stage left)", rest)
	}
}

func TestForeignFilesRefuseAndStay(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string){
		"no manifest": func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "inventory.json"), "{}")
			write(t, filepath.Join(dir, "site.yml"), "keep")
		},
		"file added to a build": func(t *testing.T, dir string) {
			if err := build(t, dir, Options{}, map[string]string{"leaf/eos.cfg": "x"}); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "leaf", "notes.txt"), "mine")
		},
		"directory added to a build": func(t *testing.T, dir string) {
			if err := build(t, dir, Options{}, map[string]string{"leaf/eos.cfg": "x"}); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(dir, "mine"), 0o755); err != nil {
				t.Fatal(err)
			}
		},
		"symbolic link in a build": func(t *testing.T, dir string) {
			if err := build(t, dir, Options{}, map[string]string{"leaf/eos.cfg": "x"}); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			setup(t, dir)
			before := tree(t, dir)
			err := build(t, dir, Options{}, map[string]string{"leaf/eos.cfg": "new"})
			var ce *ConflictError
			if !errors.As(err, &ce) || len(ce.Foreign) == 0 {
				t.Fatalf("build into %s: %v, want a ConflictError naming the foreign files", name, err)
			}
			if !strings.Contains(err.Error(), "never deletes files it did not write") {
				t.Errorf("error does not say what to do: %v", err)
			}
			if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
				t.Errorf("refused build changed the directory (-before +after):\n%s", diff)
			}
		})
	}
}

func TestConflictListsFirstFewAndCounts(t *testing.T) {
	dir := t.TempDir()
	for i := range 12 {
		write(t, filepath.Join(dir, "f"+string(rune('a'+i))), "x")
	}
	_, err := Begin(filepath.Join(dir), Options{})
	if err == nil || !strings.Contains(err.Error(), "fa, fb, fc, fd, fe and 7 more") {
		t.Errorf("error = %v, want the first five names and a count", err)
	}
}

func TestEditedFilesNeedReplaceEdited(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := build(t, dir, Options{}, map[string]string{"leaf/eos.cfg": "x"}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "leaf", "eos.cfg"), "hand edit")
	err := build(t, dir, Options{}, map[string]string{"leaf/eos.cfg": "y"})
	var ce *ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Edited, []string{"leaf/eos.cfg"}) {
		t.Fatalf("build over an edited file: %v, want it named as edited", err)
	}
	if got := tree(t, dir)["leaf/eos.cfg"]; got != "hand edit" {
		t.Errorf("edited file now %q", got)
	}
	if err := build(t, dir, Options{ReplaceEdited: true}, map[string]string{"leaf/eos.cfg": "y"}); err != nil {
		t.Fatalf("with ReplaceEdited: %v", err)
	}
	if got := tree(t, dir)["leaf/eos.cfg"]; got != "y" {
		t.Errorf("after ReplaceEdited the file is %q, want y", got)
	}
}

func TestAbortLeavesEarlierBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := build(t, dir, Options{}, map[string]string{"a": "1", "d/b": "2"}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	s, err := Begin(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write("a", []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if diff := cmp.Diff(before, tree(t, dir)); diff != "" {
		t.Errorf("aborted build changed the output (-before +after):\n%s", diff)
	}
	if rest, _ := os.ReadDir(filepath.Dir(dir)); len(rest) != 1 {
		t.Errorf("beside the output after abort: %v", rest)
	}
}

func TestGuardRefusesProjectAndAncestors(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "repo", "fabric")
	write(t, filepath.Join(project, "fabric.cue"), "name: \"x\"")
	for _, out := range []string{project, filepath.Join(root, "repo"), root, project + "/."} {
		if _, err := Begin(out, Options{Guard: []string{project}}); err == nil || !strings.Contains(err.Error(), "must be a directory of its own") {
			t.Errorf("Begin(%s) with the project guarded: %v, want a refusal", out, err)
		}
	}
	// Through a symbolic link, too.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(root, "repo"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Begin(link, Options{Guard: []string{project}}); err == nil {
		t.Errorf("Begin through a link to the project's parent was accepted")
	}
	// Inside the project is fine.
	s, err := Begin(filepath.Join(project, "out"), Options{Guard: []string{project}})
	if err != nil {
		t.Fatalf("Begin(project/out): %v", err)
	}
	s.Abort()
}

func TestCheckPathRefusesTraversal(t *testing.T) {
	for _, p := range []string{"", ".", "..", "../x", "a/../../x", "/abs", "./x", "x/..", "a//b", `a\b`, "a/./b",
		"x/", ManifestName, stagingMarker} {
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) accepted", p)
		}
	}
	for _, p := range []string{"SUMMARY.md", "leaf-r0-00/eos.cfg", "tenants/a.env", "a..b/c"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q): %v", p, err)
		}
	}
}

func TestSamePathTwiceIsAnError(t *testing.T) {
	s, err := Begin(filepath.Join(t.TempDir(), "out"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	if err := s.Write("SUMMARY.md", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Write("SUMMARY.md", []byte("b"), 0o644); err == nil || !strings.Contains(err.Error(), "same path") {
		t.Errorf("second write: %v", err)
	}
}

func TestSweepRemovesDeadStagesOnly(t *testing.T) {
	parent := t.TempDir()
	dead := filepath.Join(parent, stagingPrefix("out")+"1")
	live := filepath.Join(parent, stagingPrefix("out")+"2")
	other := filepath.Join(parent, stagingPrefix("out")+"3") // no marker: not ours
	write(t, filepath.Join(dead, stagingMarker), "999999999\n")
	write(t, filepath.Join(dead, "x"), "1")
	write(t, filepath.Join(live, stagingMarker), "1\n") // init runs
	write(t, filepath.Join(other, "keep"), "1")
	s, err := Begin(filepath.Join(parent, "out"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Abort()
	for p, want := range map[string]bool{dead: false, live: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

func TestUpToDate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := build(t, dir, Options{}, map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	h := Manifest{Rocefab: "test", Intent: "i", Key: "k"}
	check := func(want bool, h Manifest, opt Options) {
		t.Helper()
		in, err := Inspect(dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.UpToDate(h); got != want {
			t.Errorf("UpToDate(%+v) = %v, want %v", h, got, want)
		}
	}
	check(true, h, Options{})
	check(false, Manifest{Rocefab: "test", Intent: "other", Key: "k"}, Options{})
	check(false, Manifest{Rocefab: "test", Intent: "i", Key: "other"}, Options{})
	check(false, Manifest{Rocefab: "test", Intent: "i"}, Options{})
	check(false, h, Options{ReplaceEdited: true}) // files not verified
	os.Remove(filepath.Join(dir, "a"))
	check(false, h, Options{})
}

func TestManifestMustStayInside(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ManifestName), `{"format": 1, "files": [{"path": "../etc/passwd", "size": 1, "sha256": "x"}]}`)
	if _, err := Begin(dir, Options{}); err == nil || !strings.Contains(err.Error(), "not a file inside the build") {
		t.Errorf("Begin with a manifest naming ../etc/passwd: %v", err)
	}
}

// TestInspectWritesNothing: inspecting a missing output under a missing
// parent, or an earlier build, creates, changes and removes nothing; only
// Begin writes.
func TestInspectWritesNothing(t *testing.T) {
	root := t.TempDir()
	built := filepath.Join(root, "built")
	s, err := Begin(built, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write("leaf/eos.cfg", []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(Manifest{Key: "k"}); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, root)
	for _, dir := range []string{filepath.Join(root, "missing", "out"), built} {
		in, err := Inspect(dir, Options{})
		if err != nil {
			t.Fatalf("Inspect(%s): %v", dir, err)
		}
		if after := listTree(t, root); !slices.Equal(after, before) {
			t.Fatalf("Inspect(%s) changed the tree:\nbefore %v\nafter  %v", dir, before, after)
		}
		if dir == built && in.Previous() == nil {
			t.Error("Inspect of a build found no manifest")
		}
	}
}

// listTree lists every path under root with its size and modification time.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %d", p, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerifyFindsEveryEdit: an edit that keeps the size, one that grows or
// shrinks the file, and a file replaced by a directory are each found;
// untouched files, of any size, and a missing file are not edits.
func TestVerifyFindsEveryEdit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	files := map[string]string{
		"a/same-size": "abcdef", "a/grown": "abc", "a/shrunk": "abcdef", "a/dir": "x", "a/missing": "m",
		"b/small": "s", "b/large": strings.Repeat("0123456789", 20000), "b/empty": "",
	}
	if err := build(t, dir, Options{}, files); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a", "same-size"), "abcdeF")
	write(t, filepath.Join(dir, "a", "grown"), "abcd")
	write(t, filepath.Join(dir, "a", "shrunk"), "abcde")
	if err := os.Remove(filepath.Join(dir, "a", "dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "a", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a", "missing")); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	edited, err := Verify(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/dir", "a/grown", "a/same-size", "a/shrunk"}; !slices.Equal(edited, want) {
		t.Errorf("Verify = %v, want %v", edited, want)
	}
}

// TestOutputHonoursUmask: the output directory gets 0777 less the umask,
// as mkdir(1) makes it, and a directory the user made keeps its mode.
// Not parallel: the umask is the process's.
func TestOutputHonoursUmask(t *testing.T) {
	for _, umask := range []int{0o022, 0o027, 0o002} {
		old := syscall.Umask(umask)
		dir := filepath.Join(t.TempDir(), "out")
		err := build(t, dir, Options{}, map[string]string{"a/x.cfg": "1"})
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Mode().Perm(), fs.FileMode(0o777&^umask); got != want {
			t.Errorf("umask %03o: the output has mode %03o, want %03o", umask, got, want)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o750)
	for range 2 {
		if err := build(t, dir, Options{}, map[string]string{"a/x.cfg": "1"}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o750 {
			t.Errorf("a 0750 output directory after a build: %v %v, want 0750", st.Mode(), err)
		}
	}
}

// TestSweepRemovesBuildLeftAfterSwap: a build killed after it swapped its
// stage in leaves the earlier build beside the output, under the staging
// prefix with a manifest and no marker. The next build removes the files
// that manifest lists as they were written, and keeps anything else: a
// file edited since, a file the manifest does not list, and the whole of
// it while the output itself is missing.
func TestSweepRemovesBuildLeftAfterSwap(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	left := filepath.Join(parent, stagingPrefix("out")+"123")
	if err := build(t, left, Options{}, map[string]string{"a/x.cfg": "1", "b/y.cfg": "2", "c/z.cfg": "3"}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(left, "b/y.cfg"), "edited")
	write(t, filepath.Join(left, "c/notes.txt"), "mine")

	// No output yet: the leftover may be the only copy of a build.
	if err := build(t, out, Options{}, map[string]string{"a/x.cfg": "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(left, ManifestName)); err != nil {
		t.Fatalf("the leftover was swept while the output was missing: %v", err)
	}

	if err := build(t, out, Options{}, map[string]string{"a/x.cfg": "2"}); err != nil {
		t.Fatal(err)
	}
	var rest []string
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.Name() == "out" {
			continue
		}
		for p, c := range tree(t, filepath.Join(parent, e.Name())) {
			rest = append(rest, p+"="+c)
		}
	}
	slices.Sort(rest)
	if diff := cmp.Diff([]string{"b/y.cfg=edited", "c/notes.txt=mine"}, rest); diff != "" {
		t.Errorf("beside the output after the sweep (-want +got):\n%s", diff)
	}
}
