package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// TestApplyShowsDeviceDiffs: apply --format json over SSH gives, for each
// leaf it pushed, the diff the switch itself printed (EOS `show
// session-config diffs`) as device_diffs. The text report's form of them
// (saysDeviceDiffs) is checked on TestInventorySSHPlanApplyPlan's apply,
// which is this one's in text.
func TestApplyShowsDeviceDiffs(t *testing.T) {
	dir, devs := sshPod(t)
	t.Setenv(testPasswordEnv, testSecret)
	if code, out, errOut := rocefab(t, dir, "", "plan", ".", "--inventory", "inventory.json", "--out", "plan.json"); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	out, _ := rocefabExits(t, exitOK, dir, "", "apply", "plan.json", "--inventory", "inventory.json", "--auto-approve", "--canary", "1", "--wave", "50%", "--format", "json")
	var rep struct {
		DeviceDiffs map[string]string `json:"device_diffs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for n := range devs {
		if d := rep.DeviceDiffs[n]; !strings.Contains(d, "\n+") && !strings.HasPrefix(d, "+") {
			t.Errorf("%s: device_diffs has no added line: %q", n, d)
		}
	}
	if len(rep.DeviceDiffs) != len(devs) {
		t.Errorf("device_diffs of %d devices, %d were pushed over SSH", len(rep.DeviceDiffs), len(devs))
	}
}

// saysDeviceDiffs checks apply's text report out (and its stderr errOut)
// for the diff each of the devices pushed over SSH printed of its push:
// under the device's report line, a heading and the diff indented, with
// an added line; none of it on stderr.
func saysDeviceDiffs(t *testing.T, out, errOut string, devs map[string]*sshtest.EOS) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for n := range devs {
		at := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "  applied") && strings.Contains(l, " "+n+" ") {
				at = i
			}
		}
		if at < 0 || at+2 >= len(lines) {
			t.Fatalf("%s: no report line:\n%s", n, out)
		}
		if lines[at+1] != "      "+n+"'s diff:" {
			t.Errorf("%s: the line under its report line is %q, want its diff's heading", n, lines[at+1])
		}
		added := false
		for _, l := range lines[at+2:] {
			if !strings.HasPrefix(l, "        ") && l != "" {
				break
			}
			added = added || strings.HasPrefix(l, "        +")
		}
		if !added {
			t.Errorf("%s: its diff block has no added line:\n%s", n, out)
		}
	}
	if strings.Contains(errOut, "'s diff:") {
		t.Errorf("a diff went to stderr:\n%s", errOut)
	}
}
