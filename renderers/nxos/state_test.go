package nxos_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/schema"
)

var platform nxos.Platform

// exampleSwitches compiles the examples once and returns every NX-OS switch
// of pod-2048, multitenant and the irtest fabric.
var exampleSwitches = sync.OnceValues(func() ([]*ir.Device, error) {
	all := irtest.Fabric().Switches()
	representative = map[*ir.Device]bool{}
	mark := func(ds []*ir.Device) {
		for _, d := range ds {
			if d.Platform == ir.PlatformNXOS {
				representative[d] = true
				return
			}
		}
	}
	mark(all)
	root, err := filepath.Abs("../..")
	if err != nil {
		return nil, err
	}
	for _, ex := range []string{"pod-2048", "multitenant"} {
		in, ds, err := schema.Load(filepath.Join(root, "examples", ex))
		if err != nil || in == nil || ds.HasErrors() {
			return nil, fmt.Errorf("loading %s: %v %v", ex, err, ds)
		}
		f, _ := compiler.Compile(in)
		if f == nil {
			return nil, fmt.Errorf("%s does not compile", ex)
		}
		mark(f.Switches())
		all = append(all, f.Switches()...)
	}
	var out []*ir.Device
	for _, d := range all {
		if d.Platform == ir.PlatformNXOS {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no NX-OS switch in the examples")
	}
	return out, nil
})

// representative holds the first NX-OS switch of each fabric, on which
// every pair of intent variants is checked; the others, of the same
// shapes, are checked on fewer pairs.
var representative map[*ir.Device]bool

func switches(t testing.TB) []*ir.Device {
	t.Helper()
	ds, err := exampleSwitches()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func renderText(t testing.TB, d *ir.Device) []byte {
	t.Helper()
	arts, err := nxos.Renderer{}.Render(d)
	if err != nil {
		t.Fatalf("%s: %v", d.Name, err)
	}
	return arts[0].Content
}

func artifact(d *ir.Device, text []byte) []renderers.Artifact {
	return []renderers.Artifact{{Path: d.Name + "/" + nxos.FileName, Format: renderers.Text, Content: text}}
}

func desired(t testing.TB, d *ir.Device) renderers.State {
	t.Helper()
	s, err := platform.Desired(d)
	if err != nil {
		t.Fatalf("%s: Desired: %v", d.Name, err)
	}
	return s
}

func parse(t testing.TB, d *ir.Device, text []byte) renderers.State {
	t.Helper()
	s, err := platform.Parse(d, artifact(d, text))
	if err != nil {
		t.Fatalf("%s: Parse: %v", d.Name, err)
	}
	return s
}

func diff(t testing.TB, d *ir.Device, running, want renderers.State) ([]renderers.Change, renderers.Remediation) {
	t.Helper()
	ch, rem, err := platform.Diff(d, running, want)
	if err != nil {
		t.Fatalf("%s: Diff: %v", d.Name, err)
	}
	return ch, rem
}

// variant returns a copy of d whose switch and QoS policy f changed; d is
// not touched.
func variant(d *ir.Device, f func(sw *ir.Switch, q *ir.QoS)) *ir.Device {
	c := *d
	sw := *d.Switch
	q := *d.Switch.QoS
	q.Queues = slices.Clone(q.Queues)
	for i := range q.Queues {
		if e := q.Queues[i].ECN; e != nil {
			ec := *e
			q.Queues[i].ECN = &ec
		}
	}
	q.PFC = slices.Clone(q.PFC)
	sw.QoS = &q
	sw.Ports = slices.Clone(sw.Ports)
	c.Switch = &sw
	f(&sw, &q)
	return &c
}

// variants are the intent changes the properties are checked across.
var variants = map[string]func(sw *ir.Switch, q *ir.QoS){
	"same": func(*ir.Switch, *ir.QoS) {},
	"mtu":  func(sw *ir.Switch, _ *ir.QoS) { sw.MTU = 1500 },
	"ecn": func(_ *ir.Switch, q *ir.QoS) {
		for i := range q.Queues {
			if e := q.Queues[i].ECN; e != nil {
				e.MinBytes, e.MaxBytes, e.Probability = 150_000, 1_500_000, 100
			}
		}
	},
	"lossy": func(_ *ir.Switch, q *ir.QoS) {
		q.PFC = nil
		for i := range q.Queues {
			q.Queues[i].Lossless = false
		}
	},
	"watchdog-off": func(_ *ir.Switch, q *ir.QoS) { q.Watchdog.Enabled = false },
	"ecmp":         func(sw *ir.Switch, _ *ir.QoS) { sw.LoadBalancing = "ecmp" },
	"dscp": func(_ *ir.Switch, q *ir.QoS) {
		// Move every DSCP of the first lossless class to traffic class 0
		// but one, and one more DSCP onto it.
		for dscp, tc := range q.DSCPToTC {
			if tc != 0 && dscp != 26 {
				q.DSCPToTC[dscp] = 0
			}
		}
		q.DSCPToTC[27] = q.DSCPToTC[26]
	},
	"strict": func(_ *ir.Switch, q *ir.QoS) {
		for i := range q.Queues {
			q.Queues[i].Strict = !q.Queues[i].Strict
			if q.Queues[i].Strict {
				q.Queues[i].Weight = 0
			} else {
				q.Queues[i].Weight = 10
			}
		}
	},
	"fewer-ports": func(sw *ir.Switch, _ *ir.QoS) {
		for i := range sw.Ports {
			sw.Ports[i].Peer = ""
		}
	},
}

// foreignHead and foreignTail are configuration rocefab does not own, in
// the form NX-OS prints `show running-config` (Cisco Nexus 9000 NX-OS
// Fundamentals Configuration Guide, "Working with Configuration Files").
const foreignHead = `!Command: show running-config
!Running configuration last done at: Mon Jan  6 10:00:00 2025
!Time: Mon Jan  6 10:00:01 2025

version 10.3(4a) Bios:version 01.09
hostname %[1]s

feature bgp
feature lldp

username admin password 5 $5$abc$def  role network-admin
ip access-list ACL-MGMT
  10 permit ip 192.168.0.0/24 any
  20 deny ip any any

vrf context management
  ip route 0.0.0.0/0 192.168.0.1

`

const foreignTail = `
interface mgmt0
  vrf member management
  ip address 192.168.0.20/24

interface loopback0
  ip address 10.255.1.1/32

router bgp 65001
  router-id 10.255.1.1
  neighbor 10.1.0.1
    remote-as 65101
    address-family ipv4 unicast
`

// withForeign returns the owned configuration text wrapped in foreign
// sections, every interface given foreign lines too, comments kept.
func withForeign(name string, owned []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, foreignHead, name)
	for _, l := range strings.SplitAfter(string(owned), "\n") {
		b.WriteString(l)
		if strings.HasPrefix(l, "interface Ethernet") {
			b.WriteString("  no switchport\n  ip address 10.1.0.0/31\n")
		}
	}
	b.WriteString(foreignTail)
	return b.Bytes()
}

// TestDiffOfEqualIsEmpty checks diff(render(a), render(a)) on every EOS
// switch of the examples: the desired state against itself and against
// its artifact parsed as a running configuration.
func TestDiffOfEqualIsEmpty(t *testing.T) {
	for _, d := range switches(t) {
		want := desired(t, d)
		if len(want.Elements()) == 0 {
			t.Fatalf("%s: empty desired state", d.Name)
		}
		if ch, rem := diff(t, d, want, want); len(ch) != 0 || len(rem.Content) != 0 {
			t.Errorf("%s: diff of the desired state with itself: %v\n%s", d.Name, ch, rem.Content)
		}
		have := parse(t, d, renderText(t, d))
		if ch, rem := diff(t, d, have, want); len(ch) != 0 || len(rem.Content) != 0 {
			t.Errorf("%s: diff of the parsed artifact: %v\n%s", d.Name, ch, rem.Content)
		}
	}
}

// TestParseForeign checks that foreign sections, another ordering of the
// top-level sections, comments and defaults the device prints outside the
// owned lines parse to the owned model, and that an interface that is not
// the device's is not read.
func TestParseForeign(t *testing.T) {
	for _, d := range switches(t) {
		want := desired(t, d).Elements()
		text := renderText(t, d)
		// Reverse the order of the top-level sections ("!"-separated).
		shuffled := reverseSections(text)
		run := withForeign(d.Name, append(shuffled, "interface Ethernet99/1\n  mtu 1500\n  priority-flow-control mode off\n"...))
		got := parse(t, d, run).Elements()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: parsed owned model differs (-want +got):\n%s", d.Name, diff)
		}
	}
}

