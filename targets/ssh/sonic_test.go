package ssh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/sonic"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/ssh/sshtest"
)

// sonicIntent is a small fabric with SONiC leaves. They run 202511,
// whose GCU takes a WRED_PROFILE change (the ECN edit of the tests) as a
// patch; 202411 and 202505 would not on a DS5000.
const sonicIntent = `name: "sonlab"
topology: {
	servers: 4
	rails:   2
	leaf: {platform: "sonic", model: "DS5000", release: "202511", downlinks: 4, uplinks: 4}
	spine: {platform: "nvue", model: "SN5600"}
}
hosts: nic: ports: ["eth1", "eth2"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]
`

// sonicForeign are CONFIG_DB tables rocefab does not own.
var sonicForeign = map[string]any{
	"BGP_NEIGHBOR":   map[string]any{"10.0.0.1": map[string]any{"asn": "65100", "name": "spine-00"}},
	"MGMT_INTERFACE": map[string]any{"eth0|192.168.0.10/24": map[string]any{"gwaddr": "192.168.0.1"}},
}

func sonicLeaves(t *testing.T) []*ir.Device {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "fabric.cue"), sonicIntent)
	var out []*ir.Device
	for _, d := range compileSwitches(t, dir) {
		if d.Platform == ir.PlatformSONiC {
			out = append(out, d)
		}
	}
	if len(out) < 2 {
		t.Fatalf("%d SONiC leaves", len(out))
	}
	return out
}

func sonicPlatform(*ir.Device) (renderers.Platform, error) { return sonic.Renderer{}, nil }

type sonicWorld struct {
	*fleet
	dev map[string]*sshtest.SONiC
}

// newSonicWorld serves the SONiC leaves, each running an older intent's
// CONFIG_DB with foreign tables, changed by edits.
func newSonicWorld(t *testing.T, edits ...func(db map[string]any)) *sonicWorld {
	t.Helper()
	w := &sonicWorld{dev: map[string]*sshtest.SONiC{}}
	w.fleet = serveFleet(t, sonicLeaves(t), "admin", sonicPlatform, func(d *ir.Device) sshtest.Shell {
		arts, err := sonic.Renderer{}.Render(halfECN(d))
		if err != nil {
			t.Fatal(err)
		}
		var docs [][]byte
		for _, a := range arts {
			docs = append(docs, a.Content)
		}
		foreign := func(db map[string]any) { maps.Copy(db, sonicForeign) }
		dev, err := sshtest.NewSONiCRendered(docs, append([]func(map[string]any){foreign}, edits...)...)
		if err != nil {
			t.Fatal(err)
		}
		w.dev[d.Name] = dev
		return w.dev[d.Name]
	})
	return w
}

