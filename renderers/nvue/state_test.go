package nvue_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/schema"
)

var platform nvue.Renderer

// nvueSwitches are the NVUE switches of the examples: all of them, and
// one of each example's roles and models (the others differ from it in
// names and neighbours only).
type nvueSwitches struct {
	all, kinds []*ir.Device
}

// exampleSwitches compiles the examples once and returns their NVUE
// switches.
var exampleSwitches = sync.OnceValues(func() (nvueSwitches, error) {
	root, err := filepath.Abs("../..")
	if err != nil {
		return nvueSwitches{}, err
	}
	var out nvueSwitches
	for _, ex := range []string{"pod-2048", "multitenant"} {
		in, ds, err := schema.Load(filepath.Join(root, "examples", ex))
		if err != nil || in == nil || ds.HasErrors() {
			return nvueSwitches{}, fmt.Errorf("loading %s: %v %v", ex, err, ds)
		}
		f, _ := compiler.Compile(in)
		if f == nil {
			return nvueSwitches{}, fmt.Errorf("%s does not compile", ex)
		}
		seen := map[string]bool{}
		for _, d := range f.Switches() {
			if d.Platform != ir.PlatformNVUE {
				continue
			}
			out.all = append(out.all, d)
			if kind := string(d.Role) + "/" + d.Model; !seen[kind] {
				seen[kind] = true
				out.kinds = append(out.kinds, d)
			}
		}
	}
	if len(out.all) == 0 {
		return nvueSwitches{}, fmt.Errorf("no NVUE switch in the examples")
	}
	return out, nil
})

// switches returns every NVUE switch of the examples.
func switches(t testing.TB) []*ir.Device { return exampleNVUE(t).all }

// switchKinds returns one NVUE switch of each role and model of each
// example.
func switchKinds(t testing.TB) []*ir.Device { return exampleNVUE(t).kinds }

func exampleNVUE(t testing.TB) nvueSwitches {
	t.Helper()
	ds, err := exampleSwitches()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func renderNVUE(t testing.TB, d *ir.Device) []byte {
	t.Helper()
	as, err := platform.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	return as[0].Content
}

func parseNVUE(t testing.TB, d *ir.Device, src []byte) renderers.State {
	t.Helper()
	s, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/" + nvue.File, Format: renderers.YAML, Content: src}})
	if err != nil {
		t.Fatalf("%s: Parse: %v", d.Name, err)
	}
	return s
}

func desired(t testing.TB, d *ir.Device) renderers.State {
	t.Helper()
	s, err := platform.Desired(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sameElements(t *testing.T, what string, got, want renderers.State) {
	t.Helper()
	g, w := got.Elements(), want.Elements()
	if !slices.Equal(g, w) {
		for _, c := range renderers.DiffElements(g, w, nil) {
			t.Errorf("%s: %s: have %v, want %v", what, c.Path, deref(c.Before), deref(c.After))
		}
		if len(g) != len(w) {
			t.Errorf("%s: %d elements, want %d", what, len(g), len(w))
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return "<absent>"
	}
	return *p
}

// The artifact parses to the desired state, and a device that runs its
// desired state has nothing to change.
func TestRenderParsesToDesired(t *testing.T) {
	for _, d := range switches(t) {
		want := desired(t, d)
		if len(want.Elements()) == 0 {
			t.Fatalf("%s: empty desired state", d.Name)
		}
		sameElements(t, d.Name, parseNVUE(t, d, renderNVUE(t, d)), want)
		ch, rem, err := platform.Diff(d, want, want)
		if err != nil || len(ch) != 0 || len(rem.Content) != 0 {
			t.Errorf("%s: diff(render, render) = %v %q %v", d.Name, ch, rem.Content, err)
		}
	}
}

// changed returns a copy of d with another intent: a smaller MTU, a port
// dropped, no buffer reserve, the watchdog off.
func changed(d *ir.Device) *ir.Device {
	return irtest.WithSwitch(d, func(s *ir.Switch) {
		s.MTU = 9000
		s.Ports = slices.Clone(s.Ports[:len(s.Ports)-1])
		b := *s.Buffers
		b.Reserves = nil
		s.Buffers = &b
		q := *s.QoS
		q.Watchdog.Enabled = false
		s.QoS = &q
	})
}

// foreign decodes a running document and drops what rocefab owns, so
// that what remains is the configuration apply must leave alone.
func foreign(t *testing.T, src []byte) any {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	// An empty object the device prints (dhcp: {}) is data; one left by
	// removing owned leaves is not.
	doc = markEmpty(doc)
	list, _ := doc.([]any)
	var set map[string]any
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			if s, ok := m["set"].(map[string]any); ok {
				set = s
			}
		}
	}
	if set == nil {
		return doc
	}
	del := func(m map[string]any, path ...string) {
		for _, p := range path[:len(path)-1] {
			n, ok := m[p].(map[string]any)
			if !ok {
				return
			}
			m = n
		}
		delete(m, path[len(path)-1])
	}
	if q, ok := set["qos"].(map[string]any); ok {
		for _, k := range []string{"roce", "pfc", "pfc-watchdog", "traffic-pool"} {
			delete(q, k)
		}
		for _, k := range []string{"mapping", "egress-queue-mapping", "egress-scheduler", "congestion-control"} {
			del(q, k, "default-global")
		}
	}
	del(set, "router", "adaptive-routing")
	if ifs, ok := set["interface"].(map[string]any); ok {
		for _, v := range ifs {
			m, ok := v.(map[string]any)
			if !ok {
				continue
			}
			delete(m, "description")
			del(m, "link", "mtu")
			del(m, "link", "speed")
			del(m, "link", "breakout")
			del(m, "qos", "pfc")
			del(m, "qos", "pfc-watchdog")
			del(m, "router", "adaptive-routing")
		}
	}
	return prune(doc)
}

// prune drops the mappings left empty by removing owned leaves.
func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			c = prune(c)
			if m, ok := c.(map[string]any); ok && len(m) == 0 {
				delete(v, k)
				continue
			}
			v[k] = c
		}
	case []any:
		for i := range v {
			v[i] = prune(v[i])
		}
	}
	return v
}

