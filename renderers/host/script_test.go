package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/targets/host/hosttest"
)

// These tests run the runtime with a server's settings (and, where said,
// the single-file host.sh) against stand-ins of mlnx_qos, dcb,
// tc and ip placed first on PATH, and a fake sysfs tree (ROCEFAB_SYSFS).
// The stand-ins print recorded read-back output in the formats of
// hosts.md (mlnx_qos pretty_print, dcb -j, tc -j, tc filter text, ip -j)
// and log every invocation; an invocation that is not one of the script's
// reads counts as a write.

// desiredNIC is a NIC that holds p's settings, with the cable length the
// renderer gives mlnx_qos.
func desiredNIC(p *ir.HostProfile) hosttest.NIC { return hosttest.DesiredNIC(p, cableLen(p.CableM)) }

// tcState is what tc reports for one interface.
type tcState struct{ qdisc, classes, filters string }

// tcDesired is the HTB tree the script builds for d's first shaped
// interface, at a link speed of speedMbps.
func tcDesired(d *ir.Device, speedMbps int64) tcState {
	si := shapingPlan(d.Host.Profile)[0]
	q := fmt.Sprintf(`[{"kind":"htb","handle":"1:","root":true,"refcnt":2,"options":{"r2q":10,"default":"0x%x","direct_packets_stat":0,"direct_qlen":1000}}]`, si.deflt)
	var cls []string
	leaf := 0x8001
	addClass := func(cid string, bits int64) {
		bytes := bits / 8
		burst := max(bytes/1000, 65536)
		cls = append(cls, fmt.Sprintf(`{"class":"htb","handle":"%s","root":true,"leaf":"0x%x","prio":0,"quantum":%d,"rate":%d,"ceil":%d,"burst":%d,"cburst":%d,"level":0}`,
			cid, leaf, htbQuantum, bytes, bytes, burst, burst))
		leaf++
	}
	for _, c := range si.classes {
		var cid string
		var bits int64
		fmt.Sscanf(c, "%s %d", &cid, &bits)
		addClass(cid, bits)
	}
	addClass(classID(restMinor), speedMbps*1_000_000)
	return tcState{qdisc: q, classes: "[" + strings.Join(cls, ",") + "]", filters: tcFilters(si, false)}
}

// tcFilters is what `tc filter show` prints of si's DSCP filters (u32 on
// the ToS or traffic class byte): under the HTB root, each classifying to
// its class (flowid); with skbedit, in clsact egress, each setting its
// class with a skbedit priority action, as for an offloaded HTB.
func tcFilters(si shapedIface, skbedit bool) string {
	var f strings.Builder
	prefs := map[string]bool{}
	for i, rec := range si.filters {
		var proto, cid string
		var dscp int
		fmt.Sscanf(rec, "%s %d %s", &proto, &dscp, &cid)
		pref, ht, val, mask := 1, 0x800, fmt.Sprintf("%08x", dscp<<2<<16), "00fc0000"
		if proto == "ipv6" {
			pref, ht, val, mask = 2, 0x801, fmt.Sprintf("%08x", dscp<<2<<20), "0fc00000"
		}
		if !prefs[proto] {
			prefs[proto] = true
			fmt.Fprintf(&f, "filter protocol %s pref %d u32 chain 0 \n", proto, pref)
			fmt.Fprintf(&f, "filter protocol %s pref %d u32 chain 0 fh %x: ht divisor 1 \n", proto, pref, ht)
		}
		if skbedit {
			fmt.Fprintf(&f, "filter protocol %s pref %d u32 chain 0 fh %x::%x order %d key ht %x bkt 0 not_in_hw \n  match %s/%s at 0\n\taction order 1: skbedit  priority %s pipe\n\t index %d ref 1 bind 1\n\n",
				proto, pref, ht, 0x800+i, 2048+i, ht, val, mask, cid, i+1)
			continue
		}
		fmt.Fprintf(&f, "filter protocol %s pref %d u32 chain 0 fh %x::%x order %d key ht %x bkt 0 *flowid %s not_in_hw \n  match %s/%s at 0\n",
			proto, pref, ht, 0x800+i, 2048+i, ht, cid, val, mask)
	}
	return f.String()
}

// tcDrifted is a fresh interface: the multiqueue default root, no HTB.
func tcDrifted() tcState {
	return tcState{qdisc: `[{"kind":"mq","handle":"0:","root":true,"options":{}}]`, classes: "[]"}
}

// The stand-ins are POSIX sh scripts that exec cat for what they print: a
// run of the runtime starts dozens of them, and a stand-in in bash that
// forks cat costs twice as much as one in sh.

const stubMlnxQos = `#!/bin/sh
# mlnx_qos stand-in: prints the recorded state; anything but -i DEV is a write.
st=${ROCEFAB_STUB_STATE:?}
if [ $# -eq 2 ] && [ "$1" = -i ]; then printf '%s\n' "read mlnx_qos $*" >>"$st/log"; exec cat "$st/mlnx_qos.$2"; fi
printf '%s\n' "write mlnx_qos $*" >>"$st/log"
exec cat "$st/mlnx_qos.$2"
`

