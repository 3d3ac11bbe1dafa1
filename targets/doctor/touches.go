package doctor

import (
	"maps"
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/placement"
)

// Touches says whom a finding reaches: the servers whose traffic it
// slows or drops, the tenants running on them, and the scheduler's blocks
// (the leaf groups that rocefab's Slurm topology files and Kubernetes
// labels name) and pods they sit in.
type Touches struct {
	Servers int      `json:"servers"`
	Tenants []string `json:"tenants,omitempty"`
	Blocks  []string `json:"blocks,omitempty"`
	Pods    []string `json:"pods,omitempty"`
}

// reach resolves the servers each finding touches through the fabric's
// placement.
type reach struct {
	fab     *ir.Fabric
	view    *placement.View
	tenants []*ir.Tenant
	// below lists, for each switch, the leaf groups whose traffic it
	// carries toward the servers.
	below map[string][]*placement.Group
	role  map[string]ir.Role
}

func newReach(fab *ir.Fabric) *reach {
	r := &reach{fab: fab, view: fab.Placement, tenants: fab.Tenants, below: map[string][]*placement.Group{}, role: map[string]ir.Role{}}
	for _, d := range fab.Devices {
		r.role[d.Name] = d.Role
	}
	for _, g := range r.view.Groups {
		for _, l := range g.Leaves {
			r.below[l] = append(r.below[l], g)
		}
	}
	for _, p := range r.view.Pods {
		for _, s := range p.Spines {
			r.below[s] = append(r.below[s], p.Groups...)
		}
	}
	for _, d := range fab.Devices {
		// Without pods every group lies under each spine; the top tier
		// carries every group.
		if (d.Role == ir.RoleSpine && len(r.view.Pods) == 0) || d.Role == ir.RoleSuperspine {
			r.below[d.Name] = r.view.Groups
		}
	}
	return r
}

// touches gathers the servers a finding reaches: its origin and peer and
// victims where they are servers; where they are switches, the servers
// below them (for a cable between two switches, below the lower end).
func (r *reach) touches(m *model, f *Finding) Touches {
	groups := map[*placement.Group]bool{}
	servers := map[string]bool{}
	add := func(e Endpoint) {
		if r.role[e.Device] == ir.RoleHost {
			servers[e.Device] = true
			return
		}
		if e.Port != "" {
			if p := m.port(e); p != nil && p.peerP != nil && p.peerP.nic {
				servers[p.peer.Device] = true
				return
			}
			if p := m.port(e); p != nil && p.hasPeer && r.lower(p.peer.Device, e.Device) {
				e = p.peer
			}
		}
		for _, g := range r.below[e.Device] {
			groups[g] = true
		}
	}
	add(f.Origin)
	if f.Peer != nil {
		add(*f.Peer)
	}
	for _, v := range f.Victims {
		add(v.Endpoint)
	}
	t := Touches{}
	blocks := map[*placement.Group]bool{}
	for g := range groups {
		t.Servers += len(g.Servers)
		blocks[g] = true
	}
	for s := range servers {
		pos, _ := r.view.Position(s)
		if pos.Group == nil || !groups[pos.Group] {
			t.Servers++
		}
		if pos.Group != nil {
			blocks[pos.Group] = true
		}
	}
	if t.Servers == 0 {
		return t
	}
	pods := map[string]bool{}
	for g := range blocks {
		t.Blocks = append(t.Blocks, g.Name)
		if g.Pod != nil {
			pods[g.Pod.Name] = true
		}
	}
	slices.Sort(t.Blocks)
	t.Pods = slices.Sorted(maps.Keys(pods))
	for _, tn := range r.tenants {
		hit := len(tn.Servers) == 0
		for _, s := range tn.Servers {
			if servers[s] {
				hit = true
				break
			}
			if pos, ok := r.view.Position(s); ok && pos.Group != nil && groups[pos.Group] {
				hit = true
				break
			}
		}
		if hit {
			t.Tenants = append(t.Tenants, tn.Name)
		}
	}
	slices.Sort(t.Tenants)
	return t
}

// lower tells whether switch a sits in a lower tier than b (a leaf below
// a spine, a spine below a superspine).
func (r *reach) lower(a, b string) bool { return r.role[a].Rank() > r.role[b].Rank() }
