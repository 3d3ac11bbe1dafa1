package host

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
	"golang.org/x/sys/unix"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	rhost "github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/targets"
)

// The tests in this file run the real runtime (hosts/rocefab-host.sh as
// rocefab renders it) with the real tc against a veth pair in a network
// namespace of their own, through the target: once with the local
// connection and the command prefix `ip netns exec NS`, once over SSH to
// a real OpenSSH sshd started inside the namespace (the test dials it
// from an OS thread that has joined the namespace; the TCP connection
// then lives there, whichever thread serves it). They need root, iproute2
// (ip, tc, dcb) and, for SSH, /usr/sbin/sshd, and skip without them.

// netnsServer is a network namespace holding "eth0", the interface the
// test fabric shapes, one end of an up veth pair, and lo up.
type netnsServer struct {
	name string
	in   func(args ...string) (string, error)
}

func newNetns(t *testing.T) *netnsServer {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a network namespace (run as root, as CI does)")
	}
	for _, tool := range []string{"ip", "tc", "dcb", "bash", "flock", "sha256sum", "mktemp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (apt-get install iproute2 coreutils util-linux)", tool)
		}
	}
	var r [4]byte
	rand.Read(r[:])
	name := "rocefab-ht-" + hex.EncodeToString(r[:])
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace here: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", name, err, out)
		}
	})
	in := func(args ...string) (string, error) {
		out, err := exec.Command("ip", append([]string{"netns", "exec", name}, args...)...).CombinedOutput()
		return string(out), err
	}
	for _, cmd := range [][]string{
		{"ip", "link", "set", "lo", "up"},
		{"ip", "link", "add", "eth0", "type", "veth", "peer", "name", "eth0-peer"},
		{"ip", "link", "set", "eth0-peer", "up"},
		{"ip", "link", "set", "eth0", "up"},
	} {
		if out, err := in(cmd...); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(cmd, " "), err, out)
		}
	}
	return &netnsServer{name: name, in: in}
}

// sysfs is a sysfs root for the runtime (ROCEFAB_SYSFS) in a namespace
// without RDMA: class/ is the namespace's own /sys/class, and the rdma_cm
// configfs group the tos section needs is an empty directory, which holds
// no HCA since the test server has no RDMA NICs.
func sysfs(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "sys")
	if err := os.MkdirAll(filepath.Join(root, "kernel", "config", "rdma_cm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/sys/class", filepath.Join(root, "class")); err != nil {
		t.Fatal(err)
	}
	return root
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
	p := rhost.Renderer{}
	now, err := p.Parse(d, running)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	want, err := p.Desired(d)
	if err != nil {
		t.Fatal(err)
	}
	changes, rem, err := p.Diff(d, now, want)
	if err != nil {
		t.Fatal(err)
	}
	return changes, rem
}

// converge plans a fresh server, pushes the plan, checks with tc that
// eth0 is shaped, and plans again: no change.
func converge(t *testing.T, ns *netnsServer, tg *Target, d *ir.Device) {
	t.Helper()
	ctx := context.Background()
	changes, rem := plan(t, tg, d)
	if len(changes) == 0 {
		t.Fatal("a fresh server plans no change")
	}
	if err := tg.Push(ctx, d, rem); err != nil {
		t.Fatalf("push: %v", err)
	}
	q, err := ns.in("tc", "-j", "qdisc", "show", "dev", "eth0", "root")
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
func repair(t *testing.T, ns *netnsServer, tg *Target, d *ir.Device) {
	t.Helper()
	ctx := context.Background()
	// Drift: a class changed by hand shows in the next plan, and a push
	// puts it back.
	if out, err := ns.in("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "1Gbit", "quantum", "200000"); err != nil {
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

// htbRates reads eth0's HTB classes' rates in bytes/s from tc -j class
// show (iproute2 6.1 prints classes as text even with -j: both are read).
func htbRates(t *testing.T, ns *netnsServer) map[string]int64 {
	t.Helper()
	out, err := ns.in("tc", "-j", "class", "show", "dev", "eth0")
	if err != nil {
		t.Fatalf("tc class show: %v: %s", err, out)
	}
	rates := map[string]int64{}
	if strings.HasPrefix(strings.TrimSpace(out), "[") {
		for _, obj := range strings.Split(out, `{"class":`)[1:] {
			h := regexp.MustCompile(`"handle":"([^"]+)"`).FindStringSubmatch(obj)
			r := regexp.MustCompile(`"rate":(\d+)`).FindStringSubmatch(obj)
			if h == nil || r == nil {
				t.Fatalf("cannot read class %s", obj)
			}
			rates[h[1]], _ = strconv.ParseInt(r[1], 10, 64)
		}
		return rates
	}
	re := regexp.MustCompile(`(?m)^class htb (\S+) .*\brate (\d+)([KMGT]?)bit\b`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[2], 10, 64)
		rates[m[1]] = n * map[string]int64{"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m[3]] / 8
	}
	return rates
}

func TestNetnsLocal(t *testing.T) {
	ns := newNetns(t)
	d, rt := shapedServer(t)
	root := t.TempDir()
	tg, err := New(Options{
		Connect: func(context.Context, *ir.Device) (Conn, error) { return Local(), nil },
		Prefix:  []string{"ip", "netns", "exec", ns.name, "env", "ROCEFAB_LOCK=" + filepath.Join(root, "lock"), "ROCEFAB_SYSFS=" + sysfs(t)},
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile, Root: root,
	})
	if err != nil {
		t.Fatal(err)
	}
	converge(t, ns, tg, d)
	repair(t, ns, tg, d)
}

// sshd is an OpenSSH server in ns on 127.0.0.1:port, with a host key and
// a client key of its own.
type sshd struct {
	addr       string
	client     gossh.Signer
	knownHosts string
	log        *bytes.Buffer
	user       string // logged in as; root when empty
}

func startSSHD(t *testing.T, ns *netnsServer) *sshd {
	t.Helper()
	return startSSHDWith(t, ns, "", t.TempDir(), nil)
}

// startSSHDWith starts sshd in ns with its files in dir; wrap, when set,
// makes the command that starts it from sshd's own argv (to set up its
// mount namespace first), and user is who logs in.
func startSSHDWith(t *testing.T, ns *netnsServer, user, dir string, wrap func(argv []string) []string) *sshd {
	t.Helper()
	const bin = "/usr/sbin/sshd"
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("needs %s (apt-get install openssh-server): %v", bin, err)
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("needs ssh-keygen (apt-get install openssh-client)")
	}
	// sshd refuses to start without its privilege separation directory,
	// which the package's service would create.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("cannot create /run/sshd: %v", err)
	}
	hostKey := filepath.Join(dir, "host_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(dir, "authorized_keys")
	// sshd reads the keys as the user logging in.
	if err := os.WriteFile(auth, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o644); err != nil {
		t.Fatal(err)
	}
	// In a namespace of its own every port is free.
	port := 20000 + int(time.Now().UnixNano()%20000)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf(`ListenAddress %s
HostKey %s
PidFile none
AuthorizedKeysFile %s
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
`, addr, hostKey, auth)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &bytes.Buffer{}
	argv := []string{bin, "-D", "-e", "-f", cfg}
	if wrap != nil {
		argv = wrap(argv)
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns.name}, argv...)...)
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("sshd log:\n%s", log)
		}
	})
	pubBytes, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := gossh.ParseAuthorizedKey(pubBytes)
	if err != nil {
		t.Fatal(err)
	}
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, pub)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &sshd{addr: addr, client: signer, knownHosts: kh, log: log, user: user}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := dialIn(ns.name, addr)
		if err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen on %s after 10 s: %v\n%s", addr, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dialIn connects to addr from inside the network namespace ns: on an OS
