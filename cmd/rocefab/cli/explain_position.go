package cli

import (
	"strconv"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/scheduler"
)

// explainPosition tells where a server sits in the fabric: its leaf group,
// its pod (three tiers) and the fabric, each with the servers it holds and
// the switches that make it one, as the schedulers' files (slurm/, k8s/)
// say it. Switches have no position.
func explainPosition(fab *ir.Fabric, d *ir.Device) []explained {
	if d.Host == nil {
		return nil
	}
	v := fab.Placement
	pos, ok := v.Position(d.Name)
	if !ok {
		return nil
	}
	entry := func(field string, servers int, formula, source string, inputs ...string) explained {
		e := explained{Device: d.Name, Field: field, Value: int64(servers), Unit: "servers", Formula: formula,
			Inputs: map[string]string{}, Source: source}
		for i := 0; i+1 < len(inputs); i += 2 {
			e.Inputs[inputs[i]] = inputs[i+1]
			e.Order = append(e.Order, inputs[i])
		}
		return e
	}
	hl := func(names []string) string {
		s, err := ir.CompressHostlist(names)
		if err != nil {
			return strconv.Itoa(len(names)) + " names"
		}
		return s
	}
	var out []explained
	g := pos.Group
	if g == nil {
		out = append(out, entry("leaf-group", 0, "none: no NIC of this server is linked to a switch",
			"the links of the fabric"))
	} else {
		out = append(out, entry("leaf-group", len(g.Servers),
			"the servers whose NICs reach exactly the leaves this server's NICs reach; traffic between them crosses one leaf",
			"the links of the fabric; slurm/topology.conf SwitchName="+g.Name+", node label "+scheduler.LabelLeafGroup+"="+g.Name,
			"group", g.Name, "leaves", hl(g.Leaves), "servers", hl(g.Servers)))
	}
	if p := pos.Pod; p != nil {
		var groups []string
		for _, pg := range p.Groups {
			groups = append(groups, pg.Name)
		}
		out = append(out, entry("pod", p.Servers,
			"the leaf groups whose leaves are joined by the same spines below the superspines; traffic between them turns at a spine",
			"the links of the fabric; slurm/topology.conf SwitchName="+p.Name+", node label "+scheduler.LabelPod+"="+p.Name,
			"pod", p.Name, "spines", hl(p.Spines), "groups", hl(groups)))
	} else if v.Tiers >= 3 && g != nil {
		out = append(out, entry("pod", 0, "none: the leaves of this server's group lie in more than one pod",
			"the links of the fabric"))
	}
	out = append(out, entry("fabric", v.Servers,
		"every server of the fabric; traffic between groups (between pods, in three tiers) crosses the top tier",
		"slurm/topology.conf top switch, node label "+scheduler.LabelFabric,
		"fabric", fab.Name, "tiers", strconv.Itoa(v.Tiers)))
	return out
}
