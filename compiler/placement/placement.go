// Package placement is the scheduler's view of a compiled fabric: where
// each server sits in the hierarchy that decides how far its traffic
// travels.
//
// Three levels matter to a job's collectives:
//
//   - the leaf group: the servers whose NICs reach exactly the same leaves.
//     Traffic between them crosses one leaf and never a spine. In a
//     rail-optimized fabric the servers that share leaf index n on every
//     rail form one group; in a Clos, the servers of one leaf (or, where a
//     server's NICs straddle two leaves, the servers that straddle the same
//     two).
//   - the pod, in a three-tier fabric: the leaves and spines joined
//     without a superspine. Traffic between groups of one pod turns at a
//     spine.
//   - the fabric: everything else crosses the top tier.
//
// The view is derived from the links alone, so a generated fabric and the
// same fabric read back from its inventory.json (an explicit topology)
// give the same groups and pods. Schedulers' files (renderers/scheduler)
// and `rocefab explain` read it.
package placement

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// View is the placement of every server of one fabric. The types live
// in the IR, which carries the view the compiler derives here
// (ir.Fabric.Placement); the names stay for the readers of this package.
type View = ir.Placement

// Group is one leaf group.
type Group = ir.LeafGroup

// Pod is one pod of a three-tier fabric.
type Pod = ir.PlacementPod

// Position is where one server sits.
type Position = ir.ServerPosition

// Of derives the placement view of a compiled fabric.
func Of(fab *ir.Fabric) *View {
	v := &View{Fabric: fab.Name, Tiers: fab.Topology.Tiers}
	byKey := map[string]*Group{}
	var peers []string
	for _, d := range fab.Devices {
		if d.Host == nil {
			continue
		}
		v.Servers++
		peers = peers[:0]
		for _, n := range d.Host.NICs {
			if n.Peer != "" {
				peers = append(peers, n.Peer)
			}
		}
		if len(peers) == 0 {
			v.Unwired = append(v.Unwired, d.Name)
			continue
		}
		slices.Sort(peers)
		peers = slices.Compact(peers)
		key := strings.Join(peers, "\x00")
		g := byKey[key]
		if g == nil {
			g = &Group{Index: len(v.Groups), Leaves: append([]string(nil), peers...)}
			byKey[key] = g
			v.Groups = append(v.Groups, g)
		}
		g.Servers = append(g.Servers, d.Name)
	}
	w := width(len(v.Groups))
	for _, g := range v.Groups {
		g.Name = fmt.Sprintf("leafgroup-%0*d", w, g.Index)
	}
	if v.Tiers >= 3 {
		pods(v, fab)
	}
	v.IndexServers()
	return v
}

// pods joins leaves and spines over their links (a union-find over the
// switches below the superspines) and gives each group the pod its leaves
// lie in.
func pods(v *View, fab *ir.Fabric) {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	for _, d := range fab.Devices {
		if d.Switch == nil || d.Role != ir.RoleLeaf {
			continue
		}
		find(d.Name)
		for _, p := range d.Switch.Ports {
			if p.Facing == ir.RoleSpine {
				a, b := find(d.Name), find(p.Peer)
				if a != b {
					// Join toward the smaller name, so roots do not depend
					// on the order links are visited in.
					if b < a {
						a, b = b, a
					}
					parent[b] = a
				}
			}
		}
	}
	byRoot := map[string]*Pod{}
	var order []*Pod
	for _, g := range v.Groups {
		root := ""
		for i, l := range g.Leaves {
			r := find(l)
			if i == 0 {
				root = r
			} else if r != root {
				root = ""
				break
			}
		}
		if root == "" {
			continue
		}
		p := byRoot[root]
		if p == nil {
			p = &Pod{Index: len(order)}
			byRoot[root] = p
			order = append(order, p)
		}
		p.Groups = append(p.Groups, g)
		p.Servers += len(g.Servers)
		g.Pod = p
	}
	for _, d := range fab.Devices {
		if d.Role == ir.RoleSpine {
			if p := byRoot[find(d.Name)]; p != nil {
				p.Spines = append(p.Spines, d.Name)
			}
		}
	}
	// Keep the pod numbers the model carries (a generated fabric, or an
	// inventory that lists them) when every pod's leaves agree on one and
	// no two pods share it; otherwise number pods in server order.
	numbered := map[int]bool{}
	keep := true
	for _, p := range order {
		n := -2
		for _, g := range p.Groups {
			for _, l := range g.Leaves {
				d := fab.Device(l)
				if d == nil || d.Pod < 0 || (n != -2 && d.Pod != n) {
					keep = false
				}
				if d != nil {
					n = d.Pod
				}
			}
		}
		if !keep || numbered[n] {
			keep = false
			break
		}
		numbered[n] = true
		p.Index = n
	}
	if !keep {
		for i, p := range order {
			p.Index = i
		}
	}
	top := 0
	for _, p := range order {
		top = max(top, p.Index)
	}
	w := width(top + 1)
	for _, p := range order {
		p.Name = fmt.Sprintf("pod-%0*d", w, p.Index)
	}
	slices.SortFunc(order, func(a, b *Pod) int { return cmp.Compare(a.Index, b.Index) })
	v.Pods = order
}

// width is the digits of the largest of n indices, at least two, as the
// topology pads switch names.
func width(n int) int {
	return max(len(strconv.Itoa(max(n-1, 0))), 2)
}
