package nvue

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameTree returns where a and b differ in what reading uses: kinds,
// values, null tags, line numbers and children; "" when they do not.
func sameTree(a, b *rnode, at string) string {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Sprintf("%s: subset %v, library %v", at, a, b)
		}
		return ""
	case a.Kind != b.Kind || a.Value != b.Value || (a.Tag == "!!null") != (b.Tag == "!!null") || a.Line != b.Line:
		return fmt.Sprintf("%s: subset {kind %d %q %s line %d}, library {kind %d %q %s line %d}", at,
			a.Kind, a.Value, a.Tag, a.Line, b.Kind, b.Value, b.Tag, b.Line)
	case len(a.Content) != len(b.Content):
		return fmt.Sprintf("%s (line %d): subset %d children, library %d", at, a.Line, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkSubset checks that whatever the subset reader reads, the library
// reads the same; it reports whether the subset reader read src.
func checkSubset(t *testing.T, src []byte) bool {
	t.Helper()
	got, ok := readSubset(src)
	if !ok {
		return false
	}
	want, err := readLibrary(src)
	if err != nil {
		t.Fatalf("the subset reader read what the library refuses (%v):\n%s", err, src)
	}
	if d := sameTree(got, want, ""); d != "" {
		t.Fatalf("the subset reader and the library differ at %s in:\n%s", d, src)
	}
	return true
}

// subsetCases are documents in the subset, NVUE's printing and what a
// person editing it writes.
var subsetCases = []string{
	"",
	"# only a comment\n",
	"- header:\n    model: SN5600\n    rev-id: 1.0\n    version: Cumulus Linux 5.16.0\n- set:\n    qos:\n      roce:\n        mode: lossless\n",
	"set:\n  interface:\n    swp1:\n      description: to leaf-r1-01:Ethernet19/1\n      link: {mtu: 9216, speed: 400G}\n",
	"set:\n  qos:\n    pfc:\n      p:\n        switch-priority:\n          '3': {}\n          '0,3':\n          4: null\n",
	"- set:\n    a: 'it''s'   # quoted, with a comment\n    'b c': x y z\n    d: {e: {f: 1}, g: {}}\n",
	"a:\n- x\n- y: 1\n  z: 2\n-\n  w: 3\n-\nb: -x\n",
	"set: {}\n",
	"set:\n",
	// As the library's encoder writes keys that would read as numbers.
	"- set:\n    qos:\n      traffic-class:\n        \"0\":\n          ecn: disable\n        \"3\": {\"a b\": \"it's\", c: \"\"}\n",
}

// notSubsetCases are documents the subset reader leaves to the library.
var notSubsetCases = []string{
	"a: &x 1\nb: *x\n",
	"a: !!str 1\n",
	"a: |\n  text\n",
	"a: [1, 2]\n",
	"a: \"quoted\\tescape\"\n",
	"\"a\\\"b\": 1\n",
	"a: \"b\" c\n",
	"a: \"b #c\"\n",
	"a:\n\tb: 1\n",
	"a: 1\r\n",
	"---\na: 1\n",
	"a: b\n  continued\n",
	"a: b: c\n",
	"? a\n: b\n",
	"a: {b: 1,\n  c: 2}\n",
	"a: café\n",
	"- - a\n",
	"a: 1 #x\n b: 2\n",
}

func TestSubsetCases(t *testing.T) {
	for _, c := range subsetCases {
		if !checkSubset(t, []byte(c)) {
			t.Errorf("not read by the subset reader:\n%s", c)
		}
	}
	for _, c := range notSubsetCases {
		if _, ok := readSubset([]byte(c)); ok {
			t.Errorf("read by the subset reader, which should leave it to the library:\n%s", c)
		}
	}
}

// TestSubsetReadsNVUE: every running configuration the examples keep, as
// NVUE prints it, and every document rocefab renders is read by the subset
// reader, exactly as the library reads it.
func TestSubsetReadsNVUE(t *testing.T) {
	files, err := filepath.Glob("../../examples/*/running/*/" + File)
	if err != nil || len(files) == 0 {
		t.Fatalf("no running NVUE configuration in the examples (%v)", err)
	}
	golden, _ := filepath.Glob("testdata/golden/*/*/" + File)
	for _, f := range append(files, golden...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !checkSubset(t, src) {
			t.Errorf("%s is not read by the subset reader", f)
		}
	}
}

// FuzzSubset: on any input, what the subset reader reads the library reads
// the same.
func FuzzSubset(f *testing.F) {
	for _, c := range append(subsetCases, notSubsetCases...) {
		f.Add([]byte(c))
	}
	files, _ := filepath.Glob("../../examples/pod-2048/running/spine-0[01]/" + File)
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			// The first lines are enough for the fuzzer to mutate.
			lines := strings.SplitAfter(string(src), "\n")
			f.Add([]byte(strings.Join(lines[:min(60, len(lines))], "")))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkSubset(t, src)
	})
}
