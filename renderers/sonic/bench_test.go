package sonic_test

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// BenchmarkRender renders a DS5000 leaf with hyperscale-100k's port count:
// 128 ports of 400G, two per 800G cage.
func BenchmarkRender(b *testing.B) {
	sku, ok := platforms.LookupSONiCSKU("DS5000")
	if !ok {
		b.Fatal("no DS5000 SKU in the catalog")
	}
	d := skuDevice(b, sku, 400, 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (sonic.Renderer{}).Render(d); err != nil {
			b.Fatal(err)
		}
	}
}
