package host

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// The tests in this file run the shaping section of the runtime, with the
// test fabric's settings, with the real tc against a veth pair in a network namespace of their
// own. They need root and iproute2, and skip otherwise.

// netns makes a network namespace with a veth pair whose end "eth0" (the
// interface the test fabric shapes) is up, with 10.66.0.1/24 and
// fd66::1/64 and static neighbours .2 and ::2 behind it, so that packets
// sent to them leave through eth0's qdisc.
func netns(t *testing.T) func(args ...string) (string, error) {
	t.Helper()
	hosttest.Need(t, "iproute2 bash", "ip", "tc", "bash")
	ns := hosttest.NewNetns(t, "eth0")
	for _, cmd := range [][]string{
		{"ip", "addr", "add", "10.66.0.1/24", "dev", "eth0"},
		{"ip", "-6", "addr", "add", "fd66::1/64", "dev", "eth0", "nodad"},
		{"ip", "neigh", "replace", "10.66.0.2", "lladdr", "02:00:00:00:66:02", "dev", "eth0"},
		{"ip", "-6", "neigh", "replace", "fd66::2", "lladdr", "02:00:00:00:66:02", "dev", "eth0"},
	} {
		if out, err := ns.In(cmd...); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(cmd, " "), err, out)
		}
	}
	return ns.In
}