const stubDcb = `#!/bin/sh
st=${ROCEFAB_STUB_STATE:?}
if [ "$1" = -j ] && [ "$3" = show ] && [ "$4" = dev ]; then printf '%s\n' "read dcb $*" >>"$st/log"; exec cat "$st/dcb.$2.$5"; fi
printf '%s\n' "write dcb $*" >>"$st/log"
`

const stubTc = `#!/bin/sh
st=${ROCEFAB_STUB_STATE:?}
case "$*" in
"-j qdisc show dev "*" root") printf '%s\n' "read tc $*" >>"$st/log"; exec cat "$st/tc.qdisc.$5" ;;
"-d -j class show dev "*) printf '%s\n' "read tc $*" >>"$st/log"; exec cat "$st/tc.class.$6" ;;
"filter show dev "*" parent 1:") printf '%s\n' "read tc $*" >>"$st/log"; exec cat "$st/tc.filter.$4" ;;
*) printf '%s\n' "write tc $*" >>"$st/log" ;;
esac
`

const stubIP = `#!/bin/sh
st=${ROCEFAB_STUB_STATE:?}
if [ "$1 $2 $3 $4" = "-j link show dev" ]; then printf '%s\n' "read ip $*" >>"$st/log"; exec cat "$st/ip.$5"; fi
printf '%s\n' "write ip $*" >>"$st/log"
`

// world is one stand-in server, with the runtime, its settings and its
// single-file script installed.
type world struct {
	t        *testing.T
	dir      string
	runtime  string // hosts/rocefab-host.sh
	settings string // host.conf
	single   string // host.sh
	d        *ir.Device
	env      []string
}

// newWorld lays out a server for d whose NICs report nic and whose shaped
// interface reports tc. ofed picks the MLNX_OFED ECN sysfs tree; otherwise
// the inbox debugfs tree. ecnOn says whether the knobs already hold the
// intent's values.
//
// Every world is a directory of its own, so the tests that run the runtime
// (each run forks hundreds of processes) are parallel and share the cores.
func newWorld(t *testing.T, d *ir.Device, nic hosttest.NIC, tc tcState, ofed, inSync bool, tools ...string) *world {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	w := &world{t: t, dir: dir, d: d}
	w.runtime = filepath.Join(dir, "rocefab-host.sh")
	w.write("rocefab-host.sh", string(runtimeFile()))
	w.settings = filepath.Join(dir, "host.conf")
	w.write("host.conf", render(t, d))
	w.single = filepath.Join(dir, "host.sh")
	w.write("host.sh", renderScript(t, d))
	stubs := map[string]string{"mlnx_qos": stubMlnxQos, "dcb": stubDcb, "tc": stubTc, "ip": stubIP}
	if len(tools) == 0 {
		tools = []string{"mlnx_qos", "dcb", "tc", "ip"}
	}
	for _, name := range tools {
		w.write("bin/"+name, stubs[name])
		os.Chmod(filepath.Join(dir, "bin", name), 0o755)
	}
	p := d.Host.Profile
	for _, n := range d.Host.NICs {
		w.write("state/mlnx_qos."+n.Port, nic.MlnxQos())
		for obj, js := range nic.DCB() {
			w.write("state/dcb."+obj+"."+n.Port, js+"\n")
		}
		w.write("state/ip."+n.Port, fmt.Sprintf(`[{"ifindex":4,"ifname":"%s","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":%d,"qdisc":"mq","operstate":"UP"}]`+"\n", n.Port, nic.MTU))
		net := "sys/class/net/" + n.Port
		pci := fmt.Sprintf("0000:%02x:00.0", 0x10+n.Rail)
		hca := n.HCA
		if hca == "" {
			hca = fmt.Sprintf("mlx5_%d", n.Rail) // the script finds it in sysfs
		}
		w.mkdir("sys/devices/pci0000:00/" + pci + "/infiniband/" + hca)
		w.mkdir(net)
		if err := os.Symlink("../../../devices/pci0000:00/"+pci, filepath.Join(dir, net, "device")); err != nil {
			t.Fatal(err)
		}
		if ofed {
			for prio := range 8 {
				v := "1" // firmware default: ROCE_CC_PRIO_MASK 255
				if inSync {
					v = itoa(b2i(p.DCQCN.Enabled && slices.Contains(p.ECNPriorities, prio)))
				}
				w.write(fmt.Sprintf("%s/ecn/roce_rp/enable/%d", net, prio), v+"\n")
				w.write(fmt.Sprintf("%s/ecn/roce_np/enable/%d", net, prio), v+"\n")
			}
			cnpDSCP, cnpPrio := "4", "6" // what NVIDIA's operator sets, not the intent
			if inSync {
				cnpDSCP, cnpPrio = itoa(p.CNPDSCP), itoa(p.CNPPriority)
			}
			w.write(net+"/ecn/roce_np/cnp_dscp", cnpDSCP+"\n")
			w.write(net+"/ecn/roce_np/cnp_802p_prio", cnpPrio+"\n")
			w.mkdir(net + "/ecn/roce_rp/params")
			for _, prm := range p.DCQCN.Params {
				dir := net + "/ecn/roce_rp/params/"
				if dcqcnKnobs[prm.Name].point == "np" {
					dir = net + "/ecn/roce_np/"
				}
				v := "300"
				if inSync {
					v = itoa(prm.Value)
				}
				w.write(dir+prm.Name, v+"\n")
			}
		} else {
			cc := "sys/kernel/debug/mlx5/" + pci + "/cc_params/"
			prio, mode, dscp := "0", "1", "4"
			if inSync {
				prio, mode, dscp = itoa(p.CNPPriority), "0", itoa(p.CNPDSCP)
			}
			w.write(cc+"np_cnp_prio", prio+"\n")
			w.write(cc+"np_cnp_prio_mode", mode+"\n")
			w.write(cc+"np_cnp_dscp", dscp+"\n")
			for _, prm := range p.DCQCN.Params {
				v := "300"
				if inSync {
					v = itoa(prm.Value)
				}
				w.write(cc+dcqcnKnobs[prm.Name].debugfs, v+"\n")
			}
		}
		tos := "0"
		if inSync {
			tos = itoa(p.RoCETOS)
		}
		w.write("sys/kernel/config/rdma_cm/"+hca+"/ports/1/default_roce_tos", tos+"\n")
	}
	for _, si := range shapingPlan(p) {
		w.write("sys/class/net/"+si.name+"/speed", "100000\n")
		w.write("state/tc.qdisc."+si.name, tc.qdisc+"\n")
		w.write("state/tc.class."+si.name, tc.classes+"\n")
		w.write("state/tc.filter."+si.name, tc.filters)
	}
	w.write("state/log", "")
	w.env = append(os.Environ(),
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ROCEFAB_SYSFS="+filepath.Join(dir, "sys"),
		"ROCEFAB_LOCK="+filepath.Join(dir, "lock"),
		"ROCEFAB_STUB_STATE="+filepath.Join(dir, "state"))
	return w
}

