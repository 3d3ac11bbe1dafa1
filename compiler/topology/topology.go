// Package topology expands a fabric's shape into devices and links:
// rail-optimized and clos fabrics of two or three tiers from a handful of
// parameters, or an explicit list of devices and links.
//
// It decides who is wired to whom and what each port is called in its
// platform's own naming. It knows nothing of QoS: the compiler attaches
// that to the devices afterwards.
package topology

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Params is everything expansion needs, resolved: port counts come from the
// platform catalog, defaults are filled in.
type Params struct {
	Style   string // "rail-optimized" or "clos"
	Servers int
	Rails   int
	// NIC describes the host links.
	NICSpeed  int
	NICCable  float64
	NICModel  string
	NICPorts  []string // netdev of NIC i
	HCAs      []string // RDMA device of NIC i
	Leaf      Tier
	Spine     *Tier // nil for a single leaf
	Super     *Tier // nil below three tiers
	PodServer int   // servers per pod in three tiers; 0 picks the largest 1:1 pod
	Naming    Naming
}

// Tier describes one switch tier. Speed and Cable describe the links from
// the tier below into this one (for the leaf tier: its uplinks' speed is in
// the Spine tier).
type Tier struct {
	Platform  string
	Model     string
	Release   string // the NOS release, "" for the newest documented
	Ports     int    // front-panel ports at the tier's port speed (breakouts included)
	Physical  int    // physical ports (for breakout naming); 0 means Ports
	Speed     int
	Cable     float64
	Count     int // fixed number of switches (per pod for spines in three tiers), 0 for the fewest
	Downlinks int // leaves only
	Uplinks   int // leaves only
	// Layout is the switch's ports at the tier's speed in front-panel
	// order, as the model's SONiC SKU creates them; port i of the tier is
	// Layout[i]. Nil where the model has no port map or the platform is
	// not SONiC: names then follow the platform's pattern and carry no
	// lanes.
	Layout []LayoutPort
	// skus is Layout as the ports' SKU identities, made once per expansion
	// and shared by the same port of every switch of the tier.
	skus []ir.SKUPort
}

// shareSKUs makes t's SKU identities for its switches' ports to share.
func (t *Tier) shareSKUs() {
	t.skus = make([]ir.SKUPort, len(t.Layout))
	for i, l := range t.Layout {
		t.skus[i] = ir.SKUPort{SerDes: l.Lanes, Alias: l.Alias, Index: l.Index, BreakoutParent: l.Parent, BreakoutMode: l.Mode}
	}
}

// A LayoutPort is one port of a SONiC SKU's layout: its name, alias,
// front-panel index and SerDes lanes, and the parent port and breakout
// mode that create it.
type LayoutPort struct {
	Name, Alias  string
	Index        int
	Lanes        []int
	Parent, Mode string
}

// Naming holds the name patterns: {rail}, {pod} and {n}.
type Naming struct {
	Leaf, Spine, Superspine, Server string
}

// DefaultNaming returns the default name patterns of a style.
func DefaultNaming(style string) Naming {
	n := Naming{Leaf: "leaf-{n}", Spine: "spine-{n}", Superspine: "superspine-{n}", Server: "gpu-{n}"}
	if style == "rail-optimized" {
		n.Leaf = "leaf-r{rail}-{n}"
	}
	return n
}

// MaxLinks bounds an expansion: ten times the 100,000-GPU design point.
const MaxLinks = 3_000_000

// Result is an expanded fabric: devices without QoS, and links.
type Result struct {
	Devices []*ir.Device
	Links   []*ir.Link
	Tiers   int
	Pods    int
	// Oversubscription is down/up capacity per tier boundary ("leaf",
	// "spine").
	Oversubscription map[string]float64
}

// Error is an expansion failure the user can fix, with the intent field to
// point at (a dotted path such as "topology.spine.count").
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string { return e.Field + ": " + e.Msg }

