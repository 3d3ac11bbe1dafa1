package sonic_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/rendertest"
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
				want := map[string]string{"lanes": renderers.JoinInts(r.Lanes, ","), "alias": r.Alias, "index": strconv.Itoa(r.Index),
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
						if got["lanes"] != renderers.JoinInts(c.Lanes, ",") || got["alias"] != c.Alias || got["index"] != strconv.Itoa(c.Index) {
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

// TestPortSpeedsFitTheirModes: for each catalog SONiC SKU, each speed a
// tier of it can run and each NIC speed at or below it, every rendered
// port's speed is one its parent's breakout mode runs, as the SKU's
// platform.json lists the mode's speeds; or lint refuses the fabric with
// RF117, naming the modes (the compiler, when no mode splits the cages
// for the tier at all).
func TestPortSpeedsFitTheirModes(t *testing.T) {
	for _, model := range platforms.SONiCSKUModels() {
		sw, _ := platforms.LookupSwitch(model)
		sku, _ := platforms.LookupSONiCSKU(model)
		for _, s := range rendertest.LinkSpeeds(sw.Ports) {
			what := fmt.Sprintf("%s, tier %dG, NIC %dG", model, s.Tier, s.NIC)
			f, ds := compileSrc(t, fmt.Sprintf(`name: "s"
topology: {servers: 8, rails: 1, nic: {speed: "%dG", cable: "3m"},
	leaf: {platform: "sonic", model: %q, downlinks: 8, uplinks: 8, speed: "%dG"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]
`, s.NIC, model, s.Tier))
			if f == nil {
				// The SKU's cages cannot be split for the tier at
				// all: the compiler names the modes they have.
				if !strings.Contains(fmt.Sprint(ds), "has no breakout mode for") {
					t.Errorf("%s: %v", what, ds)
				}
				continue
			}
			if ds.HasErrors() {
				if !slices.ContainsFunc(ds, func(d diag.Diagnostic) bool {
					return d.Rule == "RF117" && d.Severity == diag.Error && strings.Contains(d.Message, "breakout mode")
				}) {
					t.Errorf("%s: refused, but not for a breakout mode: %v", what, ds)
				}
				continue
			}
			for _, d := range f.Switches() {
				if d.Platform != ir.PlatformSONiC {
					continue
				}
				checkPortModes(t, what, d, sku)
			}
		}
	}
}

// checkPortModes checks d's rendered PORT speeds against the breakout
// modes BREAKOUT_CFG gives their parents.
func checkPortModes(t *testing.T, what string, d *ir.Device, sku platforms.SONiCSKU) {
	t.Helper()
	arts, err := sonic.Renderer{}.Render(d)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	db := map[string]map[string]map[string]any{}
	for _, a := range arts {
		var m map[string]map[string]map[string]any
		if err := json.Unmarshal(a.Content, &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			db[k] = v
		}
	}
	for _, p := range d.Switch.Ports {
		if p.SKU == nil {
			t.Errorf("%s: %s %s has no SKU identity", what, d.Name, p.Name)
			continue
		}
		parent, ok := sku.Parent(p.SKU.BreakoutParent)
		mode, _ := db["BREAKOUT_CFG"][p.SKU.BreakoutParent]["brkout_mode"].(string)
		speed, _ := strconv.Atoi(fmt.Sprint(db["PORT"][p.Name]["speed"]))
		ms, err := parent.ModeSpeeds(mode)
		if !ok || err != nil || !slices.Contains(parent.ModeNames(), mode) {
			t.Errorf("%s: %s %s: parent %s mode %q is not the SKU's (%v)", what, d.Name, p.Name, p.SKU.BreakoutParent, mode, err)
			continue
		}
		if !slices.Contains(ms, speed) || speed != p.SpeedGbps*1000 {
			t.Errorf("%s: %s %s runs %d Mb/s (the link %dG) under %s mode %q, which runs %v", what, d.Name, p.Name, speed, p.SpeedGbps, p.SKU.BreakoutParent, mode, ms)
		}
	}
}

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
