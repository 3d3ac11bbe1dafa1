package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// stubTcOffload is tc as a kernel with HTB offload answers it: the reads of
// the fake world's tc, plus the clsact qdisc and the clsact egress
// filters. With ROCEFAB_STUB_REFUSE_OFFLOAD set it refuses an offloaded
// root as the kernel does when the NIC cannot take it.
const stubTcOffload = `#!/usr/bin/env bash
st=${ROCEFAB_STUB_STATE:?}
case "$*" in
"-j qdisc show dev "*" root") echo "read tc $*" >>"$st/log"; cat "$st/tc.qdisc.$5" ;;
"-j qdisc show dev "*" clsact") echo "read tc $*" >>"$st/log"; cat "$st/tc.clsact.$5" 2>/dev/null || echo '[]' ;;
"-d -j class show dev "*) echo "read tc $*" >>"$st/log"; cat "$st/tc.class.$6" ;;
"filter show dev "*" parent 1:") echo "read tc $*" >>"$st/log"; cat "$st/tc.filter.$4" ;;
"filter show dev "*" egress") echo "read tc $*" >>"$st/log"; cat "$st/tc.egress.$4" 2>/dev/null ;;
*" htb offload "*)
	echo "write tc $*" >>"$st/log"
	if [[ -n ${ROCEFAB_STUB_REFUSE_OFFLOAD:-} ]]; then
		echo "Error: Specified qdisc kind is unknown." >&2
		exit 2
	fi ;;
*) echo "write tc $*" >>"$st/log" ;;
esac
`

// stubEthtool prints the features of ethtool -k as ethtool does, with
// hw-tc-offload as the state file says; -K is a write.
const stubEthtool = `#!/usr/bin/env bash
st=${ROCEFAB_STUB_STATE:?}
if [[ $1 == -k && $# -eq 2 ]]; then
	echo "read ethtool $*" >>"$st/log"
	printf 'Features for %s:\nrx-checksumming: on\ntx-checksumming: on\nhw-tc-offload: %s\nrx-udp-gro-forwarding: off\n' "$2" "$(cat "$st/ethtool.$2")"
	exit 0
fi
echo "write ethtool $*" >>"$st/log"
`

