// Package clitreetest holds the properties every CLI platform's plan and
// apply must keep (EOS, NX-OS): the printed model reads back as the same
// owned model, a model edited by hand shows in the diff, foreign
// configuration parses to the owned model, applying a diff converges and
// keeps every foreign line, and arbitrary text neither panics nor fails
// to converge. Each platform's tests call it with their own renderer,
// foreign configuration and seeds, so that the two cannot drift apart in
// what they check. It is imported by tests only.
package clitreetest

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
	"github.com/rocefab/rocefab/renderers/internal/clitree"
	"github.com/rocefab/rocefab/schema"
)

// Platform is what the properties exercise: the rendering, plan and
// apply of one CLI platform, whose renderer embeds clitree.Methods.
type Platform interface {
	renderers.Renderer
	renderers.Platform
	renderers.Applier
	// Model builds a switch's configuration model, which Render prints,
	// and State restricts a model to the switch's owned scope.
	Model(d *ir.Device) (*clitree.Tree, error)
	State(d *ir.Device, t *clitree.Tree) (renderers.State, error)
}

// Harness is one platform's specifics. Its methods are the shared
// properties; they compile the examples under ../.. of the calling test's
// package directory (renderers/<platform>), once.
type Harness struct {
	// Platform is the platform under test; the first artifact it renders
	// is the File.
	Platform Platform
	// Foreign returns the lines outside every device's owned scope.
	Foreign func(running []byte) []string
	// Name is the platform's key in the IR (ir.PlatformEOS, ...), Label
	// its name in messages, File the base name of its configuration.
	Name, Label, File string
	// ForeignHead (a format with the device name as %[1]s) and
	// ForeignTail are configuration rocefab does not own, in the form
	// `show running-config` prints it; PortForeign are lines rocefab does
	// not own that follow every `interface Ethernet` line.
	ForeignHead, ForeignTail, PortForeign string
	// Reorder returns a configuration's top-level sections in another
	// order, and OtherPort is an interface that is no device's, with
	// owned-looking lines: neither may change the parsed owned model.
	Reorder   func(text []byte) []byte
	OtherPort string
	// Rounds is how many rounds of parse, diff and apply arbitrary text
	// must converge within.
	Rounds int

	once           sync.Once
	switches       []*ir.Device
	err            error
	representative map[*ir.Device]bool
}

// load compiles the examples once and keeps every switch of the platform
// of pod-2048, multitenant and the irtest fabric, and the first of each
// fabric, on which every pair of intent variants is checked; the others,
// of the same shapes, are checked on fewer pairs.
func (h *Harness) load() {
	all := irtest.Fabric().Switches()
	h.representative = map[*ir.Device]bool{}
	mark := func(ds []*ir.Device) {
		for _, d := range ds {
			if d.Platform == h.Name {
				h.representative[d] = true
				return
			}
		}
	}
	mark(all)
	root, err := filepath.Abs("../..")
	if err != nil {
		h.err = err
		return
	}
	for _, ex := range []string{"pod-2048", "multitenant"} {
		in, ds, err := schema.Load(filepath.Join(root, "examples", ex))
		if err != nil || in == nil || ds.HasErrors() {
			h.err = fmt.Errorf("loading %s: %v %v", ex, err, ds)
			return
		}
		f, _ := compiler.Compile(in)
		if f == nil {
			h.err = fmt.Errorf("%s does not compile", ex)
			return
		}
		mark(f.Switches())
		all = append(all, f.Switches()...)
	}
	for _, d := range all {
		if d.Platform == h.Name {
			h.switches = append(h.switches, d)
		}
	}
	if len(h.switches) == 0 {
		h.err = fmt.Errorf("no %s switch in the examples", h.Label)
	}
}

// Examples returns every switch of the platform in the examples.
func (h *Harness) Examples() ([]*ir.Device, error) {
	h.once.Do(h.load)
	return h.switches, h.err
}

