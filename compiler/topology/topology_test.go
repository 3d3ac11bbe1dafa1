package topology

import "testing"

func TestPortNames(t *testing.T) {
	native := &Tier{Ports: 64, Physical: 64}
	split := &Tier{Ports: 128, Physical: 64} // 800G cages run as 2 x 400G
	for _, c := range []struct {
		platform string
		i        int
		tier     *Tier
		want     string
		lane, n  int
	}{
		{"eos", 0, native, "Ethernet1/1", 0, 8},
		{"eos", 1, split, "Ethernet1/5", 4, 4},
		{"eos", 2, split, "Ethernet2/1", 8, 4},
		{"nvue", 0, native, "swp1", 0, 8},
		{"nvue", 1, split, "swp1s1", 4, 4},
		{"sonic", 1, split, "Ethernet4", 4, 4},
		{"sonic", 3, native, "Ethernet24", 24, 8},
		{"nxos", 5, native, "Ethernet1/6", 40, 8},
		{"nxos", 5, split, "Ethernet1/3/2", 20, 4},
	} {
		if got := PortName(c.platform, c.i, c.tier); got != c.want {
			t.Errorf("PortName(%s, %d) = %s, want %s", c.platform, c.i, got, c.want)
		}
		// SONiC names a port after its first lane: the lanes must agree.
		if lane, n := LanesOf(c.i, c.tier); lane != c.lane || n != c.n {
			t.Errorf("LanesOf(%d) = %d,%d, want %d,%d", c.i, lane, n, c.lane, c.n)
		}
	}
}

func TestNaming(t *testing.T) {
	n := newNamer("gpu-{n}", 12500, 4)
	if got := n.name(7, -1, -1); got != "gpu-00007" {
		t.Errorf("name = %s, want gpu-00007 (padded to the largest index, 12499)", got)
	}
	n = newNamer("leaf-r{rail}-{n}", 8, 2)
	if got := n.name(3, 5, -1); got != "leaf-r5-03" {
		t.Errorf("name = %s, want leaf-r5-03", got)
	}
	if got := DefaultNaming("clos").Leaf; got != "leaf-{n}" {
		t.Errorf("clos leaf pattern = %s", got)
	}
}

func TestExpandErrors(t *testing.T) {
	base := Params{Style: "rail-optimized", Servers: 4, Rails: 1, NICSpeed: 400, NICPorts: []string{"eth1"}, HCAs: []string{"mlx5_0"},
		Leaf: Tier{Platform: "nvue", Model: "SN5600", Ports: 128, Downlinks: 64, Uplinks: 64, Speed: 400}}
	for _, c := range []struct {
		name   string
		mutate func(*Params)
		field  string
	}{
		{"no servers", func(p *Params) { p.Servers = 0 }, "topology.servers"},
		{"ports per rail", func(p *Params) { p.NICPorts = nil }, "hosts.nic.ports"},
		{"too many ports", func(p *Params) { p.Leaf.Uplinks = 100 }, "topology.leaf"},
		{"spines too few", func(p *Params) {
			p.Servers = 200
			p.Spine = &Tier{Platform: "nvue", Model: "SN5600", Ports: 128, Speed: 400, Count: 1}
		}, "topology.spine.count"},
	} {
		p := base
		c.mutate(&p)
		_, err := Expand(p)
		te, ok := err.(*Error)
		if !ok || te.Field != c.field {
			t.Errorf("%s: error %v, want one on %s", c.name, err, c.field)
		}
	}
}

func TestExpandRefusesAbsurdFabrics(t *testing.T) {
	p := Params{Style: "rail-optimized", Servers: 100_000, Rails: 16, NICSpeed: 400,
		NICPorts: make([]string, 16), HCAs: make([]string, 16),
		Leaf: Tier{Platform: "nvue", Model: "SN5600", Ports: 128, Downlinks: 1, Uplinks: 127, Speed: 400}}
	_, err := Expand(p)
	if te, ok := err.(*Error); !ok || te.Field != "topology" {
		t.Fatalf("err = %v, want a topology error", err)
	}
}
