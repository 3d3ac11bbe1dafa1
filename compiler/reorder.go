package compiler

import (
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// reordering records each switch's load balancing as its platform renders
// it, marks the servers whose packets a per-packet balancing switch can
// reorder, and gives the tenants that run on them NCCL's adaptive-routing
// mode and the NICs the firmware setting that accepts reordered packets.
func (c *compilation) reordering() {
	lb := c.f.Routing.LoadBalancing
	var reorderers []*ir.Device
	for _, d := range c.fab.Devices {
		s := d.Switch
		if s == nil {
			continue
		}
		sw, _ := platforms.LookupSwitch(d.Model)
		b := platforms.LoadBalancing(d.Platform, sw.ASIC, lb)
		s.Balancing = ir.Balancing{Mode: b.Mode, Rendered: b.Rendered, Source: b.Source,
			Reorders: b.Mode == platforms.BalancePerPacket && ecmpGroup(d, b)}
		if s.Balancing.Reorders {
			reorderers = append(reorderers, d)
		}
	}
	if len(reorderers) == 0 {
		return
	}
	// Packets a switch spreads per packet reach every server of the
	// switches it is connected to; a fabric whose switch links fall apart
	// into several parts reorders only the parts that hold such a switch.
	comp := components(c.fab)
	by := map[int]string{}
	for _, d := range reorderers { // device order: the first name wins
		if _, ok := by[comp[d.Name]]; !ok {
			by[comp[d.Name]] = d.Name
		}
	}
	first := ""
	for _, d := range c.fab.Devices {
		if d.Host == nil {
			continue
		}
		for _, n := range d.Host.NICs {
			if k, ok := comp[n.Peer]; ok && by[k] != "" {
				d.Host.ReorderedBy = by[k]
				break
			}
		}
		if first == "" {
			first = d.Host.ReorderedBy
		}
	}
	if first == "" {
		return
	}
	c.adaptiveHosts()
	for _, t := range c.fab.Tenants {
		t.ReorderedBy = ""
		if len(t.Servers) == 0 {
			t.ReorderedBy = first
		}
		for _, s := range t.Servers {
			if d := c.fab.Device(s); d != nil && d.Host != nil && d.Host.ReorderedBy != "" {
				t.ReorderedBy = d.Host.ReorderedBy
				break
			}
		}
		if t.ReorderedBy == "" || t.NoRDMA || slices.ContainsFunc(t.Env, func(e ir.EnvVar) bool { return e.Name == ir.NCCLAdaptiveRouting }) {
			continue // the intent's own value stands (RF109 checks it); a tenant kept off RDMA needs none
		}
		t.Env = append(t.Env, ir.EnvVar{Name: ir.NCCLAdaptiveRouting, Value: "1"})
		slices.SortFunc(t.Env, func(a, b ir.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	}
}

// adaptiveHosts records what the NICs need when a switch reorders: for
// each NIC model whose servers are reordered (a mixed fleet's models each
// have their own profile), the firmware setting of that model that
// accepts adaptively routed packets, and the derivation explain shows.
func (c *compilation) adaptiveHosts() {
	seen := map[*ir.HostProfile]bool{}
	for _, d := range c.fab.Devices {
		if d.Host == nil || d.Host.Profile == nil || d.Host.ReorderedBy == "" || seen[d.Host.Profile] {
			continue
		}
		seen[d.Host.Profile] = true
		c.adaptiveProfile(d.Host.Profile, d.Host.ReorderedBy)
	}
}

// adaptiveProfile gives one profile, whose servers switch by reorders,
// its model's firmware setting and the derivation. A mixed fleet's
// profiles are copies of one another: each appends to a slice of its own.
func (c *compilation) adaptiveProfile(prof *ir.HostProfile, by string) {
	if nic, ok := platforms.LookupNIC(prof.NICModel); ok && nic.AdaptiveRoutingFirmware != "" {
		prof.NICFirmware = append(slices.Clip(prof.NICFirmware), ir.Param{Name: nic.AdaptiveRoutingFirmware, Value: 1})
	}
	sw := c.fab.Device(by)
	prof.Derived = append(slices.Clip(prof.Derived), ir.Derivation{
		Field: "nccl-adaptive-routing", Value: 1, Unit: "",
		Formula: "1 when a switch on the server's paths balances per packet, so a flow's packets arrive out of order; NCCL's default on RoCE is 0",
		Inputs: []ir.Input{
			{Name: "switch", Value: by},
			{Name: "balancing", Value: sw.Switch.Balancing.Mode + " (" + sw.Switch.Balancing.Rendered + ")"},
			{Name: "routing.loadBalancing", Value: c.f.Routing.LoadBalancing, Pos: c.pos("routing.loadBalancing")},
		},
		Source: "NVIDIA/nccl src/transport/net_ib/init.cc: NCCL_IB_ADAPTIVE_ROUTING default -2 = 1 on InfiniBand, 0 on RoCE",
	})
}

// ecmpGroup reports whether d has an ECMP group the balancing acts on: two
// or more switch-facing ports at a speed the mode runs at, either toward
// the tier above (every uplink reaches every destination) or to one peer
// switch (parallel links).
func ecmpGroup(d *ir.Device, b platforms.Balancing) bool {
	up := 0
	peers := map[string]int{}
	for _, p := range d.Switch.Ports {
		if p.Facing == "" || p.Facing == ir.RoleHost || !b.Runs(p.SpeedGbps) {
			continue
		}
		if p.Facing.Rank() < d.Role.Rank() {
			up++
		}
		peers[p.Peer]++
		if up >= 2 || peers[p.Peer] >= 2 {
			return true
		}
	}
	return false
}

// components numbers the parts of the fabric that switch-to-switch links
// join, by switch name.
func components(f *ir.Fabric) map[string]int {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, d := range f.Devices {
		if d.Switch != nil {
			parent[d.Name] = d.Name
		}
	}
	for _, l := range f.Links {
		_, a := parent[l.A.Device]
		_, b := parent[l.B.Device]
		if a && b {
			ra, rb := find(l.A.Device), find(l.B.Device)
			if ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
		}
	}
	out := make(map[string]int, len(parent))
	ids := map[string]int{}
	for _, d := range f.Devices {
		if d.Switch == nil {
			continue
		}
		r := find(d.Name)
		if _, ok := ids[r]; !ok {
			ids[r] = len(ids)
		}
		out[d.Name] = ids[r]
	}
	return out
}