func (w *world) write(rel, content string) {
	w.t.Helper()
	path := filepath.Join(w.dir, rel)
	w.mkdir(filepath.Dir(rel))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) mkdir(rel string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Join(w.dir, rel), 0o755); err != nil {
		w.t.Fatal(err)
	}
}

// run runs the runtime with the server's settings and returns its stdout,
// stderr and exit status.
func (w *world) run(args ...string) (string, string, int) {
	w.t.Helper()
	return w.exec(append([]string{w.runtime, "--settings", w.settings}, args...)...)
}

// runSingle runs the single-file host.sh.
func (w *world) runSingle(args ...string) (string, string, int) {
	w.t.Helper()
	return w.exec(append([]string{w.single}, args...)...)
}

func (w *world) exec(args ...string) (string, string, int) {
	w.t.Helper()
	cmd := exec.Command("bash", args...)
	cmd.Env = w.env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// log returns the stand-ins' invocations.
func (w *world) log() []string {
	b, err := os.ReadFile(filepath.Join(w.dir, "state", "log"))
	if err != nil {
		w.t.Fatal(err)
	}
	return slices.DeleteFunc(strings.Split(string(b), "\n"), func(s string) bool { return s == "" })
}

func (w *world) writes() []string {
	return slices.DeleteFunc(w.log(), func(s string) bool { return !strings.HasPrefix(s, "write ") })
}

// snapshot returns every file of the fake sysfs with its content.
func (w *world) snapshot() map[string]string {
	out := map[string]string{}
	root := filepath.Join(w.dir, "sys")
	filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			b, _ := os.ReadFile(path)
			out[path] = string(b)
		}
		return nil
	})
	return out
}

