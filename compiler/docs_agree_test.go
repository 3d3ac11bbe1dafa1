package compiler_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// readDoc returns a repository file with its whitespace folded to single
// spaces, so that a phrase may wrap across lines.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// thousands formats n with a comma every three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// The README and docs/physics.md state the default ECN profile the schema
// gives a lossless class (the README in KB, physics.md in bytes), and both
// say NVIDIA's 150 KB / 1.5 MB at 100 % passes RF102 with a warning where
// the XOFF point lies between its minimum and maximum, which the linter
// does on an SN5600 fabric (XOFF points 372 KB and 593 KB).
func TestDocsStateECNDefaults(t *testing.T) {
	f := compile(t, `name: "x"
topology: {servers: 16, rails: 2}`)
	cs := f.LosslessClasses()
	if len(cs) != 1 || cs[0].ECN == nil {
		t.Fatalf("default lossless classes %v", cs)
	}
	e := cs[0].ECN
	readme, phys := readDoc(t, "../README.md"), readDoc(t, "../docs/physics.md")
	want := strconv.FormatInt(e.MinBytes/1000, 10) + " KB / " + strconv.FormatInt(e.MaxBytes/1000, 10) + " KB at " + strconv.Itoa(e.Probability) + " %"
	if !strings.Contains(readme, want) {
		t.Errorf("README.md does not state the default ECN profile %q", want)
	}
	if want := "default, " + thousands(e.MinBytes) + " B to " + thousands(e.MaxBytes) + " B at " + strconv.Itoa(e.Probability) + " %"; !strings.Contains(phys, want) {
		t.Errorf("docs/physics.md §3.1 does not state the default ECN profile %q", want)
	}
	for doc, text := range map[string]string{"README.md": readme, "docs/physics.md": phys} {
		if strings.Contains(text, "pass only with a small stated N") {
			t.Errorf("%s says NVIDIA's profile passes only with a small stated N", doc)
		}
		if !regexp.MustCompile(`NVIDIA's (own )?(` + "`nv set qos roce`" + ` profile, )?150 ?(KB|,000 B).{0,60} pass(es RF102)? with a warning`).MatchString(text) {
			t.Errorf("%s does not say NVIDIA's 150 KB / 1.5 MB passes with a warning", doc)
		}
	}
	_, ds := compiler.Compile(load(t, `name: "x"
topology: {servers: 16, rails: 2}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: "150KB", max: "1500KB", probability: 100}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 50}
}`))
	rf102 := 0
	for _, d := range ds {
		if d.Rule == "RF102" {
			rf102++
			if d.Severity != diag.Warning {
				t.Errorf("NVIDIA's profile: %v, want a warning", d)
			}
		}
	}
	if rf102 == 0 {
		t.Error("NVIDIA's profile on an SN5600 fabric: no RF102 warning")
	}
}

// docs/physics.md §3.2 and docs/rules.md (RF109) name the same first
// ConnectX that places out-of-order packets, and the catalog agrees: that
// model can, the generation before it cannot.
func TestDocsAgreeOnReorderNICs(t *testing.T) {
	first := regexp.MustCompile(`\(ConnectX-(\d+)( Dx)? and later, BlueField-3`)
	var named []string
	for _, doc := range []string{"../docs/physics.md", "../docs/rules.md"} {
		m := first.FindStringSubmatch(readDoc(t, doc))
		if m == nil {
			t.Fatalf("%s names no first ConnectX that places out-of-order packets", doc)
		}
		named = append(named, m[0])
		gen, _ := strconv.Atoi(m[1])
		model := "connectx-" + m[1] + strings.ToLower(strings.TrimSpace(m[2]))
		if n, ok := platforms.LookupNIC(model); !ok || !n.OutOfOrder {
			t.Errorf("%s names %s, which the catalog does not let place out-of-order packets", doc, model)
		}
		if n, ok := platforms.LookupNIC("connectx-" + strconv.Itoa(gen-1)); ok && n.OutOfOrder {
			t.Errorf("%s names %s first, but the catalog lets connectx-%d place out-of-order packets", doc, model, gen-1)
		}
	}
	if named[0] != named[1] {
		t.Errorf("docs/physics.md says %q, docs/rules.md %q", named[0], named[1])
	}
}
