package ir

import (
	"slices"
	"strconv"
	"strings"
)

// nxosBreakoutMaps are the maps `interface breakout module M port P map
// MAP` takes on Nexus 9000, as Cisco's own data model for NX-OS fabrics
// lists them (netascode.cisco.com, data_models/vxlan/topology/interface/
// breakout_interface: map choices 10g-4x, 25g-4x, 50g-2x, 50g-4x,
// 100g-2x, 100g-2x-pam4, 100g-4x, 200g-2x; example `interface breakout
// module 1 port 49,51-52 map 10g-4x`); the command and the Ethernet1/P/N
// names it creates are in Cisco's NX-API REST SDK user guide 9.2(x),
// "Configuring Breakout on High-Bandwidth Interfaces" (`interface breakout
// module`, `show system internal im info interface ethernet 1/1/1`). A map
// splits the cage into ports of one speed: a cage whose ports run mixed
// speeds, or a speed and count in no map, has no form. The maps live
// with the IR so that the NX-OS renderer, which writes them, and lint,
// which reports a cage none splits, share them.
var nxosBreakoutMaps = []string{"10g-4x", "25g-4x", "50g-2x", "50g-4x", "100g-2x", "100g-4x", "200g-2x"}

// NXOSBreakoutMap returns the NX-OS breakout map that splits a cage into
// n ports of speedGbps each, and false when NX-OS has no such map.
func NXOSBreakoutMap(speedGbps, n int) (string, bool) {
	m := strconv.Itoa(speedGbps) + "g-" + strconv.Itoa(n) + "x"
	return m, slices.Contains(nxosBreakoutMaps, m)
}

// NXOSBreakoutMaps returns every breakout map NX-OS takes, as
// NXOSBreakoutMap names them, for messages that list them.
func NXOSBreakoutMaps() []string { return slices.Clone(nxosBreakoutMaps) }

// NXOSCage is one front-panel cage of an NX-OS switch that the switch's
// port names split (Ethernet1/P/N): the speeds its ports run, in port
// order, and the breakout map that makes them, "" when none does.
type NXOSCage struct {
	Port   int    // P of Ethernet1/P/N
	Speeds []int  // Gbit/s of each split port, in the order given
	Map    string // the breakout map, "" when NX-OS has none for Speeds
}

// NXOSCages returns the cages the named ports split, by cage number;
// names[i] runs at speedsGbps[i]. An unsplit name (Ethernet1/P) or one
// that is no front-panel port is not a split cage and is left out. A
// cage's map splits it into as many ports as the speed fits into the
// cage's own speed, cageGbps: a cage's ports may be fewer than its map
// makes (the others stay unused), but all of one speed.
func NXOSCages(names []string, speedsGbps []int, cageGbps int) []NXOSCage {
	byPort := map[int]*NXOSCage{}
	var order []int
	for i, n := range names {
		rest, ok := strings.CutPrefix(n, "Ethernet1/")
		if !ok {
			continue
		}
		ps, _, split := strings.Cut(rest, "/")
		p, err := strconv.Atoi(ps)
		if !split || err != nil || i >= len(speedsGbps) {
			continue
		}
		c := byPort[p]
		if c == nil {
			c = &NXOSCage{Port: p}
			byPort[p] = c
			order = append(order, p)
		}
		c.Speeds = append(c.Speeds, speedsGbps[i])
	}
	slices.Sort(order)
	out := make([]NXOSCage, 0, len(order))
	for _, p := range order {
		c := byPort[p]
		s := c.Speeds[0]
		if s > 0 && cageGbps%s == 0 && !slices.ContainsFunc(c.Speeds, func(x int) bool { return x != s }) {
			if m, ok := NXOSBreakoutMap(s, cageGbps/s); ok {
				c.Map = m
			}
		}
		out = append(out, *c)
	}
	return out
}