func (w *world) get(rel string) string {
	b, err := os.ReadFile(filepath.Join(w.dir, rel))
	if err != nil {
		w.t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func ofedDevice(t *testing.T) *ir.Device {
	d := cloneHost(gpu(t))
	d.Host.Profile.DCQCN.Params = []ir.Param{{Name: "rpg_time_reset", Value: 100}, {Name: "min_time_between_cnps", Value: 4}}
	return d
}

func dcbDevice(t *testing.T) *ir.Device {
	d := ofedDevice(t)
	d.Host.Profile.Tool = "dcb"
	return d
}

// eachTool runs f as a subtest per NIC tool: "mlnx_qos" on the test server
// with the OFED tools installed (ofed), "dcb" on it configured for iproute2's
// dcb without them.
func eachTool(t *testing.T, f func(t *testing.T, d *ir.Device, ofed bool)) {
	t.Helper()
	for _, tool := range []string{"mlnx_qos", "dcb"} {
		t.Run(tool, func(t *testing.T) {
			d, ofed := ofedDevice(t), true
			if tool == "dcb" {
				d, ofed = dcbDevice(t), false
			}
			f(t, d, ofed)
		})
	}
}

// TestScriptCheckReportsDriftAndChangesNothing checks a drifted server
// with each tool: --check reports every drift, the single-file host.sh
// reports the same, --check --json is one document
// (checkJSONIsOneDocument), laid out as rocefab lays it out
// (stateLayoutIsTheRuntimes, with dcb), and none of the three writes
// anything.
func TestScriptCheckReportsDriftAndChangesNothing(t *testing.T) {
	t.Parallel()
	eachTool(t, func(t *testing.T, d *ir.Device, ofed bool) {
		w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), ofed, false)
		before := w.snapshot()
		out, stderr, code := w.run("--check")
		if code != 1 {
			t.Fatalf("--check exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		want := []string{
			"DRIFT eth2 mtu: have 1500, want 4200",
			"DRIFT eth2 dcbx: have firmware, want host",
			"DRIFT eth2 dscp2prio: have 0-63:-, want 0-9:0 10:1 11-17:0 18:1 19-25:0 26:3 27-47:0 48:6 49-63:0\n",
			"DRIFT eth2 ets: have prio_tc=1,0,0,0,0,0,0,0",
			"DRIFT eth2 cable_len: have 7, want 3",
			"DRIFT eth5 pfc: have 0,0,0,0,0,0,0,0, want 0,0,0,1,0,0,0,0",
			"DRIFT mlx5_0 port 1 cma_roce_tos: have 0, want 104",
			"DRIFT eth0 qdisc: have mq 0: default -, want htb 1: default 0xff",
			"DRIFT eth0 class 1:11: have none, want root 50Gbit 50Gbit 200000",
			"DRIFT eth0 class 1:ff: have none, want root 100Gbit 100Gbit 200000",
			"DRIFT eth0 filters: have none, want ip 1 1:11 00280000/00fc0000@0; ip 1 1:11 00480000/00fc0000@0; ipv6 2 1:11 02800000/0fc00000@0; ipv6 2 1:11 04800000/0fc00000@0",
			"gpu-0000: ",
		}
		if ofed {
			want = append(want,
				"DRIFT eth3 trust: have pcp, want dscp",
				"DRIFT eth2 ecn roce_rp prio 0: have 1, want 0",
				"DRIFT eth2 ecn cnp_dscp: have 4, want 48",
				"DRIFT eth2 dcqcn rpg_time_reset: have 300, want 100",
				"DRIFT eth2 dcqcn min_time_between_cnps: have 300, want 4")
		} else {
			want = append(want,
				"DRIFT eth2 dcqcn np_cnp_dscp: have 4, want 48",
				"DRIFT eth2 dcqcn np_cnp_prio: have 0 (mode 1), want 6 (mode 0)",
				"DRIFT eth2 dcqcn rp_time_reset: have 300, want 100",
				"DRIFT eth2 dcqcn np_min_time_between_cnps: have 300, want 4",
				"NOTE eth2: inbox mlx5 driver: per-priority ECN enable is not exposed")
		}
		rendertest.Contains(t, "the --check output", out, want...)
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", out, stderr)
		}
		// The single-file form reads and reports the same.
		if out1, _, code1 := w.runSingle("--check"); code1 != code || out1 != out {
			t.Errorf("host.sh --check: exit %d, and its output differs from the runtime's:\n%s", code1, out1)
		}
		report := checkJSONIsOneDocument(t, w, out, code)
		if !ofed {
			stateLayoutIsTheRuntimes(t, report)
		}
		if ws := w.writes(); len(ws) > 0 {
			t.Errorf("--check wrote:\n%s", strings.Join(ws, "\n"))
		}
		if after := w.snapshot(); !mapsEqual(before, after) {
			t.Error("--check changed the sysfs tree")
		}
		for line := range strings.Lines(out) {
			if strings.HasPrefix(line, "CHANGE") || strings.HasPrefix(line, "  +") {
				t.Errorf("--check announced a change: %s", line)
			}
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// isPFCWrite reports whether a logged write sets the PFC vector to want.
func isPFCWrite(line, want string) bool {
	return strings.Contains(line, "--pfc "+want) || strings.Contains(line, "dcb pfc set") && strings.Contains(line, "prio-pfc")
}

func TestScriptAppliesWithPFCLast(t *testing.T) {
	t.Parallel()
	eachTool(t, func(t *testing.T, d *ir.Device, ofed bool) {
		w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), ofed, false)
		out, stderr, code := w.run()
		if code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		ws := w.writes()
		want := "0,0,0,1,0,0,0,0"
		first := slices.IndexFunc(ws, func(s string) bool { return isPFCWrite(s, want) })
		if first < 0 {
			t.Fatalf("no PFC write:\n%s", strings.Join(ws, "\n"))
		}
		tail := ws[first:]
		if len(tail) != len(d.Host.NICs) {
			t.Errorf("after the first PFC write come other writes, or not one per NIC:\n%s", strings.Join(tail, "\n"))
		}
		for _, s := range tail {
			if !isPFCWrite(s, want) {
				t.Errorf("write after the PFC writes: %s", s)
			}
		}
		for _, s := range ws[:first] {
			if strings.Contains(s, "--pfc") && !strings.Contains(s, "--pfc 0,0,0,0,0,0,0,0") {
				t.Errorf("a write before the PFC step changes the PFC vector: %s", s)
			}
			if strings.Contains(s, "--trust") && strings.Contains(s, "--dscp2prio") {
				t.Errorf("--trust and --dscp2prio in one mlnx_qos invocation: %s", s)
			}
		}
		if !ofed {
			if !slices.Contains(ws, "write dcb pfc set dev eth2 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off") {
				t.Errorf("no dcb PFC write for eth2:\n%s", strings.Join(ws, "\n"))
			}
		} else if !slices.Contains(ws, "write mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 --cable_len 3") {
			t.Errorf("no mlnx_qos PFC write for eth2:\n%s", strings.Join(ws, "\n"))
		}

		joined := strings.Join(ws, "\n")
		wantWrites := []string{
			"write ip link set dev eth2 mtu 4200",
			"write tc qdisc replace dev eth0 root handle 1: htb default 0xff",
			"write tc class replace dev eth0 parent 1: classid 1:11 htb rate 50Gbit ceil 50Gbit burst 6250000 cburst 6250000 quantum 200000",
			"write tc class replace dev eth0 parent 1: classid 1:ff htb rate 100Gbit ceil 100Gbit burst 12500000 cburst 12500000 quantum 200000",
			"write tc filter add dev eth0 parent 1: protocol ip pref 1 u32 match ip dsfield 0x28 0xfc flowid 1:11",
			"write tc filter add dev eth0 parent 1: protocol ip pref 1 u32 match ip dsfield 0x48 0xfc flowid 1:11",
			"write tc filter add dev eth0 parent 1: protocol ipv6 pref 2 u32 match ip6 priority 0x28 0xfc flowid 1:11",
			"write tc filter add dev eth0 parent 1: protocol ipv6 pref 2 u32 match ip6 priority 0x48 0xfc flowid 1:11",
		}
		if ofed {
			wantWrites = append(wantWrites,
				"write mlnx_qos -i eth2 -d os",
				"write mlnx_qos -i eth2 --trust dscp",
				"write mlnx_qos -i eth2 --dscp2prio set,0,0 --dscp2prio set,1,0",
				"--dscp2prio set,26,3",
				"write mlnx_qos -i eth2 --prio_tc 0,1,2,3,4,5,6,7 --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 20,30,0,50,0,0,0,0",
				"write mlnx_qos -i eth2 --cable_len 3 --pfc 0,0,0,0,0,0,0,0")
		} else {
			wantWrites = append(wantWrites,
				"write dcb dcbx set dev eth2 host ieee",
				"write dcb app replace dev eth2 dscp-prio 0:0 1:0",
				"26:3",
				"write dcb ets set dev eth2 prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:strict 7:ets tc-bw 0:20 1:30 2:0 3:50 4:0 5:0 6:0 7:0",
				"write dcb pfc set dev eth2 delay 3")
		}
		rendertest.Contains(t, "the writes", joined, wantWrites...)
		// The knobs now hold the intent's values.
		p := d.Host.Profile
		for _, n := range d.Host.NICs {
			if got := w.get("sys/kernel/config/rdma_cm/" + n.HCA + "/ports/1/default_roce_tos"); got != itoa(p.RoCETOS) {
				t.Errorf("%s default_roce_tos = %s, want %d", n.HCA, got, p.RoCETOS)
			}
			net := "sys/class/net/" + n.Port
			if ofed {
				for prio := range 8 {
					want := itoa(b2i(slices.Contains(p.ECNPriorities, prio)))
					for _, point := range []string{"roce_rp", "roce_np"} {
						if got := w.get(fmt.Sprintf("%s/ecn/%s/enable/%d", net, point, prio)); got != want {
							t.Errorf("%s %s enable/%d = %s, want %s", n.Port, point, prio, got, want)
						}
					}
				}
				for rel, want := range map[string]string{
					"/ecn/roce_np/cnp_dscp": "48", "/ecn/roce_np/cnp_802p_prio": "6",
					"/ecn/roce_rp/params/rpg_time_reset": "100", "/ecn/roce_np/min_time_between_cnps": "4",
				} {
					if got := w.get(net + rel); got != want {
						t.Errorf("%s%s = %s, want %s", n.Port, rel, got, want)
					}
				}
			} else {
				cc := fmt.Sprintf("sys/kernel/debug/mlx5/0000:%02x:00.0/cc_params/", 0x10+n.Rail)
				for name, want := range map[string]string{"np_cnp_dscp": "48", "np_cnp_prio": "6", "rp_time_reset": "100", "np_min_time_between_cnps": "4"} {
					if got := w.get(cc + name); got != want {
						t.Errorf("%s %s = %s, want %s", n.Port, name, got, want)
					}
				}
			}
		}
		if !strings.Contains(out, "CHANGE eth5 pfc: 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0 (the write flaps the link)") {
			t.Errorf("the PFC change is not announced:\n%s", out)
		}
	})
}

func TestScriptInSyncWritesNothing(t *testing.T) {
	t.Parallel()
	eachTool(t, func(t *testing.T, d *ir.Device, ofed bool) {
		w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), ofed, true)
		before := w.snapshot()
		out, stderr, code := w.run()
		if code != 0 || !strings.Contains(out, "gpu-0000: in sync with the intent, nothing changed") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		if ws := w.writes(); len(ws) > 0 {
			t.Errorf("writes on a server in sync:\n%s", strings.Join(ws, "\n"))
		}
		if !mapsEqual(before, w.snapshot()) {
			t.Error("the sysfs tree changed on a server in sync")
		}
		out, stderr, code = w.run("--check")
		if code != 0 || !strings.Contains(out, "gpu-0000: in sync with the intent\n") || strings.Contains(out, "DRIFT") {
			t.Errorf("--check exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
		}
		if ofed {
			// mlnx_qos is slow: one read per NIC, however many sections.
			reads := 0
			for _, l := range w.log() {
				if strings.HasPrefix(l, "read mlnx_qos -i eth2") {
					reads++
				}
			}
			if reads != 2 { // two runs, one read each for the qos and pfc sections
				t.Errorf("mlnx_qos -i eth2 read %d times in two runs", reads)
			}
		}
	})
}

func TestScriptOnlySection(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false, "tc")
	out, stderr, code := w.run("--check", "--only", "shaping")
	if code != 1 || !strings.Contains(out, "DRIFT eth0 qdisc") || strings.Contains(out, "eth2") {
		t.Errorf("--only shaping: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, l := range w.log() {
		if !strings.HasPrefix(l, "read tc") {
			t.Errorf("--only shaping ran %s", l)
		}
	}
	out, stderr, code = w.run("--only=mtu,pfc", "--check")
	if code != 2 || !strings.Contains(stderr, "mlnx_qos is required") {
		t.Errorf("a missing mlnx_qos: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	_, stderr, code = w.run("--only", "bogus")
	if code != 2 || !strings.Contains(stderr, "unknown section bogus") {
		t.Errorf("--only bogus: exit %d, stderr %s", code, stderr)
	}
	_, stderr, code = w.run("--frobnicate")
	if code != 2 || !strings.Contains(stderr, "unknown argument: --frobnicate") {
		t.Errorf("an unknown flag: exit %d, stderr %s", code, stderr)
	}
	out, _, code = w.run("--help")
	if code != 0 || !strings.Contains(out, "Usage: rocefab-host.sh") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	out, _, code = w.runSingle("--help")
	if code != 0 || !strings.Contains(out, "Usage: host.sh") {
		t.Errorf("host.sh --help: exit %d\n%s", code, out)
	}
}

func TestScriptMissingTools(t *testing.T) {
	d := ofedDevice(t)
	for _, missing := range []string{"mlnx_qos", "tc", "ip"} {
		var tools []string
		for _, s := range []string{"mlnx_qos", "tc", "ip"} {
			if s != missing {
				tools = append(tools, s)
			}
		}
		w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false, tools...)
		// Keep the real iproute2 out of reach.
		w.env = append(w.env, "PATH="+filepath.Join(w.dir, "bin")+string(os.PathListSeparator)+toolsOnly(t, w.dir, "bash", "sort", "readlink", "env", "cat", "stat", "flock"))
		out, stderr, code := w.run("--check")
		if code != 2 || !strings.Contains(stderr, missing+" is required") {
			t.Errorf("without %s: exit %d\nstdout:\n%s\nstderr:\n%s", missing, code, out, stderr)
		}
		if len(w.log()) > 0 {
			t.Errorf("without %s the script still ran tools: %v", missing, w.log())
		}
	}
}

// toolsOnly returns a directory holding links to just these system tools.
func toolsOnly(t *testing.T, dir string, names ...string) string {
	t.Helper()
	sys := filepath.Join(dir, "sysbin")
	if err := os.MkdirAll(sys, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			t.Skipf("%s not installed", n)
		}
		os.Symlink(p, filepath.Join(sys, n))
	}
	return sys
}

func TestScriptMissingNetdevAndKnobs(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), true, true)
	os.RemoveAll(filepath.Join(w.dir, "sys/class/net/eth4"))
	os.RemoveAll(filepath.Join(w.dir, "sys/class/net/eth5/ecn"))
	out, stderr, code := w.run("--check")
	if code != 2 || !strings.Contains(stderr, "ERROR eth4: no such network device") ||
		!strings.Contains(stderr, "ERROR eth5: neither MLNX_OFED ECN sysfs") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

