package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader as a .cue and as a .json
// intent: it must return diagnostics or an error, never panic. The seed
// corpus is the bundled examples. Run it with a short minimization time,
// since minimizing an input re-evaluates CUE thousands of times:
//
//	go test -run xxx -fuzz FuzzLoad -fuzztime 2m -fuzzminimizetime 5s ./schema
func FuzzLoad(f *testing.F) {
	examples, _ := filepath.Glob("../examples/*/*.cue")
	for _, e := range examples {
		if b, err := os.ReadFile(e); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"name": "j", "topology": {"servers": 3}}`))
	f.Add([]byte("name: \"x;y\"\ntopology: servers: 4\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, name := range []string{"fabric.cue", "fabric.json"} {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			in, ds, err := Load(p)
			if err == nil && in == nil && len(ds) == 0 {
				t.Fatalf("Load(%q) returned neither an intent, findings nor an error", b)
			}
		}
	})
}

// FuzzUnits checks that unit parsing never panics and never accepts a
// negative quantity.
func FuzzUnits(f *testing.F) {
	for _, s := range []string{"150KB", "64KiB", "3m", "1.2km", "200ms", "50Gbit", "400G", "1.6T", "", "-1m", "1e9GB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, _, err := ParseSize(s); err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if n, err := ParseRate(s); err == nil && n <= 0 {
			t.Fatalf("ParseRate(%q) = %d", s, n)
		}
		if n, err := ParseLength(s); err == nil && n < 0 {
			t.Fatalf("ParseLength(%q) = %g", s, n)
		}
		if n, err := ParseDuration(s); err == nil && n < 0 {
			t.Fatalf("ParseDuration(%q) = %v", s, n)
		}
		_, _ = ParseSpeed(s)
	})
}
