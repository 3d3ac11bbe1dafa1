// Package linttest runs lint rules over test intents and checks their
// findings against expectations written in the intents themselves, in the
// manner of golang.org/x/tools/go/analysis/analysistest.
//
// # Cases
//
// [Run] walks a directory. Each .cue file directly in it is a case of its
// own (a single-file intent); each subdirectory that holds .cue files is one
// case, loaded as a directory (one intent in one or more files, plus
// whatever it refers to, such as the devices.json of an explicit
// topology); a subdirectory without .cue files only groups cases and is
// walked in turn. Every case is loaded with [schema.Load] and compiled with
// [compiler.Compile], which runs [lint.Suite]; a rule under test that is not
// in the suite is run on the compiled fabric as well, so a rule can be
// tested before it is registered. Only the diagnostics of the rules under
// test are kept.
//
// # Expectations
//
// A diagnostic is expected by a comment on the line it is positioned at:
//
//	max: "60MB" // want RF102
//	max: "60MB" // want RF102 "xoff point 24 MB"
//	headroom: "20KB" // want RF103 "100 m" RF103 `3 m`
//
// Each expectation is a rule ID (or name) optionally followed by a regular
// expression, quoted as a Go string literal ("..." or `...`), that must
// match the diagnostic's message (without its device prefix); a line may
// hold several, and two diagnostics of one rule on one line need two
// expectations. Every expected diagnostic must be reported and every
// reported diagnostic expected, whatever its severity; both failures name
// file:line and the message. A case without expectations must report
// nothing: that is a clean case.
//
// JSON has no comments, so diagnostics positioned in a JSON file (the
// inventory of an explicit topology) are expected in a sidecar: want.txt
// in a directory case, NAME.want.txt beside a single-file case NAME.cue.
// Each line names a file relative to the case's directory and a line, or a
// JSON pointer to the element, then the expectations as above:
//
//	# comments and blank lines are ignored
//	devices.json:14 RF111 "NIC 0"
//	devices.json#/devices/3 RF111
//
// A sidecar may name .cue files as well.
package linttest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/schema"
)

// TestData returns the absolute path of the testdata directory of the
// package under test (the working directory of `go test`).
func TestData() string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return dir
}

// A Result is what one case produced.
type Result struct {
	// Case is the case's name: its path below the directory given to Run,
	// without the .cue extension of a single-file case.
	Case string
	// Path is what was loaded: a .cue file or a directory.
	Path   string
	Intent *schema.Intent // nil when the intent did not load
	Fabric *ir.Fabric     // nil when it did not compile
	// Diagnostics are the findings of the rules under test, sorted.
	Diagnostics diag.List
	// Wants is the number of expectations the case holds; 0 for a clean
	// case.
	Wants int
}

// Run loads every case under dir, runs the given rules over it and checks
// their diagnostics against the case's expectations, each case in a
// subtest of t named by the case. It returns the results of the cases it
// ran (go test -run may select some), in case order.
// A case that does not load or compile fails, unless the rules under test
// include the schema rule (RF001) that reports why.
func Run(t *testing.T, dir string, rules ...*lint.Analyzer) []*Result {
	t.Helper()
	if len(rules) == 0 {
		t.Fatal("linttest.Run: no rules to test")
	}
	cases, err := findCases(dir)
	if err != nil {
		t.Fatalf("linttest.Run: %v", err)
	}
	if len(cases) == 0 {
		t.Fatalf("linttest.Run: no cases in %s: a case is a .cue file or a directory holding .cue files", dir)
	}
	var results []*Result
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Helper()
			res, problems := check(c, rules)
			for _, p := range problems {
				t.Error(p)
			}
			results = append(results, res)
		})
	}
	return results
}

// Cases returns the names of the cases under dir, in the order Run runs
// them.
func Cases(dir string) ([]string, error) {
	cases, err := findCases(dir)
	var names []string
	for _, c := range cases {
		names = append(names, c.name)
	}
	return names, err
}