// shapingHost writes the runtime and d's settings into a directory of
// the test's and returns a function that runs the runtime with them in the
// namespace in, as the unit's instance for eth0 does.
func shapingHost(t *testing.T, in func(args ...string) (string, error), d *ir.Device) func(args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	rt, settings := filepath.Join(dir, "rocefab-host.sh"), filepath.Join(dir, "host.conf")
	if err := os.WriteFile(rt, runtimeFile(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(render(t, d)), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(args ...string) (string, error) {
		return in(append([]string{"env", "ROCEFAB_LOCK=" + filepath.Join(dir, "lock"), "bash", rt,
			"--settings", settings, "--netdev", "eth0"}, args...)...)
	}
}

// sendUDP sends ten UDP datagrams to addr with a DSCP from inside the
// namespace in, by running this test binary's TestHelperSendUDP there.
func sendUDP(t *testing.T, in func(args ...string) (string, error), addr string, dscp int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := in("env", "ROCEFAB_SEND_UDP="+addr, "ROCEFAB_SEND_DSCP="+strconv.Itoa(dscp), exe, "-test.run=^TestHelperSendUDP$")
	if err != nil {
		t.Fatalf("sending to %s with DSCP %d: %v\n%s", addr, dscp, err, out)
	}
}

// A burst is ten UDP datagrams to addr with a DSCP.
type burst struct {
	addr string
	dscp int
}

// counted sends each burst from inside the namespace in and returns how
// many packets each HTB class of eth0 counted meanwhile.
func counted(t *testing.T, in func(args ...string) (string, error), bursts ...burst) map[string]int64 {
	t.Helper()
	before := hosttest.HTBClasses(t, in, "eth0")
	for _, b := range bursts {
		sendUDP(t, in, b.addr, b.dscp)
	}
	n := map[string]int64{}
	for id, c := range hosttest.HTBClasses(t, in, "eth0") {
		n[id] = c.Packets - before[id].Packets
	}
	return n
}

// inSync runs the shaping section with --check, which must find it in
// sync: when says after what.
func inSync(t *testing.T, host func(args ...string) (string, error), when string) {
	t.Helper()
	out, err := host("--check", "--only", "shaping")
	if code := exitCode(t, err); code != 0 {
		t.Errorf("--check %s: exit %d\n%s", when, code, out)
	}
}

func TestNetnsShaping(t *testing.T) {
	in := netns(t)
	host := shapingHost(t, in, gpu(t))
	speed, err := in("cat", "/sys/class/net/eth0/speed")
	if err != nil {
		t.Fatalf("reading the veth's speed: %v: %s", err, speed)
	}
	mbps, err := strconv.ParseInt(strings.TrimSpace(speed), 10, 64)
	if err != nil || mbps <= 0 {
		t.Fatalf("veth speed %q", speed)
	}

	out, err := host("--check", "--only", "shaping")
	if code := exitCode(t, err); code != 1 || !strings.Contains(out, "DRIFT eth0 qdisc") {
		t.Fatalf("--check on a bare veth: exit %d\n%s", code, out)
	}
	out, err = host("--only", "shaping")
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "CHANGE eth0 qdisc") || !strings.Contains(out, "+ tc qdisc replace dev eth0 root handle 1: htb default 0xff") {
		t.Errorf("first run did not build the tree:\n%s", out)
	}

	q, err := in("tc", "-j", "qdisc", "show", "dev", "eth0", "root")
	if err != nil || !strings.Contains(q, `"kind":"htb"`) || !strings.Contains(q, `"default":"0xff"`) {
		t.Fatalf("root qdisc: %v %s", err, q)
	}
	classes := hosttest.HTBClasses(t, in, "eth0")
	rest, ok := classes["1:ff"]
	if !ok {
		t.Fatalf("the HTB default class 1:ff does not exist: %v", classes)
	}
	if rest.RateBps != mbps*1_000_000/8 {
		t.Errorf("default class rate %d B/s, want the line rate %d Mbit/s = %d B/s", rest.RateBps, mbps, mbps*1_000_000/8)
	}
	storage, ok := classes["1:11"]
	if !ok || storage.RateBps != 50_000_000_000/8 {
		t.Errorf("storage class 1:11: %+v (present %v), want 50 Gbit/s", storage, ok)
	}
	if len(classes) != 2 {
		t.Errorf("classes %v, want 1:11 and 1:ff", classes)
	}
	f, _ := in("tc", "filter", "show", "dev", "eth0", "parent", "1:")
	if n := strings.Count(f, "flowid 1:11"); n != 4 {
		t.Errorf("%d filters to 1:11, want 4 (DSCP 10 and 18, IPv4 and IPv6):\n%s", n, f)
	}

	// Idempotence: a second run changes nothing, and --check agrees.
	out, err = host("--only", "shaping")
	if err != nil || !strings.Contains(out, "in sync with the intent, nothing changed") || strings.Contains(out, "CHANGE") {
		t.Errorf("second run: %v\n%s", err, out)
	}
	inSync(t, host, "after a run")

	// Packets marked with a storage DSCP land in 1:11, others in 1:ff.
	n := counted(t, in, burst{"10.66.0.2:9", 10}, burst{"[fd66::2]:9", 18}, burst{"10.66.0.2:9", 26})
	if got := n["1:11"]; got < 20 {
		t.Errorf("1:11 (storage) counted %d packets, want the 20 sent with DSCP 10 and 18", got)
	}
	if got := n["1:ff"]; got < 10 {
		t.Errorf("1:ff counted %d packets, want the 10 sent with DSCP 26", got)
	}

	// Drift: a rate changed by hand is reported, then put back in place.
	if out, err := in("tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:11", "htb", "rate", "1Gbit", "quantum", "200000"); err != nil {
		t.Fatalf("tc class change: %v %s", err, out)
	}
	out, err = host("--check", "--only", "shaping")
	if code := exitCode(t, err); code != 1 || !strings.Contains(out, "DRIFT eth0 class 1:11: have root 1Gbit 1Gbit 200000, want root 50Gbit 50Gbit 200000") {
		t.Errorf("--check after a hand change: exit %d\n%s", code, out)
	}
	out, err = host("--only", "shaping")
	if err != nil || strings.Contains(out, "qdisc replace") || !strings.Contains(out, "classid 1:11") {
		t.Errorf("repair: %v\n%s", err, out)
	}
	if c := hosttest.HTBClasses(t, in, "eth0")["1:11"]; c.RateBps != 50_000_000_000/8 {
		t.Errorf("after repair 1:11 runs at %d B/s", c.RateBps)
	}

	// A foreign HTB root (the seed essay's: a default class that does not
	// exist) is replaced by ours.
	for _, cmd := range [][]string{
		{"tc", "qdisc", "del", "dev", "eth0", "root"},
		{"tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "11"},
		{"tc", "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:1", "htb", "rate", "50Gbit"},
	} {
		if out, err := in(cmd...); err != nil {
			t.Fatalf("%v: %v %s", cmd, err, out)
		}
	}
	out, err = host("--only", "shaping")
	if err != nil || !strings.Contains(out, "tc qdisc del dev eth0 root") {
		t.Errorf("replacing a foreign tree: %v\n%s", err, out)
	}
	classes = hosttest.HTBClasses(t, in, "eth0")
	if _, ok := classes["1:1"]; ok || len(classes) != 2 {
		t.Errorf("after replacing a foreign tree the classes are %v", classes)
	}
	inSync(t, host, "after replacing a foreign tree")
}

// TestNetnsShapingUnmarked runs the shaping section with the real tc on a
// veth in a namespace of its own: with unmarked traffic counted as the
// storage class, packets without a DSCP (object storage over TCP that marks
// nothing) land in the storage shaper 1:11, as do storage's own DSCPs, and
// the RoCE DSCP goes to the line-rate class.
func TestNetnsShapingUnmarked(t *testing.T) {
	in := netns(t)
	d := gpu(t)
	p := d.Host.Profile
	p.DefaultPriority = 0
	p.Shaping[0].Transport, p.Shaping[0].Unmarked = ir.TransportTCP, true
	host := shapingHost(t, in, d)
	out, err := host("--only", "shaping")
	if err != nil || !strings.Contains(out, "htb default 0x11") {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	inSync(t, host, "after a run")
	n := counted(t, in, burst{"10.66.0.2:9", 0}, burst{"[fd66::2]:9", 0}, burst{"10.66.0.2:9", 10}, burst{"10.66.0.2:9", 26})
	if got := n["1:11"]; got < 30 {
		t.Errorf("1:11 (storage) counted %d packets, want the 30 sent unmarked and with DSCP 10", got)
	}
	if got := n["1:ff"]; got < 10 || got >= 20 {
		t.Errorf("1:ff counted %d packets, want the 10 sent with DSCP 26", got)
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// TestHelperSendUDP is not a test: TestNetnsShaping runs the test binary
// inside the namespace to send ten UDP datagrams with a DSCP.
func TestHelperSendUDP(t *testing.T) {
	addr := os.Getenv("ROCEFAB_SEND_UDP")
	if addr == "" {
		t.Skip("helper process for TestNetnsShaping")
	}
	dscp, _ := strconv.Atoi(os.Getenv("ROCEFAB_SEND_DSCP"))
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.UDPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	err = raw.Control(func(fd uintptr) {
		if strings.HasPrefix(addr, "[") {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IPV6, syscall.IPV6_TCLASS, dscp<<2)
		} else {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, syscall.IP_TOS, dscp<<2)
		}
	})
	if err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	for i := range 10 {
		if _, err := conn.Write(fmt.Appendf(nil, "rocefab %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond)
}
