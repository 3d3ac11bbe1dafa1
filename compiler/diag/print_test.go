package diag

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const cwd = "/work/fabric"

// sample covers the cases every printer must handle: a full position under
// cwd with device and port, a device alone, an unknown line, a file outside
// cwd, a relative file, no file at all, and text needing escapes.
var sample = List{
	{Rule: "RF102", Name: "ecn-before-pfc", Severity: Error, Message: "ECN max 600 KB is at or above the PFC xoff point 500 KB",
		Pos: Pos{File: cwd + "/intent/qos.cue", Line: 12, Column: 5}, Device: "leaf1", Port: "Ethernet0"},
	{Rule: "RF108", Name: "pfc-watchdog", Severity: Warning, Message: "class roce has the PFC watchdog off",
		Pos: Pos{File: cwd + "/intent/qos.cue", Line: 30, Column: 3}, Device: "spine2"},
	{Rule: "RF110", Name: "oversubscription", Severity: Warning, Message: "leaf to spine is 2:1",
		Pos: Pos{File: cwd + "/inventory.json", Pointer: "/pods/0"}},
	{Rule: "RF117", Name: "platform-gap", Severity: Info, Message: "shaping, on sonic, is rendered as a policer: 100%",
		Pos: Pos{File: "/etc/rocefab/platform.cue", Line: 7}},
	{Rule: "RF001", Name: "schema", Severity: Error, Message: "line one\nline two\r",
		Pos: Pos{File: "rel/a,b:c.cue", Line: 1, Column: 1}},
	{Rule: "RF104", Name: "buffer-budget", Severity: Error, Message: "budget exceeded", Device: "leaf1"},
}

func printString(t *testing.T, l List, f Format, c Config) string {
	t.Helper()
	var b bytes.Buffer
	if err := Print(&b, l, f, c); err != nil {
		t.Fatalf("Print(%s): %v", f, err)
	}
	return b.String()
}

// printCase is a list and the whole output a format prints of it.
type printCase struct {
	name string
	l    List
	want string
}

// checkPrints prints each case's list in f, paths relative to cwd, and
// compares the output; %q shows the escapes and line ends that differ.
func checkPrints(t *testing.T, f Format, tests []printCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := printString(t, tt.l, f, Config{Cwd: cwd}); got != tt.want {
				t.Errorf("got:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats() {
		got, err := ParseFormat(string(f))
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("xml")
	if err == nil {
		t.Fatal("ParseFormat(xml): no error")
	}
	for _, want := range []string{`"xml"`, "text", "json", "sarif", "github"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	var f Format
	if err := f.Set("sarif"); err != nil || f != FormatSARIF {
		t.Errorf("Set(sarif) = %q, %v", f, err)
	}
	if err := f.Set("yaml"); err == nil || f != FormatSARIF {
		t.Errorf("Set(yaml) = %q, %v; want error and unchanged value", f, err)
	}
	if err := Print(&bytes.Buffer{}, sample, Format("xml"), Config{}); err == nil {
		t.Error("Print with unknown format: no error")
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ cwd, file, want string }{
		{cwd, cwd + "/a/b.cue", "a/b.cue"},
		{cwd + "/", cwd + "/a.cue", "a.cue"},
		{cwd, "/work/fabricx/a.cue", "/work/fabricx/a.cue"},
		{cwd, "/work/a.cue", "/work/a.cue"},
		{cwd, cwd + "/..a.cue", "..a.cue"},
		{cwd, "a/b.cue", "a/b.cue"},
		{"", "/x/y.cue", "/x/y.cue"},
		{cwd, "", ""},
	}
	for _, tt := range tests {
		if got := relPath(tt.cwd, tt.file); got != tt.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tt.cwd, tt.file, got, tt.want)
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name string
		l    List
		c    Config
		want string
	}{
		{"empty", nil, Config{Cwd: cwd}, ""},
		{"one error", sample[:1], Config{Cwd: cwd},
			"intent/qos.cue:12:5: error RF102 ecn-before-pfc: leaf1:Ethernet0: ECN max 600 KB is at or above the PFC xoff point 500 KB\n" +
				"1 error, 0 warnings\n"},
		{"one warning no cwd", sample[1:2], Config{},
			"/work/fabric/intent/qos.cue:30:3: warning RF108 pfc-watchdog: spine2: class roce has the PFC watchdog off\n" +
				"0 errors, 1 warning\n"},
		{"all", sample, Config{Cwd: cwd},
			"intent/qos.cue:12:5: error RF102 ecn-before-pfc: leaf1:Ethernet0: ECN max 600 KB is at or above the PFC xoff point 500 KB\n" +
				"intent/qos.cue:30:3: warning RF108 pfc-watchdog: spine2: class roce has the PFC watchdog off\n" +
				"inventory.json#/pods/0: warning RF110 oversubscription: leaf to spine is 2:1\n" +
				"/etc/rocefab/platform.cue:7: info RF117 platform-gap: shaping, on sonic, is rendered as a policer: 100%\n" +
				"rel/a,b:c.cue:1:1: error RF001 schema: line one\nline two\r\n" +
				"-: error RF104 buffer-budget: leaf1: budget exceeded\n" +
				"3 errors, 2 warnings, 1 info\n"},
		{"color", List{sample[0], sample[1], sample[3]}, Config{Cwd: cwd, Color: true},
			"intent/qos.cue:12:5: \x1b[31merror\x1b[0m \x1b[1mRF102 ecn-before-pfc\x1b[0m: leaf1:Ethernet0: ECN max 600 KB is at or above the PFC xoff point 500 KB\n" +
				"intent/qos.cue:30:3: \x1b[33mwarning\x1b[0m \x1b[1mRF108 pfc-watchdog\x1b[0m: spine2: class roce has the PFC watchdog off\n" +
				"/etc/rocefab/platform.cue:7: \x1b[36minfo\x1b[0m \x1b[1mRF117 platform-gap\x1b[0m: shaping, on sonic, is rendered as a policer: 100%\n" +
				"1 error, 1 warning, 1 info\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := printString(t, tt.l, FormatText, tt.c); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if !tt.c.Color && strings.Contains(printString(t, tt.l, FormatText, tt.c), "\x1b") {
				t.Error("colour without Color")
			}
		})
	}
}

