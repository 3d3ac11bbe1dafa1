package host

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	rhost "github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/targets"
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

func TestNetnsLocal(t *testing.T) {
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
	converge(t, ns, tg, d)
	repair(t, ns, tg, d)
}

func TestNetnsSSH(t *testing.T) {
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
