package compiler

import (
	"cmp"
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
)

// loopRTT derives the round trip of the fabric's longest path from its
// links: per hop class (host-leaf, leaf-spine, spine-superspine) the
// slowest speed and the longest cable, each class crossed up and down.
func (c *compilation) loopRTT() physics.Derivation {
	type class struct {
		name  string
		speed int
		cable float64
	}
	byName := map[string]*class{}
	for _, l := range c.fab.Links {
		a, b := c.fab.Device(l.A.Device), c.fab.Device(l.B.Device)
		if a == nil || b == nil || l.SpeedGbps <= 0 {
			continue
		}
		// Name the class from the servers up: the lower device first.
		if a.Role.Rank() < b.Role.Rank() {
			a, b = b, a
		}
		name := string(a.Role) + "-" + string(b.Role)
		k := byName[name]
		if k == nil {
			k = &class{name: name, speed: l.SpeedGbps}
			byName[name] = k
		}
		k.speed = min(k.speed, l.SpeedGbps)
		k.cable = max(k.cable, l.CableM)
	}
	var hops []physics.RTTHop
	for _, k := range byName {
		hops = append(hops, physics.RTTHop{Name: k.name, SpeedGbps: k.speed, CableM: k.cable})
	}
	slices.SortFunc(hops, func(x, y physics.RTTHop) int { return cmp.Compare(x.Name, y.Name) })
	return physics.FabricRTT(hops, c.f.MTU.Host)
}

// ecnPredictions runs the DCQCN fluid model for each lossless class with
// ECN on the plan's fastest port, at the fabric's round trip and with the
// servers' DCQCN parameters, and records the marking probability the
// fixed point needs on the plan for RF102.
func (c *compilation) ecnPredictions(plan *ir.BufferPlan, s *ir.Switch, cell int, rtt physics.Derivation) []ir.Derivation {
	speed := 0
	for _, p := range s.Ports {
		speed = max(speed, p.SpeedGbps)
	}
	if speed <= 0 || !rtt.Valid() || !c.f.Hosts.DCQCN.Enabled {
		return nil
	}
	params := map[string]int64{}
	for k, v := range c.f.Hosts.DCQCN.Parameters {
		params[k] = int64(v)
	}
	nic := physics.ConnectXDCQCN(params)
	var out []ir.Derivation
	for _, cl := range c.fab.LosslessClasses() {
		e := cl.ECN
		if e == nil {
			continue
		}
		lo, hi := e.MinBytes, e.MaxBytes
		if e.InCells() {
			if cell <= 0 {
				continue
			}
			lo, hi = e.MinCells*int64(cell), e.MaxCells*int64(cell)
		}
		pr := physics.PredictECN(cl.Name, physics.FluidInput{LinkGbps: speed, Flows: physics.FluidFlows,
			RTT: float64(rtt.Value) / 1e9, KminBytes: lo, KmaxBytes: hi, PmaxPercent: e.Probability,
			PacketBytes: c.f.MTU.RoCE, NIC: nic})
		plan.MarkingNeeded = max(plan.MarkingNeeded, float64(pr.Needed.Value)/1e6)
		for _, d := range []physics.Derivation{pr.Utilisation, pr.Queue, pr.Needed, pr.Stability} {
			if d.Formula == "" {
				continue
			}
			x := toIR(d)
			for i := range x.Inputs {
				switch x.Inputs[i].Name {
				case "Kmin":
					x.Inputs[i].Pos = c.pos("classes." + cl.Name + ".ecn.min")
				case "Kmax":
					x.Inputs[i].Pos = c.pos("classes." + cl.Name + ".ecn.max")
				case "Pmax":
					x.Inputs[i].Pos = c.pos("classes." + cl.Name + ".ecn.probability")
				}
			}
			out = append(out, x)
		}
	}
	return out
}