func runningOf(t *testing.T, d *ir.Device) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../../examples/pod-2048/running", d.Name, nvue.File))
	if err != nil {
		return nil
	}
	return src
}

// Applying diff(parse(running), desired) to running gives desired within
// the scope and leaves the rest as it was, from the example's "before"
// state, from another intent's artifact and from nothing, on a switch of
// each kind.
func TestApplyConverges(t *testing.T) {
	for _, d := range switchKinds(t) {
		b := changed(d)
		cases := map[string]struct {
			dev     *ir.Device
			running []byte
		}{
			"render(a) to render(b)": {b, renderNVUE(t, d)},
			"render(b) to render(a)": {d, renderNVUE(t, b)},
			"nothing to render(a)":   {d, nil},
		}
		if src := runningOf(t, d); src != nil {
			cases["before to render(a)"] = struct {
				dev     *ir.Device
				running []byte
			}{d, src}
			cases["before to render(b)"] = struct {
				dev     *ir.Device
				running []byte
			}{b, src}
		}
		for name, c := range cases {
			running := []renderers.Artifact{{Path: d.Name + "/" + nvue.File, Format: renderers.YAML, Content: c.running}}
			if c.running == nil {
				running = []renderers.Artifact{{Path: d.Name + "/other.txt", Content: []byte("x")}}
			}
			have, err := platform.Parse(c.dev, running)
			if err != nil {
				t.Fatalf("%s %s: %v", d.Name, name, err)
			}
			want := desired(t, c.dev)
			ch, rem, err := platform.Diff(c.dev, have, want)
			if err != nil || len(ch) == 0 {
				t.Fatalf("%s %s: %d changes, %v", d.Name, name, len(ch), err)
			}
			if err := platform.CheckScope(c.dev, rem); err != nil {
				t.Errorf("%s %s: its own remediation: %v", d.Name, name, err)
			}
			after, err := platform.Apply(running, rem)
			if err != nil {
				t.Fatalf("%s %s: Apply: %v\n%s", d.Name, name, err, rem.Content)
			}
			var got []byte
			for _, a := range after {
				if filepath.Base(a.Path) == nvue.File {
					got = a.Content
				}
			}
			sameElements(t, d.Name+" "+name, parseNVUE(t, c.dev, got), want)
			if c.running != nil {
				if f0, f1 := foreign(t, c.running), foreign(t, got); fmt.Sprint(f0) != fmt.Sprint(f1) {
					t.Errorf("%s %s: foreign configuration changed:\n%v\n%v", d.Name, name, f0, f1)
				}
			}
			if ch2, _, _ := platform.Diff(c.dev, parseNVUE(t, c.dev, got), want); len(ch2) != 0 {
				t.Errorf("%s %s: %d changes left after apply", d.Name, name, len(ch2))
			}
		}
	}
}

