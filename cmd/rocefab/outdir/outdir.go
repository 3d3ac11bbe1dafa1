// Package outdir owns a build's output directory. A build never writes into
// the directory a user named: it writes into a new directory beside it,
// records every file it wrote in a manifest, and swaps the new directory in
// only when everything is written. The earlier build is replaced only when
// its manifest accounts for every file in it, so rocefab never deletes a
// file it did not write, and a failed or killed build leaves the earlier
// one exactly as it was.
package outdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ManifestName is the file, inside an output directory, that lists what the
// build wrote there. Its presence, and nothing else, marks a directory as a
// build's.
const ManifestName = ".rocefab-manifest.json"

// ManifestFormat is the manifest's format version.
const ManifestFormat = 1

// stagingMarker marks a directory as a build in progress; it holds the
// builder's process ID so that a later build can tell a dead build's
// leftovers from a running one.
const stagingMarker = ".rocefab-staging"

// Manifest records one build: what produced it and every file it wrote.
type Manifest struct {
	Format int `json:"format"`
	// Rocefab is the version of rocefab that wrote the build.
	Rocefab string `json:"rocefab"`
	// Intent is the SHA-256 of the intent's files (see DigestFiles).
	Intent string `json:"intent"`
	// Key identifies everything else the bytes depend on (the program and
	// the build's options); two builds with equal Intent and Key write the
	// same files.
	Key string `json:"key,omitempty"`
	// Files lists every file written, sorted by path.
	Files []Entry `json:"files"`
}

// Entry is one file of a build.
type Entry struct {
	// Path is slash-separated and relative to the output directory.
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Options tune what Begin accepts.
type Options struct {
	// Guard lists directories that the output must not be, nor contain:
	// the intent's directory and the working directory. Replacing one of
	// them would swap a user's project away.
	Guard []string
	// ReplaceEdited lets a build replace files that an earlier build wrote
	// and that were changed since. Files the manifest does not list are
	// never replaced.
	ReplaceEdited bool
}

// ConflictError says why an output directory cannot take a build: the
// files in it that rocefab did not write, or edited since it wrote them.
type ConflictError struct {
	Dir      string
	Foreign  []string // files and directories no manifest lists
	Edited   []string // files the manifest lists whose bytes changed
	Manifest bool     // whether the directory had a manifest
}

// listed is how many file names an error spells out before counting.
const listed = 5

func (e *ConflictError) Error() string {
	var b strings.Builder
	if len(e.Foreign) > 0 {
		if e.Manifest {
			fmt.Fprintf(&b, "output %s holds %s that no earlier build wrote: %s", e.Dir, count(len(e.Foreign), "entry", "entries"), names(e.Foreign))
		} else {
			fmt.Fprintf(&b, "output %s is not empty and holds no earlier build (no %s); it has %s: %s",
				e.Dir, ManifestName, count(len(e.Foreign), "entry", "entries"), names(e.Foreign))
		}
		b.WriteString("\n  rocefab never deletes files it did not write: choose a new or empty directory with -o, or move those files away")
	}
	if len(e.Edited) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "output %s has %s changed since rocefab wrote them: %s", e.Dir, count(len(e.Edited), "file", "files"), names(e.Edited))
		b.WriteString("\n  keep your changes elsewhere, or pass --replace-edited to overwrite them")
	}
	return b.String()
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func names(ps []string) string {
	if len(ps) <= listed {
		return strings.Join(ps, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ps[:listed], ", "), len(ps)-listed)
}

// Stage is a build being written beside its output directory.
type Stage struct {
	dir  string    // the output directory: absolute, symbolic links resolved
	tmp  string    // the directory being written
	sd   *stageDir // tmp, open for writing
	prev *Manifest

	mu    sync.Mutex
	made  map[string]bool // directories created, relative and slash-separated
	files []Entry
	bytes int64
	done  bool
}

// Begin checks that dir can take a build and opens a stage beside it. dir
// may be missing (it is created), empty, or an earlier build whose
// manifest accounts for every file in it. It is Inspect, then
// Inspection.Begin.
func Begin(dir string, opt Options) (*Stage, error) {
	in, err := Inspect(dir, opt)
	if err != nil {
		return nil, err
	}
	return in.Begin()
}

// Inspection is an output directory found able to take a build, before
// anything is written: Inspect only reads, so that a build can inspect
// its output while it compiles and still write nothing when the intent
// has errors.
type Inspection struct {
	name string // as the caller gave it, for messages
	dir  string // absolute, symbolic links resolved
	prev *Manifest
	// verified is set when every file prev lists was found unedited.
	verified bool
}

