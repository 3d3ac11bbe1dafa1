package lint_test

import (
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
)

// runRule runs a rule over testdata/<rule name> and checks that the rule
// has at least one case that must report and one clean case.
func runRule(t *testing.T, a *lint.Analyzer) {
	t.Helper()
	dir := filepath.Join(linttest.TestData(), a.Name)
	results := linttest.Run(t, dir, a)
	if cases, err := linttest.Cases(dir); err != nil || len(results) < len(cases) {
		return // go test -run selected some cases only
	}
	reporting, clean := 0, 0
	for _, r := range results {
		if r.Wants > 0 {
			reporting++
		} else {
			clean++
		}
	}
	if reporting == 0 || clean == 0 {
		t.Errorf("%s %s: %d cases that report and %d clean cases: want at least one of each", a.ID, a.Name, reporting, clean)
	}
}

func TestECNOrder(t *testing.T)         { runRule(t, lint.ECNOrder) }
func TestECNBeforePFC(t *testing.T)     { runRule(t, lint.ECNBeforePFC) }
func TestHeadroom(t *testing.T)         { runRule(t, lint.Headroom) }
func TestBufferBudget(t *testing.T)     { runRule(t, lint.BufferBudget) }
func TestDSCPUnique(t *testing.T)       { runRule(t, lint.DSCPUnique) }
func TestCNPClass(t *testing.T)         { runRule(t, lint.CNPClass) }
func TestLosslessCount(t *testing.T)    { runRule(t, lint.LosslessCount) }
func TestPFCWatchdog(t *testing.T)      { runRule(t, lint.PFCWatchdog) }
func TestReorderSupport(t *testing.T)   { runRule(t, lint.ReorderSupport) }
func TestOversubscription(t *testing.T) { runRule(t, lint.Oversubscription) }
func TestRailWiring(t *testing.T)       { runRule(t, lint.RailWiring) }
func TestMTU(t *testing.T)              { runRule(t, lint.MTU) }
func TestNCCLClass(t *testing.T)        { runRule(t, lint.NCCLClass) }
func TestShaping(t *testing.T)          { runRule(t, lint.Shaping) }
func TestTenant(t *testing.T)           { runRule(t, lint.Tenant) }
func TestDeadlock(t *testing.T)         { runRule(t, lint.Deadlock) }
func TestPlatformGap(t *testing.T)      { runRule(t, lint.PlatformGap) }
func TestNICCable(t *testing.T)         { runRule(t, lint.NICCable) }
func TestETSSum(t *testing.T)           { runRule(t, lint.ETSSum) }
func TestECNOff(t *testing.T)           { runRule(t, lint.ECNOff) }
func TestNICSpeed(t *testing.T)         { runRule(t, lint.NICSpeed) }

// TestEveryRuleHasCases keeps testdata in step with the suite: each rule
// has its directory of cases, named by the rule.
func TestEveryRuleHasCases(t *testing.T) {
	for _, a := range lint.Suite {
		cases, err := linttest.Cases(filepath.Join(linttest.TestData(), a.Name))
		if err != nil || len(cases) < 2 {
			t.Errorf("%s %s: %d cases in testdata/%s (%v): want a case that reports and a clean one", a.ID, a.Name, len(cases), a.Name, err)
		}
	}
}