func errf(field, format string, args ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// names formats indices with a pattern, zero-padding {n} to the width of
// the largest index (at least min digits).
type namer struct {
	pattern string
	width   int
}

func newNamer(pattern string, count, min int) namer {
	w := len(strconv.Itoa(max(count-1, 0)))
	return namer{pattern: pattern, width: max(w, min)}
}

func (n namer) name(i, rail, pod int) string {
	s := strings.ReplaceAll(n.pattern, "{n}", fmt.Sprintf("%0*d", n.width, i))
	if rail >= 0 {
		s = strings.ReplaceAll(s, "{rail}", strconv.Itoa(rail))
	}
	if pod >= 0 {
		s = strings.ReplaceAll(s, "{pod}", strconv.Itoa(pod))
	}
	return s
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// switchDev makes a switch device with room for its ports.
func switchDev(name string, role ir.Role, t *Tier, rail, pod, ports int) *ir.Device {
	return &ir.Device{Name: name, Role: role, Platform: t.Platform, Model: t.Model, Release: t.Release, Rail: rail, Pod: pod,
		Switch: &ir.Switch{Ports: make([]ir.Port, 0, ports)}}
}

// wiring links two switch ports, taking the next free port on each side.
type wiring struct {
	links []*ir.Link
	slab  []ir.Link
}

// link returns a new link. Links are carved from slabs: a 100,000-GPU
// fabric has a million of them, and one allocation each was most of the
// expansion's time.
func (w *wiring) link(l ir.Link) *ir.Link {
	if len(w.slab) == cap(w.slab) {
		w.slab = make([]ir.Link, 0, 4096)
	}
	w.slab = append(w.slab, l)
	p := &w.slab[len(w.slab)-1]
	w.links = append(w.links, p)
	return p
}

func (w *wiring) connect(a *ir.Device, at *Tier, b *ir.Device, bt *Tier, speed int, cable float64) {
	// The ports are placed first and filled in place: a port is a large
	// struct, and a copy of each costs more than the rest of the wiring.
	a.Switch.Ports = append(a.Switch.Ports, portAt(a.Platform, len(a.Switch.Ports), at))
	b.Switch.Ports = append(b.Switch.Ports, portAt(b.Platform, len(b.Switch.Ports), bt))
	pa, pb := &a.Switch.Ports[len(a.Switch.Ports)-1], &b.Switch.Ports[len(b.Switch.Ports)-1]
	pa.SpeedGbps, pa.CableM, pa.Peer, pa.PeerPort, pa.Facing = speed, cable, b.Name, pb.Name, b.Role
	pb.SpeedGbps, pb.CableM, pb.Peer, pb.PeerPort, pb.Facing = speed, cable, a.Name, pa.Name, a.Role
	w.link(ir.Link{A: ir.Endpoint{Device: a.Name, Port: pa.Name},
		B: ir.Endpoint{Device: b.Name, Port: pb.Name}, SpeedGbps: speed, CableM: cable})
}

// Expand builds the devices and links of a rail-optimized or clos fabric.
func Expand(p Params) (*Result, error) {
	if p.Servers < 1 {
		return nil, errf("topology.servers", "want at least 1 server, got %d", p.Servers)
	}
	if p.Rails < 1 {
		return nil, errf("topology.rails", "want at least 1 rail, got %d", p.Rails)
	}
	if len(p.NICPorts) != p.Rails {
		return nil, errf("hosts.nic.ports", "%s listed for %s: list one netdev per rail", plural(len(p.NICPorts), "port", "ports"), plural(p.Rails, "rail", "rails"))
	}
	if len(p.HCAs) != p.Rails {
		return nil, errf("hosts.nccl.hca", "%s listed for %s: list one RDMA device per rail", plural(len(p.HCAs), "HCA", "HCAs"), plural(p.Rails, "rail", "rails"))
	}
	D, U := p.Leaf.Downlinks, p.Leaf.Uplinks
	if D < 1 {
		return nil, errf("topology.leaf.downlinks", "want at least 1 downlink, got %d", D)
	}
	if D+U > p.Leaf.Ports {
		return nil, errf("topology.leaf", "%d downlinks + %d uplinks exceed the %d ports of a %s", D, U, p.Leaf.Ports, p.Leaf.Model)
	}
	// Refuse a fabric far beyond the design point before allocating it: a
	// one-port leaf under 100,000 servers would mean millions of switches.
	leavesEst := ceilDiv(p.Servers, D) * p.Rails
	if p.Style != "rail-optimized" {
		leavesEst = ceilDiv(p.Servers*p.Rails, D)
	}
	if links := p.Servers*p.Rails + 3*leavesEst*U; links > MaxLinks || leavesEst > MaxLinks/10 {
		return nil, errf("topology", "%d servers x %d rails on leaves with %d downlinks and %d uplinks make %d leaves and about %d links; rocefab expands at most %d links (a 1,000,000-GPU fabric): use fewer servers or larger leaves",
			p.Servers, p.Rails, D, U, leavesEst, links, MaxLinks)
	}
	naming := p.Naming
	r := &Result{Oversubscription: map[string]float64{}}
	// Each tier's SKU ports are made once, on copies of the tiers so that
	// the caller's Params stay as they were.
	p.Leaf.shareSKUs()
	for _, t := range []**Tier{&p.Spine, &p.Super} {
		if *t != nil {
			c := **t
			c.shareSKUs()
			*t = &c
		}
	}

	// Leaves. In a rail-optimized fabric NIC i of every server lands on rail
	// i's leaves and each rail has ceil(servers/D) leaves; in a clos the
	// servers' NICs are packed onto leaves in order.
	type slot struct{ leaf, port int }
	var leaves []*ir.Device
	var nicSlot func(server, nic int) slot
	rails := p.Style == "rail-optimized"
	if rails {
		perRail := ceilDiv(p.Servers, D)
		nm := newNamer(naming.Leaf, perRail, 2)
		for rail := range p.Rails {
			for j := range perRail {
				leaves = append(leaves, switchDev(nm.name(j, rail, -1), ir.RoleLeaf, &p.Leaf, rail, -1, D+U))
			}
		}
		nicSlot = func(s, i int) slot { return slot{i*perRail + s/D, s % D} }
	} else {
		n := ceilDiv(p.Servers*p.Rails, D)
		nm := newNamer(naming.Leaf, n, 2)
		for j := range n {
			leaves = append(leaves, switchDev(nm.name(j, -1, -1), ir.RoleLeaf, &p.Leaf, -1, -1, D+U))
		}
		nicSlot = func(s, i int) slot { k := s*p.Rails + i; return slot{k / D, k % D} }
	}

	// Servers and host links. Leaf ports are placed at their downlink index
	// so that a ragged last leaf simply has fewer of them. Each leaf's
	// downlinks come in port order (servers are visited in order, in a
	// rail-optimized fabric and in a clos alike), so they are appended to
	// the leaf's ports directly.
	snm := newNamer(naming.Server, p.Servers, 4)
	hosts := make([]*ir.Device, p.Servers)
	hostDevs := make([]ir.Device, p.Servers)
	hostParts := make([]ir.Host, p.Servers)
	nics := make([]ir.NIC, p.Servers*p.Rails)
	w := &wiring{links: make([]*ir.Link, 0, p.Servers*p.Rails+len(leaves)*U*2)}
	w.slab = make([]ir.Link, 0, p.Servers*p.Rails)
	for s := range p.Servers {
		h := &hostDevs[s]
		hostParts[s].NICs = nics[s*p.Rails : (s+1)*p.Rails : (s+1)*p.Rails]
		*h = ir.Device{Name: snm.name(s, -1, -1), Role: ir.RoleHost, Platform: ir.PlatformLinux, Model: p.NICModel,
			Rail: -1, Pod: -1, Host: &hostParts[s]}
		for i := range p.Rails {
			sl := nicSlot(s, i)
			leaf := leaves[sl.leaf]
			leaf.Switch.Ports = append(leaf.Switch.Ports, portAt(leaf.Platform, sl.port, &p.Leaf))
			down := &leaf.Switch.Ports[len(leaf.Switch.Ports)-1]
			down.SpeedGbps, down.CableM, down.Peer, down.PeerPort, down.Facing = p.NICSpeed, p.NICCable, h.Name, p.NICPorts[i], ir.RoleHost
			h.Host.NICs[i] = ir.NIC{Port: p.NICPorts[i], HCA: p.HCAs[i], Rail: i, SpeedGbps: p.NICSpeed, CableM: p.NICCable,
				Peer: leaf.Name, PeerPort: down.Name}
			w.link(ir.Link{A: ir.Endpoint{Device: h.Name, Port: p.NICPorts[i]},
				B: ir.Endpoint{Device: leaf.Name, Port: down.Name}, SpeedGbps: p.NICSpeed, CableM: p.NICCable})
		}
		hosts[s] = h
	}
	r.Tiers = 1

	if p.Spine == nil || U == 0 {
		if len(leaves) > 1 {
			return nil, errf("topology.spine", "%d leaves need a spine tier (and leaf uplinks) to reach each other", len(leaves))
		}
	} else {
		up := p.Spine.Speed
		r.Oversubscription["leaf"] = float64(D*p.NICSpeed) / float64(U*up)
		// Leaf uplinks are placed after the downlinks, at port index D.
		for _, leaf := range leaves {
			for len(leaf.Switch.Ports) < D {
				// Reserve the unused downlinks of a ragged leaf so uplink
				// port numbers are the same on every leaf.
				leaf.Switch.Ports = append(leaf.Switch.Ports, ir.Port{})
			}
		}
		var err error
		if p.Super == nil {
			err = twoTier(p, leaves, w, r)
		} else {
			err = threeTier(p, leaves, w, r)
		}
		if err != nil {
			return nil, err
		}
		for _, leaf := range leaves {
			leaf.Switch.Ports = compact(leaf.Switch.Ports)
		}
	}

	upper := r.Devices
	r.Devices = make([]*ir.Device, 0, len(upper)+len(leaves)+len(hosts))
	r.Devices = append(r.Devices, upper...)
	r.Devices = append(r.Devices, leaves...)
	r.Devices = append(r.Devices, hosts...)
	r.Links = w.links
	return r, nil
}

// compact drops the placeholders of unused downlinks.
func compact(ps []ir.Port) []ir.Port {
	out := ps[:0]
	for _, p := range ps {
		if p.Name != "" {
			out = append(out, p)
		}
	}
	return out
}

// leafUplinks connects each leaf's uplinks, whose port indexes continue
// after its downlinks, to the spines in turn: the round robin spreads
// every leaf's uplinks evenly over them.
func (w *wiring) leafUplinks(leaves []*ir.Device, lt *Tier, uplinks int, spines []*ir.Device, st *Tier) {
	g := 0
	for _, leaf := range leaves {
		for range uplinks {
			w.connect(leaf, lt, spines[g%len(spines)], st, st.Speed, st.Cable)
			g++
		}
	}
}

// upperTier makes the switches of a tier that takes links uplinks from the
// tier below: Count of them, or the fewest whose ports take every uplink.
func upperTier(t *Tier, pattern string, role ir.Role, links int, field, what, from string) ([]*ir.Device, error) {
	n := t.Count
	if n == 0 {
		n = ceilDiv(links, t.Ports)
	}
	if n*t.Ports < links {
		return nil, errf(field, "%d %s of %d ports cannot take the %d %s; want at least %d",
			n, what, t.Ports, links, from, ceilDiv(links, t.Ports))
	}
	nm := newNamer(pattern, n, 2)
	out := make([]*ir.Device, n)
	for i := range n {
		out[i] = switchDev(nm.name(i, -1, -1), role, t, -1, -1, ceilDiv(links, n))
	}
	return out, nil
}

func twoTier(p Params, leaves []*ir.Device, w *wiring, r *Result) error {
	U := p.Leaf.Uplinks
	total := len(leaves) * U
	sp := p.Spine
	spines, err := upperTier(sp, p.Naming.Spine, ir.RoleSpine, total, "topology.spine.count", "spines", "leaf uplinks")
	if err != nil {
		return err
	}
	w.leafUplinks(leaves, &p.Leaf, U, spines, sp)
	r.Tiers = 2
	r.Devices = append(r.Devices, spines...)
	return nil
}

func threeTier(p Params, leaves []*ir.Device, w *wiring, r *Result) error {
	U, D := p.Leaf.Uplinks, p.Leaf.Downlinks
	sp, ss := p.Spine, p.Super
	half := sp.Ports / 2
	if half < 1 {
		return errf("topology.spine.model", "a spine needs at least 2 ports in three tiers")
	}
	// A pod is the largest group of leaves whose uplinks the pod's spines
	// take at 1:1 with one link from each leaf to each spine: half a spine's
	// ports face down.
	perRailPod := 0
	if p.PodServer > 0 {
		perRailPod = ceilDiv(p.PodServer, D)
	} else {
		lanes := p.Rails
		if p.Style != "rail-optimized" {
			lanes = 1
		}
		perRailPod = max(half/lanes, 1)
	}
	podServers := perRailPod * D
	if p.Style != "rail-optimized" {
		podServers = perRailPod * D / p.Rails
		if podServers < 1 {
			return errf("topology.pod.servers", "a pod must hold at least one server")
		}
	}
	pods := ceilDiv(p.Servers, podServers)
	podOf := func(leaf *ir.Device, j int) int {
		if p.Style == "rail-optimized" {
			perRail := len(leaves) / p.Rails
			return (j % perRail) / perRailPod
		}
		return j / perRailPod
	}
	podLeaves := make([][]*ir.Device, pods)
	for j, leaf := range leaves {
		pod := min(podOf(leaf, j), pods-1)
		leaf.Pod = pod
		podLeaves[pod] = append(podLeaves[pod], leaf)
	}
	full := len(podLeaves[0])
	perPod := sp.Count
	if perPod == 0 {
		perPod = ceilDiv(full*U, half)
	}
	if perPod*half < full*U {
		return errf("topology.spine.count", "%d spines per pod with %d downlinks each cannot take the %d uplinks of a pod's %d leaves; want at least %d",
			perPod, half, full*U, full, ceilDiv(full*U, half))
	}
	nm := newNamer(p.Naming.Spine, pods*perPod, 2)
	var spines []*ir.Device
	for pod := range pods {
		ps := make([]*ir.Device, perPod)
		for i := range perPod {
			ps[i] = switchDev(nm.name(pod*perPod+i, -1, pod), ir.RoleSpine, sp, -1, pod, sp.Ports)
		}
		w.leafUplinks(podLeaves[pod], &p.Leaf, U, ps, sp)
		spines = append(spines, ps...)
	}
	// Every spine sends as many links up as it has ports facing down, so the
	// spine tier is 1:1.
	totalUp := len(spines) * half
	supers, err := upperTier(ss, p.Naming.Superspine, ir.RoleSuperspine, totalUp, "topology.superspine.count", "superspines", "spine uplinks")
	if err != nil {
		return err
	}
	n := len(supers)
	// Spine uplinks start after the downlink half.
	g := 0
	for _, s := range spines {
		for len(s.Switch.Ports) < half {
			s.Switch.Ports = append(s.Switch.Ports, ir.Port{})
		}
		for range half {
			w.connect(s, sp, supers[g%n], ss, ss.Speed, ss.Cable)
			g++
		}
		s.Switch.Ports = compact(s.Switch.Ports)
	}
	r.Oversubscription["spine"] = float64(half*sp.Speed) / float64(half*ss.Speed)
	r.Tiers, r.Pods = 3, pods
	r.Devices = append(r.Devices, spines...)
	r.Devices = append(r.Devices, supers...)
	return nil
}

// portAt is the port at index i (from 0) of a switch of tier t: its name
// and, where the tier has a SKU layout, the lanes, alias, index and
// breakout the SKU gives it.
func portAt(platform string, i int, t *Tier) ir.Port {
	if t != nil && platform == ir.PlatformSONiC && i >= 0 && i < len(t.Layout) {
		l := t.Layout[i]
		if len(t.skus) == len(t.Layout) {
			return ir.Port{Name: l.Name, Lanes: len(l.Lanes), SKU: &t.skus[i]}
		}
		return ir.Port{Name: l.Name, Lanes: len(l.Lanes),
			SKU: &ir.SKUPort{SerDes: l.Lanes, Alias: l.Alias, Index: l.Index, BreakoutParent: l.Parent, BreakoutMode: l.Mode}}
	}
	_, n := LanesOf(i, t)
	return ir.Port{Name: PortName(platform, i, t), Lanes: n}
}

// LanesPerCage is the SerDes lanes of one front-panel cage (OSFP and
// QSFP-DD both carry eight).
const LanesPerCage = 8

// LanesOf returns the first lane and the lane count of the port at index i
// (from 0) of an eight-lane cage split evenly among its breakout ports. It
// is the cage's own lane numbering, not the ASIC's: only a SKU port map
// knows which ASIC lanes a SONiC port takes.
func LanesOf(i int, t *Tier) (first, count int) {
	b := 1
	if t != nil && t.Physical > 0 && t.Ports > t.Physical {
		b = t.Ports / t.Physical
	}
	count = max(LanesPerCage/b, 1)
	return (i/b)*LanesPerCage + (i%b)*count, count
}

// PortName is the name of the port at index i (from 0) of a switch, in its
// platform's own naming. Where a tier runs its ports slower than the
// model's native speed (breakout), each physical port carries several
// logical ones. A SONiC tier with a SKU layout takes the SKU's names; one
// without gets Ethernet<8·cage + offset>, a name only (SONiC names ports
// after the offset of their first lane in the cage's lane list, which the
// SKU alone knows).
func PortName(platform string, i int, t *Tier) string {
	if t != nil && platform == ir.PlatformSONiC && i >= 0 && i < len(t.Layout) {
		return t.Layout[i].Name
	}
	b := 1
	if t != nil && t.Physical > 0 && t.Ports > t.Physical {
		b = t.Ports / t.Physical
	}
	phys, sub := i/b+1, i%b
	lanes := 8 / b
	switch platform {
	case ir.PlatformEOS:
		return "Ethernet" + strconv.Itoa(phys) + "/" + strconv.Itoa(sub*lanes+1)
	case ir.PlatformNVUE:
		if b == 1 {
			return "swp" + strconv.Itoa(phys)
		}
		return "swp" + strconv.Itoa(phys) + "s" + strconv.Itoa(sub)
	case ir.PlatformSONiC:
		return "Ethernet" + strconv.Itoa((phys-1)*8+sub*lanes)
	case ir.PlatformNXOS:
		if b == 1 {
			return "Ethernet1/" + strconv.Itoa(phys)
		}
		return "Ethernet1/" + strconv.Itoa(phys) + "/" + strconv.Itoa(sub+1)
	}
	return "port" + strconv.Itoa(i+1)
}

// plural is n with the noun that agrees with it ("1 rail", "2 rails"), as
// diag.Plural, which this package does not import.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
