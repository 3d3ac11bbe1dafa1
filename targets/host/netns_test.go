package host

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	rhost "github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets"
	"github.com/rocefab/rocefab/targets/dir/dirtest"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// The tests in this file run the real runtime (hosts/rocefab-host.sh as
// rocefab renders it) with the real tc against a veth pair in a network
// namespace of their own, through the target: once with the local
// connection and the command prefix `ip netns exec NS`, once over SSH to
// a real OpenSSH sshd started inside the namespace (the test dials it
// from an OS thread that has joined the namespace; the TCP connection
// then lives there, whichever thread serves it). They need root, iproute2
// (ip, tc, dcb) and, for SSH, /usr/sbin/sshd, and skip without them.
// Each has namespaces, files and a server of its own, so they run in
// parallel.

// newNetns is a network namespace holding "eth0", the interface the test
// fabric shapes, one end of an up veth pair, and lo up, on a machine with
// the tools the runtime needs.
func newNetns(t *testing.T) *hosttest.Netns {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace (run as root, as CI does)")
	}
	hosttest.Need(t, "iproute2 coreutils util-linux", "ip", "tc", "dcb", "bash", "flock", "sha256sum", "mktemp")
	return hosttest.NewNetns(t, "eth0")
}

// shapedServer is the test fabric's gpu-0000 with its RDMA NICs left out
// (a veth has no DCB) and the inbox tool (iproute2 dcb), so that the
// runtime's every section runs on the namespace: what remains to set is
// the storage class's HTB shaping on eth0.
func shapedServer(t *testing.T) (*ir.Device, []byte) {
	t.Helper()
	f := irtest.Fabric()
	d := f.Device("gpu-0000")
	if d == nil {
		t.Fatal("test fabric has no gpu-0000")
	}
	c := *d
	h := *d.Host
	h.NICs = nil
	p := *h.Profile
	p.Tool = "dcb"
	h.Profile = &p
	c.Host = &h
	var rt []byte
	for _, a := range rhost.RenderFabric(f) {
		if a.Path == rhost.RuntimeFile {
			rt = a.Content
		}
	}
	if rt == nil {
		t.Fatal("the fabric renders no runtime")
	}
	return &c, rt
}

// plan reads d through tg and diffs it against the intent with the host
// platform, as rocefab plan does.
func plan(t *testing.T, tg *Target, d *ir.Device) ([]renderers.Change, renderers.Remediation) {
	t.Helper()
	running, err := tg.Read(context.Background(), d)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return rendertest.ParseDiff(t, rhost.Renderer{}, d, running)
}

// converge plans a fresh server, pushes the plan, checks with tc that
// eth0 is shaped, and plans again: no change.
func converge(t *testing.T, ns *hosttest.Netns, tg *Target, d *ir.Device) {
	t.Helper()
	ctx := context.Background()
	changes, rem := plan(t, tg, d)
	if len(changes) == 0 {
		t.Fatal("a fresh server plans no change")
	}
	if err := tg.Push(ctx, d, rem); err != nil {
		t.Fatalf("push: %v", err)
	}
	q, err := ns.In("tc", "-j", "qdisc", "show", "dev", "eth0", "root")
	if err != nil || !strings.Contains(q, `"kind":"htb"`) || !strings.Contains(q, `"handle":"1:"`) {
		t.Fatalf("root qdisc after the push: %v %s", err, q)
	}
	if got := htbRates(t, ns); got["1:11"] != 50_000_000_000/8 || len(got) != 2 {
		t.Errorf("HTB classes %v, want 1:11 at 50 Gbit/s and the default 1:ff", got)
	}
	if changes, _ := plan(t, tg, d); len(changes) != 0 {
		t.Fatalf("a second plan has changes: %+v", changes)
	}
}

