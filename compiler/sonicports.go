package compiler

import (
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/compiler/topology"
)

// sonicLayout gives a SONiC tier its SKU's port layout (compiler/platforms
// port maps: names, lanes, aliases and breakout modes as platform.json and
// hwsku.json define them). A model without a port map keeps the name
// pattern and no lanes, which lint reports (RF117). It reports an error at
// path and returns false when the SKU cannot split its cages into the
// tier's ports.
func (c *compilation) sonicLayout(path string, t *topology.Tier, sw platforms.Switch) bool {
	if t.Platform != ir.PlatformSONiC {
		return true
	}
	sku, ok := platforms.LookupSONiCSKU(sw.Model)
	if !ok {
		return true
	}
	perCage := 1
	if t.Physical > 0 && t.Ports > t.Physical {
		perCage = t.Ports / t.Physical
	}
	ports, err := sku.Layout(t.Speed, perCage)
	if err != nil {
		c.errorf(c.pos(path+".speed"), "%s.speed: %v", path, err)
		return false
	}
	t.Layout = make([]topology.LayoutPort, len(ports))
	for i, p := range ports {
		t.Layout[i] = topology.LayoutPort{Name: p.Name, Alias: p.Alias, Index: p.Index, Lanes: p.Lanes, Parent: p.Parent, Mode: p.Mode}
	}
	return true
}

// sonicPort fills the SKU identity of an explicit inventory's SONiC port:
// the port of that name in the SKU's layout at the link's speed (each cage
// split into as many ports as the model has at that speed per cage). A
// port the layout does not have keeps no lanes; lint reports it.
func sonicPort(d *ir.Device, p *ir.Port) {
	if d.Platform != ir.PlatformSONiC || !strings.HasPrefix(p.Name, "Ethernet") {
		return
	}
	sw, ok := platforms.LookupSwitch(d.Model)
	if !ok {
		return
	}
	sku, ok := platforms.LookupSONiCSKU(sw.Model)
	if !ok {
		return
	}
	perCage := 1
	if n, phys := portsAt(sw, p.SpeedGbps), physicalPorts(sw); phys > 0 && n > phys {
		perCage = n / phys
	}
	ports, err := sku.Layout(p.SpeedGbps, perCage)
	if err != nil {
		return
	}
	for _, l := range ports {
		if l.Name == p.Name {
			p.Lanes = len(l.Lanes)
			p.SKU = &ir.SKUPort{SerDes: l.Lanes, Alias: l.Alias, Index: l.Index, BreakoutParent: l.Parent, BreakoutMode: l.Mode}
			return
		}
	}
}