// Switches returns every switch of the platform in the examples, failing
// t if they do not compile.
func (h *Harness) Switches(t testing.TB) []*ir.Device {
	t.Helper()
	ds, err := h.Examples()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// RenderText returns the configuration text Render prints for d.
func (h *Harness) RenderText(t testing.TB, d *ir.Device) []byte {
	t.Helper()
	arts, err := h.Platform.Render(d)
	if err != nil {
		t.Fatalf("%s: %v", d.Name, err)
	}
	return arts[0].Content
}

// Artifact returns text as d's running configuration file.
func (h *Harness) Artifact(d *ir.Device, text []byte) []renderers.Artifact {
	return []renderers.Artifact{{Path: d.Name + "/" + h.File, Format: renderers.Text, Content: text}}
}

// Desired returns d's desired state, failing t on an error.
func (h *Harness) Desired(t testing.TB, d *ir.Device) renderers.State {
	t.Helper()
	s, err := h.Platform.Desired(d)
	if err != nil {
		t.Fatalf("%s: Desired: %v", d.Name, err)
	}
	return s
}

// Parse returns text parsed as d's running state, failing t on an error.
func (h *Harness) Parse(t testing.TB, d *ir.Device, text []byte) renderers.State {
	t.Helper()
	s, err := h.Platform.Parse(d, h.Artifact(d, text))
	if err != nil {
		t.Fatalf("%s: Parse: %v", d.Name, err)
	}
	return s
}

// Diff returns the changes and remediation from running to want, failing
// t on an error.
func (h *Harness) Diff(t testing.TB, d *ir.Device, running, want renderers.State) ([]renderers.Change, renderers.Remediation) {
	t.Helper()
	ch, rem, err := h.Platform.Diff(d, running, want)
	if err != nil {
		t.Fatalf("%s: Diff: %v", d.Name, err)
	}
	return ch, rem
}

// Variant returns a copy of d whose switch and QoS policy f changed; d is
// not touched. The copy has its own ports, queues, and each queue's class
// and ECN profile, so f may change any of them.
func Variant(d *ir.Device, f func(sw *ir.Switch, q *ir.QoS)) *ir.Device {
	c := *d
	sw := *d.Switch
	q := *d.Switch.QoS
	q.Queues = slices.Clone(q.Queues)
	for i := range q.Queues {
		if e := q.Queues[i].ECN; e != nil {
			ec := *e
			q.Queues[i].ECN = &ec
		}
		if cl := q.Queues[i].Class; cl != nil {
			cc := *cl
			q.Queues[i].Class = &cc
		}
	}
	q.PFC = slices.Clone(q.PFC)
	sw.QoS = &q
	sw.Ports = slices.Clone(sw.Ports)
	c.Switch = &sw
	f(&sw, &q)
	return &c
}

// Variants are the intent changes the properties are checked across.
var Variants = map[string]func(sw *ir.Switch, q *ir.QoS){
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

// WithForeign returns the owned configuration text wrapped in foreign
// sections, every interface given foreign lines too, comments kept.
func (h *Harness) WithForeign(name string, owned []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, h.ForeignHead, name)
	for _, l := range strings.SplitAfter(string(owned), "\n") {
		b.WriteString(l)
		if strings.HasPrefix(l, "interface Ethernet") {
			b.WriteString(h.PortForeign)
		}
	}
	b.WriteString(h.ForeignTail)
	return b.Bytes()
}

// Properties runs, each as a subtest, the properties that take nothing of
// the platform's but the harness: PrintParse, HandEdit, ParseForeign,
// ApplyConverges, ScopeRefuses and RunningNotText.
func (h *Harness) Properties(t *testing.T) {
	for _, p := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"PrintParse", h.PrintParse},
		{"HandEdit", h.HandEdit},
		{"ParseForeign", h.ParseForeign},
		{"ApplyConverges", h.ApplyConverges},
		{"ScopeRefuses", h.ScopeRefuses},
		{"RunningNotText", h.RunningNotText},
	} {
		t.Run(p.name, p.run)
	}
}

