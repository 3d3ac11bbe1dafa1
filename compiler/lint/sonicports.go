package lint

import (
	"maps"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// sonicPortGaps reports, as part of RF117, the SONiC ports whose lanes
// config_db.json cannot carry: a model without a SONiC port map in the
// catalog (its ports keep their names and no lanes, rather than invented
// ones), and in an explicit inventory a port name the SKU does not create
// at the link's speed. A wrong lane list breaks a port, since lanes are
// fixed when SONiC creates it, so rocefab renders none and says so.
func sonicPortGaps(p *Pass) {
	noMap := map[string][]*ir.Device{}
	for _, d := range p.Fabric.Devices {
		if d.Switch == nil || d.Platform != ir.PlatformSONiC {
			continue
		}
		var missing []string
		for _, pt := range d.Switch.Ports {
			if pt.SKU == nil || len(pt.SKU.SerDes) == 0 {
				missing = append(missing, pt.Name)
			}
		}
		if len(missing) == 0 {
			continue
		}
		sku, ok := platforms.LookupSONiCSKU(d.Model)
		if !ok {
			noMap[d.Model] = append(noMap[d.Model], d)
			continue
		}
		p.ReportDevice(p.Pos("topology.inventory"), d.Name, missing[0],
			"sonic: %s %s not %s of SKU %s at %d G (it names its ports after platform.json, e.g. %s): PORT lanes are not rendered for %s",
			plural(len(missing), "port", "ports"), strings.Join(head(missing, 4), ", "), map[bool]string{true: "a port", false: "ports"}[len(missing) == 1],
			sku.HWSKU, d.Switch.Ports[0].SpeedGbps, sku.Ports[0].Name, map[bool]string{true: "it", false: "them"}[len(missing) == 1])
	}
	for _, m := range slices.Sorted(maps.Keys(noMap)) {
		ds := noMap[m]
		p.ReportDevice(p.Pos("topology"), ds[0].Name, "",
			"sonic (%s): %s has no SONiC port map in the catalog (known: %s): PORT lanes, alias and index are not rendered and breakouts are not written; the switch's own PORT table must already hold the ports",
			plural(len(ds), "switch", "switches"), m, strings.Join(platforms.SONiCSKUModels(), ", "))
	}
}

func head(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), "…")
	}
	return s
}