// TestApplyConverges checks, for every NX-OS switch and intent variant,
// that applying diff(parse(running), render(b)) to running, then parsing,
// gives render(b) within the scope, and that every foreign line is kept
// byte for byte; running is the artifact of another intent a with foreign
// sections, or foreign sections alone.
func TestApplyConverges(t *testing.T) {
	for _, d := range switches(t) {
		froms, tos := []string{"ecn", "fewer-ports"}, []string{"same"}
		if representative[d] {
			froms, tos = sortedKeys(variants), []string{"same", "ecn", "lossy", "mtu", "dscp", "strict"}
		}
		for _, from := range froms {
			for _, to := range tos {
				a, b := variant(d, variants[from]), variant(d, variants[to])
				check(t, d, fmt.Sprintf("%s -> %s", from, to), withForeign(d.Name, renderText(t, a)), b)
			}
		}
		check(t, d, "foreign only", withForeign(d.Name, nil), d)
		check(t, d, "empty", nil, d)
	}
}

// reverseSections reverses the order of the top-level sections of text, a
// section being a top-level line with the lines indented below it.
func reverseSections(text []byte) []byte {
	var sections []string
	for _, l := range strings.SplitAfter(string(text), "\n") {
		if l == "" {
			continue
		}
		if len(sections) == 0 || (l[0] != ' ') {
			sections = append(sections, l)
			continue
		}
		sections[len(sections)-1] += l
	}
	slices.Reverse(sections)
	return []byte(strings.Join(sections, ""))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func check(t *testing.T, d *ir.Device, name string, run []byte, b *ir.Device) {
	t.Helper()
	want := desired(t, b)
	have := parse(t, d, run)
	_, rem := diff(t, b, have, want)
	arts := artifact(d, run)
	out, err := platform.Apply(arts, rem)
	if err != nil {
		t.Fatalf("%s %s: Apply: %v\n%s", d.Name, name, err, rem.Content)
	}
	if !bytes.Equal(arts[0].Content, run) {
		t.Fatalf("%s %s: Apply changed its input", d.Name, name)
	}
	after := out[0].Content
	if d := cmp.Diff(want.Elements(), parse(t, b, after).Elements()); d != "" {
		t.Fatalf("%s %s: after applying\n%s\nthe state differs (-want +got):\n%s", b.Name, name, rem.Content, d)
	}
	if ch, rem2 := diff(t, b, parse(t, b, after), want); len(ch) != 0 {
		t.Fatalf("%s %s: a second diff is not empty: %v\n%s", b.Name, name, ch, rem2.Content)
	}
	if f0, f1 := nxos.Foreign(run), nxos.Foreign(after); !slices.Equal(f0, f1) {
		t.Fatalf("%s %s: foreign configuration changed:\n%s", b.Name, name, cmp.Diff(f0, f1))
	}
}

// TestRemediation pins the CLI lines of small changes: a modified MTU is
// one line in its interface, a changed DSCP list is negated first, and a
// queue section that goes is removed after the lines that change.
func TestRemediation(t *testing.T) {
	d := switches(t)[0]
	port := d.Switch.Ports[0].Name
	mtu := fmt.Sprintf("  mtu %d\n", d.Switch.MTU)
	i := strings.Index(string(renderText(t, d)), "interface "+port+"\n")
	text := string(renderText(t, d))
	run := text[:i] + strings.Replace(text[i:], mtu, "  mtu 1500\n", 1)
	_, rem := diff(t, d, parse(t, d, []byte(run)), desired(t, d))
	want := "interface " + port + "\n" + mtu + "  exit\n"
	if string(rem.Content) != want {
		t.Errorf("MTU remediation:\n%s\nwant\n%s", rem.Content, want)
	}
	ch, _ := diff(t, d, parse(t, d, []byte(run)), desired(t, d))
	if len(ch) != 1 || ch[0].Action() != "modify" || ch[0].Kind != "mtu" || ch[0].Path != "interface "+port+" > mtu" {
		t.Errorf("MTU change: %+v", ch)
	}
}

// FuzzParse feeds arbitrary text to the parser, the diff and the Applier:
// none may panic, and applying diffs converges.
func FuzzParse(f *testing.F) {
	ds, err := exampleSwitches()
	if err != nil {
		f.Fatal(err)
	}
	d := ds[0]
	arts, err := nxos.Renderer{}.Render(d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(arts[0].Content)
	f.Add(withForeign(d.Name, arts[0].Content))
	f.Add([]byte("policy-map type queuing ROCEFAB-QUEUING-OUT\n\t!\n  class type queuing c-out-8q-q1\n priority level 1\n\r\n!\n"))
	f.Add([]byte("interface Ethernet1/1\n  mtu 1500\n  mtu 1600\n  shutdown\nsystem qos\n  service-policy type network-qos OTHER\n"))
	want, err := platform.Desired(d)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		// NX-OS has no reset form: a `no X` line rocefab does not render
		// is removed by entering X, which the simulated device then
		// prints until the next round negates it. So convergence is
		// checked within two rounds.
		run := text
		var ch []renderers.Change
		for range 2 {
			have, err := platform.Parse(d, artifact(d, run))
			if err != nil {
				return
			}
			var rem renderers.Remediation
			ch, rem, err = platform.Diff(d, have, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(ch) == 0 {
				return
			}
			out, err := platform.Apply(artifact(d, run), rem)
			if err != nil {
				t.Fatalf("Apply: %v\n%s", err, rem.Content)
			}
			run = out[0].Content
		}
		got, err := platform.Parse(d, artifact(d, run))
		if err != nil {
			t.Fatal(err)
		}
		if ch, _, _ := platform.Diff(d, got, want); len(ch) != 0 {
			t.Fatalf("no convergence in two rounds: %v\nrunning:\n%q", ch, text)
		}
	})
}

// BenchmarkParseDiff64 measures what plan does per NX-OS device: parse a
// 64-port leaf's running configuration (foreign sections, an old ECN
// template) and diff it against its desired state, computed once.
func BenchmarkParseDiff64(b *testing.B) {
	var d *ir.Device
	for _, s := range switches(b) {
		if len(s.Switch.Ports) >= 64 {
			d = s
			break
		}
	}
	if d == nil {
		b.Skip("no 64-port NX-OS leaf in the examples")
	}
	run := withForeign(d.Name, renderText(b, variant(d, variants["ecn"])))
	want := desired(b, d)
	b.Logf("%s: %d ports, running configuration %d bytes", d.Name, len(d.Switch.Ports), len(run))
	b.ReportAllocs()
	for b.Loop() {
		have := parse(b, d, run)
		if ch, _ := diff(b, d, have, want); len(ch) == 0 {
			b.Fatal("no change")
		}
	}
}
