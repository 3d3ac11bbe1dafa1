package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// writeSSHInventory writes dir/inventory.json and dir/known_hosts: the
// servers are reached over SSH at addrs as root with the key
// dir/id_ed25519, which the host keys known vouch for, and each switch
// platform by the transport platforms names.
func writeSSHInventory(t *testing.T, dir string, platforms, addrs map[string]string, known []string) {
	t.Helper()
	transports := map[string]any{}
	for p, tr := range platforms {
		transports[p] = map[string]any{"transport": tr}
	}
	inv, err := json.Marshal(map[string]any{
		"defaults":  map[string]any{"username": "root", "auth": "key", "keyFile": "id_ed25519", "knownHosts": "known_hosts"},
		"platforms": transports,
		"hosts":     map[string]any{"transport": "ssh"},
		"address":   addrs,
	})
	if err != nil {
		t.Fatal(err)
	}
	known = slices.Sorted(slices.Values(known))
	for name, content := range map[string][]byte{
		"known_hosts":    []byte(strings.Join(known, "\n") + "\n"),
		"inventory.json": inv,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// mixedSSHIntent is a small mixed fleet: one server of each NIC vendor
// (ConnectX-7 with mlnx_qos, Thor 2 and E810 with dcb) on one rail at
// 100G (the E810's most), RDMA netdev eth2, and storage traffic shaped
// with tc on the frontend eth0.
const mixedSSHIntent = `name: "mixed-ssh"
topology: {
	style:   "rail-optimized"
	servers: 3
	rails:   1
	nic: {speed: "100G", cable: "3m"}
	leaf: {platform: "sonic", model: "DCS-7060X6-64PE", downlinks: 4, uplinks: 4}
	spine: {platform: "nvue", model: "SN5600", speed: "100G", cable: "30m"}
}
mtu: {switch: 9216, host: 4200}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50,
		ecn: {min: "100KB", max: "300KB", probability: 20}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	storage: {priority: 1, dscp: [10], bandwidth: 20}
	bulk: {priority: 0, default: true, bandwidth: 30}
}
routing: loadBalancing: "ecmp"
hosts: {
	nic: {
		model: "connectx-7"
		ports: ["eth2"]
		models: {"gpu-0001": "thor2", "gpu-0002": "e810"}
	}
	dcqcn: enabled: true
	frontend: {interface: "eth0", speed: "100G"}
	shape: storage: {interface: "eth0", rate: "2Gbit"}
}
`

// fleetServer is one server of the test fleet and the knob of its NIC
// vendor the test changes by hand: its file below the server's /sys, the
// value the intent wants there, and the path of the setting in a plan;
// hca is its NIC's RDMA device.
type fleetServer struct {
	*hosttest.Server
	knob, want, path, hca string
}

// mixedFleetOverSSH starts one server per host of the intent in dir, each
// in its own network namespace (veth eth0 and eth2, real ip and tc) with a
// real sshd, its runtime's files in a mount namespace of its own, the
// stand-ins of dcb and mlnx_qos answering with the intent's QoS, and its
// driver's knobs as a fresh driver holds them (congestion control off,
// ToS 0); and an inventory that reaches every server over SSH (key,
// known_hosts) through a loopback port forwarded into its namespace, and
// the switches in the directory target.
func mixedFleetOverSSH(t *testing.T, dir string) map[string]*fleetServer {
	t.Helper()
	hosttest.Need(t, "bash coreutils util-linux iproute2", "bash", "flock", "sha256sum", "mktemp", "tc")
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	fab := compileIntent(t, dir)
	servers := map[string]*fleetServer{}
	var known []string
	addrs := map[string]string{}
	for _, d := range fab.Devices {
		if d.Host == nil {
			continue
		}
		p := d.Host.Profile
		// mlnx_qos takes whole metres, rounded up as the renderer does.
		tools := hosttest.Tools(t, hosttest.DesiredNIC(p, int(math.Ceil(p.CableM))))
		srv := hosttest.NewServer(t, hosttest.ServerOptions{Netdevs: []string{"eth0", "eth2"}, Tools: tools, Key: key})
		hca := d.Host.NICs[0].HCA
		fs := &fleetServer{Server: srv, hca: hca}
		srv.Write(t, "kernel/config/rdma_cm/"+hca+"/ports/1/default_roce_tos", "0\n")
		switch {
		case len(p.CCKnobs) == 0: // mlx5: the MLNX_OFED ECN tree of the netdev
			srv.FakeNetdev(t, "eth2")
			for prio := range 8 {
				srv.Write(t, fmt.Sprintf("class/net/eth2/ecn/roce_rp/enable/%d", prio), "0\n")
				srv.Write(t, fmt.Sprintf("class/net/eth2/ecn/roce_np/enable/%d", prio), "0\n")
			}
			srv.Write(t, "class/net/eth2/ecn/roce_np/cnp_802p_prio", "0\n")
			fs.knob, fs.want, fs.path = "class/net/eth2/ecn/roce_np/cnp_dscp", fmt.Sprint(p.CNPDSCP), "eth2/ecn/cnp_dscp"
			srv.Write(t, fs.knob, "0\n")
		case p.CCKnobs[0].Driver == "bnxt_re":
			cc := "kernel/config/bnxt_re/" + hca + "/ports/1/cc/"
			for _, k := range p.CCKnobs {
				srv.Write(t, cc+k.Name, "0\n")
			}
			srv.Write(t, cc+"apply", "")
			last := p.CCKnobs[len(p.CCKnobs)-1]
			fs.knob, fs.want, fs.path = cc+last.Name, last.Value, hca+"/cc/"+last.Name
		default: // irdma
			k := p.CCKnobs[0]
			srv.Write(t, "kernel/config/"+k.Driver+"/"+hca+"/"+k.Name, "0\n")
			fs.knob, fs.want, fs.path = "kernel/config/"+k.Driver+"/"+hca+"/"+k.Name, k.Value, hca+"/cc/"+k.Name
		}
		addr := srv.SSHD.Forward(t)
		addrs[d.Name] = addr
		known = append(known, srv.SSHD.KnownHostsLine(addr))
		servers[d.Name] = fs
	}
	if len(servers) != 3 {
		t.Fatalf("the intent has %d servers, want 3", len(servers))
	}
	writeSSHInventory(t, dir, map[string]string{"sonic": "dir", "nvue": "dir"}, addrs, known)
	// Every server lets the same key log in: the inventory names one.
	servers["gpu-0000"].SSHD.WriteClientKey(t, filepath.Join(dir, "id_ed25519"))
	return servers
}

// TestMixedFleetSSH plans and applies a mixed fleet (a ConnectX-7, a
// Thor 2 and an E810 server) through the command line, each server over
// SSH to a real OpenSSH sshd in a network namespace of its own, where
// the real runtime sets the NICs' MTU with ip, the frontend's shaping with
// tc, and the drivers' congestion control and ToS in their sysfs and
// configfs knobs: a first plan creates every server, apply converges, and
// a second plan has no changes; a knob of each vendor changed by hand is
// one change per server, which apply repairs; and a setting a driver
// refuses rolls its server back to what it ran.
func TestMixedFleetSSH(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(mixedSSHIntent), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := mixedFleetOverSSH(t, dir)
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	run := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := rocefab(t, dir, "", append(args, "--inventory", "inventory.json")...)
		if code != want {
			t.Fatalf("rocefab %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out
	}
	plan := func(want int) map[string]targets.DevicePlan {
		t.Helper()
		run(want, "plan", ".", "--detailed-exitcode", "--out", "plan.json")
		p := readPlanFile(t, filepath.Join(dir, "plan.json"))
		byName := map[string]targets.DevicePlan{}
		for _, d := range p.Devices {
			byName[d.Device] = d
		}
		return byName
	}
	paths := func(d targets.DevicePlan) []string {
		t.Helper()
		cs, _, err := d.Body()
		if err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, c := range cs {
			ps = append(ps, c.Path)
		}
		return ps
	}

	// One wave for all servers, pushed in parallel, where no push fails.
	together := []string{"apply", ".", "--auto-approve", "--canary", "0", "--wave", "100%"}

	// A fresh fleet: every server is to be created, and apply converges.
	p := plan(exitPlanChanges)
	for _, n := range names {
		if d := p[n]; d.Action != targets.Create {
			t.Errorf("%s in the first plan: %s (%s), want create", n, d.Action, d.Reason)
		}
	}
	run(exitOK, together...)
	for _, n := range names {
		s := servers[n]
		if v := s.Read(t, s.knob); v != s.want {
			t.Errorf("%s: %s = %q after apply, want %q", n, s.knob, v, s.want)
		}
		if out, err := s.In("ip", "-o", "link", "show", "dev", "eth2"); err != nil || !strings.Contains(out, " mtu 4200 ") {
			t.Errorf("%s: eth2 after apply: %v %s", n, err, out)
		}
		if c, ok := hosttest.HTBClasses(t, s.In, "eth0")["1:11"]; !ok || c.RateBps != 2_000_000_000/8 {
			t.Errorf("%s: eth0's storage class 1:11 after apply: %+v (present %v), want 2 Gbit/s", n, c, ok)
		}
		if v := s.Read(t, "kernel/config/rdma_cm/"+s.hca+"/ports/1/default_roce_tos"); v != "104" {
			t.Errorf("%s: default_roce_tos %s after apply, want 104 (DSCP 26 << 2)", n, v)
		}
	}
	if v := servers["gpu-0001"].Read(t, "kernel/config/bnxt_re/bnxt_re0/ports/1/cc/apply"); v != "0x1" {
		t.Errorf("the Thor 2's staged values were not applied: apply = %q", v)
	}
	if out := run(exitOK, "plan", ".", "--detailed-exitcode"); !strings.Contains(out, "Plan: no changes") {
		t.Errorf("plan after apply:\n%s", out)
	}

	// Drift by hand, a knob of each vendor: one change per server, which
	// apply repairs.
	for _, n := range names {
		servers[n].Write(t, servers[n].knob, "0\n")
	}
	p = plan(exitPlanChanges)
	for _, n := range names {
		if got := paths(p[n]); p[n].Action != targets.Update || !slices.Equal(got, []string{servers[n].path}) {
			t.Errorf("%s after a hand change: %s %v, want update [%s]", n, p[n].Action, got, servers[n].path)
		}
	}
	run(exitOK, together...)
	for _, n := range names {
		if s := servers[n]; s.Read(t, s.knob) != s.want {
			t.Errorf("%s: %s = %q after the repair, want %q", n, s.knob, s.Read(t, s.knob), s.want)
		}
	}
	if out := run(exitOK, "plan", ".", "--detailed-exitcode"); !strings.Contains(out, "Plan: no changes") {
		t.Errorf("plan after the repair:\n%s", out)
	}

	// DCQCN off, and the Thor 2's driver refuses ecn_enable: apply fails
	// in the Thor 2's wave, the Thor 2 runs its settings of before again,
	// and the server of the wave after is untouched.
	off := strings.Replace(mixedSSHIntent, "dcqcn: enabled: true", "dcqcn: enabled: false", 1)
	if err := os.WriteFile(filepath.Join(dir, "fabric.cue"), []byte(off), 0o644); err != nil {
		t.Fatal(err)
	}
	thor := servers["gpu-0001"]
	ecn := "kernel/config/bnxt_re/bnxt_re0/ports/1/cc/ecn_enable"
	thor.ReadOnly(t, ecn)
	out := run(exitFindings, "apply", ".", "--auto-approve", "--format", "json")
	var rep targets.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("apply --format json: %v\n%s", err, out)
	}
	states := map[string]targets.Outcome{}
	for _, o := range rep.Devices {
		states[o.Device] = o
	}
	if o := states["gpu-0001"]; o.State != targets.RolledBack || !strings.Contains(o.Reason, "cannot write 0 to /sys/"+ecn) {
		t.Errorf("gpu-0001 after a refused setting: %s (%s), want rolled back, with the knob", o.State, o.Reason)
	}
	if o := states["gpu-0000"]; o.State != targets.Applied {
		t.Errorf("gpu-0000, the canary before the Thor 2: %s (%s), want applied", o.State, o.Reason)
	}
	if o := states["gpu-0002"]; o.State != targets.Untouched {
		t.Errorf("gpu-0002, in the wave after the Thor 2's: %s (%s), want untouched", o.State, o.Reason)
	}
	if v := servers["gpu-0000"].Read(t, "class/net/eth2/ecn/roce_rp/enable/3"); v != "0" {
		t.Errorf("gpu-0000's DCQCN on priority 3 is %q after its wave, want 0 (off)", v)
	}
	if v := thor.Read(t, ecn); v != "0x1" {
		t.Errorf("ecn_enable = %q after the rollback, want 0x1", v)
	}
	if out, err := thor.In("nsenter", "-t", fmt.Sprint(thor.SSHD.Pid), "-m", "grep", "-c", "bnxt_re ecn_enable 0x1", "/etc/rocefab/host.conf"); err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("the Thor 2's host.conf after the rollback is not the one it ran: %v %s", err, out)
	}
	if d := plan(exitPlanChanges)["gpu-0001"]; d.Action != targets.Update || !slices.Contains(paths(d), "bnxt_re0/cc/ecn_enable") {
		t.Errorf("gpu-0001 after the rollback: %s %v, want its congestion control still to change", d.Action, paths(d))
	}
}