// The example's "before" state tells the story of the checkpoint fix:
// the lossless reservation and the ECN thresholds change, the foreign
// BGP, management and hostname never appear.
func TestBeforeStatePlan(t *testing.T) {
	for _, d := range switches(t) {
		src := runningOf(t, d)
		if src == nil {
			continue
		}
		ch, rem, err := platform.Diff(d, parseNVUE(t, d, src), desired(t, d))
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, c := range ch {
			paths = append(paths, c.Path)
			if c.Path == "qos/traffic-pool/roce-lossless/memory-percent" && c.Disruption != renderers.TrafficPause {
				t.Errorf("%s: the pool change is %s", d.Name, c.Disruption)
			}
		}
		all := strings.Join(paths, "\n")
		for _, want := range []string{"qos/traffic-pool/roce-lossless/memory-percent", "qos/congestion-control/default-global/traffic-class/3/min-threshold"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no change at %s", d.Name, want)
			}
		}
		for _, bad := range []string{"bgp", "hostname", "eth0", "vrf", "type"} {
			if strings.Contains(all, bad) || bytes.Contains(rem.Content, []byte(bad)) {
				t.Errorf("%s: foreign %q in the plan", d.Name, bad)
			}
		}
		if !bytes.Contains(rem.Content, []byte("nv set qos traffic-pool roce-lossless memory-percent ")) {
			t.Errorf("%s: remediation:\n%s", d.Name, rem.Content)
		}
	}
}

// Reordered keys, comments, the map form and range keys parse to the same
// owned model.
func TestParseForms(t *testing.T) {
	d := switches(t)[0]
	want := desired(t, d)
	src := renderNVUE(t, d)
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	var reverse func(n *yaml.Node)
	reverse = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i, j := 0, len(n.Content)-2; i < j; i, j = i+2, j-2 {
				n.Content[i], n.Content[i+1], n.Content[j], n.Content[j+1] = n.Content[j], n.Content[j+1], n.Content[i], n.Content[i+1]
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				n.Content[i].HeadComment = "# a comment the operator left"
			}
		}
		for _, c := range n.Content {
			reverse(c)
		}
	}
	reverse(&doc)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	sameElements(t, "reordered", parseNVUE(t, d, out), want)
	// The map form: one item without the list.
	mapForm := bytes.ReplaceAll(bytes.Replace(src, []byte("- set:\n"), []byte("set:\n"), 1), []byte("\n  "), []byte("\n"))
	sameElements(t, "map form", parseNVUE(t, d, mapForm), want)
	// A range key expands to its members.
	var ports []string
	for _, p := range d.Switch.Ports {
		ports = append(ports, p.Name)
	}
	rng := []byte("- set:\n    qos:\n      mapping:\n        default-global:\n          dscp:\n            '0-2,5': {switch-priority: 4}\n")
	s := parseNVUE(t, d, rng)
	if n := len(s.Elements()); n != 4 {
		t.Errorf("range key: %d elements %v, want 4", n, s.Elements())
	}
}

// A change of the PFC profile unsets the interface binding before the
// profile and sets the new profile before binding it.
func TestCommandOrder(t *testing.T) {
	d := switches(t)[0]
	run := []byte(`- set:
    qos:
      pfc:
        old: {tx: enable, rx: enable, switch-priority: {'3': {}}}
    interface:
      ` + d.Switch.Ports[0].Name + `:
        qos: {pfc: {profile: old}}
        ip: {address: {10.0.0.1/31: {}}}
`)
	_, rem, err := platform.Diff(d, parseNVUE(t, d, run), desired(t, d))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(rem.Content), "\n")
	idx := func(prefix string) int {
		return slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
	}
	unsetOld, setBind := idx("nv unset qos pfc old"), idx("nv set interface "+d.Switch.Ports[0].Name+" qos pfc profile")
	setProfile := idx("nv set qos pfc ")
	if unsetOld < 0 || setBind < 0 || setProfile < 0 || !(setProfile < setBind && setBind < unsetOld) {
		t.Errorf("order: set profile %d, bind %d, unset old %d:\n%s", setProfile, setBind, unsetOld, rem.Content)
	}
	if strings.Contains(string(rem.Content), "nv unset qos pfc old tx") {
		t.Errorf("a removed profile is unset leaf by leaf:\n%s", rem.Content)
	}
}

