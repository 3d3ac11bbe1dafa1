package openconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
)

// exampleFabricSwitches are the switches of every example and of the
// irtest fabric, by the name of where they come from.
func exampleFabricSwitches(t *testing.T) map[string][]*ir.Device {
	t.Helper()
	out := map[string][]*ir.Device{"irtest": irtest.Fabric().Switches()}
	dirs, err := os.ReadDir(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dirs {
		if !e.IsDir() {
			continue
		}
		f, err := compiler.Load(filepath.Join("..", "..", "examples", e.Name()), compiler.FrontOptions{})
		if err != nil || f == nil || f.Fabric == nil || f.Diags.HasErrors() {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		out[e.Name()] = f.Fabric.Switches()
	}
	if len(out) < 4 {
		t.Fatalf("%d examples: the walk missed them", len(out)-1)
	}
	return out
}

// firstAndLastOfEachShape returns, in their order, the first and the last
// switch of each shape (ocdevice.go's shape) among sw. Switches of one
// shape differ in their port descriptions alone, which the shape's
// template puts in: the first makes the template and the last reads it
// with descriptions of its own, so the thousands of switches between
// them would repeat what these two prove.
func firstAndLastOfEachShape(t testing.TB, sw []*ir.Device) []*ir.Device {
	t.Helper()
	first, last := map[string]int{}, map[string]int{}
	for i, d := range sw {
		c, err := plan(d)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		k := shape(c)
		if _, ok := first[k]; !ok {
			first[k] = i
		}
		last[k] = i
	}
	keep := map[int]bool{}
	for k, i := range first {
		keep[i], keep[last[k]] = true, true
	}
	var out []*ir.Device
	for i, d := range sw {
		if keep[i] {
			out = append(out, d)
		}
	}
	return out
}

// FirstAndLastOfEachShape is firstAndLastOfEachShape for the tests of
// package openconfig_test.
var FirstAndLastOfEachShape = firstAndLastOfEachShape

// TestDesiredIsTheArtifactParsed: for the first and the last switch of
// every shape of every example (and every switch of the irtest fabric,
// each a shape of its own), the desired state walked from the typed tree
// is what Parse reads from the switch's rendered artifact, element for
// element, and its /qos replace is the artifact's /qos with its members
// qualified (RFC 7951 section 4). For the irtest fabric's switches it is
// also what walking each switch's own tree gives, without the per-shape
// template.
func TestDesiredIsTheArtifactParsed(t *testing.T) {
	var p Platform
	for name, sw := range exampleFabricSwitches(t) {
		if len(sw) == 0 {
			t.Errorf("%s has no switch", name)
		}
		// The /qos of the switches of one shape is the same bytes:
		// qualified once.
		qos := map[string]string{}
		for _, d := range firstAndLastOfEachShape(t, sw) {
			ds, err := p.Desired(d)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, d.Name, err)
			}
			got := ds.(*State)
			arts, err := Renderer{Compact: true}.Render(d)
			if err != nil || len(arts) != 1 {
				t.Fatalf("%s: %s: %v", name, d.Name, err)
			}
			ps, err := p.Parse(d, arts)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, d.Name, err)
			}
			if want := ps.(*State); !slices.Equal(got.elements, want.elements) {
				t.Errorf("%s: %s: the desired state is not its artifact parsed:\n%s", name, d.Name, showElements(got.elements, want.elements))
			}
			if want := artifactQoS(t, arts[0].Content, qos); got.qos != want {
				t.Errorf("%s: %s: /qos replace\n%s\nthe artifact's /qos\n%s", name, d.Name, got.qos, want)
			}
			if name != "irtest" {
				continue
			}
			c, err := plan(d)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := build(c)
			if err != nil {
				t.Fatal(err)
			}
			own, err := flatten(tree, ports(d))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.elements, own) {
				t.Errorf("%s: the shape's template with its descriptions is not its own tree walked:\n%s", d.Name, showElements(got.elements, own))
			}
		}
	}
}

// artifactQoS is the /qos of a compact artifact as the value of a
// replace: its members qualified with openconfig-qos. The compact
// artifact's last member is /qos (members are sorted, and the interfaces
// come first); what is cut out is decoded, which fails when it is not
// /qos whole. seen keeps what was qualified, by the bytes cut out.
func artifactQoS(t *testing.T, js []byte, seen map[string]string) string {
	t.Helper()
	const member = `,"openconfig-qos:qos":`
	at := strings.LastIndex(string(js), member)
	if at < 0 || !strings.HasSuffix(string(js), "}\n") {
		t.Fatalf("no /qos at the end of the artifact")
	}
	raw := string(js[at+len(member) : len(js)-2])
	if v, ok := seen[raw]; ok {
		return v
	}
	var qos map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &qos); err != nil {
		t.Fatalf("the artifact's /qos: %v", err)
	}
	out := map[string]json.RawMessage{}
	for k, v := range qos {
		if !strings.Contains(k, ":") {
			k = "openconfig-qos:" + k
		}
		out[k] = v
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	seen[raw] = string(b)
	return string(b)
}

// showElements lists the first differences of two element lists.
func showElements(got, want []renderers.Element) string {
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(got), len(want)) && n < 10; i++ {
		var g, w renderers.Element
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			b.WriteString("  got  " + g.Path + " = " + g.Value + " (" + g.Kind + ")\n  want " + w.Path + " = " + w.Value + " (" + w.Kind + ")\n")
			n++
		}
	}
	return b.String()
}
