package compiler

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// attachDisruptions gives every device the catalog's disruption classes
// for the platforms that render it: its own and, for a switch, OpenConfig;
// and a SONiC switch how its release takes each CONFIG_DB change. A plan
// labels each change with them. Devices of one platform share one
// map, and SONiC switches of one model and release one applier, which
// nothing changes after this.
func attachDisruptions(fab *ir.Fabric) {
	if fab == nil {
		return
	}
	byPlatform := map[string]map[string]string{}
	byDevice := map[string]map[string]map[string]string{}
	sonic := map[[2]string]ir.SONiCApply{}
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
			k := [2]string{d.Model, d.Release}
			a, ok := sonic[k]
			if !ok {
				// The release was checked against the catalog's when
				// the intent was read; an error leaves the switch
				// without rules, which plans every change as a patch.
				if p, err := platforms.NewSONiCApplier(d.Release, d.Model); err == nil {
					a = p
				}
				sonic[k] = a
			}
			d.Apply = a
		}
	}
}
