package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
)

// editPlan rewrites the saved plan at path with edit applied to the
// device's remediation text.
func editPlan(t *testing.T, path, device string, edit func(text string) string) {
	t.Helper()
	p := readPlanFile(t, path)
	at := slices.IndexFunc(p.Devices, func(dp targets.DevicePlan) bool { return dp.Device == device })
	if at < 0 || p.Devices[at].Remediation == nil {
		t.Fatalf("the plan does not change %s", device)
	}
	rem := p.Devices[at].Remediation
	rem.Content = []byte(edit(string(rem.Content)))
	var b bytes.Buffer
	if err := targets.WritePlan(&b, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendJSONOps adds JSON-patch operations to the end of a patch's array.
func appendJSONOps(patch string, ops ...string) string {
	i := strings.LastIndex(patch, "]")
	return patch[:i] + "," + strings.Join(ops, ",") + patch[i:]
}

// retamperHostConf appends a shell command to the host.conf a server's
// remediation installs and recomputes the SHA-256 the remediation states
// for it, so that the remediation agrees with itself.
func retamperHostConf(t *testing.T) func(string) string {
	return func(text string) string {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			t.Fatal(err)
		}
		var inst struct {
			Path    string `json:"path"`
			SHA256  string `json:"sha256"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(r["install"], &inst); err != nil {
			t.Fatal(err)
		}
		was := inst.SHA256
		inst.Content += "touch /tmp/rocefab-owned-by-plan\n"
		sum := sha256.Sum256([]byte(inst.Content))
		inst.SHA256 = hex.EncodeToString(sum[:])
		b, _ := json.Marshal(inst)
		out := strings.Replace(text, string(r["install"]), string(b), 1)
		if out == text || was == inst.SHA256 {
			t.Fatalf("the host.conf of the remediation was not rewritten:\n%s", text)
		}
		return out
	}
}

// TestApplyRefusesEditedPlan edits a saved plan of a fabric of every
// switch platform (EOS, NX-OS, NVUE, SONiC over SSH) and servers, one
// device at a time, and applies it: each edit (out-of-scope lines and
// patch operations appended, one byte flipped, a command appended to a
// server's host.conf with its checksum recomputed) is refused before
// anything is pushed to any device, naming the device and the line.
func TestApplyRefusesEditedPlan(t *testing.T) {
	t.Setenv(testPasswordEnv, testSecret)
	dir, devs := mixedFabric(t, mixedIntent, mixedInventory(t))
	rocefabExits(t, exitOK, dir, "", "plan", ".", "--inventory", "inventory.json", "--out", "plan.json")
	planPath := filepath.Join(dir, "plan.json")
	saved, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	byPlatform := map[string]string{}
	for _, d := range readPlanFile(t, planPath).Devices {
		if d.Action.Changes() && byPlatform[d.Platform] == "" {
			byPlatform[d.Platform] = d.Device
		}
	}
	before := map[string][]byte{}
	for n, d := range devs {
		before[n] = d.running()
	}
	hostsBefore := runningTree(t, dir)
	flip := func(text string) string {
		b := []byte(text)
		b[len(b)/2] ^= 1
		return string(b)
	}
	for _, tc := range []struct {
		name, platform string
		edit           func(string) string
		line           string
	}{
		{"eos appended lines", "eos", func(s string) string { return s + "hostname pwned\nno router bgp 65001\n" }, `the plan has "hostname pwned", the intent gives nothing`},
		{"eos flipped byte", "eos", flip, "the remediation differs at remediation line "},
		{"nxos appended lines", "nxos", func(s string) string { return s + "hostname pwned\n" }, `the plan has "hostname pwned"`},
		{"nxos flipped byte", "nxos", flip, "the remediation differs at remediation line "},
		{"nvue appended lines", "nvue", func(s string) string { return s + "nv set system hostname pwned\nnv unset router bgp\n" }, `the plan has "nv set system hostname pwned"`},
		{"nvue flipped byte", "nvue", flip, "the remediation differs at remediation line "},
		{"sonic appended ops", "sonic", func(s string) string {
			return appendJSONOps(s, `{"op": "remove", "path": "/BGP_NEIGHBOR"}`, `{"op": "replace", "path": "/DEVICE_METADATA/localhost/hostname", "value": "pwned"}`)
		}, "the remediation differs at remediation line "},
		{"sonic flipped byte", "sonic", flip, "the remediation differs at remediation line "},
		{"server host.conf with its checksum", "linux", retamperHostConf(t), "the remediation differs at remediation line "},
		{"server flipped byte", "linux", flip, "the remediation differs at remediation line "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			device := byPlatform[tc.platform]
			if device == "" {
				t.Fatalf("the plan changes no %s device: %v", tc.platform, byPlatform)
			}
			if err := os.WriteFile(planPath, saved, 0o644); err != nil {
				t.Fatal(err)
			}
			editPlan(t, planPath, device, tc.edit)
			code, out, errOut := rocefab(t, dir, "", "apply", "plan.json", "--inventory", "inventory.json", "--auto-approve")
			if code != exitPlanError {
				t.Errorf("apply of an edited plan: exit %d, want 1\n%s%s", code, out, errOut)
			}
			says(t, "apply", errOut, "the plan does not match its intent: for 1 device", "\n  "+device+": ", tc.line, "nothing was pushed")
			for n, d := range devs {
				if !bytes.Equal(d.running(), before[n]) {
					t.Errorf("%s changed after a refused apply", n)
				}
			}
			if after := runningTree(t, dir); !maps.Equal(after, hostsBefore) {
				t.Errorf("running/ changed after a refused apply")
			}
		})
	}
}

// runningTree returns the files below dir/running as runningFiles does,
// none when there is no running/ (a fabric the servers of which run
// nothing of rocefab's yet).
func runningTree(t *testing.T, dir string) map[string]string {
	return dirtest.Files(t, filepath.Join(dir, "running"), dirtest.Absent)
}

// TestApplyRefusesEditedGNMIPlan: a saved plan of switches reached over
// gNMI whose SetRequest was edited (a byte flipped, an update of the
// hostname appended) is refused before any Set reaches any switch.
func TestApplyRefusesEditedGNMIPlan(t *testing.T) {
	dir := gnmiLab(t)
	servers := gnmiFabric(t, dir, true)
	t.Setenv(testPasswordEnv, testSecret)
	if code, out, errOut := rocefab(t, dir, "", "plan", ".", "--inventory", "inventory.json", "--out", "plan.json"); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	planPath := filepath.Join(dir, "plan.json")
	saved, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(string) string{
		"flipped byte": func(s string) string { b := []byte(s); b[len(b)/2] ^= 1; return string(b) },
		"hostname": func(s string) string {
			return s + "update: <path: <elem: <name: \"system\"> elem: <name: \"config\"> elem: <name: \"hostname\">> val: <json_ietf_val: \"\\\"pwned\\\"\">>\n"
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(planPath, saved, 0o644); err != nil {
				t.Fatal(err)
			}
			editPlan(t, planPath, "spine-00", edit)
			code, out, errOut := rocefab(t, dir, "", "apply", "plan.json", "--inventory", "inventory.json", "--auto-approve")
			if code != exitPlanError || !strings.Contains(errOut, "the plan does not match its intent") || !strings.Contains(errOut, "\n  spine-00: the remediation differs at remediation line ") {
				t.Errorf("apply of an edited plan: exit %d\n%s%s", code, out, errOut)
			}
			for n, s := range servers {
				if s.Sets() != 0 {
					t.Errorf("%s was sent a Set", n)
				}
			}
		})
	}
}

// TestPlanRunningNotText: random bytes, NULs, a 10 MB line or a file cut
// short as a leaf's running eos.cfg make plan fail that device with the
// file, line and column, instead of planning it as a switch that runs
// nothing of rocefab's.
func TestPlanRunningNotText(t *testing.T) {
	dir, _ := smallPod(t)
	cfg := filepath.Join(dir, "running", "leaf-r0-00", "eos.cfg")
	good, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 2048)
	for i := range random {
		random[i] = byte(i*131 + 7)
	}
	for name, c := range map[string]struct {
		text []byte
		want string
	}{
		"random bytes": {random, "leaf-r0-00/eos.cfg:1:"},
		"NULs":         {bytes.Repeat([]byte{0}, 100), "leaf-r0-00/eos.cfg:1:1: a NUL byte"},
		"10 MB line":   {append(bytes.Repeat([]byte("a"), 10<<20), '\n'), "leaf-r0-00/eos.cfg:1:65537: the line is longer than 65536 bytes"},
		"cut short":    {good[:len(good)-5], "leaf-r0-00/eos.cfg:" + fmt.Sprint(bytes.Count(good[:len(good)-5], []byte("\n"))+1) + ":"},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(cfg, c.text, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := rocefab(t, dir, "", "plan", ".", "--only", "leaf-r0-00", "--format", "json")
			if code != exitPlanError {
				t.Errorf("plan: exit %d, want 1\n%s", code, errOut)
			}
			var p targets.Plan
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(p.Devices) != 1 || p.Devices[0].Action != targets.Failed || !strings.Contains(p.Devices[0].Reason, c.want) {
				t.Errorf("plan: %+v, want the device failed with %q", p.Devices, c.want)
			}
		})
	}
}
