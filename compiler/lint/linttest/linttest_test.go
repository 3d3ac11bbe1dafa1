package linttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/lint"
)

// nameRule is a rule outside lint.Suite: it reports the fabric's name.
var nameRule = &lint.Analyzer{
	ID: "RF999", Name: "test-name", Severity: diag.Info,
	Title: "reports the fabric name", Doc: "For the harness's own tests.",
	Run: func(p *lint.Pass) {
		if p.Fabric.Name == "custom" {
			p.Reportf(p.Pos("name"), "fabric %s", p.Fabric.Name)
		}
	},
}

func TestRun(t *testing.T) {
	results := Run(t, filepath.Join(TestData(), "ok"), lint.CNPClass, lint.MTU, lint.RailWiring, nameRule)
	var got []string
	wants := map[string]int{}
	for _, r := range results {
		got = append(got, r.Case)
		wants[r.Case] = r.Wants
	}
	want := []string{"clean", "custom", "explicit", "group/sub", "two-on-a-line"}
	if !slices.Equal(got, want) {
		t.Errorf("cases %q, want %q", got, want)
	}
	if wants["clean"] != 0 || wants["explicit"] != 2 || wants["two-on-a-line"] != 2 {
		t.Errorf("expectations per case: %v", wants)
	}
}

func TestFindCases(t *testing.T) {
	cases, err := findCases(filepath.Join(TestData(), "layout"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.name+" "+filepath.Base(c.sidecar))
	}
	// A directory holding .cue files is one case, whatever else it holds;
	// one without is a group.
	want := []string{"a a.want.txt", "dircase want.txt", "group/dircase want.txt", "group/mixed want.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("cases\n%q\nwant\n%q", got, want)
	}
}

// TestFailures checks that each kind of mismatch is reported, with its
// place and message.
func TestFailures(t *testing.T) {
	rules := []*lint.Analyzer{lint.MTU}
	for _, tc := range []struct {
		file string
		want []string // substrings, one problem each
	}{
		{"missing", []string{"missing.cue:3: no diagnostic was reported matching RF112"}},
		{"unexpected", []string{"unexpected.cue:3: unexpected diagnostic: error RF112 mtu: host MTU 4100 cannot carry"}},
		{"wrong-pattern", []string{
			`wrong-pattern.cue:3: unexpected diagnostic: error RF112 mtu: host MTU 4100`,
			`wrong-pattern.cue:3: no diagnostic was reported matching RF112 "switch MTU"` + "\n\tgot: error RF112 mtu: host MTU 4100",
		}},
		{"wrong-line", []string{
			"wrong-line.cue:3: unexpected diagnostic",
			"wrong-line.cue:2: no diagnostic was reported matching RF112",
		}},
		{"bad-want", []string{
			`bad-want.cue:1: bad want comment: pattern "no rule" follows no rule ID`,
			"bad-want.cue:2: bad want comment: RF102 (ecn-before-pfc) is not among the rules under test",
			`bad-want.cue:3: bad want comment: pattern "(": error parsing regexp`,
		}},
		{"broken", []string{"broken.cue: the intent does not compile:\n\tfail/broken.cue:3: error RF001 schema: mtu.host"}},
		{"bad-sidecar", []string{
			"bad-sidecar.want.txt:1: nosuchfile.json: no such file in the case",
			`bad-sidecar.want.txt:2: "bad-sidecar.cue": want FILE:LINE or FILE#/json/pointer`,
			`bad-sidecar.want.txt:3: "bad-sidecar.cue:0": want FILE:LINE with a line number from 1`,
			`bad-sidecar.want.txt:4: "bad-sidecar.cue#devices": want FILE#/json/pointer`,
			`bad-sidecar.want.txt:5: bad expectation: "RF404" is not a rule ID or name`,
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Chdir(TestData())
			path := filepath.Join("fail", tc.file+".cue")
			_, problems := check(testCase{name: tc.file, path: path, dir: "fail",
				sidecar: filepath.Join("fail", tc.file+".want.txt")}, rules)
			if len(problems) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%s", len(problems), len(tc.want), strings.Join(problems, "\n"))
			}
			for _, w := range tc.want {
				found := false
				for _, p := range problems {
					found = found || strings.Contains(p, w)
				}
				if !found {
					t.Errorf("no problem contains %q; got:\n%s", w, strings.Join(problems, "\n"))
				}
			}
		})
	}
}

func TestSchemaRuleCases(t *testing.T) {
	// With RF001 under test, a case that does not load is matched like
	// any other.
	t.Chdir(TestData())
	_, problems := check(testCase{name: "broken", path: "fail/broken.cue", dir: "fail", sidecar: "fail/none.want.txt"},
		[]*lint.Analyzer{lint.SchemaRule})
	if len(problems) != 1 || !strings.Contains(problems[0], "broken.cue:3: unexpected diagnostic: error RF001 schema: mtu.host") {
		t.Errorf("problems: %q", problems)
	}
}

func TestParseWants(t *testing.T) {
	rules := []*lint.Analyzer{lint.ECNBeforePFC, lint.PlatformGap}
	ws, err := parseWants(`RF102 "a b" platform-gap rf117 `+"`x\\(y`", rules)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{`RF102 "a b"`, "RF117", `RF117 "x\\(y"`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"", `"x"`, `RF102 "a" "b"`, `RF102 "unterminated`, "RF999"} {
		if _, err := parseWants(bad, rules); err == nil {
			t.Errorf("parseWants(%q): no error", bad)
		}
	}
}
