package openconfig

import (
	"bytes"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// TestTemplateMatchesYgot checks that the per-shape template gives, for
// every switch, exactly the bytes ygot emits for that switch's own tree.
func TestTemplateMatchesYgot(t *testing.T) {
	f := irtest.Fabric()
	for _, d := range f.Switches() {
		c, err := plan(d)
		if err != nil {
			t.Fatal(err)
		}
		want, err := emitYgot(c)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second call comes from the cached template
			got, err := emit(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: template output differs from ygot's", d.Name)
			}
		}
	}
}