// TestScriptShapingRepairs starts from our tree with a wrong rate and a
// stray filter: the rate is changed in place and the filters replaced.
func TestScriptShapingRepairs(t *testing.T) {
	d := ofedDevice(t)
	tc := tcDesired(d, 100000)
	tc.classes = strings.Replace(tc.classes, `"rate":6250000000,"ceil":6250000000`, `"rate":125000000,"ceil":125000000`, 1)
	tc.filters += "filter protocol ip pref 1 u32 chain 0 fh 800::900 order 2304 key ht 800 bkt 0 *flowid 1:11 not_in_hw \n  match 00680000/00fc0000 at 0\n"
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tc, true, true)
	out, stderr, code := w.run("--only", "shaping")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	ws := w.writes()
	want := []string{
		"write tc class replace dev eth0 parent 1: classid 1:11 htb rate 50Gbit ceil 50Gbit burst 6250000 cburst 6250000 quantum 200000",
		"write tc filter del dev eth0 parent 1:",
		"write tc filter add dev eth0 parent 1: protocol ip pref 1 u32 match ip dsfield 0x28 0xfc flowid 1:11",
	}
	for _, s := range want {
		if !slices.Contains(ws, s) {
			t.Errorf("no write %q in:\n%s", s, strings.Join(ws, "\n"))
		}
	}
	for _, s := range ws {
		if strings.Contains(s, "qdisc") || strings.Contains(s, "1:ff") {
			t.Errorf("needless write: %s", s)
		}
	}
	if !strings.Contains(out, "CHANGE eth0 class 1:11: root 1Gbit 1Gbit 200000 -> root 50Gbit 50Gbit 200000") {
		t.Errorf("the rate change is not announced:\n%s", out)
	}
}