// Inspect checks, reading only, that dir can take a build: that it is
// missing, empty, or an earlier build whose manifest accounts for every
// file in it, and that it is none of opt.Guard and holds none of them. A
// rebuild reads and digests every file of the earlier build.
func Inspect(dir string, opt Options) (*Inspection, error) {
	abs, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	for _, g := range opt.Guard {
		ga, err := resolve(g)
		if err != nil {
			continue
		}
		if ga == abs || within(ga, abs) {
			what := "is"
			if ga != abs {
				what = "contains"
			}
			return nil, fmt.Errorf("output %s %s %s: a build replaces its output directory whole, so it must be a directory of its own (for example -o %s)",
				dir, what, g, filepath.Join(dir, "out"))
		}
	}
	prev, verified, err := inspect(abs, dir, opt)
	if err != nil {
		return nil, err
	}
	return &Inspection{name: dir, dir: abs, prev: prev, verified: verified}, nil
}

// UpToDate reports whether the directory holds the build header describes,
// with every listed file present and unedited: writing it again would give
// the same bytes.
func (in *Inspection) UpToDate(header Manifest) bool {
	p := in.prev
	if p == nil || !in.verified || header.Key == "" || p.Intent != header.Intent || p.Key != header.Key || p.Rocefab != header.Rocefab {
		return false
	}
	for _, e := range p.Files {
		if st, err := os.Lstat(filepath.Join(in.dir, filepath.FromSlash(e.Path))); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// Previous returns the manifest of the build the directory holds, nil when
// it holds none.
func (in *Inspection) Previous() *Manifest { return in.prev }

// Begin opens a stage beside the inspected directory: the directory's
// parent is created if missing, what killed builds left beside it is
// removed, and a new staging directory is made.
func (in *Inspection) Begin() (*Stage, error) {
	abs := in.dir
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the output's parent: %w", err)
	}
	sweep(parent, filepath.Base(abs))
	tmp, err := mkdirStage(parent, stagingPrefix(filepath.Base(abs)))
	if err != nil {
		return nil, fmt.Errorf("cannot write beside %s: %w", in.name, err)
	}
	// The stage becomes the output directory: one the user made keeps its
	// permissions across builds.
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		if err := os.Chmod(tmp, st.Mode().Perm()); err != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("cannot write beside %s: %w", in.name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, stagingMarker), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("cannot write beside %s: %w", in.name, err)
	}
	sd, err := openStageDir(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("cannot write beside %s: %w", in.name, err)
	}
	return &Stage{dir: abs, tmp: tmp, sd: sd, prev: in.prev, made: map[string]bool{".": true}}, nil
}

func stagingPrefix(base string) string { return "." + base + ".rocefab-new-" }

// mkdirStage makes a new directory in parent, named prefix and a random
// number, as os.MkdirTemp does, but with mode 0777 less the umask, as
// mkdir(1) does: the stage becomes the output directory, which should be
// like any other directory the user makes, not MkdirTemp's 0700.
func mkdirStage(parent, prefix string) (string, error) {
	for range 10000 {
		p := filepath.Join(parent, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Mkdir(p, 0o777)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return p, nil
	}
	return "", &fs.PathError{Op: "mkdir", Path: filepath.Join(parent, prefix+"*"), Err: fs.ErrExist}
}

// resolve makes dir absolute and resolves the symbolic links of its
// longest existing ancestor, so that comparisons and renames act on the
// real directory.
func resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest), nil
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within reports whether p lies inside dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}

// inspect reads the earlier build in dir, if any, and refuses a directory
// with anything that build did not write. verified tells whether every
// file the earlier build lists was checked unedited.
func inspect(abs, dir string, opt Options) (prev *Manifest, verified bool, err error) {
	st, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("cannot read output %s: %w", dir, err)
	case !st.IsDir():
		return nil, false, fmt.Errorf("output %s exists and is not a directory", dir)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, false, fmt.Errorf("cannot read output %s: %w", dir, err)
	}
	if len(entries) == 0 {
		return nil, false, nil
	}
	m, err := ReadManifest(abs)
	if errors.Is(err, fs.ErrNotExist) {
		var all []string
		for _, e := range entries {
			all = append(all, e.Name())
		}
		return nil, false, &ConflictError{Dir: dir, Foreign: all}
	}
	if err != nil {
		return nil, false, fmt.Errorf("output %s: %w", dir, err)
	}
	foreign, err := foreignEntries(abs, m)
	if err != nil {
		return nil, false, fmt.Errorf("cannot read output %s: %w", dir, err)
	}
	var edited []string
	if len(foreign) == 0 && !opt.ReplaceEdited {
		edited, err = Verify(abs, m)
		if err != nil {
			return nil, false, fmt.Errorf("cannot read output %s: %w", dir, err)
		}
	}
	if len(foreign) > 0 || len(edited) > 0 {
		return nil, false, &ConflictError{Dir: dir, Foreign: foreign, Edited: edited, Manifest: true}
	}
	return m, !opt.ReplaceEdited, nil
}

