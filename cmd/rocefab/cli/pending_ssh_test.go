package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	sshtarget "github.com/rocefab/rocefab/targets/ssh"
)

// TestInventorySSHPendingCommit: an apply that committed a leaf's session
// with a timer and died before confirming it (here: a target of the test's
// own, closed without a confirmation) leaves the EOS switch in state
// pendingCommitTimer. The next plan lists that leaf first as holding an
// unconfirmed commit and does not exit 0 even with --only on that leaf
// alone; apply --auto-approve confirms it (the switch runs its desired
// state) before it plans, and then the fabric's leaves converge.
func TestInventorySSHPendingCommit(t *testing.T) {
	dir, devs := sshPod(t)
	t.Setenv(testPasswordEnv, testSecret)
	code, out, errOut := rocefab(t, dir, "", "plan", ".", "--inventory", "inventory.json", "--out", "plan.json", "--only", "leaf-*")
	if code != exitOK && code != exitPlanChanges {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	p := readPlanFile(t, filepath.Join(dir, "plan.json"))
	names := make([]string, 0, len(devs))
	for n := range devs {
		names = append(names, n)
	}
	slices.Sort(names)
	leaf := names[0]
	var rem []byte
	for _, d := range p.Devices {
		if d.Device == leaf && d.Remediation != nil {
			rem = d.Remediation.Remediation().Content
		}
	}
	if len(rem) == 0 {
		t.Fatalf("the plan has no remediation for %s", leaf)
	}
	var inv struct {
		Address map[string]string `json:"address"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "inventory.json"))
	if err == nil {
		err = json.Unmarshal(b, &inv)
	}
	if err != nil {
		t.Fatal(err)
	}
	killed, err := sshtarget.New(sshtarget.Options{
		Endpoint: func(d *ir.Device) (sshtarget.Endpoint, error) {
			return sshtarget.Endpoint{Address: inv.Address[d.Name], Credentials: &sshtarget.Credentials{Username: "netops", Auth: sshtarget.AuthPassword, Password: testSecret}}, nil
		},
		HostKeys: &sshtarget.HostKeys{File: filepath.Join(dir, "known_hosts")},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Devices {
		if d.Device == leaf {
			if err := killed.PushConfirmed(context.Background(), &ir.Device{Name: leaf, Platform: "eos"}, d.Remediation.Remediation(), 10*time.Minute); err != nil {
				t.Fatal(err)
			}
		}
	}
	killed.Close()
	pushed := devs[leaf].Running()
	if devs[leaf].Pending() == "" {
		t.Fatal("the push left no commit timer running")
	}

	code, out, errOut = rocefab(t, dir, "", "plan", ".", "--inventory", "inventory.json", "--detailed-exitcode", "--only", leaf)
	if code != exitPlanChanges || !strings.Contains(out, "1 pending confirmation") {
		t.Errorf("plan of a leaf holding an unconfirmed commit: exit %d\n%s%s", code, out, errOut)
	}
	first := strings.Index(out, "never confirmed")
	if first < 0 || !strings.Contains(out[first:], leaf+": rolls back at ") {
		t.Errorf("plan does not list %s first as holding an unconfirmed commit with its deadline:\n%s", leaf, out)
	}

	code, out, errOut = rocefab(t, dir, "", "apply", ".", "--inventory", "inventory.json", "--auto-approve", "--only", "leaf-*")
	if code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out+errOut, leaf+": confirmed") {
		t.Errorf("apply does not report %s's commit confirmed:\n%s%s", leaf, out, errOut)
	}
	if devs[leaf].Pending() != "" || !bytes.Equal(devs[leaf].Running(), pushed) || !bytes.Equal(devs[leaf].Startup(), pushed) {
		t.Errorf("%s: after apply, pending %q, runs what was pushed %v, saved %v", leaf, devs[leaf].Pending(),
			bytes.Equal(devs[leaf].Running(), pushed), bytes.Equal(devs[leaf].Startup(), pushed))
	}
	code, out, errOut = rocefab(t, dir, "", "plan", ".", "--inventory", "inventory.json", "--detailed-exitcode", "--only", "leaf-*")
	if code != exitOK || !strings.Contains(out, "Plan: no changes") {
		t.Errorf("plan after apply: exit %d, want 0 and no changes\n%s%s", code, out, errOut)
	}
}