// offloadWorld is a world whose shaped interface is an mlx5 netdev (its
// device's driver is mlx5_core in sysfs) with ethtool reporting
// hw-tc-offload as feature says, and tc answering as stubTcOffload.
func offloadWorld(t *testing.T, tc tcState, feature string, egress string) (*world, shapedIface) {
	d := ofedDevice(t)
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tc, true, true)
	si := shapingPlan(d.Host.Profile)[0]
	w.write("bin/tc", stubTcOffload)
	w.write("bin/ethtool", stubEthtool)
	for _, b := range []string{"bin/tc", "bin/ethtool"} {
		if err := os.Chmod(filepath.Join(w.dir, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if feature != "" {
		pci := "sys/devices/pci0000:00/0000:3b:00.0"
		w.mkdir("sys/bus/pci/drivers/mlx5_core")
		w.mkdir(pci)
		if err := os.Symlink("../../../bus/pci/drivers/mlx5_core", filepath.Join(w.dir, pci, "driver")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../../devices/pci0000:00/0000:3b:00.0", filepath.Join(w.dir, "sys/class/net", si.name, "device")); err != nil {
			t.Fatal(err)
		}
		w.write("state/ethtool."+si.name, feature)
	}
	if egress != "" {
		w.write("state/tc.egress."+si.name, egress)
		w.write("state/tc.clsact."+si.name, `[{"kind":"clsact","handle":"ffff:","parent":"ffff:fff1","options":{}}]`+"\n")
	}
	return w, si
}

// offloaded is tc's state of an offloaded HTB built as the intent says:
// the root qdisc marked offload, and each DSCP filter in clsact egress
// setting the class with skbedit priority (iproute2 m_skbedit.c prints
// " priority 1:11" after the action's kind).
func offloaded(t *testing.T, si shapedIface, tc tcState) (tcState, string) {
	tc.qdisc = strings.Replace(tc.qdisc, `"direct_qlen":1000}`, `"direct_qlen":1000,"offload":null}`, 1)
	if !strings.Contains(tc.qdisc, "offload") {
		t.Fatalf("qdisc %s", tc.qdisc)
	}
	tc.filters = ""
	return tc, tcFilters(si, true)
}

// TestShapingOffloadBuilds: on an mlx5 netdev whose hw-tc-offload can be
// turned on, a fresh interface gets the feature on, a clsact qdisc, an
// offloaded HTB root, classes with rate and ceil only, and the DSCP
// filters in clsact egress with skbedit priority; nothing under the HTB,
// and no note of a software HTB.
func TestShapingOffloadBuilds(t *testing.T) {
	w, si := offloadWorld(t, tcDrifted(), "off", "")
	out, stderr, code := w.run("--only", "shaping")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	ws := w.writes()
	dev := si.name
	want := []string{
		"write ethtool -K " + dev + " hw-tc-offload on",
		"write tc qdisc add dev " + dev + " clsact",
		fmt.Sprintf("write tc qdisc replace dev %s root handle 1: htb offload default 0x%x", dev, si.deflt),
		"write tc class replace dev " + dev + " parent 1: classid 1:11 htb rate 50Gbit ceil 50Gbit",
		"write tc class replace dev " + dev + " parent 1: classid 1:ff htb rate 100Gbit ceil 100Gbit",
		"write tc filter add dev " + dev + " egress protocol ip pref 1 u32 match ip dsfield 0x28 0xfc action skbedit priority 1:11",
		"write tc filter add dev " + dev + " egress protocol ipv6 pref 2 u32 match ip6 priority 0x28 0xfc action skbedit priority 1:11",
	}
	for i, s := range want {
		j := slices.Index(ws, s)
		if j < 0 {
			t.Errorf("no write %q in:\n%s", s, strings.Join(ws, "\n"))
			continue
		}
		// The feature, clsact and the root come first, in this order.
		if i < 3 && j != i {
			t.Errorf("write %q is number %d, want %d:\n%s", s, j, i, strings.Join(ws, "\n"))
		}
	}
	for _, s := range ws {
		if strings.Contains(s, "parent 1: protocol") || strings.Contains(s, "quantum") || strings.Contains(s, "burst") {
			t.Errorf("write not for an offloaded HTB: %s", s)
		}
	}
	if strings.Contains(out, "software HTB") {
		t.Errorf("a software HTB is reported:\n%s", out)
	}
}

// TestShapingOffloadInSync: an offloaded tree as the intent says, read
// back with its filters from clsact egress, is in sync: --check reports
// nothing and nothing is written.
func TestShapingOffloadInSync(t *testing.T) {
	d := ofedDevice(t)
	si := shapingPlan(d.Host.Profile)[0]
	tc, egress := offloaded(t, si, tcDesired(d, 100000))
	w, _ := offloadWorld(t, tc, "on", egress)
	out, stderr, code := w.run("--check", "--only", "shaping")
	if code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if ws := w.writes(); len(ws) > 0 {
		t.Errorf("writes in sync:\n%s", strings.Join(ws, "\n"))
	}
	if !slices.Contains(w.log(), "read tc filter show dev "+si.name+" egress") {
		t.Errorf("the egress filters were not read:\n%s", strings.Join(w.log(), "\n"))
	}
	// A filter that sends the class elsewhere is drift, repaired in
	// clsact egress: our prefs are deleted and added again.
	wrong := strings.Replace(egress, "priority 1:11 pipe", "priority 1:ff pipe", 1)
	w2, _ := offloadWorld(t, tc, "on", wrong)
	out, stderr, code = w2.run("--only", "shaping")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	ws := w2.writes()
	for _, s := range []string{
		"write tc filter del dev " + si.name + " egress pref 1",
		"write tc filter del dev " + si.name + " egress pref 2",
		"write tc filter add dev " + si.name + " egress protocol ip pref 1 u32 match ip dsfield 0x28 0xfc action skbedit priority 1:11",
	} {
		if !slices.Contains(ws, s) {
			t.Errorf("no write %q in:\n%s", s, strings.Join(ws, "\n"))
		}
	}
	for _, s := range ws {
		if strings.Contains(s, "qdisc") || strings.Contains(s, "class replace") {
			t.Errorf("needless write: %s", s)
		}
	}
}

// TestShapingOffloadFallsBack: where the NIC cannot take the offload the
// HTB is built in software, as before, and a NOTE says why: the kernel
// refusing the offloaded root, hw-tc-offload fixed off, a driver that is
// not mlx5 (the veth of the netns test takes this path too).
func TestShapingOffloadFallsBack(t *testing.T) {
	for _, c := range []struct {
		name, feature, note string
		refuse              bool
	}{
		{"refused", "off", "the kernel refused the offloaded HTB (Error: Specified qdisc kind is unknown.); software HTB instead", true},
		{"fixed", "off [fixed]", "software HTB, not offloaded to the NIC: hw-tc-offload is off [fixed]", false},
		{"not-mlx5", "", "software HTB, not offloaded to the NIC: driver none (HTB offload is used on mlx5 only)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, si := offloadWorld(t, tcDrifted(), c.feature, "")
			if c.refuse {
				w.env = append(w.env, "ROCEFAB_STUB_REFUSE_OFFLOAD=1")
			}
			out, stderr, code := w.run("--only", "shaping")
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			if !strings.Contains(out, "NOTE "+si.name+": "+c.note) {
				t.Errorf("no NOTE %q in:\n%s", c.note, out)
			}
			ws := w.writes()
			for _, s := range []string{
				fmt.Sprintf("write tc qdisc replace dev %s root handle 1: htb default 0x%x", si.name, si.deflt),
				"write tc class replace dev " + si.name + " parent 1: classid 1:11 htb rate 50Gbit ceil 50Gbit burst 6250000 cburst 6250000 quantum 200000",
				"write tc filter add dev " + si.name + " parent 1: protocol ip pref 1 u32 match ip dsfield 0x28 0xfc flowid 1:11",
			} {
				if !slices.Contains(ws, s) {
					t.Errorf("no write %q in:\n%s", s, strings.Join(ws, "\n"))
				}
			}
			for _, s := range ws {
				if strings.Contains(s, "egress") || (!c.refuse && strings.Contains(s, "offload")) {
					t.Errorf("offload write on the software path: %s", s)
				}
			}
		})
	}
}