// ReadManifest reads the manifest of the build in dir.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not a rocefab manifest: %v", ManifestName, err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s has format %d; this rocefab reads format %d", ManifestName, m.Format, ManifestFormat)
	}
	for _, e := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(e.Path)) || e.Path == ManifestName {
			return nil, fmt.Errorf("%s lists %q, which is not a file inside the build", ManifestName, e.Path)
		}
	}
	return &m, nil
}

// foreignEntries lists, sorted, what lies in dir that the manifest does not
// account for: files it does not list, directories that hold none of its
// files, and anything that is neither a file nor a directory.
func foreignEntries(dir string, m *Manifest) ([]string, error) {
	files := make(map[string]bool, len(m.Files)+1)
	dirs := map[string]bool{}
	files[ManifestName] = true
	for _, e := range m.Files {
		files[e.Path] = true
		for d := path.Dir(e.Path); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var foreign []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && dirs[rel]:
			return nil
		case d.Type().IsRegular() && files[rel]:
			return nil
		}
		foreign = append(foreign, rel)
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	slices.Sort(foreign)
	return foreign, err
}

// Verify reports, sorted, the files the manifest lists whose size or
// digest differ from what is in dir. A listed file that is missing is not
// an edit: nothing of the user's is lost by writing it again.
func Verify(dir string, m *Manifest) ([]string, error) {
	var (
		mu     sync.Mutex
		edited []string
		first  error
		wg     sync.WaitGroup
	)
	next := make(chan Entry)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			// One buffer a worker, grown to the largest file: a build's
			// files are read whole, and a buffer each would be as many
			// bytes of garbage as the build has.
			var buf []byte
			for e := range next {
				var same bool
				var err error
				same, buf, err = matches(filepath.Join(dir, filepath.FromSlash(e.Path)), e, buf)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				if err == nil && !same {
					edited = append(edited, e.Path)
				}
				mu.Unlock()
			}
		})
	}
	for _, e := range m.Files {
		next <- e
	}
	close(next)
	wg.Wait()
	slices.Sort(edited)
	return edited, first
}

// wholeReadMax bounds the files matches reads whole; larger ones (none a
// build writes) are digested as they are read.
const wholeReadMax = 64 << 20

// matches reports whether the file at p has e's size and digest, reading
// it into buf (grown when needed, and returned for the next file).
func matches(p string, e Entry, buf []byte) (bool, []byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, buf, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() != e.Size {
		return false, buf, err
	}
	if e.Size > wholeReadMax {
		h := sha256.New()
		n, err := io.Copy(h, f)
		if err != nil {
			return false, buf, err
		}
		return n == e.Size && hex.EncodeToString(h.Sum(nil)) == e.SHA256, buf, nil
	}
	// Read to the end, one byte past the size the manifest gives: a file
	// that grew since the Stat is not the one written.
	if int64(cap(buf)) < e.Size+1 {
		buf = make([]byte, e.Size+1)
	}
	buf = buf[:e.Size+1]
	n, err := io.ReadFull(f, buf)
	if err != io.ErrUnexpectedEOF && err != nil && err != io.EOF {
		return false, buf, err
	}
	if int64(n) != e.Size {
		return false, buf, nil
	}
	sum := sha256.Sum256(buf[:n])
	return hex.EncodeToString(sum[:]) == e.SHA256, buf, nil
}

// sweep removes what killed builds left beside the output, and only what
// rocefab can tell it wrote there:
//   - staging directories whose marker names a process that no longer
//     runs. A staging directory is rocefab's own from its first byte, so
//     all of it may go;
//   - a build that a swap moved aside (or a stage between its marker's
//     removal and its swap) and a kill left: a directory with the staging
//     prefix, no marker and a manifest. Of it go the files the manifest
//     lists and that still have the size and digest it gives, then the
//     directories left empty; anything else stays. Each is first renamed,
//     so that a build still swapping it finds it gone rather than
//     half-removed. While the output itself is missing (a kill between
//     the two renames of swapByRenames) such a directory may be the only
//     copy of the earlier build, and stays.
func sweep(parent, base string) {
	prefix := stagingPrefix(base)
	entries, _ := os.ReadDir(parent)
	_, err := os.Lstat(filepath.Join(parent, base))
	outputThere := err == nil
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		b, err := os.ReadFile(filepath.Join(p, stagingMarker))
		if errors.Is(err, fs.ErrNotExist) && outputThere {
			sweepBuild(p, prefix)
			continue
		}
		if err != nil {
			continue // not (or no longer) a staging directory: leave it
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || alive(pid) {
			continue
		}
		os.RemoveAll(p)
	}
}

