package nvue

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// A form the statement table marks verify gets a "# verify: <form>" line
// directly above its key, unfolded from any flow mapping, and the document
// still reads the same.
func TestMarkVerify(t *testing.T) {
	set := newNode("")
	roce := set.child("qos").child("roce")
	roce.set("mode", "lossless")
	roce.set("state", "enabled")
	set.child("interface").child("swp1").child("link").child("breakout").child("2x")
	want := map[string]bool{"set qos roce mode lossless": true, "set interface IF link breakout Nx {}": true}
	var asked []string
	markVerify(set, []string{"set"}, "set", func(form string) bool {
		asked = append(asked, form)
		return want[form]
	})
	b, err := emit(nil, set)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, w := range []string{
		"        # verify: set qos roce mode lossless\n        mode: lossless\n",
		"            # verify: set interface IF link breakout Nx {}\n            '2x': {}\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in\n%s", w, text)
		}
	}
	if strings.Contains(text, "verify: set qos roce state") {
		t.Errorf("a sourced form is marked:\n%s", text)
	}
	if len(asked) != 3 {
		t.Errorf("forms asked %v, want the three leaves", asked)
	}
	var doc []map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("marked document does not parse: %v", err)
	}
	if got := doc[0]["set"].(map[string]any)["qos"].(map[string]any)["roce"].(map[string]any)["mode"]; got != "lossless" {
		t.Errorf("mode %v", got)
	}
}

// markVerify builds each leaf's form from its parents' forms; it must ask
// for exactly the form renderers.NVUEForm gives the leaf's whole path, on
// every leaf of a real document.
func TestMarkVerifyForms(t *testing.T) {
	for _, d := range rendertest.Devices(irtest.Fabric(), ir.PlatformNVUE) {
		r, err := newRender(d)
		if err != nil {
			t.Fatal(err)
		}
		set, err := r.tree()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		var walk func(n *node, path []string)
		walk = func(n *node, path []string) {
			for _, c := range n.children {
				p := append(slices.Clone(path), c.key)
				if c.leaf || len(c.children) == 0 {
					want = append(want, renderers.NVUEForm(p, c.raw, !c.leaf))
					continue
				}
				walk(c, p)
			}
		}
		walk(set, []string{"set"})
		var got []string
		markVerify(set, []string{"set"}, renderers.NVUEKeyForm([]string{"set"}), func(form string) bool {
			got = append(got, form)
			return false
		})
		if len(want) < 50 || !slices.Equal(got, want) {
			t.Errorf("%s: markVerify asked %d forms, NVUEForm gives %d:\n%v\n%v", d.Name, len(got), len(want), got, want)
		}
	}
}