// TestScriptShapingTextClasses reads classes as iproute2 6.1 prints them
// (text, even with -j).
func TestScriptShapingTextClasses(t *testing.T) {
	d := ofedDevice(t)
	tc := tcDesired(d, 100000)
	tc.classes = "class htb 1:11 root leaf 8001: prio 0 quantum 200000 rate 50Gbit ceil 50Gbit linklayer ethernet burst 6250000b/1 mpu 0b cburst 6250000b/1 mpu 0b level 0 \n" +
		"class htb 1:ff root leaf 8002: prio 0 quantum 200000 rate 100Gbit ceil 100Gbit linklayer ethernet burst 12500000b/1 mpu 0b cburst 12500000b/1 mpu 0b level 0 "
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tc, true, true)
	out, stderr, code := w.run("--check", "--only", "shaping")
	if code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

// TestScriptBareVariant runs a model without shaping, CNP class, DCQCN or
// cable length, and a NIC whose HCA the script finds in sysfs.
func TestScriptBareVariant(t *testing.T) {
	t.Parallel()
	d := variants(t)["bare"]
	p := d.Host.Profile
	w := newWorld(t, d, desiredNIC(p), tcState{}, true, true, "mlnx_qos", "ip")
	out, stderr, code := w.run()
	if code != 0 || strings.Contains(out, "CHANGE") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if ws := w.writes(); len(ws) > 0 {
		t.Errorf("writes on a server in sync:\n%s", strings.Join(ws, "\n"))
	}
	// The runtime-found HCA gets its ToS.
	w.write("sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "0\n")
	out, _, code = w.run("--check")
	if code != 1 || !strings.Contains(out, "DRIFT mlx5_0 port 1 cma_roce_tos: have 0, want 104") {
		t.Errorf("--check: exit %d\n%s", code, out)
	}
	// A configfs group that is not there is made to reach the ports, and
	// removed again.
	os.RemoveAll(filepath.Join(w.dir, "sys/kernel/config/rdma_cm/mlx5_1"))
	_, stderr, code = w.run("--check", "--only", "tos")
	if code != 2 || !strings.Contains(stderr, "ERROR mlx5_1: no ports under") {
		t.Errorf("--check without the group: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "sys/kernel/config/rdma_cm/mlx5_1")); !os.IsNotExist(err) {
		t.Errorf("the configfs group made for reading was left behind: %v", err)
	}
}

// TestScriptNeverWritesPFCBlind: when mlnx_qos prints no PFC vector, the
// script reports it and writes no PFC (every run would flap the link).
func TestScriptNeverWritesPFCBlind(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), true, true)
	var kept []string
	for line := range strings.Lines(w.get("state/mlnx_qos.eth2") + "\n") {
		if !strings.Contains(line, "enabled") {
			kept = append(kept, line)
		}
	}
	w.write("state/mlnx_qos.eth2", strings.Join(kept, ""))
	out, stderr, code := w.run()
	if code != 2 || !strings.Contains(stderr, "ERROR eth2: cannot read the PFC vector from mlnx_qos") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	for _, s := range w.writes() {
		if strings.Contains(s, "--pfc") {
			t.Errorf("PFC written blind: %s", s)
		}
	}
}