// repair changes a class by hand on a converged server: the next plan
// shows it, a confirmed push puts it back, and rolling that push back
// runs the settings of before.
func repair(t *testing.T, ns *hosttest.Netns, tg *Target, d *ir.Device) {
	t.Helper()
	ctx := context.Background()
	// Drift: a class changed by hand shows in the next plan, and a push
	// puts it back.
	if out, err := ns.In("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "1Gbit", "quantum", "200000"); err != nil {
		t.Fatalf("tc class change: %v %s", err, out)
	}
	changes, rem := plan(t, tg, d)
	if len(changes) != 1 || changes[0].Path != "eth0/shaping/class/1:11" {
		t.Fatalf("plan after a hand change: %+v", changes)
	}
	if err := tg.PushConfirmed(ctx, d, rem, time.Minute); err != nil {
		t.Fatalf("push of the repair: %v", err)
	}
	if got := htbRates(t, ns); got["1:11"] != 50_000_000_000/8 {
		t.Errorf("1:11 at %d B/s after the repair", got["1:11"])
	}
	if err := tg.Confirm(ctx, d); err != nil {
		t.Fatalf("confirm: %v", err)
	}

	// Another intent (storage at 25 Gbit/s) pushed and rolled back: the
	// previous host.conf runs again and the class is back at 50 Gbit/s.
	slower := *d
	h := *d.Host
	p := *h.Profile
	p.Shaping = slices.Clone(p.Shaping)
	p.Shaping[0].RateBits = 25_000_000_000
	h.Profile = &p
	slower.Host = &h
	changes, rem = plan(t, tg, &slower)
	if len(changes) != 1 || changes[0].Path != "eth0/shaping/class/1:11" {
		t.Fatalf("plan of a slower class: %+v", changes)
	}
	if err := tg.PushConfirmed(ctx, &slower, rem, time.Minute); err != nil {
		t.Fatalf("push of a slower class: %v", err)
	}
	if got := htbRates(t, ns); got["1:11"] != 25_000_000_000/8 {
		t.Errorf("1:11 at %d B/s after the push, want 25 Gbit/s", got["1:11"])
	}
	if err := tg.Rollback(ctx, &slower); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if got := htbRates(t, ns); got["1:11"] != 50_000_000_000/8 {
		t.Errorf("1:11 at %d B/s after the rollback, want 50 Gbit/s again", got["1:11"])
	}
	if changes, _ := plan(t, tg, d); len(changes) != 0 {
		t.Fatalf("a plan after the rollback has changes: %+v", changes)
	}
}

// htbRates reads eth0's HTB classes' rates in bytes/s.
func htbRates(t *testing.T, ns *hosttest.Netns) map[string]int64 {
	t.Helper()
	rates := map[string]int64{}
	for h, c := range hosttest.HTBClasses(t, ns.In, "eth0") {
		rates[h] = c.RateBps
	}
	return rates
}

// localNetns is a namespace, its shaped server, and the target that
// reaches it with the local connection and `ip netns exec`.
func localNetns(t *testing.T) (*hosttest.Netns, *Target, *ir.Device) {
	t.Helper()
	ns := newNetns(t)
	d, rt := shapedServer(t)
	root := t.TempDir()
	tg, err := New(Options{
		Connect: func(context.Context, *ir.Device) (Conn, error) { return Local(), nil },
		Prefix:  []string{"ip", "netns", "exec", ns.Name, "env", "ROCEFAB_LOCK=" + filepath.Join(root, "lock"), "ROCEFAB_SYSFS=" + hosttest.Sysfs(t)},
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile, Root: root,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ns, tg, d
}

func TestNetnsLocal(t *testing.T) {
	t.Parallel()
	ns, tg, d := localNetns(t)
	converge(t, ns, tg, d)
	repair(t, ns, tg, d)
}

func TestNetnsSSH(t *testing.T) {
	t.Parallel()
	ns := newNetns(t)
	srv := hosttest.StartSSHD(t, ns, hosttest.SSHDOptions{})
	d, rt := shapedServer(t)
	root := t.TempDir()
	knownHosts := srv.KnownHosts
	tg, err := New(Options{
		Connect: func(ctx context.Context, d *ir.Device) (Conn, error) {
			c, err := srv.Login(knownHosts)
			if err != nil {
				return nil, err
			}
			return SSH(c), nil
		},
		Prefix:  []string{"env", "ROCEFAB_LOCK=" + filepath.Join(root, "lock"), "ROCEFAB_SYSFS=" + hosttest.Sysfs(t)},
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile, Root: root,
	})
	if err != nil {
		t.Fatal(err)
	}
	converge(t, ns, tg, d)

	// A host key known_hosts does not have stops the read before any
	// command runs.
	other := filepath.Join(t.TempDir(), "known_hosts")
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	wrong, _ := gossh.NewSignerFromKey(priv)
	if err := os.WriteFile(other, []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.Addr)}, wrong.PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	knownHosts = other
	_, err = tg.Read(context.Background(), d)
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		t.Errorf("a changed host key: %v", err)
	}
	knownHosts = srv.KnownHosts

	// A server whose SSH port is closed is unreachable, with the cause.
	tg.opts.Connect = func(ctx context.Context, d *ir.Device) (Conn, error) {
		c, err := srv.LoginAt("127.0.0.1:1", knownHosts)
		if err != nil {
			return nil, err
		}
		return SSH(c), nil
	}
	if _, err := tg.Read(context.Background(), d); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a closed port: %v", err)
	}
}