// A testCase is one intent to load.
type testCase struct {
	name    string
	path    string // .cue file or directory
	dir     string // the directory sidecar file names are relative to
	sidecar string // path of the want.txt, which need not exist
}

// findCases walks dir for cases, in lexical order.
func findCases(dir string) ([]testCase, error) {
	var out []testCase
	var walk func(sub string) error
	walk = func(sub string) error {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			return err
		}
		for _, e := range entries {
			rel := filepath.Join(sub, e.Name())
			full := filepath.Join(dir, rel)
			switch {
			case !e.IsDir() && strings.HasSuffix(e.Name(), ".cue"):
				base := strings.TrimSuffix(e.Name(), ".cue")
				out = append(out, testCase{name: filepath.ToSlash(strings.TrimSuffix(rel, ".cue")), path: full,
					dir: filepath.Dir(full), sidecar: filepath.Join(filepath.Dir(full), base+".want.txt")})
			case e.IsDir():
				cues, err := filepath.Glob(filepath.Join(full, "*.cue"))
				if err != nil {
					return err
				}
				if len(cues) == 0 {
					if err := walk(rel); err != nil {
						return err
					}
					continue
				}
				out = append(out, testCase{name: filepath.ToSlash(rel), path: full, dir: full,
					sidecar: filepath.Join(full, "want.txt")})
			}
		}
		return nil
	}
	return out, walk("")
}

// check runs one case and returns its result and what is wrong with it.
func check(c testCase, rules []*lint.Analyzer) (*Result, []string) {
	res := &Result{Case: c.name, Path: c.path}
	ids := map[string]bool{}
	for _, a := range rules {
		ids[a.ID] = true
	}
	in, ds, err := schema.Load(c.path)
	if err != nil {
		return res, []string{fmt.Sprintf("%s: cannot load the intent: %v", rel(c.path), err)}
	}
	res.Intent = in
	all := slices.Clone(ds)
	if in != nil {
		fab, cds := compiler.Compile(in)
		res.Fabric = fab
		all = append(all, cds...)
		if fab != nil {
			for _, a := range rules {
				if !slices.Contains(lint.Suite, a) {
					all = append(all, lint.Run([]*lint.Analyzer{a}, fab, in)...)
				}
			}
		}
	}
	if !ids[schema.RuleSchema] {
		var broken []string
		for _, d := range all {
			if d.Rule == schema.RuleSchema {
				broken = append(broken, "\n\t"+format(d))
			}
		}
		if len(broken) > 0 || in == nil || res.Fabric == nil {
			return res, []string{fmt.Sprintf("%s: the intent does not compile:%s", rel(c.path), strings.Join(broken, ""))}
		}
	}
	for _, d := range all {
		if ids[d.Rule] {
			res.Diagnostics = append(res.Diagnostics, d)
		}
	}
	res.Diagnostics.Sort()

	files := []string{c.path}
	if in != nil {
		files = in.Files
	} else if c.path == c.dir {
		files, _ = filepath.Glob(filepath.Join(c.dir, "*.cue"))
	}
	var wants []*want
	var problems []string
	for _, f := range files {
		w, ps := commentWants(f, rules)
		wants, problems = append(wants, w...), append(problems, ps...)
	}
	w, ps := sidecarWants(c, rules)
	wants, problems = append(wants, w...), append(problems, ps...)
	res.Wants = len(wants)
	return res, append(problems, match(res.Diagnostics, wants)...)
}

// A want is one expected diagnostic.
type want struct {
	file    string // absolute
	line    int    // 0 when pointer is set
	pointer string
	rule    string
	re      *regexp.Regexp // nil matches any message
	src     string         // where it was written, file:line
}

func (w *want) String() string {
	s := w.rule
	if w.re != nil {
		s += " " + strconv.Quote(w.re.String())
	}
	return s
}

// place reports whether d is of the expected rule at the expected place.
func (w *want) place(d diag.Diagnostic) bool {
	if absPath(d.Pos.File) != w.file || d.Rule != w.rule {
		return false
	}
	if w.pointer != "" {
		return d.Pos.Pointer == w.pointer
	}
	return d.Pos.Line == w.line
}

