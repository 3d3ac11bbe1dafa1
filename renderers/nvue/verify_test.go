package nvue

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
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
	markVerify(set, []string{"set"}, func(form string) bool {
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