// PrintParse checks, on every switch of the examples, that the model's
// printed text, read by the running-configuration parser, gives back the
// model's owned tree: the same lines under the same modes, and each line
// the catalog element the renderer named for it, which is the one the
// parser's rules give (a line the renderer files under the wrong element,
// or nests where `show running-config` would not, fails). The diff of
// the two is then empty.
func (h *Harness) PrintParse(t *testing.T) {
	for _, d := range h.Switches(t) {
		m, err := h.Platform.Model(d)
		if err != nil {
			t.Fatalf("%s: Model: %v", d.Name, err)
		}
		want, err := h.Platform.State(d, m)
		if err != nil {
			t.Fatalf("%s: State: %v", d.Name, err)
		}
		if len(want.Elements()) == 0 {
			t.Fatalf("%s: empty desired state", d.Name)
		}
		if kinds := kindsOf(want); len(kinds) < 3 {
			t.Fatalf("%s: the model names %d catalog elements (%v): its lines carry no kinds", d.Name, len(kinds), kinds)
		}
		text := h.RenderText(t, d)
		if !bytes.Equal(text, m.Bytes()) {
			t.Fatalf("%s: the artifact is not the printed model:\n%s", d.Name, cmp.Diff(string(m.Bytes()), string(text)))
		}
		have := h.Parse(t, d, text)
		if diff := cmp.Diff(want.Elements(), have.Elements()); diff != "" {
			t.Fatalf("%s: the printed model reads back differently (-model +parsed):\n%s", d.Name, diff)
		}
		if ch, rem := h.Diff(t, d, have, want); len(ch) != 0 || len(rem.Content) != 0 {
			t.Errorf("%s: diff of the printed model with the model: %v\n%s", d.Name, ch, rem.Content)
		}
	}
}

// VerifyMarks holds the "! verify:" lines of the switches' artifacts (the
// examples' when ds is empty) to what renderers.MarkVerifyCLI puts in the
// text without them, with inBlock as the platform places marks: taking
// the marks out and marking the text again gives the same bytes, and at
// least one line is marked.
func (h *Harness) VerifyMarks(t *testing.T, isVerify func(form string) bool, inBlock bool, ds ...*ir.Device) {
	if len(ds) == 0 {
		ds = h.Switches(t)
	}
	marks := 0
	for _, d := range ds {
		cfg := string(h.RenderText(t, d))
		ls := strings.SplitAfter(cfg, "\n")
		// A mark names the form of a line of the text; other "! verify:"
		// comments are prose the renderer wrote, and stay.
		forms := map[string]bool{}
		for _, l := range ls {
			if f, ok := renderers.CLIForm(l); ok && isVerify(f) {
				forms[f] = true
			}
		}
		var unmarked strings.Builder
		for _, l := range ls {
			if f, ok := strings.CutPrefix(strings.TrimSpace(l), "! verify: "); ok && forms[f] {
				marks++
				continue
			}
			unmarked.WriteString(l)
		}
		if got := string(renderers.MarkVerifyCLI([]byte(unmarked.String()), isVerify, inBlock)); got != cfg {
			t.Errorf("%s: the marks differ from MarkVerifyCLI's:\n%s", d.Name, cmp.Diff(got, cfg))
		}
	}
	if marks == 0 {
		t.Error("no verify mark in any rendering: the test checks nothing")
	}
}

func kindsOf(s renderers.State) []string {
	seen := map[string]bool{}
	for _, e := range s.Elements() {
		if e.Kind != "" {
			seen[e.Kind] = true
		}
	}
	return sortedKeys(seen)
}

