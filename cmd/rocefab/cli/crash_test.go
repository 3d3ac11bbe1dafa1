package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestApplyKilledMidWave starts `apply` of the small pod
// (smallPod) in waves of 8 and kills it with SIGKILL as soon as a device of its second
// wave is pushed, leaving commits pushed and never confirmed
// (running/.rocefab-pending). The next plan reports them first and is not
// "no changes"; the next apply settles them before it plans (confirms
// those whose devices run their desired state, rolls back the others),
// finishes the rollout, and leaves no pending commit; the plan after it
// has nothing to do.
func TestApplyKilledMidWave(t *testing.T) {
	if testing.Short() {
		t.Skip("applies to a pod")
	}
	dir, devices := smallPod(t)
	unchanged := fmt.Sprintf("Plan: no changes; %d unchanged\n", devices)
	killApplyInWave2(t, dir, "apply", ".", "--auto-approve", "--canary", "1", "--wave", "8", "--confirm-timeout", "10m")
	// A device's commit is pending once its backup is recorded
	// (pending.json, written before the push starts).
	pending, err := filepath.Glob(filepath.Join(dir, "running", ".rocefab-pending", "*", "pending.json"))
	if err != nil || len(pending) == 0 {
		t.Fatalf("no commit left pending by the killed apply (%v): the kill came too late to test anything", err)
	}
	t.Logf("the killed apply left %d devices with unconfirmed commits", len(pending))

	code, out, errOut := rocefab(t, dir, "", "plan", ".", "--detailed-exitcode")
	if code != exitPlanChanges || !strings.Contains(out, "a commit that was pushed and never confirmed") || !strings.Contains(out, " pending confirmation") || strings.Contains(out, unchanged) {
		t.Errorf("plan after the kill: exit %d, want 2 and the pending commits first\n%s%s", code, out, errOut)
	}
	out, errOut = rocefabExits(t, exitOK, dir, "", "apply", ".", "--auto-approve")
	// A commit whose push had finished runs its desired state and is
	// confirmed; one whose backup was made and whose push had not is
	// rolled back to the files it had.
	settled := regexp.MustCompile(`(?m)^  (applied     \S+: confirmed: it runs its desired state|rolled-back \S+: .*; rolled back)$`)
	if n := len(settled.FindAllString(out, -1)); n != len(pending) {
		t.Errorf("apply settled %d pending commits, want %d:\n%s", n, len(pending), out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "running", ".rocefab-pending", "*", "pending.json")); len(left) > 0 {
		t.Errorf("commits still pending after apply: %v", left)
	}
	code, out, errOut = rocefab(t, dir, "", "plan", ".", "--detailed-exitcode")
	if code != exitOK || !strings.Contains(out, unchanged) {
		t.Errorf("plan after the second apply: exit %d\n%s%s", code, out, errOut)
	}
}

// killApplyInWave2 runs rocefab in a process of its own in dir with args
// (an apply) and kills it with SIGKILL as soon as a device of its second
// wave is pushed. The process is this test binary standing in for rocefab
// (TestMain), which runs the command line as main does: building
// ./cmd/rocefab would cost each test seconds of linking.
func killApplyInWave2(t *testing.T, dir string, args ...string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	apply := exec.Command(self, args...)
	apply.Env = append(os.Environ(), "ROCEFAB_RUN_MAIN=1")
	apply.Dir = dir
	stderr, err := apply.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	pushed := regexp.MustCompile(`^wave 2/\d+: \S+ pushed$`)
	sc := bufio.NewScanner(stderr)
	killed := false
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if pushed.MatchString(sc.Text()) {
			if err := apply.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
			break
		}
	}
	apply.Wait() // reaps it: its lock's pid is then free
	if !killed {
		t.Fatalf("apply ended before its second wave was pushed:\n%s", strings.Join(seen, "\n"))
	}
}

// TestApplyKilledOverGNMI kills an apply over gNMI as soon as a switch of
// its second wave is pushed: on a server with the commit-confirmed
// extension the commit waits for a confirmation the dead apply never
// sends; on one without, the push is on the switch and the timer that
// would have taken it back died with the apply. Neither server can say
// so, so the push journal beside the intent does: the next plan reports
// the switch first and is not "no changes", the next apply settles it
// (confirms it: the switch runs its desired state), finishes the rollout
// and leaves no journal and no pending commit; the plan after it has
// nothing to do.
func TestApplyKilledOverGNMI(t *testing.T) {
	if testing.Short() {
		t.Skip("kills an apply over gNMI")
	}
	dir := gnmiLab(t)
	servers := gnmiFabric(t, dir, true)
	t.Setenv(testPasswordEnv, testSecret)
	inv := []string{"--inventory", "inventory.json"}
	killApplyInWave2(t, dir, append([]string{"apply", ".", "--auto-approve", "--canary", "1", "--wave", "1", "--confirm-timeout", "10m"}, inv...)...)
	journal, err := filepath.Glob(filepath.Join(dir, ".rocefab-pending-pushes", "*.json"))
	if err != nil || len(journal) != 1 {
		t.Fatalf("the killed apply left %v in the push journal (%v), want one switch", journal, err)
	}
	name := strings.TrimSuffix(filepath.Base(journal[0]), ".json")

	code, out, errOut := rocefab(t, dir, "", append([]string{"plan", ".", "--detailed-exitcode"}, inv...)...)
	if code != exitPlanChanges || !strings.Contains(out, "1 device holds a commit that was pushed and never confirmed") || !strings.Contains(out, "    "+name) {
		t.Errorf("plan after the kill: exit %d, want 2 and %s's pending push first\n%s%s", code, name, out, errOut)
	}
	code, out, errOut = rocefab(t, dir, "", append([]string{"apply", ".", "--auto-approve"}, inv...)...)
	if code != exitOK || !strings.Contains(out, "applied     "+name+": confirmed: it runs its desired state") {
		t.Fatalf("apply after the kill: exit %d, want 0 and %s confirmed\n%s%s", code, name, out, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".rocefab-pending-pushes", "*")); len(left) > 0 {
		t.Errorf("the push journal still holds %v", left)
	}
	for n, s := range servers {
		if s.Pending() {
			t.Errorf("%s: a commit waits for its confirmation", n)
		}
	}
	code, out, errOut = rocefab(t, dir, "", append([]string{"plan", ".", "--detailed-exitcode"}, inv...)...)
	if code != exitOK || !strings.Contains(out, "Plan: no changes") {
		t.Errorf("plan after the second apply: exit %d\n%s%s", code, out, errOut)
	}
}
