package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/gnmi/gnmitest"
)

// TestApplyIncompletePlan: when a device cannot be read and the others
// have nothing to change, apply (of the intent or of a saved plan) says
// the plan is incomplete and names the device, and exits 1.
func TestApplyIncompletePlan(t *testing.T) {
	dir := gnmiLab(t)
	servers := gnmiFabric(t, dir, true)
	t.Setenv(testPasswordEnv, testSecret)
	if code, out, errOut := rocefab(t, dir, "", "apply", ".", "--inventory", "inventory.json", "--auto-approve"); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	down := names[0]
	servers[down].Stop()

	code, out, errOut := rocefab(t, dir, "", "apply", ".", "--inventory", "inventory.json", "--auto-approve")
	if code != exitPlanError || strings.Contains(out, "Nothing to apply.") ||
		!strings.Contains(out, "the plan is incomplete") ||
		!strings.Contains(errOut, "the plan is incomplete: 1 device could not be read or diffed: "+down+" (unreachable)") {
		t.Errorf("apply with %s down: exit %d\n%s%s", down, code, out, errOut)
	}

	if code, out, errOut := rocefab(t, dir, "", "plan", ".", "--inventory", "inventory.json", "-o", "plan.json"); code != exitPlanError {
		t.Fatalf("plan with %s down: exit %d\n%s%s", down, code, out, errOut)
	}
	code, out, errOut = rocefab(t, dir, "", "apply", filepath.Join(dir, "plan.json"), "--inventory", "inventory.json", "--auto-approve")
	if code != exitPlanError || !strings.Contains(errOut, "the plan is incomplete: 1 device could not be read or diffed: "+down+" (unreachable)") {
		t.Errorf("apply of a saved incomplete plan: exit %d\n%s%s", code, out, errOut)
	}
}

// TestApplyNoteNoCapabilities: a switch that answers Capabilities with
// Unimplemented is applied without commit-confirmed, and the report says
// so once, in text and in JSON.
func TestApplyNoteNoCapabilities(t *testing.T) {
	dir := gnmiLab(t)
	servers := gnmiFabric(t, dir, true)
	t.Setenv(testPasswordEnv, testSecret)
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	servers[names[0]].SetFaults(gnmitest.Faults{NoCapabilities: true})
	code, out, errOut := rocefab(t, dir, "", "apply", ".", "--inventory", "inventory.json", "--auto-approve")
	note := "Note: " + names[0] + ": gNMI Capabilities is not implemented"
	if code != exitOK || strings.Count(out, note) != 1 || strings.Count(out, "Note: ") != 1 {
		t.Errorf("apply: exit %d, want one note %q\n%s%s", code, note, out, errOut)
	}
	if servers[names[0]].Pending() {
		t.Errorf("%s: a commit-confirmed was pushed to a switch that advertises none", names[0])
	}
}