// HandEdit checks that the desired state is the model itself: on the
// first switch, each configuration line without lines below it is taken
// out of the model in turn, and the diff of the unedited text (read as a
// running configuration) against the edited model's state is exactly the
// removal of that line when it is owned, nothing when it is not; every
// owned leaf is seen once. The edited model, printed and parsed, gives
// its state back.
func (h *Harness) HandEdit(t *testing.T) {
	d := h.Switches(t)[0]
	have := h.Parse(t, d, h.RenderText(t, d))
	m, err := h.Platform.Model(d)
	if err != nil {
		t.Fatal(err)
	}
	want, err := h.Platform.State(d, m)
	if err != nil {
		t.Fatal(err)
	}
	leaves := map[string]bool{}
	els := want.Elements()
	for i, e := range els {
		if i+1 == len(els) || !strings.HasPrefix(els[i+1].Path, e.Path+" > ") {
			leaves[e.Path] = true
		}
	}
	removed := map[string]bool{}
	var walk func(parent *clitree.Node, ns []*clitree.Node)
	edits := 0
	walk = func(parent *clitree.Node, ns []*clitree.Node) {
		for i, n := range ns {
			if n.Comment {
				continue
			}
			if len(n.Children) > 0 {
				walk(n, n.Children)
				continue
			}
			edits++
			cut := slices.Delete(slices.Clone(ns), i, i+1)
			setChildren(m, parent, cut)
			s, err := h.Platform.State(d, m)
			setChildren(m, parent, ns)
			if err != nil {
				t.Fatal(err)
			}
			ch, _ := h.Diff(t, d, have, s)
			switch {
			case len(ch) == 0:
			case len(ch) == 1 && ch[0].Action() == "remove" && leaves[ch[0].Path] && !removed[ch[0].Path]:
				removed[ch[0].Path] = true
			default:
				t.Fatalf("%s: taking %q out of the model: changes %+v, want one removal of an owned line or none", d.Name, n.Line, ch)
			}
			if edits > 1 && edits%64 == 0 {
				// The printed edited model reads back as its state.
				setChildren(m, parent, cut)
				got := h.Parse(t, d, m.Bytes())
				setChildren(m, parent, ns)
				if diff := cmp.Diff(s.Elements(), got.Elements()); diff != "" {
					t.Fatalf("%s: the edited model reads back differently:\n%s", d.Name, diff)
				}
			}
		}
	}
	walk(nil, m.Nodes)
	if len(removed) != len(leaves) {
		var missed []string
		for p := range leaves {
			if !removed[p] {
				missed = append(missed, p)
			}
		}
		slices.Sort(missed)
		t.Fatalf("%s: %d owned lines of %d showed as removed; not: %v", d.Name, len(removed), len(leaves), missed)
	}
	// A hand edit of a value shows as that modification.
	port := d.Switch.Ports[0].Name
	for _, n := range m.Nodes {
		if n.Line != "interface "+port {
			continue
		}
		for _, c := range n.Children {
			if v, ok := strings.CutPrefix(c.Line, "mtu "); ok {
				old := *c
				c.Line, c.Raw = "mtu 1500", c.Raw[:len(c.Raw)-len(c.Line)]+"mtu 1500"
				s, err := h.Platform.State(d, m)
				*c = old
				if err != nil {
					t.Fatal(err)
				}
				ch, _ := h.Diff(t, d, have, s)
				if len(ch) != 1 || ch[0].Path != "interface "+port+" > mtu" || *ch[0].Before != v || *ch[0].After != "1500" || ch[0].Kind != "mtu" {
					t.Fatalf("%s: an MTU edited in the model: changes %+v", d.Name, ch)
				}
				return
			}
		}
	}
	t.Fatalf("%s: no mtu line under interface %s in the model", d.Name, port)
}

// setChildren sets the lines below parent, or the top-level lines of m
// for a nil parent.
func setChildren(m *clitree.Tree, parent *clitree.Node, ns []*clitree.Node) {
	if parent == nil {
		m.Nodes = ns
		return
	}
	parent.Children = ns
}

// ParseForeign checks that foreign sections, another ordering of the
// top-level sections, comments and defaults the device prints outside the
// owned lines parse to the owned model, and that an interface that is not
// the device's is not read.
func (h *Harness) ParseForeign(t *testing.T) {
	for _, d := range h.Switches(t) {
		want := h.Desired(t, d).Elements()
		shuffled := h.Reorder(h.RenderText(t, d))
		run := h.WithForeign(d.Name, append(shuffled, h.OtherPort...))
		got := h.Parse(t, d, run).Elements()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: parsed owned model differs (-want +got):\n%s", d.Name, diff)
		}
	}
}