func (w *want) at() string {
	if w.pointer != "" {
		return rel(w.file) + "#" + w.pointer
	}
	return rel(w.file) + ":" + strconv.Itoa(w.line)
}

var wantRE = regexp.MustCompile(`//\s*want\s(.*)$`)

// commentWants reads the `// want` comments of a CUE file.
func commentWants(file string, rules []*lint.Analyzer) ([]*want, []string) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", rel(file), err)}
	}
	abs := absPath(file)
	var out []*want
	var problems []string
	for i, line := range strings.Split(string(b), "\n") {
		m := wantRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		src := fmt.Sprintf("%s:%d", rel(file), i+1)
		ws, err := parseWants(m[1], rules)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: bad want comment: %v", src, err))
			continue
		}
		for _, w := range ws {
			w.file, w.line, w.src = abs, i+1, src
		}
		out = append(out, ws...)
	}
	return out, problems
}

// sidecarWants reads a case's want.txt, when it has one.
func sidecarWants(c testCase, rules []*lint.Analyzer) ([]*want, []string) {
	f, err := os.Open(c.sidecar)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{err.Error()}
	}
	defer f.Close()
	var out []*want
	var problems []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		src := fmt.Sprintf("%s:%d", rel(c.sidecar), n)
		where, rest, _ := strings.Cut(line, " ")
		file, pointer, line0, err := parseWhere(where)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", src, err))
			continue
		}
		ws, err := parseWants(rest, rules)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: bad expectation: %v", src, err))
			continue
		}
		path := absPath(filepath.Join(c.dir, filepath.FromSlash(file)))
		if _, err := os.Stat(path); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s: no such file in the case", src, file))
			continue
		}
		for _, w := range ws {
			w.file, w.line, w.pointer, w.src = path, line0, pointer, src
		}
		out = append(out, ws...)
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, fmt.Sprintf("%s: %v", rel(c.sidecar), err))
	}
	return out, problems
}

// parseWhere reads "file:LINE" or "file#/json/pointer".
func parseWhere(s string) (file, pointer string, line int, err error) {
	if f, p, ok := strings.Cut(s, "#"); ok {
		if f == "" || !strings.HasPrefix(p, "/") {
			return "", "", 0, fmt.Errorf("%q: want FILE#/json/pointer, e.g. devices.json#/devices/3", s)
		}
		return f, p, 0, nil
	}
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", "", 0, fmt.Errorf("%q: want FILE:LINE or FILE#/json/pointer", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return "", "", 0, fmt.Errorf("%q: want FILE:LINE with a line number from 1", s)
	}
	return s[:i], "", n, nil
}

// parseWants reads `RF102 "re" RF117`: rule IDs or names, each optionally
// followed by a quoted regular expression.
func parseWants(s string, rules []*lint.Analyzer) ([]*want, error) {
	var out []*want
	s = strings.TrimSpace(s)
	for s != "" {
		if s[0] == '"' || s[0] == '`' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoted string at %s: want a Go string literal (write \\( in \"...\", or use `...`)", s)
			}
			if len(out) == 0 || out[len(out)-1].re != nil {
				return nil, fmt.Errorf("pattern %s follows no rule ID", q)
			}
			u, _ := strconv.Unquote(q)
			re, err := regexp.Compile(u)
			if err != nil {
				return nil, fmt.Errorf("pattern %s: %v", q, err)
			}
			out[len(out)-1].re = re
			s = strings.TrimSpace(s[len(q):])
			continue
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			end = len(s)
		}
		tok := s[:end]
		s = strings.TrimSpace(s[end:])
		id := ""
		for _, a := range rules {
			if strings.EqualFold(a.ID, tok) || a.Name == tok {
				id = a.ID
			}
		}
		if id == "" {
			if a := lint.Lookup(tok); a != nil {
				return nil, fmt.Errorf("%s (%s) is not among the rules under test", a.ID, a.Name)
			}
			return nil, fmt.Errorf("%q is not a rule ID or name", tok)
		}
		out = append(out, &want{rule: id})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule ID")
	}
	return out, nil
}