func FuzzParse(f *testing.F) {
	ds, err := exampleSwitches()
	if err != nil {
		f.Fatal(err)
	}
	d := ds.all[0]
	as, _ := platform.Render(d)
	f.Add(as[0].Content)
	if src, err := os.ReadFile(filepath.Join("../../examples/pod-2048/running", d.Name, nvue.File)); err == nil {
		f.Add(src)
	}
	f.Add([]byte("- set:\n    interface:\n      swp1-999999999: {link: {mtu: 1}}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		running := []renderers.Artifact{{Path: d.Name + "/" + nvue.File, Content: src}}
		s, err := platform.Parse(d, running)
		if err != nil {
			return
		}
		_, _, rem := rendertest.Diff(t, platform, d, s)
		// What parses can be brought to the desired state.
		if _, err := platform.Apply(running, rem); err != nil && !strings.Contains(err.Error(), "range key") {
			t.Fatalf("Apply: %v", err)
		}
	})
}

// BenchmarkParseDiff reads and diffs the running configuration of the
// example's largest NVUE switch against its desired state.
func BenchmarkParseDiff(b *testing.B) {
	ds, err := exampleSwitches()
	if err != nil {
		b.Fatal(err)
	}
	d := slices.MaxFunc(ds.all, func(x, y *ir.Device) int { return len(x.Switch.Ports) - len(y.Switch.Ports) })
	src, err := os.ReadFile(filepath.Join("../../examples/pod-2048/running", d.Name, nvue.File))
	if err != nil {
		as, _ := platform.Render(changed(d))
		src = as[0].Content
	}
	want, err := platform.Desired(d)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(d.Switch.Ports)), "ports")
	benchParseDiff(b, d, src, want)
}

// BenchmarkParseDiff64 reads and diffs the running configuration of a
// 64-port NVUE leaf (an SN5600 of the examples) against its desired state:
// the bound is 2 ms, parse included. No example keeps such a
// leaf's running configuration, so it runs the document rocefab renders
// for a changed intent (comments, flow mappings, quoted keys), which
// differs from the desired state on every port.
func BenchmarkParseDiff64(b *testing.B) {
	ds, err := exampleSwitches()
	if err != nil {
		b.Fatal(err)
	}
	i := slices.IndexFunc(ds.all, func(d *ir.Device) bool { return d.Role == ir.RoleLeaf && len(d.Switch.Ports) == 64 })
	if i < 0 {
		b.Fatal("no 64-port NVUE leaf in the examples")
	}
	d := ds.all[i]
	as, err := platform.Render(changed(d))
	if err != nil {
		b.Fatal(err)
	}
	want, err := platform.Desired(d)
	if err != nil {
		b.Fatal(err)
	}
	benchParseDiff(b, d, as[0].Content, want)
}

// benchParseDiff parses src as d's running configuration and diffs it
// against want, reporting the CPU time per operation besides the wall
// clock's.
func benchParseDiff(b *testing.B, d *ir.Device, src []byte, want renderers.State) {
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		s, err := platform.Parse(d, []renderers.Artifact{{Path: d.Name + "/" + nvue.File, Content: src}})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := platform.Diff(d, s, want); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func markEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			return "<empty object>"
		}
		for k, c := range v {
			v[k] = markEmpty(c)
		}
	case []any:
		for i := range v {
			v[i] = markEmpty(v[i])
		}
	}
	return v
}

// TestCheckScopeRefuses: a remediation line outside the switch's owned
// scope is refused by CheckScope with the switch, and (for what no switch
// owns) by Apply, the emulated switch, without it.
func TestCheckScopeRefuses(t *testing.T) {
	d := switches(t)[0]
	_, rem, err := platform.Diff(d, desired(t, changed(d)), desired(t, d))
	if err != nil || len(rem.Content) == 0 {
		t.Fatalf("no remediation: %v", err)
	}
	port := d.Switch.Ports[0].Name
	for _, tc := range []struct {
		line  string
		apply bool
	}{
		{"nv set system hostname pwned", true},
		{"nv unset router bgp", true},
		{"nv unset qos", true},
		{"nv unset interface " + port, true},
		{"nv set interface " + port + " ip address 10.0.0.1/31", true},
		{"nv set interface swp999 link mtu 9216", false}, // another switch's port
		{"sudo reboot", true},
	} {
		bad := renderers.Remediation{Format: rem.Format, Content: append(bytes.Clone(rem.Content), tc.line+"\n"...)}
		err := platform.CheckScope(d, bad)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.line)) {
			t.Errorf("CheckScope with %q: %v", tc.line, err)
		}
		running := []renderers.Artifact{{Path: d.Name + "/" + nvue.File, Format: renderers.YAML, Content: renderNVUE(t, d)}}
		if _, err := platform.Apply(running, bad); tc.apply && err == nil {
			t.Errorf("Apply took %q", tc.line)
		}
	}
}