// TestNetnsApply runs the rollout of plan and apply on the namespace's
// server through the target: a fresh server is planned, applied with
// commit-confirm (pushed, read back converged, confirmed) and then plans
// empty; a plan whose server changed since (a class set by hand) is
// refused as stale, with the running file that changed, and nothing is
// pushed.
func TestNetnsApply(t *testing.T) {
	t.Parallel()
	ns, tg, d := localNetns(t)
	ctx := context.Background()
	platforms := func(*ir.Device) (renderers.Platform, error) { return rhost.Renderer{}, nil }
	devs := []*ir.Device{d}
	makePlan := func() *targets.Plan {
		t.Helper()
		p, err := targets.Make(ctx, targets.Request{Devices: devs, Target: tg, Platforms: platforms})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := makePlan()
	if len(p.Devices) != 1 || p.Devices[0].Action != targets.Create {
		t.Fatalf("plan of a fresh server: %+v", p.Devices)
	}
	rep, err := targets.Apply(ctx, targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: platforms, ConfirmTimeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed || rep.Counts()[targets.Applied] != 1 {
		t.Fatalf("apply: %+v", rep)
	}
	if got := htbRates(t, ns); got["1:11"] != 50_000_000_000/8 {
		t.Errorf("1:11 at %d B/s after apply", got["1:11"])
	}
	if p := makePlan(); !p.Empty() {
		t.Errorf("a plan after apply: %+v", p.Devices)
	}

	if out, err := ns.In("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "1Gbit", "quantum", "200000"); err != nil {
		t.Fatalf("tc class change: %v %s", err, out)
	}
	p = makePlan()
	if p.Devices[0].Action != targets.Update {
		t.Fatalf("plan after a hand change: %+v", p.Devices)
	}
	if out, err := ns.In("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "2Gbit", "quantum", "200000"); err != nil {
		t.Fatalf("tc class change: %v %s", err, out)
	}
	_, err = targets.Apply(ctx, targets.Rollout{Plan: p, Devices: devs, Target: tg, Platforms: platforms, ConfirmTimeout: 5 * time.Minute})
	var stale *targets.StaleError
	if !errors.As(err, &stale) || len(stale.Devices) != 1 || !slices.Contains(stale.Devices[0].Changed, "eth0/shaping/class/1:11 changed") {
		t.Errorf("apply of a stale plan: %v", err)
	}
	if got := htbRates(t, ns); got["1:11"] != 2_000_000_000/8 {
		t.Errorf("1:11 at %d B/s after a refused apply, want the hand-set 2 Gbit/s", got["1:11"])
	}
}

// sudoUser is the unprivileged user the sudo test logs in as; it exists
// only in the mount namespace of the test's sshd.
const sudoUser = "rocefab-sudo"

// documentedSudoers is the sudoers entry docs/transports.md gives, for
// the user the test logs in as.
func documentedSudoers(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "transports.md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "netops ALL="); ok {
			return sudoUser + " ALL=" + rest
		}
	}
	t.Fatal("docs/transports.md gives no sudoers entry for netops")
	return ""
}

// freeUID is a user id /etc/passwd does not use.
func freeUID(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/etc/passwd")
	if err != nil {
		t.Skipf("no /etc/passwd: %v", err)
	}
	defer f.Close()
	used := map[int]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Split(sc.Text(), ":"); len(fs) > 3 {
			if id, err := strconv.Atoi(fs[2]); err == nil {
				used[id] = true
			}
		}
	}
	for id := 64100; ; id++ {
		if !used[id] {
			return id
		}
	}
}