// TestScriptOldMlnxQosFormat reads the MLNX_OFED 4.2-era layout (NVIDIA
// DOC-2792): spaces for tabs, "priority: N" unindented, no buffer lines.
func TestScriptOldMlnxQosFormat(t *testing.T) {
	t.Parallel()
	d := ofedDevice(t)
	w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), true, true)
	for _, n := range d.Host.NICs {
		var b strings.Builder
		for line := range strings.Lines(w.get("state/mlnx_qos."+n.Port) + "\n") {
			if strings.Contains(line, "buffer") || strings.HasPrefix(line, "default priority") {
				continue
			}
			line = strings.Replace(line, "\t priority:  ", "priority: ", 1)
			b.WriteString(strings.ReplaceAll(line, "\t", "        "))
		}
		w.write("state/mlnx_qos."+n.Port, b.String())
	}
	out, stderr, code := w.run("--check")
	if code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

// TestScriptCheckReadsNICFirmware: with switches that spray packets the
// NICs need ROCE_ADAPTIVE_ROUTING_EN=1 in their firmware. --check reads it
// with mlxconfig and reports a NIC without it; a run without --check only
// notes it (an NV setting takes a firmware reset), and a NIC that has it
// is in sync.
func TestScriptCheckReadsNICFirmware(t *testing.T) {
	t.Parallel()
	d := ofedDevice(t)
	d.Host.Profile.NICFirmware = []ir.Param{{Name: "ROCE_ADAPTIVE_ROUTING_EN", Value: 1}}
	for _, c := range []struct {
		value string
		code  int
		want  string
	}{
		{"False(0)", 1, "DRIFT eth2 firmware ROCE_ADAPTIVE_ROUTING_EN: have 0, want 1"},
		{"True(1)", 0, "gpu-0000: in sync with the intent\n"},
	} {
		w := newWorld(t, d, desiredNIC(d.Host.Profile), tcDesired(d, 100000), true, true)
		w.write("bin/mlxconfig", "#!/usr/bin/env bash\n"+
			`[[ $1 == -d && $3 == query && $4 == ROCE_ADAPTIVE_ROUTING_EN ]] || { echo "usage: $*" >&2; exit 3; }`+"\n"+
			"printf '\\nDevice #1:\\n----------\\n\\nDevice type:    ConnectX7\\nPCI device:     %s\\n\\nConfigurations:                              Next Boot\\n         ROCE_ADAPTIVE_ROUTING_EN            "+c.value+"\\n' \"$2\"\n")
		os.Chmod(filepath.Join(w.dir, "bin", "mlxconfig"), 0o755)
		out, stderr, code := w.run("--check")
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("mlxconfig %s: --check exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", c.value, code, c.code, c.want, out, stderr)
		}
		if c.code == 1 {
			out, stderr, code = w.run()
			if code != 0 || !strings.Contains(out, "NOTE eth2: firmware ROCE_ADAPTIVE_ROUTING_EN is 0, want 1") || strings.Contains(out, "  + mlxconfig") {
				t.Errorf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
		}
	}
}

