package compiler

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// attachDisruptions gives every device the catalog's disruption classes
// for the platforms that render it: its own and, for a switch, OpenConfig;
// and a SONiC switch how each CONFIG_DB table is applied. A plan labels
// each change with them. Devices of one platform share one
// map, which nothing changes after this.
func attachDisruptions(fab *ir.Fabric) {
	if fab == nil {
		return
	}
	byPlatform := map[string]map[string]string{}
	byDevice := map[string]map[string]map[string]string{}
	var sonic map[string]ir.TableApply
	classes := func(platform string) map[string]string {
		m, ok := byPlatform[platform]
		if !ok {
			m = map[string]string{}
			for _, e := range platforms.Elements() {
				if d := platforms.Disruption(platform, e); d != "" {
					m[e] = d
				}
			}
			byPlatform[platform] = m
		}
		return m
	}
	for _, d := range fab.Devices {
		key := d.Platform
		if d.Switch != nil {
			key += "+" + ir.PlatformOpenConfig
		}
		m, ok := byDevice[key]
		if !ok {
			m = map[string]map[string]string{d.Platform: classes(d.Platform)}
			if d.Switch != nil {
				m[ir.PlatformOpenConfig] = classes(ir.PlatformOpenConfig)
			}
			byDevice[key] = m
		}
		d.Disruption = m
		if d.Platform == ir.PlatformSONiC && d.Switch != nil {
			if sonic == nil {
				sonic = sonicTables()
			}
			d.Tables = sonic
		}
	}
}

// sonicTables is how each CONFIG_DB table the SONiC renderer writes is
// applied, from the catalog: a change's method when no patch rule of the
// table admits it, which holds whatever the switch's ASIC and image.
func sonicTables() map[string]ir.TableApply {
	out := map[string]ir.TableApply{}
	for _, t := range platforms.SONiCApplyTables() {
		a, _ := platforms.SONiCApply(t)
		out[t] = ir.TableApply{Disruption: a.Disruption, Method: a.Apply}
	}
	return out
}