// foreignTables returns the tables of a CONFIG_DB that rocefab does not
// own, canonical.
func foreignTables(t *testing.T, db []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(db, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for k := range sonicForeign {
		out[k] = m[k]
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// TestSONiCPlanApplyPlan: plan reads CONFIG_DB over SSH, apply patches it
// behind a checkpoint and confirms by saving, a second plan is empty, the
// foreign tables are as they were, and nothing is left on the switch.
func TestSONiCPlanApplyPlan(t *testing.T) {
	t.Parallel()
	w := newSonicWorld(t)
	foreign := map[string]string{}
	for n, d := range w.dev {
		foreign[n] = foreignTables(t, d.ConfigDB())
	}
	p, rep := w.planApplyPlan(t)
	for n, d := range w.dev {
		if got := foreignTables(t, d.ConfigDB()); got != foreign[n] {
			t.Errorf("%s: foreign tables changed: %s", n, got)
		}
		if !bytes.Equal(d.Saved(), d.ConfigDB()) {
			t.Errorf("%s: the confirmed change is not saved", n)
		}
		if l := d.Leftovers(); len(l) > 0 {
			t.Errorf("%s: left on the switch: %v", n, l)
		}
	}
	assertNoSecret(t, planJSON(p), reportJSON(rep))
}

// TestSONiCConfirmTimerLapses: SONiC has no commit timer; a push not
// confirmed within rocefab's is rolled back to its checkpoint, which is
// then deleted, and confirming it afterwards fails.
func TestSONiCConfirmTimerLapses(t *testing.T) {
	w := newSonicWorld(t)
	d := w.devs[0]
	w.pushLapses(t, d, w.dev[d.Name].ConfigDB, w.dev[d.Name].Leftovers)
}

// TestSONiCApplyPatchTakesAnArray: `config apply-patch` refuses a JSON
// object, which is what the platform's remediation is, and takes the
// RFC 6902 array the driver makes of it; a plan's apply sends it.
func TestSONiCApplyPatchTakesAnArray(t *testing.T) {
	t.Parallel()
	dev := sshtest.NewSONiC([]byte(`{"PORT": {"Ethernet0": {"mtu": "9100"}}}` + "\n"))
	run := shellOn(dev)
	object := `{"apply-patch": [{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "4200"}]}`
	run("umask 077; cat > /tmp/p.json", object)
	if code, out := run("sudo -n config apply-patch /tmp/p.json", ""); code == 0 || !strings.Contains(out, "Invalid patch format in file: /tmp/p.json") {
		t.Errorf("an object as the patch: exit %d: %s", code, out)
	}
	run("umask 077; cat > /tmp/p.json", `[{"op": "replace", "path": "/PORT/Ethernet1/mtu", "value": "4200"}]`)
	if code, out := run("sudo -n config apply-patch /tmp/p.json", ""); code == 0 || !strings.Contains(out, `member 'Ethernet1' not found`) {
		t.Errorf("a patch of a missing port: exit %d: %s", code, out)
	}
	run("umask 077; cat > /tmp/p.json", `[{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "4200"}]`)
	if code, out := run("sudo -n config apply-patch /tmp/p.json", ""); code != 0 || !strings.Contains(string(dev.ConfigDB()), `"mtu": "4200"`) {
		t.Errorf("an RFC 6902 array: exit %d: %s\n%s", code, out, dev.ConfigDB())
	}

	w := newSonicWorld(t)
	w.apply(t, w.plan(t), time.Minute, 1)
	for n, d := range w.dev {
		patched := false
		for _, c := range d.Received() {
			patched = patched || strings.HasPrefix(c, "sudo -n config apply-patch ")
		}
		if !patched {
			t.Errorf("%s: no config apply-patch ran: %q", n, d.Received())
		}
	}
}

// firstBreakout sets the first port of BREAKOUT_CFG to another mode and
// returns it.
func firstBreakout(t *testing.T, db map[string]any, mode string) string {
	t.Helper()
	table, _ := db["BREAKOUT_CFG"].(map[string]any)
	keys := slices.Sorted(maps.Keys(table))
	if len(keys) == 0 {
		t.Fatal("the leaves have no BREAKOUT_CFG")
	}
	table[keys[0]].(map[string]any)["brkout_mode"] = mode
	return keys[0]
}

// TestSONiCBreakout: a port in another breakout mode is broken out with
// `config interface breakout`, and a second plan is empty.
func TestSONiCBreakout(t *testing.T) {
	t.Parallel()
	var port string
	w := newSonicWorld(t, func(db map[string]any) { port = firstBreakout(t, db, "1x800G") })
	w.converges(t, w.plan(t))
	for n, d := range w.dev {
		broke := false
		for _, c := range d.Received() {
			broke = broke || strings.HasPrefix(c, "sudo -n config interface breakout "+port+" '") && strings.HasSuffix(c, "' -y")
		}
		if !broke {
			t.Errorf("%s: %s was not broken out: %q", n, port, d.Received())
		}
		if l := d.Leftovers(); len(l) > 0 {
			t.Errorf("%s: left on the switch: %v", n, l)
		}
	}
}

// bufferPoolSize changes a BUFFER_POOL size, which GCU refuses to patch.
func bufferPoolSize(db map[string]any) {
	for _, row := range db["BUFFER_POOL"].(map[string]any) {
		row.(map[string]any)["size"] = "1000"
	}
}

// TestSONiCConfigReload: a BUFFER_POOL change goes through config save,
// config_db.json and config reload (GCU would refuse it), converges, and
// is saved; one not confirmed in time is rolled back by reloading what
// the switch ran before.
func TestSONiCConfigReload(t *testing.T) {
	t.Run("confirmed", func(t *testing.T) {
		w := newSonicWorld(t, bufferPoolSize)
		w.converges(t, w.plan(t))
		for n, d := range w.dev {
			if d.Reloads() != 1 {
				t.Errorf("%s: %d config reloads, want 1", n, d.Reloads())
			}
			if !bytes.Equal(d.Saved(), d.ConfigDB()) {
				t.Errorf("%s: the confirmed change is not saved", n)
			}
			if l := d.Leftovers(); len(l) > 0 {
				t.Errorf("%s: left on the switch: %v", n, l)
			}
		}
	})
	t.Run("not confirmed", func(t *testing.T) {
		w := newSonicWorld(t, bufferPoolSize)
		d := w.devs[0]
		dev := w.dev[d.Name]
		before := dev.ConfigDB()
		rem := remediationOf(w.plan(t), d.Name)
		if !strings.Contains(string(rem.Content), `"config-reload"`) {
			t.Fatalf("the remediation needs no reload:\n%s", rem.Content)
		}
		if err := w.target.PushConfirmed(context.Background(), d, rem, time.Second); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(dev.ConfigDB(), before) || dev.Reloads() != 1 {
			t.Fatalf("the push changed nothing (%d reloads)", dev.Reloads())
		}
		eventually(func() bool { return bytes.Equal(dev.ConfigDB(), before) && len(dev.Leftovers()) == 0 })
		if !bytes.Equal(dev.ConfigDB(), before) || dev.Reloads() != 2 {
			t.Fatalf("an unconfirmed reload was not rolled back by a reload (%d reloads)", dev.Reloads())
		}
		if l := dev.Leftovers(); len(l) > 0 {
			t.Errorf("left on the switch: %v", l)
		}
		for _, c := range dev.Received() {
			if strings.HasPrefix(c, "sudo -n config rollback ") {
				t.Errorf("GCU rollback ran for a reload: %q", c)
			}
		}
	})
}

// TestSONiCBreakoutRolledBack: a breakout refused after the config reload
// that removed rocefab's rows naming its ports (DS5000: GCU cannot find
// the ASIC, so it refuses the watchdog rows' removal) is rolled back by
// reloading the CONFIG_DB kept before, which GCU's rollback could not
// recreate the ports of.
func TestSONiCBreakoutRolledBack(t *testing.T) {
	t.Parallel()
	var port string
	w := newSonicWorld(t, func(db map[string]any) { port = firstBreakout(t, db, "1x800G") })
	p := w.plan(t)
	canary := targets.Waves(p, 1, targets.Size{})[0][0].Device
	dev := w.dev[canary]
	dev.SetFaults(sshtest.Faults{Reject: port + " "})
	before := dev.ConfigDB()
	rep := w.apply(t, p, time.Minute, 1)
	for _, o := range rep.Devices {
		if o.Device == canary && (o.State != targets.RolledBack || !strings.Contains(o.Reason, "is not available for the port")) {
			t.Errorf("%s: %s (%s), want rolled-back", o.Device, o.State, o.Reason)
		}
	}
	if !bytes.Equal(dev.ConfigDB(), before) {
		t.Error("the canary does not run what it ran before")
	}
	if dev.Reloads() != 2 {
		t.Errorf("%d config reloads, want the one before the breakout and the one of the rollback", dev.Reloads())
	}
	if l := dev.Leftovers(); len(l) > 0 {
		t.Errorf("left on the switch: %v", l)
	}
	broke := false
	for _, c := range dev.Received() {
		broke = broke || strings.HasPrefix(c, "sudo -n config interface breakout ")
		if strings.HasPrefix(c, "sudo -n config rollback ") {
			t.Errorf("GCU rollback ran after a breakout: %q", c)
		}
	}
	if !broke {
		t.Error("no breakout was tried")
	}
}

// TestSONiCBreakoutBlockedByDependencies: a breakout run without first
// removing the rows that name its port fails as `config interface
// breakout` does, "Dependencies Exist", and is rolled back.
func TestSONiCBreakoutBlockedByDependencies(t *testing.T) {
	t.Parallel()
	w := newSonicWorld(t, func(db map[string]any) {
		port := firstBreakout(t, db, "1x800G")
		// A field the switch keeps on the port's PORT_QOS_MAP row, which
		// rocefab does not own: the plan leaves it alone, and the breakout
		// command refuses the port while the row is there.
		maps, _ := db["PORT_QOS_MAP"].(map[string]any)
		if maps == nil {
			maps = map[string]any{}
			db["PORT_QOS_MAP"] = maps
		}
		row, _ := maps[port].(map[string]any)
		if row == nil {
			row = map[string]any{}
			maps[port] = row
		}
		row["pfc_to_pg_map"] = "AZURE"
	})
	p := w.plan(t)
	for _, dp := range p.Devices {
		if dp.Remediation == nil {
			continue
		}
		var rem map[string]json.RawMessage
		if err := json.Unmarshal(dp.Remediation.Content, &rem); err != nil {
			t.Fatal(err)
		}
		if rem["breakout-prep"] == nil && rem["breakout-prep-reload"] == nil {
			t.Errorf("%s: a breakout without removing what names its ports first:\n%s", dp.Device, dp.Remediation.Content)
		}
		if strings.Contains(string(dp.Remediation.Content), "pfc_to_pg_map") {
			t.Errorf("%s: the plan touches the switch's own PORT_QOS_MAP field:\n%s", dp.Device, dp.Remediation.Content)
		}
	}
	rep := w.apply(t, p, time.Minute, 1)
	for _, o := range rep.Devices {
		if o.State == targets.Applied || o.State == targets.RolledBack && !strings.Contains(o.Reason, "Dependencies Exist") {
			t.Errorf("%s: %s (%s), want refused for its dependencies", o.Device, o.State, o.Reason)
		}
	}
}

// TestSONiCWritesNoFileItFindsThere: the driver writes its files with the
// shell's noclobber (set -C), so a file already at its path is refused,
// not overwritten, and the driver's writes all ask for it.
func TestSONiCWritesNoFileItFindsThere(t *testing.T) {
	t.Parallel()
	dev := sshtest.NewSONiC([]byte(`{"PORT": {"Ethernet0": {"mtu": "9100"}}}` + "\n"))
	run := shellOn(dev)
	if code, out := run("umask 077; set -C; cat > /tmp/theirs.json", "[]"); code != 0 {
		t.Fatalf("a new file: exit %d: %s", code, out)
	}
	if code, out := run("umask 077; set -C; cat > /tmp/theirs.json", "ours"); code == 0 || !strings.Contains(out, "cannot overwrite existing file") {
		t.Errorf("a file that exists: exit %d: %s", code, out)
	}
	if _, out := run("cat /tmp/theirs.json", ""); out != "[]" {
		t.Errorf("the file that was there is now %q", out)
	}

	w := newSonicWorld(t)
	w.apply(t, w.plan(t), time.Minute, 1)
	for n, d := range w.dev {
		for _, c := range d.Received() {
			if strings.Contains(c, "cat > ") && !strings.HasPrefix(c, "umask 077; set -C; cat > ") {
				t.Errorf("%s: %q writes a file without noclobber", n, c)
			}
		}
	}
}

// shellOn runs commands on an emulated SONiC switch as its shell would,
// returning the exit code and what the command printed.
func shellOn(dev *sshtest.SONiC) func(cmd, stdin string) (int, string) {
	return func(cmd, stdin string) (int, string) {
		var out, errOut bytes.Buffer
		code, _ := dev.Exec(cmd, strings.NewReader(stdin), &out, &errOut)
		return code, out.String() + errOut.String()
	}
}