func TestTextMatchesDiagnosticString(t *testing.T) {
	// Without a Cwd and colour, a text line is exactly Diagnostic.String,
	// so the two never drift apart.
	for _, d := range sample {
		if d.Message != strings.TrimSpace(d.Message) || strings.Contains(d.Message, "\n") {
			continue
		}
		got := printString(t, List{d}, FormatText, Config{})
		line, _, _ := strings.Cut(got, "\n")
		if line != d.String() {
			t.Errorf("text %q != String %q", line, d.String())
		}
	}
}

func TestSummaryCounts(t *testing.T) {
	mk := func(e, w, i int) List {
		var l List
		// Distinct lines: identical findings would be printed once.
		for n := range e {
			l = append(l, Diagnostic{Rule: "RF101", Severity: Error, Pos: Pos{File: "a.cue", Line: n + 1}})
		}
		for n := range w {
			l = append(l, Diagnostic{Rule: "RF107", Severity: Warning, Pos: Pos{File: "a.cue", Line: n + 1}})
		}
		for n := range i {
			l = append(l, Diagnostic{Rule: "RF117", Severity: Info, Pos: Pos{File: "a.cue", Line: n + 1}})
		}
		return l
	}
	tests := []struct {
		e, w, i int
		want    string
	}{
		{1, 0, 0, "1 error, 0 warnings"},
		{0, 1, 0, "0 errors, 1 warning"},
		{2, 2, 0, "2 errors, 2 warnings"},
		{1, 1, 0, "1 error, 1 warning"},
		{0, 0, 3, "0 errors, 0 warnings, 3 info"},
		{5, 0, 1, "5 errors, 0 warnings, 1 info"},
	}
	for _, tt := range tests {
		out := printString(t, mk(tt.e, tt.w, tt.i), FormatText, Config{})
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if got := lines[len(lines)-1]; got != tt.want {
			t.Errorf("%d/%d/%d: summary %q, want %q", tt.e, tt.w, tt.i, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	checkPrints(t, FormatJSON, []printCase{
		{"nil", nil, "[]\n"},
		{"empty", List{}, "[]\n"},
		{"device and port", sample[:1], `[
  {
    "rule": "RF102",
    "name": "ecn-before-pfc",
    "severity": "error",
    "message": "ECN max 600 KB is at or above the PFC xoff point 500 KB",
    "file": "intent/qos.cue",
    "line": 12,
    "column": 5,
    "device": "leaf1",
    "port": "Ethernet0"
  }
]
`},
		{"pointer, unknown line", sample[2:3], `[
  {
    "rule": "RF110",
    "name": "oversubscription",
    "severity": "warning",
    "message": "leaf to spine is 2:1",
    "file": "inventory.json",
    "line": 0,
    "column": 0,
    "pointer": "/pods/0"
  }
]
`},
		{"outside cwd, info, no html escaping", List{{Rule: "RF117", Name: "platform-gap", Severity: Info,
			Message: "a <= b & c", Pos: Pos{File: "/etc/p.cue", Line: 7}}}, `[
  {
    "rule": "RF117",
    "name": "platform-gap",
    "severity": "info",
    "message": "a <= b & c",
    "file": "/etc/p.cue",
    "line": 7,
    "column": 0
  }
]
`},
		{"no file", sample[5:], `[
  {
    "rule": "RF104",
    "name": "buffer-budget",
    "severity": "error",
    "message": "budget exceeded",
    "file": "",
    "line": 0,
    "column": 0,
    "device": "leaf1"
  }
]
`},
	})
}

func TestJSONKeys(t *testing.T) {
	out := printString(t, sample, FormatJSON, Config{Cwd: cwd})
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sample) {
		t.Fatalf("%d objects, want %d", len(got), len(sample))
	}
	required := []string{"rule", "name", "severity", "message", "file", "line", "column"}
	allowed := map[string]bool{"device": true, "port": true, "pointer": true}
	for _, k := range required {
		allowed[k] = true
	}
	for i, obj := range got {
		for _, k := range required {
			if _, ok := obj[k]; !ok {
				t.Errorf("object %d lacks %q", i, k)
			}
		}
		for k := range obj {
			if !allowed[k] {
				t.Errorf("object %d has unexpected key %q", i, k)
			}
		}
		d := sample[i]
		for k, set := range map[string]bool{"device": d.Device != "", "port": d.Port != "", "pointer": d.Pos.Pointer != ""} {
			if _, ok := obj[k]; ok != set {
				t.Errorf("object %d: key %q present=%v, want %v", i, k, ok, set)
			}
		}
	}
	if got[4]["message"] != "line one\nline two\r" {
		t.Errorf("message not kept verbatim: %q", got[4]["message"])
	}
}

func TestGitHub(t *testing.T) {
	checkPrints(t, FormatGitHub, []printCase{
		{"empty", nil, ""},
		{"error with device and port", sample[:1],
			"::error file=intent/qos.cue,line=12,col=5,title=RF102 ecn-before-pfc::leaf1:Ethernet0: ECN max 600 KB is at or above the PFC xoff point 500 KB\n"},
		{"warning", sample[1:2],
			"::warning file=intent/qos.cue,line=30,col=3,title=RF108 pfc-watchdog::spine2: class roce has the PFC watchdog off\n"},
		{"unknown line", sample[2:3],
			"::warning file=inventory.json,title=RF110 oversubscription::leaf to spine is 2:1\n"},
		{"info, unknown column, percent", sample[3:4],
			"::notice file=/etc/rocefab/platform.cue,line=7,title=RF117 platform-gap::shaping, on sonic, is rendered as a policer: 100%25\n"},
		{"escaping", sample[4:5],
			"::error file=rel/a%2Cb%3Ac.cue,line=1,col=1,title=RF001 schema::line one%0Aline two%0D\n"},
		{"no file", sample[5:6],
			"::error title=RF104 buffer-budget::leaf1: budget exceeded\n"},
		{"title escaping", List{{Rule: "RF9", Name: "a:b,c", Message: "m"}},
			"::error title=RF9 a%3Ab%2Cc::m\n"},
	})
	out := printString(t, sample, FormatGitHub, Config{Cwd: cwd})
	if n := strings.Count(out, "\n"); n != len(sample) {
		t.Errorf("%d lines for %d diagnostics", n, len(sample))
	}
}

var testRules = []RuleInfo{
	{ID: "RF108", Name: "pfc-watchdog", Severity: Warning, Title: "A lossless class with the PFC watchdog off.",
		Doc: "Without the watchdog a stuck receiver can pause the fabric forever."},
	{ID: "RF102", Name: "ecn-before-pfc", Severity: Error, Title: "ECN must mark before PFC pauses.",
		Doc: "ECN max must lie below the xoff point.", HelpURI: "https://github.com/rocefab/rocefab/blob/main/docs/rules.md#rf102"},
	{ID: "RF105", Name: "dscp-unique", Severity: Error, Title: "DSCP values are unique."},
	{ID: "RF102", Name: "duplicate", Severity: Info, Title: "ignored"},
}

func TestSARIFGolden(t *testing.T) {
	l := List{sample[0], sample[2], sample[3], sample[5]}
	got := printString(t, l, FormatSARIF, Config{Cwd: cwd, Rules: testRules, ToolVersion: "0.1.0"})
	want := `{
  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
  "version": "2.1.0",
  "runs": [
    {
      "tool": {
        "driver": {
          "name": "rocefab",
          "version": "0.1.0",
          "informationUri": "https://github.com/rocefab/rocefab",
          "rules": [
            {
              "id": "RF102",
              "name": "ecn-before-pfc",
              "shortDescription": {
                "text": "ECN must mark before PFC pauses."
              },
              "fullDescription": {
                "text": "ECN max must lie below the xoff point."
              },
              "help": {
                "text": "ECN max must lie below the xoff point."
              },
              "defaultConfiguration": {
                "level": "error"
              },
              "helpUri": "https://github.com/rocefab/rocefab/blob/main/docs/rules.md#rf102"
            },
            {
              "id": "RF104",
              "name": "buffer-budget"
            },
            {
              "id": "RF105",
              "name": "dscp-unique",
              "shortDescription": {
                "text": "DSCP values are unique."
              },
              "help": {
                "text": "DSCP values are unique."
              },
              "defaultConfiguration": {
                "level": "error"
              }
            },
            {
              "id": "RF108",
              "name": "pfc-watchdog",
              "shortDescription": {
                "text": "A lossless class with the PFC watchdog off."
              },
              "fullDescription": {
                "text": "Without the watchdog a stuck receiver can pause the fabric forever."
              },
              "help": {
                "text": "Without the watchdog a stuck receiver can pause the fabric forever."
              },
              "defaultConfiguration": {
                "level": "warning"
              }
            },
            {
              "id": "RF110",
              "name": "oversubscription"
            },
            {
              "id": "RF117",
              "name": "platform-gap"
            }
          ]
        }
      },
      "invocations": [
        {
          "executionSuccessful": true
        }
      ],
      "results": [
        {
          "ruleId": "RF102",
          "ruleIndex": 0,
          "level": "error",
          "message": {
            "text": "leaf1:Ethernet0: ECN max 600 KB is at or above the PFC xoff point 500 KB"
          },
          "locations": [
            {
              "physicalLocation": {
                "artifactLocation": {
                  "uri": "intent/qos.cue",
                  "uriBaseId": "%SRCROOT%"
                },
                "region": {
                  "startLine": 12,
                  "startColumn": 5
                }
              }
            }
          ],
          "properties": {
            "device": "leaf1",
            "port": "Ethernet0"
          }
        },
        {
          "ruleId": "RF110",
          "ruleIndex": 4,
          "level": "warning",
          "message": {
            "text": "leaf to spine is 2:1"
          },
          "locations": [
            {
              "physicalLocation": {
                "artifactLocation": {
                  "uri": "inventory.json",
                  "uriBaseId": "%SRCROOT%"
                }
              }
            }
          ],
          "properties": {
            "pointer": "/pods/0"
          }
        },
        {
          "ruleId": "RF117",
          "ruleIndex": 5,
          "level": "note",
          "message": {
            "text": "shaping, on sonic, is rendered as a policer: 100%"
          },
          "locations": [
            {
              "physicalLocation": {
                "artifactLocation": {
                  "uri": "file:///etc/rocefab/platform.cue"
                },
                "region": {
                  "startLine": 7
                }
              }
            }
          ]
        },
        {
          "ruleId": "RF104",
          "ruleIndex": 1,
          "level": "error",
          "message": {
            "text": "leaf1: budget exceeded"
          },
          "properties": {
            "device": "leaf1"
          }
        }
      ]
    }
  ]
}
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSARIFEmpty(t *testing.T) {
	got := printString(t, nil, FormatSARIF, Config{})
	var log map[string]any
	if err := json.Unmarshal([]byte(got), &log); err != nil {
		t.Fatal(err)
	}
	run := log["runs"].([]any)[0].(map[string]any)
	if res, ok := run["results"].([]any); !ok || len(res) != 0 {
		t.Errorf("results = %#v, want []", run["results"])
	}
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if rules, ok := driver["rules"].([]any); !ok || len(rules) != 0 {
		t.Errorf("rules = %#v, want []", driver["rules"])
	}
	if _, ok := driver["version"]; ok {
		t.Error("version present without ToolVersion")
	}
}

// TestSARIFStructure checks the output as a consumer would: it parses,
// carries the keys SARIF 2.1.0 and code scanning require, and every
// ruleIndex points at the rule named by ruleId.
func TestSARIFStructure(t *testing.T) {
	out := printString(t, sample, FormatSARIF, Config{Cwd: cwd, Rules: testRules, ToolVersion: "1.2.3"})
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					Version        string `json:"version"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []map[string]json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" {
		t.Errorf("$schema %q version %q", log.Schema, log.Version)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	drv := run.Tool.Driver
	if drv.Name != "rocefab" || drv.Version != "1.2.3" || drv.InformationURI != "https://github.com/rocefab/rocefab" {
		t.Errorf("driver = %+v", drv)
	}
	for i := 1; i < len(drv.Rules); i++ {
		if drv.Rules[i-1].ID >= drv.Rules[i].ID {
			t.Errorf("rules not sorted and unique at %d: %s, %s", i, drv.Rules[i-1].ID, drv.Rules[i].ID)
		}
	}
	if len(run.Results) != len(sample) {
		t.Fatalf("%d results, want %d", len(run.Results), len(sample))
	}
	for i, res := range run.Results {
		for _, k := range []string{"ruleId", "ruleIndex", "level", "message"} {
			if _, ok := res[k]; !ok {
				t.Errorf("result %d lacks %q", i, k)
			}
		}
		var id string
		var idx int
		var level string
		_ = json.Unmarshal(res["ruleId"], &id)
		_ = json.Unmarshal(res["ruleIndex"], &idx)
		_ = json.Unmarshal(res["level"], &level)
		if idx < 0 || idx >= len(drv.Rules) || drv.Rules[idx].ID != id {
			t.Errorf("result %d: ruleIndex %d does not point at %s", i, idx, id)
		}
		if want := sarifLevel(sample[i].Severity); level != want {
			t.Errorf("result %d: level %q, want %q", i, level, want)
		}
		if _, ok := res["locations"]; ok != (sample[i].Pos.File != "") {
			t.Errorf("result %d: locations present=%v", i, ok)
		}
	}
	// The relative, escaped URI of a file whose name needs escaping.
	if !strings.Contains(out, `"uri": "rel/a,b:c.cue"`) {
		t.Errorf("relative URI with comma and colon not found in:\n%s", out)
	}
}

func TestSARIFURIs(t *testing.T) {
	tests := []struct {
		file, uri, base string
	}{
		{cwd + "/a b/x.cue", "a%20b/x.cue", "%SRCROOT%"},
		{"x.cue", "x.cue", "%SRCROOT%"},
		{"c:x.cue", "./c:x.cue", "%SRCROOT%"},
		{"/other/x.cue", "file:///other/x.cue", ""},
		{"C:/src/x.cue", "file:///C:/src/x.cue", ""},
	}
	for _, tt := range tests {
		loc := sarifPhysical(cwd, Pos{File: tt.file})
		if loc.ArtifactLocation.URI != tt.uri || loc.ArtifactLocation.URIBaseID != tt.base {
			t.Errorf("%q: uri %q base %q, want %q %q", tt.file,
				loc.ArtifactLocation.URI, loc.ArtifactLocation.URIBaseID, tt.uri, tt.base)
		}
		if loc.Region != nil {
			t.Errorf("%q: region without a line", tt.file)
		}
	}
}

func TestDeterministic(t *testing.T) {
	c := Config{Cwd: cwd, Rules: testRules, ToolVersion: "1"}
	for _, f := range Formats() {
		first := printString(t, sample, f, c)
		for range 20 {
			if got := printString(t, sample, f, c); got != first {
				t.Fatalf("%s output differs between runs", f)
			}
		}
	}
}

func TestPrintDoesNotModifyList(t *testing.T) {
	l := append(List(nil), sample...)
	for _, f := range Formats() {
		printString(t, l, f, Config{Cwd: cwd, Rules: testRules})
	}
	for i := range l {
		if l[i] != sample[i] {
			t.Fatalf("Print changed element %d", i)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestPrintWriteError(t *testing.T) {
	for _, f := range Formats() {
		if err := Print(failWriter{}, sample, f, Config{}); err == nil {
			t.Errorf("%s: write error not returned", f)
		}
	}
}

func TestDedupe(t *testing.T) {
	twice := List{sample[0], sample[1], sample[0], sample[1], sample[2]}
	moved := sample[0]
	moved.Pos.Line++ // same rule and message elsewhere: a different finding
	twice = append(twice, moved)
	got := twice.Dedupe()
	want := List{sample[0], sample[1], sample[2], moved}
	if len(got) != len(want) {
		t.Fatalf("Dedupe kept %d, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Dedupe[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	// Every printer prints a repeated finding once (the message appears
	// for sample[0] and for moved), and the text summary counts it once.
	for _, f := range Formats() {
		out := printString(t, twice, f, Config{Cwd: cwd})
		if n := strings.Count(out, "ECN max 600 KB"); n != 2 {
			t.Errorf("%s: the repeated finding appears %d times:\n%s", f, n, out)
		}
	}
	if out := printString(t, twice, FormatText, Config{Cwd: cwd}); !strings.HasSuffix(out, "2 errors, 2 warnings\n") {
		t.Errorf("text summary counts duplicates:\n%s", out)
	}
}

func TestTextLimit(t *testing.T) {
	var l List
	for i := range 25 {
		l = append(l, Diagnostic{Rule: "RF101", Name: "ecn-order", Message: "m", Pos: Pos{File: "a.cue", Line: i + 1, Column: 1}})
	}
	l = append(l, Diagnostic{Rule: "RF108", Name: "pfc-watchdog", Severity: Warning, Message: "w", Pos: Pos{File: "b.cue", Line: 1}})
	out := printString(t, l, FormatText, Config{TextLimit: DefaultTextLimit})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 22 {
		t.Fatalf("%d lines, want 20 findings, the rest and the summary:\n%s", len(lines), out)
	}
	if lines[19] != "a.cue:20:1: error RF101 ecn-order: m" {
		t.Errorf("line 20 = %q", lines[19])
	}
	if lines[20] != "and 6 more (use --format json for all)" {
		t.Errorf("rest = %q", lines[20])
	}
	if lines[21] != "25 errors, 1 warning" {
		t.Errorf("summary = %q: it must count every finding", lines[21])
	}
	out = printString(t, l, FormatText, Config{TextLimit: 20, MoreHint: "rocefab lint lists all"})
	if !strings.Contains(out, "\nand 6 more (rocefab lint lists all)\n") {
		t.Errorf("MoreHint not used:\n%s", out)
	}
	// Exactly at the limit nothing is left out; without a limit all print.
	if out := printString(t, l[:20], FormatText, Config{TextLimit: 20}); strings.Contains(out, "more") {
		t.Errorf("20 findings at limit 20 say more:\n%s", out)
	}
	if out := printString(t, l, FormatText, Config{}); strings.Count(out, "\n") != 27 {
		t.Errorf("no limit: %d lines, want 27", strings.Count(out, "\n"))
	}
	// Programs get every finding whatever the limit.
	var got []map[string]any
	if err := json.Unmarshal([]byte(printString(t, l, FormatJSON, Config{TextLimit: 20})), &got); err != nil || len(got) != 26 {
		t.Errorf("json with a text limit: %d findings, %v", len(got), err)
	}
}

// TestSARIFToolError checks the log written when the tool could not run:
// valid SARIF 2.1.0 with no results and a failed invocation that says why.
func TestSARIFToolError(t *testing.T) {
	out := printString(t, nil, FormatSARIF, Config{ToolError: "cannot read intent: stat x.cue: no such file or directory", ToolVersion: "1"})
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Invocations []struct {
				ExecutionSuccessful *bool `json:"executionSuccessful"`
				Notes               []struct {
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Results []any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("log: %s", out)
	}
	run := log.Runs[0]
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful == nil || *inv.ExecutionSuccessful {
		t.Errorf("executionSuccessful = %v, want false", inv.ExecutionSuccessful)
	}
	if len(inv.Notes) != 1 || inv.Notes[0].Level != "error" || !strings.Contains(inv.Notes[0].Message.Text, "no such file") {
		t.Errorf("notifications = %+v", inv.Notes)
	}
	if run.Results == nil || len(run.Results) != 0 {
		t.Errorf("results = %v, want []", run.Results)
	}
	// A successful run says so and carries no notification.
	ok := printString(t, nil, FormatSARIF, Config{})
	if !strings.Contains(ok, `"executionSuccessful": true`) || strings.Contains(ok, "toolExecutionNotifications") {
		t.Errorf("successful run:\n%s", ok)
	}
}