// sweepBuild removes, from a finished build left beside the output, the
// files its manifest lists and that are as it wrote them (see sweep). A
// directory without a readable manifest is not known to be rocefab's, and
// stays.
func sweepBuild(p, prefix string) {
	m, err := ReadManifest(p)
	if err != nil {
		return
	}
	claimed, err := mkdirStage(filepath.Dir(p), prefix+"old-")
	if err != nil || os.Remove(claimed) != nil || os.Rename(p, claimed) != nil {
		return
	}
	edited, err := Verify(claimed, m)
	if err != nil {
		return
	}
	keep := slices.DeleteFunc(slices.Clone(m.Files), func(e Entry) bool { return slices.Contains(edited, e.Path) })
	removeBuild(claimed, &Manifest{Files: keep})
}

// alive reports whether a process with this ID runs.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Dir returns the output directory, absolute.
func (s *Stage) Dir() string { return s.dir }

// Write writes one file of the build. rel is slash-separated and must stay
// inside the output directory; writing the same path twice is an error, so
// that two artifacts can never overwrite each other. Safe for concurrent use.
func (s *Stage) Write(rel string, content []byte, mode fs.FileMode) error {
	if err := CheckPath(rel); err != nil {
		return err
	}
	d := path.Dir(rel)
	s.mu.Lock()
	made := s.made[d]
	s.mu.Unlock()
	if !made {
		if err := s.sd.mkdir(d); err != nil {
			return err
		}
		s.mu.Lock()
		s.made[d] = true
		s.mu.Unlock()
	}
	err := s.sd.create(rel, content, mode)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: two artifacts of this build have the same path", rel)
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(content)
	s.mu.Lock()
	s.files = append(s.files, Entry{Path: rel, Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])})
	s.bytes += int64(len(content))
	s.mu.Unlock()
	return nil
}

// CheckPath returns an error unless rel is a clean, slash-separated path
// that stays inside the output directory and is not one of the build's own
// bookkeeping files.
func CheckPath(rel string) error {
	native := filepath.FromSlash(rel)
	if rel == "" || rel == "." || !filepath.IsLocal(native) || filepath.ToSlash(filepath.Clean(native)) != rel || strings.Contains(rel, `\`) {
		return fmt.Errorf("artifact path %q would leave the output directory or is not clean: refused", rel)
	}
	if rel == ManifestName || rel == stagingMarker {
		return fmt.Errorf("artifact path %q is reserved for the build's manifest", rel)
	}
	return nil
}

// Written returns how many files and bytes the stage holds.
func (s *Stage) Written() (files int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files), s.bytes
}

// Commit writes the manifest and puts the new build in place of the
// output directory, then removes the earlier build's files. The header's
// Files are ignored: the stage knows what it wrote.
func (s *Stage) Commit(header Manifest) error {
	if s.done {
		return errors.New("build already committed or aborted")
	}
	s.mu.Lock()
	m := header
	m.Format = ManifestFormat
	m.Files = slices.Clone(s.files)
	s.mu.Unlock()
	slices.SortFunc(m.Files, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.tmp, ManifestName), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(s.tmp, stagingMarker)); err != nil {
		return err
	}
	s.done = true
	s.sd.close()
	old, err := swap(s.tmp, s.dir)
	if err != nil {
		// Put the marker back so that a later build sweeps this directory.
		os.WriteFile(filepath.Join(s.tmp, stagingMarker), []byte("0\n"), 0o644)
		return fmt.Errorf("cannot put the build in place of %s: %w", s.dir, err)
	}
	if old != "" {
		removeBuild(old, s.prev)
	}
	return nil
}

// Abort removes the stage, leaving the output directory as it was.
func (s *Stage) Abort() {
	if s.done {
		return
	}
	s.done = true
	s.sd.close()
	os.RemoveAll(s.tmp)
}

// removeBuild deletes, from a replaced build's directory, the files its
// manifest lists and then the directories left empty. Anything else (a file
// that appeared while the build ran) stays where it is.
func removeBuild(dir string, m *Manifest) {
	var dirs []string
	if m != nil {
		seen := map[string]bool{}
		for _, e := range m.Files {
			os.Remove(filepath.Join(dir, filepath.FromSlash(e.Path)))
			for d := path.Dir(e.Path); d != "." && !seen[d]; d = path.Dir(d) {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	// Deepest first, so that a parent is empty by the time it is removed.
	slices.SortFunc(dirs, func(a, b string) int {
		if c := strings.Count(b, "/") - strings.Count(a, "/"); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, d := range dirs {
		os.Remove(filepath.Join(dir, filepath.FromSlash(d)))
	}
	// The manifest last: until it goes, a kill leaves a directory that a
	// later build's sweep knows as rocefab's.
	if m != nil {
		os.Remove(filepath.Join(dir, ManifestName))
	}
	os.Remove(dir)
}

// DigestFiles returns the SHA-256 of files' names (relative to base) and
// contents, in the order given.
func DigestFiles(base string, files []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(base, f)
		if err != nil {
			rel = f
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