// thread that joins it (setns(2)) and is never given back to other
// goroutines (the goroutine ends locked, and the runtime then ends the
// thread). The socket stays in the namespace it was made in.
func dialIn(ns, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open(filepath.Join("/run/netns", ns))
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, fmt.Errorf("setns %s: %w", ns, err)}
			return
		}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

// login logs in to s as its user (root by default), checking its host
// key against knownHosts.
func (s *sshd) login(ns, knownHostsFile string) (*gossh.Client, error) {
	cb, err := knownhosts.New(knownHostsFile)
	if err != nil {
		return nil, err
	}
	c, err := dialIn(ns, s.addr)
	if err != nil {
		return nil, err
	}
	cc, chans, reqs, err := gossh.NewClientConn(c, s.addr, &gossh.ClientConfig{
		User: cmp.Or(s.user, "root"), Auth: []gossh.AuthMethod{gossh.PublicKeys(s.client)}, HostKeyCallback: cb,
		HostKeyAlgorithms: []string{gossh.KeyAlgoED25519}, Timeout: 10 * time.Second,
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return gossh.NewClient(cc, chans, reqs), nil
}

func TestNetnsSSH(t *testing.T) {
	ns := newNetns(t)
	srv := startSSHD(t, ns)
	d, rt := shapedServer(t)
	root := t.TempDir()
	knownHosts := srv.knownHosts
	tg, err := New(Options{
		Connect: func(ctx context.Context, d *ir.Device) (Conn, error) {
			c, err := srv.login(ns.name, knownHosts)
			if err != nil {
				return nil, err
			}
			return SSH(c), nil
		},
		Prefix:  []string{"env", "ROCEFAB_LOCK=" + filepath.Join(root, "lock"), "ROCEFAB_SYSFS=" + sysfs(t)},
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
	if err := os.WriteFile(other, []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.addr)}, wrong.PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	knownHosts = other
	_, err = tg.Read(context.Background(), d)
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		t.Errorf("a changed host key: %v", err)
	}
	knownHosts = srv.knownHosts

	// A server whose SSH port is closed is unreachable, with the cause.
	closed := *srv
	closed.addr = "127.0.0.1:1"
	tg.opts.Connect = func(ctx context.Context, d *ir.Device) (Conn, error) {
		c, err := closed.login(ns.name, knownHosts)
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
	ns := newNetns(t)
	d, rt := shapedServer(t)
	root := t.TempDir()
	tg, err := New(Options{
		Connect: func(context.Context, *ir.Device) (Conn, error) { return Local(), nil },
		Prefix:  []string{"ip", "netns", "exec", ns.name, "env", "ROCEFAB_LOCK=" + filepath.Join(root, "lock"), "ROCEFAB_SYSFS=" + sysfs(t)},
		Runtime: rt, RuntimePath: rhost.RuntimePath, SettingsPath: rhost.SettingsPath, StateFile: rhost.StateFile, Root: root,
	})
	if err != nil {
		t.Fatal(err)
	}
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

	if out, err := ns.in("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "1Gbit", "quantum", "200000"); err != nil {
		t.Fatalf("tc class change: %v %s", err, out)
	}
	p = makePlan()
	if p.Devices[0].Action != targets.Update {
		t.Fatalf("plan after a hand change: %+v", p.Devices)
	}
	if out, err := ns.in("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "2Gbit", "quantum", "200000"); err != nil {
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