// ApplyConverges checks, for every switch and intent variant, that
// applying diff(parse(running), render(b)) to running, then parsing, gives
// render(b) within the scope, and that every foreign line is kept byte for
// byte; running is the artifact of another intent a with foreign
// sections, or foreign sections alone.
func (h *Harness) ApplyConverges(t *testing.T) {
	for _, d := range h.Switches(t) {
		froms, tos := []string{"ecn", "fewer-ports"}, []string{"same"}
		if h.representative[d] {
			froms, tos = sortedKeys(Variants), []string{"same", "ecn", "lossy", "mtu", "dscp", "strict"}
		}
		for _, from := range froms {
			for _, to := range tos {
				a, b := Variant(d, Variants[from]), Variant(d, Variants[to])
				h.check(t, d, fmt.Sprintf("%s -> %s", from, to), h.WithForeign(d.Name, h.RenderText(t, a)), b)
			}
		}
		h.check(t, d, "foreign only", h.WithForeign(d.Name, nil), d)
		h.check(t, d, "empty", nil, d)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (h *Harness) check(t *testing.T, d *ir.Device, name string, run []byte, b *ir.Device) {
	t.Helper()
	want := h.Desired(t, b)
	have := h.Parse(t, d, run)
	_, rem := h.Diff(t, b, have, want)
	if err := h.checkScope(b, rem); err != nil {
		t.Fatalf("%s %s: its own remediation: %v\n%s", b.Name, name, err, rem.Content)
	}
	arts := h.Artifact(d, run)
	out, err := h.Platform.Apply(arts, rem)
	if err != nil {
		t.Fatalf("%s %s: Apply: %v\n%s", d.Name, name, err, rem.Content)
	}
	if !bytes.Equal(arts[0].Content, run) {
		t.Fatalf("%s %s: Apply changed its input", d.Name, name)
	}
	after := out[0].Content
	if d := cmp.Diff(want.Elements(), h.Parse(t, b, after).Elements()); d != "" {
		t.Fatalf("%s %s: after applying\n%s\nthe state differs (-want +got):\n%s", b.Name, name, rem.Content, d)
	}
	if ch, rem2 := h.Diff(t, b, h.Parse(t, b, after), want); len(ch) != 0 {
		t.Fatalf("%s %s: a second diff is not empty: %v\n%s", b.Name, name, ch, rem2.Content)
	}
	if f0, f1 := h.Foreign(run), h.Foreign(after); !slices.Equal(f0, f1) {
		t.Fatalf("%s %s: foreign configuration changed:\n%s", b.Name, name, cmp.Diff(f0, f1))
	}
}

// checkScope runs the platform's scope check of a remediation.
func (h *Harness) checkScope(d *ir.Device, rem renderers.Remediation) error {
	sc, ok := h.Platform.(renderers.ScopeChecker)
	if !ok {
		return fmt.Errorf("%s has no scope check of a remediation (renderers.ScopeChecker)", h.Label)
	}
	return sc.CheckScope(d, rem)
}

// ScopeRefuses: a remediation with a line outside the switch's owned
// scope appended (a foreign top-level line, its removal, another
// device's or no device's interface, a foreign line of an owned port) is
// refused by the platform's scope check, naming the line.
func (h *Harness) ScopeRefuses(t *testing.T) {
	d := h.Switches(t)[0]
	_, rem := h.Diff(t, d, h.Parse(t, d, nil), h.Desired(t, d))
	port := d.Switch.Ports[0].Name
	other, _, _ := strings.Cut(h.OtherPort, "\n")
	for _, extra := range []string{
		"hostname pwned\n",
		"no router bgp 65001\n",
		"username admin privilege 15 secret pwned\n",
		other + "\n   shutdown\nexit\n",
		"interface " + port + "\n   ip address 192.0.2.1/31\nexit\n",
		"no interface " + port + "\n",
	} {
		bad := renderers.Remediation{Format: rem.Format, Content: append(bytes.Clone(rem.Content), extra...)}
		err := h.checkScope(d, bad)
		first, _, _ := strings.Cut(extra, "\n")
		if err == nil || !strings.Contains(err.Error(), "outside the owned scope") {
			t.Errorf("%s: a remediation with %q: %v", d.Name, first, err)
		}
	}
}

// MTURemediation: on the first switch, a running configuration that
// differs from the rendered text only in its first port's MTU (edit makes
// it from the switch, the text and the port) is remediated by want (given
// the switch and the port), and the diff is that one mtu change in the
// port.
func (h *Harness) MTURemediation(t *testing.T, edit func(d *ir.Device, text, port string) string, want func(d *ir.Device, port string) string) {
	t.Helper()
	d := h.Switches(t)[0]
	port := d.Switch.Ports[0].Name
	run := []byte(edit(d, string(h.RenderText(t, d)), port))
	ch, rem := h.Diff(t, d, h.Parse(t, d, run), h.Desired(t, d))
	if w := want(d, port); string(rem.Content) != w {
		t.Errorf("MTU remediation:\n%s\nwant\n%s", rem.Content, w)
	}
	if len(ch) != 1 || ch[0].Action() != "modify" || ch[0].Kind != "mtu" || ch[0].Path != "interface "+port+" > mtu" {
		t.Errorf("MTU change: %+v", ch)
	}
}

// RunningNotText: a running file that is not `show running-config` text
// (random bytes, a NUL, a 10 MB line, a file cut short) is an error that
// names the file, line and column and what was expected, never a
// configuration with nothing of rocefab's in it.
func (h *Harness) RunningNotText(t *testing.T) {
	d := h.Switches(t)[0]
	good := h.WithForeign(d.Name, h.RenderText(t, d))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i>>3) // deterministic, with bytes that are not UTF-8
	}
	nul := bytes.Replace(good, []byte("\n"), []byte("\n\x00"), 3)
	long := append(bytes.Clone(good), bytes.Repeat([]byte("x"), 10<<20)...)
	long = append(long, '\n')
	cut := len(good) / 2
	for good[cut-1] == '\n' {
		cut++ // inside a line
	}
	nl := bytes.LastIndexByte(good[:cut], '\n')
	short := fmt.Sprintf(":%d:%d: the file ends inside a line", bytes.Count(good[:cut], []byte("\n"))+1, cut-nl)
	for name, c := range map[string]struct {
		text []byte
		want string
	}{
		"random bytes": {random, ":1:"},
		"NUL":          {nul, ":2:1: a NUL byte"},
		"10 MB line":   {long, fmt.Sprintf(":%d:%d: the line is longer than", bytes.Count(good, []byte("\n"))+1, 64<<10+1)},
		"cut short":    {good[:cut], short},
	} {
		_, err := h.Platform.Parse(d, h.Artifact(d, c.text))
		if err == nil || !strings.Contains(err.Error(), d.Name+"/"+h.File+c.want) {
			t.Errorf("%s: Parse: %v, want %s%s", name, err, d.Name+"/"+h.File, c.want)
		}
	}
}

