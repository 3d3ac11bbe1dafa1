package lint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

func TestValidateSuite(t *testing.T) {
	if err := lint.Validate(lint.Suite); err != nil {
		t.Fatal(err)
	}
	if err := lint.Validate(lint.All()); err != nil {
		t.Fatalf("suite and schema rule: %v", err)
	}
}

// The rule table of INTENT.md §5: IDs, names and severities are a contract
// with users and must not change.
var catalogue = []struct {
	id, name string
	severity diag.Severity
}{
	{"RF101", "ecn-order", diag.Error},
	{"RF102", "ecn-before-pfc", diag.Error},
	{"RF103", "headroom", diag.Error},
	{"RF104", "buffer-budget", diag.Error},
	{"RF105", "dscp-unique", diag.Error},
	{"RF106", "cnp-class", diag.Error},
	{"RF107", "lossless-count", diag.Warning},
	{"RF108", "pfc-watchdog", diag.Warning},
	{"RF109", "reorder-support", diag.Error},
	{"RF110", "oversubscription", diag.Warning},
	{"RF111", "rail-wiring", diag.Error},
	{"RF112", "mtu", diag.Error},
	{"RF113", "nccl-class", diag.Error},
	{"RF114", "shaping", diag.Error},
	{"RF115", "tenant", diag.Error},
	{"RF116", "deadlock", diag.Error},
	{"RF117", "platform-gap", diag.Warning},
	{"RF118", "nic-cable", diag.Warning},
	{"RF119", "ets-sum", diag.Error},
	{"RF120", "ecn-off", diag.Warning},
	{"RF121", "nic-speed", diag.Error},
}

func TestSuiteMatchesCatalogue(t *testing.T) {
	byID := map[string]*lint.Analyzer{}
	for _, a := range lint.Suite {
		byID[a.ID] = a
	}
	for _, want := range catalogue {
		a := byID[want.id]
		if a == nil {
			t.Errorf("%s %s is not in lint.Suite", want.id, want.name)
			continue
		}
		if a.Name != want.name || a.Severity != want.severity {
			t.Errorf("%s: name %q, severity %s; want %q, %s", a.ID, a.Name, a.Severity, want.name, want.severity)
		}
		if got := lint.Lookup(want.id); got != a {
			t.Errorf("Lookup(%q) = %v, want the suite's rule", want.id, got)
		}
		if got := lint.Lookup(want.name); got != a {
			t.Errorf("Lookup(%q) = %v, want the suite's rule", want.name, got)
		}
		delete(byID, want.id)
	}
	for id, a := range byID {
		t.Errorf("%s %s is in lint.Suite but not in the rule table of INTENT.md", id, a.Name)
	}
	if s := lint.SchemaRule; s.ID != "RF001" || s.Name != "schema" || s.Severity != diag.Error {
		t.Errorf("schema rule: %s %s %s; want RF001 schema error", s.ID, s.Name, s.Severity)
	}
}

// TestExamplesLintClean compiles every example under examples/ of the
// module: no errors and no warnings, except RF117 platform-gap, which
// reports what a platform cannot express by design.
func TestExamplesLintClean(t *testing.T) {
	root := moduleRoot(t)
	dirs, err := filepath.Glob(filepath.Join(root, "examples", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, ds, err := schema.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				t.Error(d)
			}
			if in == nil {
				t.Fatal("the example does not load")
			}
			fab, ds := compiler.Compile(in)
			if fab == nil {
				t.Error("the example does not compile")
			}
			for _, d := range ds {
				if d.Severity == diag.Error || (d.Severity == diag.Warning && d.Rule != lint.PlatformGap.ID) {
					t.Error(d)
				}
			}
		})
	}
	if n == 0 {
		t.Fatalf("no examples under %s", filepath.Join(root, "examples"))
	}
}

func moduleRoot(t *testing.T) string { return rendertest.RepoRoot(t) }
