package sonic_test

import (
	"testing"

	"github.com/rocefab/rocefab/renderers/sonic"
)

// BenchmarkRender renders a DS5000 leaf with hyperscale-100k's port count:
// 128 ports of 400G, two per 800G cage.
func BenchmarkRender(b *testing.B) {
	d := ds5000Leaf(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (sonic.Renderer{}).Render(d); err != nil {
			b.Fatal(err)
		}
	}
}
