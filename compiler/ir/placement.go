package ir

// Placement is the placement of every server of one fabric: where each
// server sits in the hierarchy that decides how far its traffic travels
// (compiler/placement derives it from the links; its package comment
// defines the leaf group and the pod). The compiler fills
// Fabric.Placement with it, so the scheduler renderers and explain read
// one view instead of deriving it again.
type Placement struct {
	Fabric string
	Tiers  int
	// Groups are the leaf groups, in the order of their first server.
	Groups []*LeafGroup
	// Pods are the pods of a three-tier fabric, by index; none below.
	Pods []*PlacementPod
	// Unwired are the servers whose NICs reach no switch, in device order:
	// an explicit inventory may list a server without its links.
	Unwired []string
	// Servers counts every server, wired or not.
	Servers int

	pos map[string]ServerPosition
}

// LeafGroup is one leaf group: the servers whose NICs reach exactly the
// same leaves.
type LeafGroup struct {
	Name  string // "leafgroup-05": the index, zero-padded to the widest
	Index int
	// Leaves are the switches its servers' NICs reach, sorted.
	Leaves []string
	// Servers are its servers, in device order.
	Servers []string
	// Pod is the group's pod; nil below three tiers, or when its leaves
	// lie in more than one pod (a miswired explicit inventory).
	Pod *PlacementPod
}

// PlacementPod is one pod of a three-tier fabric: the leaves and spines
// joined without a superspine.
type PlacementPod struct {
	Name  string // "pod-03"
	Index int
	// Groups are its leaf groups, in group order.
	Groups []*LeafGroup
	// Spines are its spines, sorted.
	Spines []string
	// Servers counts the servers of its groups.
	Servers int
}

// ServerPosition is where one server sits.
type ServerPosition struct {
	Server string
	Group  *LeafGroup    // nil for an unwired server
	Pod    *PlacementPod // nil below three tiers
}

// IndexServers records every server's position from Groups and Unwired,
// for Position; whoever builds a Placement calls it once the groups and
// pods are final.
func (v *Placement) IndexServers() {
	v.pos = make(map[string]ServerPosition, v.Servers)
	for _, s := range v.Unwired {
		v.pos[s] = ServerPosition{Server: s}
	}
	for _, g := range v.Groups {
		for _, s := range g.Servers {
			v.pos[s] = ServerPosition{Server: s, Group: g, Pod: g.Pod}
		}
	}
}

// Position returns where a server sits; false when no server has that
// name.
func (v *Placement) Position(server string) (ServerPosition, bool) {
	p, ok := v.pos[server]
	return p, ok
}
