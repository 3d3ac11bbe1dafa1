package compiler

import (
	"slices"
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

// sonicPorts are the SONiC SKU layouts an explicit inventory's ports are
// found in, by model and link speed, each indexed by port name: a
// switch's ports of one speed, and all switches of its model, share one
// layout rather than each port laying out the whole switch again.
type sonicPorts map[sonicLayoutKey]map[string]platforms.SONiCPortEntry

type sonicLayoutKey struct {
	model string
	speed int
}

// fill gives an explicit inventory's SONiC port its SKU identity: the
// port of that name in the SKU's layout at the link's speed (each cage
// split into as many ports as the model has at that speed per cage). A
// port the layout does not have keeps no lanes; lint reports it.
func (s sonicPorts) fill(d *ir.Device, p *ir.Port) {
	if d.Platform != ir.PlatformSONiC || !strings.HasPrefix(p.Name, "Ethernet") {
		return
	}
	k := sonicLayoutKey{d.Model, p.SpeedGbps}
	byName, known := s[k]
	if !known {
		byName = sonicLayoutByName(d.Model, p.SpeedGbps)
		s[k] = byName
	}
	if l, ok := byName[p.Name]; ok {
		p.Lanes = len(l.Lanes)
		p.SKU = &ir.SKUPort{SerDes: l.Lanes, Alias: l.Alias, Index: l.Index, BreakoutParent: l.Parent, BreakoutMode: l.Mode}
	}
}

// sonicLayoutByName is the SKU layout of model at speed by port name, nil
// for a model without a port map or a speed its cages cannot be split to.
func sonicLayoutByName(model string, speedGbps int) map[string]platforms.SONiCPortEntry {
	sw, ok := platforms.LookupSwitch(model)
	if !ok {
		return nil
	}
	sku, ok := platforms.LookupSONiCSKU(sw.Model)
	if !ok {
		return nil
	}
	perCage := 1
	if n, phys := portsAt(sw, speedGbps), physicalPorts(sw); phys > 0 && n > phys {
		perCage = n / phys
	}
	ports, err := sku.Layout(speedGbps, perCage)
	if err != nil {
		return nil
	}
	byName := make(map[string]platforms.SONiCPortEntry, len(ports))
	for _, l := range ports {
		if _, dup := byName[l.Name]; !dup {
			byName[l.Name] = l
		}
	}
	return byName
}

// fitSONiCModes gives every SONiC port whose link runs slower than its
// tier's layout (a host port at the NIC's speed on a leaf laid out at its
// uplinks') the breakout mode of its parent that makes as many ports and
// runs the link's speed (platform.json's bracketed speeds), when the SKU
// has one and every used port of the parent runs that speed; the ports
// keep their names and lanes. A port left in a mode that does not run its
// speed is an RF117 error of lint. Ports of one parent, mode and speed
// share one identity.
func fitSONiCModes(fab *ir.Fabric) {
	if fab == nil {
		return
	}
	type key struct {
		sku   *ir.SKUPort
		speed int
	}
	shared := map[key]*ir.SKUPort{}
	for _, d := range fab.Switches() {
		if d.Platform != ir.PlatformSONiC {
			continue
		}
		sku, ok := platforms.LookupSONiCSKU(d.Model)
		if !ok {
			continue
		}
		speeds := map[string][]int{} // the speeds a parent's used ports run
		for _, p := range d.Switch.Ports {
			if p.SKU != nil && !slices.Contains(speeds[p.SKU.BreakoutParent], p.SpeedGbps) {
				speeds[p.SKU.BreakoutParent] = append(speeds[p.SKU.BreakoutParent], p.SpeedGbps)
			}
		}
		for i := range d.Switch.Ports {
			p := &d.Switch.Ports[i]
			if p.SKU == nil || len(speeds[p.SKU.BreakoutParent]) != 1 {
				continue
			}
			k := key{p.SKU, p.SpeedGbps}
			if s, ok := shared[k]; ok {
				p.SKU = s
				continue
			}
			shared[k] = p.SKU
			parent, ok := sku.Parent(p.SKU.BreakoutParent)
			if !ok {
				continue
			}
			if ms, err := parent.ModeSpeeds(p.SKU.BreakoutMode); err != nil || slices.Contains(ms, p.SpeedGbps*1000) {
				continue
			}
			ch, err := parent.Breakout(p.SKU.BreakoutMode)
			if err != nil {
				continue
			}
			mode, ok := parent.ModeFor(len(ch), p.SpeedGbps*1000)
			if !ok {
				continue
			}
			s := *p.SKU
			s.BreakoutMode = mode
			shared[k], p.SKU = &s, &s
		}
	}
}
