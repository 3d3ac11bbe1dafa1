package cli

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// citedDoc matches a citation of a project document in code or data:
// "physics.md §1.2", "hosts.md 0.4", "switches.md §0, §3.1",
// "openconfig.md, section 2.5". The tail up to a closing parenthesis,
// semicolon or quote holds the sections.
var (
	citedDoc     = regexp.MustCompile(`\b(physics|hosts|switches|openconfig)\.md\b([^);"\x60]*)`)
	firstSection = regexp.MustCompile(`^,?\s*(?:§\s*|section\s+)?(\d+(?:\.\d+)*)`)
	// Further sections of the same document follow a comma: ", §3.6";
	// "physics.md §2, DCQCN §5" cites another work's §5.
	moreSections = regexp.MustCompile(`,\s*§\s*(\d+(?:\.\d+)*)`)
	// A numbered heading: "## 1. PFC headroom", "### 1.2 Vendor formulas".
	numberedHeading = regexp.MustCompile(`(?m)^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s`)
	// A Go comment continued on the next line.
	commentBreak = regexp.MustCompile(`\n\s*//\s*`)
)

// citations returns each cited document and section found in the Go and
// JSON files below the given directories, with a place that cites it.
func citations(t *testing.T, root string, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir
			}
			if d.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".json")) {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			text := commentBreak.ReplaceAllString(string(b), " ")
			rel, _ := filepath.Rel(root, p)
			for _, m := range citedDoc.FindAllStringSubmatch(text, -1) {
				doc, tail := m[1]+".md", m[2]
				var secs []string
				if f := firstSection.FindStringSubmatch(tail); f != nil {
					secs = append(secs, f[1])
				}
				for _, s := range moreSections.FindAllStringSubmatch(tail, -1) {
					secs = append(secs, s[1])
				}
				if len(secs) == 0 {
					out[doc] = rel
				}
				for _, s := range secs {
					out[doc+" "+s] = rel
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCitedDocsExist: every "X.md §N" that code, data, artifacts or explain
// cite names a document in docs/ with a heading numbered N, so that a user
// can follow each citation.
func TestCitedDocsExist(t *testing.T) {
	root := repoRoot(t)
	cited := citations(t, root, "renderers", "compiler", "cmd", "schema")
	if len(cited) < 20 {
		t.Fatalf("found only %d citations: the extraction is broken", len(cited))
	}
	headings := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(cited)) {
		doc, sec, _ := strings.Cut(k, " ")
		hs, ok := headings[doc]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, "docs", doc))
			if err != nil {
				t.Errorf("%s cites %s: docs/%s does not exist", cited[k], doc, doc)
				headings[doc] = nil
				continue
			}
			for _, m := range numberedHeading.FindAllStringSubmatch(string(b), -1) {
				hs = append(hs, m[1])
			}
			headings[doc] = hs
		}
		if sec != "" && hs != nil && !slices.Contains(hs, sec) {
			t.Errorf("%s cites %s §%s: docs/%s has no section %s (it has %v)", cited[k], doc, sec, doc, sec, hs)
		}
	}
}

// TestCitationExtraction pins the forms the extraction understands.
func TestCitationExtraction(t *testing.T) {
	dir := t.TempDir()
	src := `package x
// a (switches.md §3.4, §3.6), b (hosts.md 0.4). c (physics.md §1.3 rules of thumb, §3.1)
// d (openconfig.md, section
// 2.5, pitfall 5) e "hosts.md §4.2" f hosts.md 1.5 (a) and (b) g (physics.md §2, DCQCN §5)
`
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(citations(t, dir, "pkg")))
	want := []string{"hosts.md 0.4", "hosts.md 1.5", "hosts.md 4.2", "openconfig.md 2.5", "physics.md 1.3", "physics.md 2", "physics.md 3.1",
		"switches.md 3.4", "switches.md 3.6"}
	if !slices.Equal(got, want) {
		t.Errorf("citations = %v, want %v", got, want)
	}
}