// match pairs diagnostics with expectations and describes what is left
// over on either side.
func match(ds diag.List, wants []*want) []string {
	// Pair within each place (file and line, or file and pointer), as a
	// bipartite matching so that the order of expectations on a line does
	// not matter.
	fits := func(d diag.Diagnostic, w *want) bool {
		return w.place(d) && (w.re == nil || w.re.MatchString(d.Message))
	}
	owner := make([]int, len(wants)) // index into ds + 1, 0 for none
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j, w := range wants {
			if seen[j] || !fits(ds[i], w) {
				continue
			}
			seen[j] = true
			if owner[j] == 0 || try(owner[j]-1, seen) {
				owner[j] = i + 1
				return true
			}
		}
		return false
	}
	matched := make([]bool, len(ds))
	for i := range ds {
		matched[i] = try(i, make([]bool, len(wants)))
	}
	var problems []string
	for i, d := range ds {
		if !matched[i] {
			problems = append(problems, fmt.Sprintf("%s: unexpected diagnostic: %s", where(d.Pos), describe(d)))
		}
	}
	for j, w := range wants {
		if owner[j] != 0 {
			continue
		}
		msg := fmt.Sprintf("%s: no diagnostic was reported matching %s", w.at(), w)
		if w.src != w.at() {
			msg += " (expected at " + w.src + ")"
		}
		var near []string
		for _, d := range ds {
			if w.place(d) {
				near = append(near, "\n\tgot: "+describe(d))
			}
		}
		problems = append(problems, msg+strings.Join(near, ""))
	}
	return problems
}

// where formats a position for a failure, relative to the working
// directory; a JSON element also gets its pointer, which a sidecar can use.
func where(p diag.Pos) string {
	if !p.IsValid() {
		return "(no position)"
	}
	s := rel(p.File)
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	if p.Pointer != "" {
		s += " (#" + p.Pointer + ")"
	}
	return s
}

func describe(d diag.Diagnostic) string { return d.Summary() }

func format(d diag.Diagnostic) string { return where(d.Pos) + ": " + describe(d) }

func absPath(p string) string {
	if p == "" {
		return ""
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

// rel makes a path relative to the working directory when it is below it.
func rel(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	r, err := filepath.Rel(wd, absPath(p))
	if err != nil || strings.HasPrefix(r, "..") {
		return p
	}
	return r
}

// CompileSource writes src as an intent in a temporary directory, loads it
// (which must succeed) and compiles it, lint included: the fabric, nil
// when compilation fails, and every finding.
func CompileSource(t testing.TB, src string) (*ir.Fabric, diag.List) {
	t.Helper()
	return compiler.Compile(LoadSource(t, src))
}

// LoadSource writes src as an intent in a temporary directory and loads
// it, which must succeed.
func LoadSource(t testing.TB, src string) *schema.Intent {
	t.Helper()
	return LoadFiles(t, src, nil)
}

// LoadFiles is LoadSource with files (name to content) written beside
// the intent, such as the inventory an explicit topology names.
func LoadFiles(t testing.TB, src string, files map[string]string) *schema.Intent {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "fabric.cue")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	in, ds, err := schema.Load(p)
	if err != nil || in == nil {
		t.Fatalf("load: %v %v", err, ds)
	}
	return in
}

// ExpandFiles loads src with files as LoadFiles does and expands it
// without lint (for intents lint rejects, or tests of what comes before
// it), which must succeed.
func ExpandFiles(t testing.TB, src string, files map[string]string) *ir.Fabric {
	t.Helper()
	f, ds := compiler.Expand(LoadFiles(t, src, files))
	if f == nil || ds.HasErrors() {
		t.Fatalf("expand: %v", ds)
	}
	return f
}
