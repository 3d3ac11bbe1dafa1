package sonic_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// The Tomahawk SKU files of sonic-buildimage size ingress_lossless_pool
// below the ASIC's buffer by the cells the SDK keeps for itself; rendered
// pools keep them out too, and the priority groups' reserved minimums on
// top. The vendors' pools (catalog sdkReservedBytes names the files):
// Arista-7060X6-64PE-O128S2 166115492 B of Tomahawk 5's 173268640 B, the
// DS5000 on the same ASIC; DellEMC-Z9664f-O64 113620296 B of Tomahawk 4's
// 119179848 B, the 7060DX5-64S's ASIC.
func TestBroadcomPoolKeepsSDKReserve(t *testing.T) {
	for model, vendor := range map[string]int64{"7060X6-64PE": 166115492, "DS5000": 166115492, "7060DX5-64S": 113620296} {
		f, ds := compileSrc(t, `name: "s"
topology: {servers: 8, rails: 1, nic: {speed: "400G", cable: "3m"},
	leaf: {platform: "sonic", model: "`+model+`", downlinks: 8, uplinks: 8, speed: "400G"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]
`)
		if f == nil || ds.HasErrors() {
			t.Fatalf("%s: %v", model, ds)
		}
		var leaf *ir.Device
		for _, d := range f.Switches() {
			if d.Role == ir.RoleLeaf {
				leaf = d
				break
			}
		}
		arts, err := sonic.Renderer{}.Render(leaf)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		var db map[string]map[string]map[string]any
		for _, a := range arts {
			if a.Path == leaf.Name+"/"+sonic.FileName {
				if err := json.Unmarshal(a.Content, &db); err != nil {
					t.Fatalf("%s: %v", model, err)
				}
			}
		}
		bp := leaf.Switch.Buffers
		for _, pool := range []string{"ingress_lossless_pool", "egress_lossless_pool"} {
			v, _ := db["BUFFER_POOL"][pool]["size"].(string)
			size, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s size: %v", model, pool, err)
			}
			if size+bp.MinimumBytes != vendor {
				t.Errorf("%s: %s size %d B + the minimums %d B = %d B; the vendor's file gives %d B", model, pool, size, bp.MinimumBytes, size+bp.MinimumBytes, vendor)
			}
		}
	}
}