// sudoServer starts a server (hosttest.NewServer: a real OpenSSH sshd in
// a network namespace with eth0, in a mount namespace of its own where
// /etc and /usr/local/lib are overlays of the machine's, whose files are
// never written) where a user sudoUser exists, in no group, allowed by
// /etc/sudoers.d/rocefab to run exactly the sudoers line given and
// nothing else. The runtime runs with its default paths (sudo passes it
// no environment).
func sudoServer(t *testing.T, sudoersLine string) *hosttest.Server {
	t.Helper()
	hosttest.Need(t, "sudo iproute2 coreutils util-linux", "sudo", "tc", "bash", "flock", "sha256sum", "mktemp")
	// The entry goes where the documentation puts it, beside the
	// distribution's /etc/sudoers, whose secure_path puts tc on the
	// runtime's PATH.
	if b, err := os.ReadFile("/etc/sudoers"); err != nil || !strings.Contains(string(b), "includedir /etc/sudoers.d") {
		t.Skipf("/etc/sudoers does not read /etc/sudoers.d (%v): not a Debian sudo", err)
	}
	uid := freeUID(t)
	setup := fmt.Sprintf(`mkdir -p "$D/home" && chown %[2]d:%[2]d "$D/home"
echo '%[1]s:x:%[2]d:%[2]d::'"$D/home"':/bin/sh' >> /etc/passwd
echo '%[1]s:x:%[2]d:' >> /etc/group
echo '%[1]s:*:19000:0:99999:7:::' >> /etc/shadow
mkdir -p /etc/sudoers.d
printf '%%s\n' %[3]s > /etc/sudoers.d/rocefab
chmod 0440 /etc/sudoers.d/rocefab
`, sudoUser, uid, ShellQuote([]string{sudoersLine}))
	return hosttest.NewServer(t, hosttest.ServerOptions{Netdevs: []string{"eth0"}, User: sudoUser, Setup: setup})
}

// sudoTarget is the target the command line makes for servers with sudo:
// true, logging in to srv as its user.
func sudoTarget(t *testing.T, srv *hosttest.SSHD, rt []byte) *Target {
	t.Helper()
	tg, err := New(Options{
		Connect: func(ctx context.Context, d *ir.Device) (Conn, error) {
			c, err := srv.Login(srv.KnownHosts)
			if err != nil {
				return nil, err
			}
			return SSH(c), nil
		},
		Prefix:  SudoPrefix(),
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestNetnsSudo: a user with only the sudoers entry docs/transports.md
// gives, logged in over a real OpenSSH sshd and running real sudo, has a
// fresh server planned, pushed and converged; with an entry that allows
// sh but not the runtime, the push fails with sudo's refusal, and the
// error says the server could not be put back (which apply reports as
// unknown, never rolled back).
func TestNetnsSudo(t *testing.T) {
	t.Parallel()
	line := documentedSudoers(t)
	d, rt := shapedServer(t)
	srv := sudoServer(t, line)
	converge(t, srv.Netns, sudoTarget(t, srv.SSHD, rt), d)

	short := sudoServer(t, sudoUser+" ALL=(root) NOPASSWD: /bin/sh")
	tg := sudoTarget(t, short.SSHD, rt)
	_, rem := plan(t, tg, d)
	err := tg.Push(context.Background(), d, rem)
	if _, ok := errors.AsType[*targets.PutBackError](err); !ok || !strings.Contains(err.Error(), "a password is required") {
		t.Errorf("push with sudo refusing the runtime: %v, want sudo's refusal and a failed put-back", err)
	}
}

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
//
// Under -short (the race detector's run, after the full run) only the
// first driver runs, locally: the other cases take the same Go paths,
// which TestNetnsLocal and TestNetnsSSH also take, and differ in the
// runtime's shell, which the race detector does not see.
func TestNetnsVendorNIC(t *testing.T) {
	t.Parallel()
	for i, tc := range irtest.VendorCCs() {
		vias := []string{"local"}
		if i == 0 {
			vias = append(vias, "ssh")
		}
		for j, via := range vias {
			t.Run(tc.Driver+"/"+via, func(t *testing.T) {
				if testing.Short() && i+j > 0 {
					t.Skip("the same Go paths as the first case (-short)")
				}
				t.Parallel()
				vendorNIC(t, tc, via)
			})
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
		dirtest.Write(t, path, []byte(v), 0o644)
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
