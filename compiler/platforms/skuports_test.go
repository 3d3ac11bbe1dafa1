package platforms

import (
	"strconv"
	"strings"
	"testing"
)

// The catalog's port count of a SONiC-capable model at each speed is what
// its SKU's platform.json lays out when every cage takes the same breakout
// mode (the compiler splits every cage alike): no more, since a cage
// without the mode would not come up, and no fewer.
func TestCatalogPortsMatchSKU(t *testing.T) {
	for _, m := range SONiCSKUModels() {
		sw, ok := LookupSwitch(m)
		if !ok {
			t.Errorf("SONiC SKU %s: no catalog switch", m)
			continue
		}
		sku, _ := LookupSONiCSKU(m)
		for speed, n := range sw.Ports {
			g, err := strconv.Atoi(strings.TrimSuffix(speed, "G"))
			if err != nil {
				continue // 1.6T: no SKU here runs it
			}
			most := 0
			for perCage := 1; perCage <= 8; perCage++ {
				if ports, err := sku.Layout(g, perCage); err == nil {
					most = max(most, len(ports))
				}
			}
			if most != n {
				t.Errorf("%s: the catalog gives %d×%s, the SKU %s lays out %d with every cage in one mode", m, n, speed, sku.HWSKU, most)
			}
		}
	}
}
