package sonic_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// ds5000Leaf is a DS5000 leaf with hyperscale-100k's port count: 128
// ports of 400G, two per 800G cage.
func ds5000Leaf(tb testing.TB) *ir.Device {
	tb.Helper()
	sku, ok := platforms.LookupSONiCSKU("DS5000")
	if !ok {
		tb.Fatal("no DS5000 SKU in the catalog")
	}
	return skuDevice(tb, sku, 400, 2)
}

// TestShapesPrintEachSwitchsOwnValues: switches of one shape are ordered
// and printed from what the first of them kept; each gets exactly the
// bytes its own entries print to, its own peers in its descriptions.
func TestShapesPrintEachSwitchsOwnValues(t *testing.T) {
	d := ds5000Leaf(t)
	for i := range 3 {
		d.Name = fmt.Sprintf("leaf-%d", i)
		for j := range d.Switch.Ports {
			d.Switch.Ports[j].Peer = fmt.Sprintf("spine-%d-%d", i, j)
		}
		arts, err := sonic.Renderer{}.Render(d)
		if err != nil {
			t.Fatal(err)
		}
		db, breakout, err := sonic.PrintedAlone(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(arts) != 2 || !bytes.Equal(arts[0].Content, db) || !bytes.Equal(arts[1].Content, breakout) {
			t.Fatalf("switch %d of the shape: Render's files differ from its own entries printed", i)
		}
		if want := fmt.Sprintf(`"spine-%d-0:`, i); !bytes.Contains(db, []byte(want)) {
			t.Errorf("switch %d: no description %s... in its config_db.json", i, want)
		}
	}
}
