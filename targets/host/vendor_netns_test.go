package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	rhost "github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// TestNetnsVendorNIC runs the real runtime through the target in a network
// namespace for a server whose RDMA NIC is another vendor's: its netdev is
// a veth (real ip for the MTU, real tc for the shaping of eth0), its DCB
// state comes from a stand-in of dcb that answers `dcb -j OBJECT show` with
// the intent's values (a veth has no DCB), and its congestion control is
// the driver's configfs group, files in the test's sysfs root. For each
// driver, with the local connection, and for bnxt_re also over SSH to a
// real sshd in the namespace: a fresh server converges, a knob changed by
// hand is planned and repaired, and a push of another intent is rolled
// back.
func TestNetnsVendorNIC(t *testing.T) {
	for i, tc := range irtest.VendorCCs() {
		vias := []string{"local"}
		if i == 0 {
			vias = append(vias, "ssh")
		}
		for _, via := range vias {
			t.Run(tc.Driver+"/"+via, func(t *testing.T) { vendorNIC(t, tc, via) })
		}
	}
}

func vendorNIC(t *testing.T, tc irtest.VendorCC, via string) {
	ns := newNetns(t)
	hca := tc.HCA + "0"
	if out, err := ns.In("ip", "link", "add", "eth1", "type", "veth", "peer", "name", "eth1-peer"); err != nil {
		t.Fatalf("ip link add eth1: %v: %s", err, out)
	}
	d, rt := shapedServer(t)
	p := *d.Host.Profile
	p.CableM, p.DCQCN.Params, p.CCKnobs = 0, nil, tc.Knobs
	h := *d.Host
	h.NICs = []ir.NIC{{Port: "eth1", HCA: hca, SpeedGbps: 400}}
	h.Profile = &p
	d.Host = &h

	root := t.TempDir()
	sys := hosttest.Sysfs(t)
	knob := func(name string) string { return filepath.Join(sys, "kernel/config", tc.Driver, hca, tc.Sub, name) }
	put := func(path, v string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range tc.Knobs {
		put(knob(k.Name), "0\n")
	}
	if tc.Driver == "bnxt_re" {
		put(knob("apply"), "")
	}
	put(filepath.Join(sys, "kernel/config/rdma_cm", hca, "ports/1/default_roce_tos"), fmt.Sprintln(p.RoCETOS))
	bin := hosttest.Tools(t, hosttest.DesiredNIC(&p, 0))
	env := []string{"env", "ROCEFAB_LOCK=" + filepath.Join(root, "lock"), "ROCEFAB_SYSFS=" + sys, "PATH=" + bin + ":" + os.Getenv("PATH")}
	opts := Options{
		Connect: func(context.Context, *ir.Device) (Conn, error) { return Local(), nil },
		Prefix:  append([]string{"ip", "netns", "exec", ns.Name}, env...),
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile, Root: root,
	}
	if via == "ssh" {
		srv := hosttest.StartSSHD(t, ns, hosttest.SSHDOptions{})
		opts.Prefix = env
		opts.Connect = func(context.Context, *ir.Device) (Conn, error) {
			c, err := srv.Login(srv.KnownHosts)
			if err != nil {
				return nil, err
			}
			return SSH(c), nil
		}
	}
	tg, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(knob(name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}

	// A fresh server: every knob, the MTU and the shaping are
	// planned; the push sets them and the next plan is empty.
	converge(t, ns, tg, d)
	for _, k := range tc.Knobs {
		if v := read(k.Name); v != k.Value {
			t.Errorf("%s = %q after the push, want %q", k.Name, v, k.Value)
		}
	}
	if tc.Driver == "bnxt_re" && read("apply") != "0x1" {
		t.Error("the staged bnxt_re values were not applied")
	}

	// A knob changed by hand is one change, and a confirmed push
	// repairs it.
	last := tc.Knobs[len(tc.Knobs)-1]
	put(knob(last.Name), "0\n")
	changes, rem := plan(t, tg, d)
	if len(changes) != 1 || changes[0].Path != hca+"/cc/"+last.Name {
		t.Fatalf("plan after a hand change: %+v", changes)
	}
	if err := tg.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
		t.Fatalf("push of the repair: %v", err)
	}
	if err := tg.Confirm(ctx, d); err != nil {
		t.Fatalf("confirm: %v", err)
	}
	if v := read(last.Name); v != last.Value {
		t.Errorf("%s = %q after the repair, want %q", last.Name, v, last.Value)
	}

	// Congestion control off, pushed and rolled back: the earlier
	// settings run again and turn it back on.
	off := *d
	h2 := *d.Host
	p2 := p
	p2.CCKnobs = []ir.CCKnob{{Driver: tc.Driver, Name: tc.Knobs[0].Name, Value: "0"}}
	h2.Profile = &p2
	off.Host = &h2
	changes, rem = plan(t, tg, &off)
	if len(changes) == 0 {
		t.Fatal("turning congestion control off plans no change")
	}
	if err := tg.PushConfirmed(ctx, &off, rem, time.Minute); err != nil {
		t.Fatalf("push of congestion control off: %v", err)
	}
	if v := read(tc.Knobs[0].Name); v != "0" {
		t.Errorf("%s = %q after the push, want 0", tc.Knobs[0].Name, v)
	}
	if err := tg.Rollback(ctx, &off); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if v := read(tc.Knobs[0].Name); v != tc.Knobs[0].Value {
		t.Errorf("%s = %q after the rollback, want %q", tc.Knobs[0].Name, v, tc.Knobs[0].Value)
	}
	if changes, _ := plan(t, tg, d); len(changes) != 0 {
		t.Fatalf("a plan after the rollback has changes: %+v", changes)
	}
}