// Fuzz feeds arbitrary text to the parser, the diff and the Applier: none
// may panic, and applying diffs converges within h.Rounds rounds. The
// corpus is seeded with the first switch's artifact, alone and within
// foreign configuration, and the platform's own seeds.
func (h *Harness) Fuzz(f *testing.F, seeds ...[]byte) {
	ds, err := h.Examples()
	if err != nil {
		f.Fatal(err)
	}
	d := ds[0]
	arts, err := h.Platform.Render(d)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(arts[0].Content)
	f.Add(h.WithForeign(d.Name, arts[0].Content))
	for _, s := range seeds {
		f.Add(s)
	}
	want, err := h.Platform.Desired(d)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		run := text
		var ch []renderers.Change
		var rem renderers.Remediation
		for round := range h.Rounds {
			have, err := h.Platform.Parse(d, h.Artifact(d, run))
			if err != nil {
				return
			}
			ch, rem, err = h.Platform.Diff(d, have, want)
			if err != nil {
				t.Fatal(err)
			}
			// A later round with nothing to do has converged.
			if round > 0 && len(ch) == 0 {
				return
			}
			out, err := h.Platform.Apply(h.Artifact(d, run), rem)
			if err != nil {
				t.Fatalf("Apply: %v\n%s", err, rem.Content)
			}
			run = out[0].Content
		}
		got, err := h.Platform.Parse(d, h.Artifact(d, run))
		if err != nil {
			t.Fatal(err)
		}
		if ch, _, _ = h.Platform.Diff(d, got, want); len(ch) != 0 {
			t.Fatalf("no convergence in %d rounds: %v\nrunning:\n%q\nremediation:\n%s", h.Rounds, ch, text, rem.Content)
		}
	})
}

// BenchmarkParseDiff64 measures what plan does per device: parse a 64-port
// leaf's running configuration (foreign sections, an old ECN template)
// and diff it against its desired state, computed once.
func (h *Harness) BenchmarkParseDiff64(b *testing.B) {
	var d *ir.Device
	for _, s := range h.Switches(b) {
		if len(s.Switch.Ports) >= 64 {
			d = s
			break
		}
	}
	if d == nil {
		b.Skipf("no 64-port %s leaf in the examples", h.Label)
	}
	run := h.WithForeign(d.Name, h.RenderText(b, Variant(d, Variants["ecn"])))
	want := h.Desired(b, d)
	b.Logf("%s: %d ports, running configuration %d bytes", d.Name, len(d.Switch.Ports), len(run))
	b.ReportAllocs()
	for b.Loop() {
		have := h.Parse(b, d, run)
		if ch, _ := h.Diff(b, d, have, want); len(ch) == 0 {
			b.Fatal("no change")
		}
	}
}
