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
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/renderers/rendertest"
	"github.com/rocefab/rocefab/renderers/sonic"
)

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