// checkJSONIsOneDocument runs --check --json on w, a drifted server whose
// --check printed text with exit status code: stdout is one JSON document
// naming every setting checked, stderr the text report --check prints, and
// the exit status that of --check. It returns the document. (The drift
// test calls it with each tool, on the server it has just checked.)
func checkJSONIsOneDocument(t *testing.T, w *world, text string, code int) []byte {
	t.Helper()
	out, stderr, jcode := w.run("--check", "--json")
	if jcode != code {
		t.Errorf("--check --json exit %d, --check %d", jcode, code)
	}
	var doc struct {
		Device   string `json:"device"`
		Settings []struct {
			Path string  `json:"path"`
			Have string  `json:"have"`
			Want *string `json:"want"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if doc.Device != w.d.Name || len(doc.Settings) == 0 {
		t.Errorf("document: device %q, %d settings", doc.Device, len(doc.Settings))
	}
	if stderr != text {
		t.Errorf("--check --json stderr differs from --check stdout:\n%s\n---\n%s", stderr, text)
	}
	return []byte(out)
}

// TestJSONNeedsCheck: --json is a report of a check, never of a run that
// changes the server.
func TestJSONNeedsCheck(t *testing.T) {
	d := ofedDevice(t)
	w := newWorld(t, d, hosttest.DriftedNIC(), tcDrifted(), true, false)
	out, stderr, code := w.run("--json")
	if code != 2 || out != "" || !strings.Contains(stderr, "--json reports a check") {
		t.Errorf("--json alone: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	if ws := w.writes(); len(ws) > 0 {
		t.Errorf("--json alone wrote:\n%s", strings.Join(ws, "\n"))
	}
}
