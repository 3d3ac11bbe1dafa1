package compiler

import (
	"maps"
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
)

// policy records in the model the fabric-wide settings and the facts about
// what the intent states that lint judges, so that every value a rule
// reads comes from the model: the buffer policy, the PFC watchdog and the
// load-balancing mode also without a switch, the host profile also without
// a server, and, per tenant, the NCCL traffic class's origin and the
// environment its intent sets.
func (c *compilation) policy() {
	f := c.f
	b := ir.BufferPolicy{ReserveStated: c.in.Has("buffers", "reserve"),
		AcceptGaps: slices.Clone(f.Buffers.AcceptGaps), Pos: c.pos("buffers")}
	for _, n := range slices.Sorted(maps.Keys(f.Buffers.Reserve)) {
		k, ok := f.Classes[n]
		b.Reserves = append(b.Reserves, ir.Reserve{Class: n, Percent: f.Buffers.Reserve[n], Lossless: ok && k.Lossless})
	}
	c.fab.Buffers = b
	w := f.PFC.Watchdog
	c.fab.Watchdog = ir.Watchdog{Enabled: w.Enabled, DetectMs: w.Detect.Ms(), RestoreMs: w.Restore.Ms(), Action: w.Action,
		Pos: c.pos("pfc.watchdog")}
	c.fab.LoadBalancing = f.Routing.LoadBalancing
	c.fab.Topology.NICSpeedGbps = f.Topology.NIC.Speed.Gbps
	if prof := c.fab.HostProfile; prof != nil {
		h := f.Hosts
		prof.NICModelStated = h.NIC.Model
		prof.NCCLEnv = envVars(h.NCCL.Env)
		prof.ShapedClasses = slices.Sorted(maps.Keys(h.Shape))
		prof.RDMACMStated = h.RDMACM != nil
	}
	for _, tn := range c.fab.Tenants {
		t, ok := f.Tenants[tn.Name]
		if !ok {
			continue
		}
		switch {
		case t.NCCL != nil && t.NCCL.TrafficClass != nil:
			tn.TrafficClassFrom = ir.StatedByTenant
		case f.Hosts.NCCL.TrafficClass != nil:
			tn.TrafficClassFrom = ir.StatedByHosts
		}
		if t.NCCL != nil {
			tn.StatedEnv = envVars(t.NCCL.Env)
		}
	}
}

// envVars returns an environment as variables sorted by name.
func envVars(env map[string]string) []ir.EnvVar {
	var out []ir.EnvVar
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, ir.EnvVar{Name: k, Value: env[k]})
	}
	return out
}
