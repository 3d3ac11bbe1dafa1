package sonic_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// skuDevice is the test fabric's SONiC leaf with every fabric port of the
// SKU, laid out as the compiler lays out a tier: perCage ports of speed per
// front-panel cage.
func skuDevice(t testing.TB, sku platforms.SONiCSKU, speedGbps, perCage int) *ir.Device {
	t.Helper()
	layout, err := sku.Layout(speedGbps, perCage)
	if err != nil {
		t.Fatalf("%s: %v", sku.HWSKU, err)
	}
	d := irtest.Fabric().Device("leaf-sonic")
	proto := d.Switch.Ports[0]
	d.Model = sku.Model
	d.Switch.Ports = nil
	for _, l := range layout {
		p := proto
		p.Name, p.SpeedGbps, p.Lanes = l.Name, speedGbps, len(l.Lanes)
		p.SKU = &ir.SKUPort{SerDes: l.Lanes, Alias: l.Alias, Index: l.Index, BreakoutParent: l.Parent, BreakoutMode: l.Mode}
		p.Headroom.SpeedGbps = speedGbps
		d.Switch.Ports = append(d.Switch.Ports, p)
	}
	return d
}

func renderTables(t *testing.T, d *ir.Device) (db, breakout map[string]map[string]map[string]string) {
	t.Helper()
	arts, err := sonic.Renderer{}.Render(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arts {
		var m map[string]map[string]map[string]string
		if err := json.Unmarshal(a.Content, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(a.Path, "/"+sonic.FileName):
			db = m
		case strings.HasSuffix(a.Path, "/"+sonic.BreakoutFileName):
			breakout = m
		}
	}
	return db, breakout
}

// TestPortsAreTheVendors renders every catalog SONiC SKU with all its
// fabric ports at their native speed and compares the PORT table with the
// vendor's port_config.ini row by row: name, lanes, alias, index, speed.
// Then it splits every cage by each breakout count the SKU supports on all
// cages and checks that each parent's ports are the ones its breakout mode
// gives, and that BREAKOUT_CFG names that mode.
func TestPortsAreTheVendors(t *testing.T) {
	models := platforms.SONiCSKUModels()
	if len(models) == 0 {
		t.Fatal("the catalog has no SONiC port map")
	}
	for _, m := range models {
		sku, _ := platforms.LookupSONiCSKU(m)
		t.Run(sku.HWSKU, func(t *testing.T) {
			def, err := sku.DefaultPorts()
			if err != nil {
				t.Fatal(err)
			}
			widest := 0
			for _, p := range sku.Ports {
				widest = max(widest, len(p.Lanes))
			}
			native := 0
			rows := map[string]platforms.SONiCPortEntry{}
			for i, r := range sku.Default {
				if len(def[i].Lanes) == widest {
					rows[r.Name] = r
					native = def[i].SpeedMbps / 1000
				}
			}
			db, breakout := renderTables(t, skuDevice(t, sku, native, 1))
			if len(db["PORT"]) != len(rows) {
				t.Fatalf("PORT has %d ports, port_config.ini %d fabric ports", len(db["PORT"]), len(rows))
			}
			for name, r := range rows {
				got, ok := db["PORT"][name]
				if !ok {
					t.Errorf("port_config.ini's %s is not rendered", name)
					continue
				}
				want := map[string]string{"lanes": join(r.Lanes), "alias": r.Alias, "index": strconv.Itoa(r.Index),
					"speed": strconv.Itoa(native * 1000)}
				if r.SpeedMbps != 0 {
					want["speed"] = strconv.Itoa(r.SpeedMbps)
				}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("PORT|%s %s = %q, port_config.ini has %q", name, k, got[k], v)
					}
				}
			}
			if len(breakout["BREAKOUT_CFG"]) != len(sku.Ports)-countNarrow(sku, widest) {
				t.Errorf("BREAKOUT_CFG has %d parents", len(breakout["BREAKOUT_CFG"]))
			}
			for _, n := range []int{2, 4, 8} {
				speed := native / n
				if _, err := sku.Layout(speed, n); err != nil {
					continue // not every cage takes this split
				}
				db, breakout := renderTables(t, skuDevice(t, sku, speed, n))
				for _, p := range sku.Ports {
					if len(p.Lanes) != widest {
						continue
					}
					mode := breakout["BREAKOUT_CFG"][p.Name]["brkout_mode"]
					want, err := p.Breakout(mode)
					if err != nil {
						t.Fatalf("%d-way: BREAKOUT_CFG|%s: %v", n, p.Name, err)
					}
					var lanes []int
					for _, c := range want {
						got := db["PORT"][c.Name]
						if got["lanes"] != join(c.Lanes) || got["alias"] != c.Alias || got["index"] != strconv.Itoa(c.Index) {
							t.Errorf("%d-way: PORT|%s = %v, mode %s gives %+v", n, c.Name, got, mode, c)
						}
						lanes = append(lanes, c.Lanes...)
					}
					// A split uses the cage's lanes, each once.
					if !slices.Equal(lanes, p.Lanes) {
						t.Errorf("%d-way: %s's ports take lanes %v of %v", n, p.Name, lanes, p.Lanes)
					}
				}
			}
		})
	}
}

func countNarrow(sku platforms.SONiCSKU, widest int) int {
	n := 0
	for _, p := range sku.Ports {
		if len(p.Lanes) != widest {
			n++
		}
	}
	return n
}

func join(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
