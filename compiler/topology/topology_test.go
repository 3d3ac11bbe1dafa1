package topology

import (
	"strings"
	"testing"
)

func TestPortNames(t *testing.T) {
	native := &Tier{Ports: 64, Physical: 64}
	split := &Tier{Ports: 128, Physical: 64} // 800G cages run as 2 x 400G
	for _, c := range []struct {
		platform string
		i        int
		tier     *Tier
		want     string
	}{
		{"eos", 0, native, "Ethernet1/1"},
		{"eos", 1, split, "Ethernet1/5"},
		{"eos", 2, split, "Ethernet2/1"},
		{"nvue", 0, native, "swp1"},
		{"nvue", 1, split, "swp1s1"},
		{"sonic", 1, split, "Ethernet4"},
		{"sonic", 3, native, "Ethernet24"},
		{"nxos", 5, native, "Ethernet1/6"},
		{"nxos", 5, split, "Ethernet1/3/2"},
	} {
		if got := PortName(c.platform, c.i, c.tier); got != c.want {
			t.Errorf("PortName(%s, %d) = %s, want %s", c.platform, c.i, got, c.want)
		}
		// Without a SKU layout a SONiC port has a name and no lanes.
		if p := portAt(c.platform, c.i, c.tier); p.Name != c.want || p.SKU != nil || p.Lanes != 8*c.tier.Physical/c.tier.Ports {
			t.Errorf("portAt(%s, %d) = %+v", c.platform, c.i, p)
		}
	}
}

// TestSKULayout: a SONiC tier with a layout takes the SKU's names, lanes
// and breakout for every port, downlinks first, uplinks after them, in the
// layout's front-panel order.
func TestSKULayout(t *testing.T) {
	layout := []LayoutPort{
		{Name: "Ethernet0", Alias: "Eth1/1", Index: 1, Lanes: []int{1, 2, 3, 4}, Parent: "Ethernet0", Mode: "2x400G"},
		{Name: "Ethernet4", Alias: "Eth1/5", Index: 1, Lanes: []int{5, 6, 7, 8}, Parent: "Ethernet0", Mode: "2x400G"},
		{Name: "Ethernet8", Alias: "Eth2/1", Index: 2, Lanes: []int{17, 18, 19, 20}, Parent: "Ethernet8", Mode: "2x400G"},
		{Name: "Ethernet12", Alias: "Eth2/5", Index: 2, Lanes: []int{21, 22, 23, 24}, Parent: "Ethernet8", Mode: "2x400G"},
	}
	leaf := Tier{Platform: "sonic", Model: "DS5000", Ports: 4, Physical: 2, Speed: 400, Downlinks: 2, Uplinks: 2, Layout: layout}
	spine := &Tier{Platform: "sonic", Model: "DS5000", Ports: 4, Physical: 2, Speed: 400, Layout: layout}
	r, err := Expand(Params{Style: "rail-optimized", Servers: 4, Rails: 1, NICSpeed: 400, NICPorts: []string{"eth1"},
		HCAs: []string{"mlx5_0"}, Leaf: leaf, Spine: spine, Naming: DefaultNaming("rail-optimized")})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Devices {
		if d.Switch == nil {
			continue
		}
		for i, p := range d.Switch.Ports {
			l := layout[i]
			if s := p.SKU; p.Name != l.Name || s == nil || s.Alias != l.Alias || s.Index != l.Index || s.BreakoutParent != l.Parent ||
				s.BreakoutMode != l.Mode || p.Lanes != 4 || len(s.SerDes) != 4 || s.SerDes[0] != l.Lanes[0] {
				t.Errorf("%s port %d = %+v, want %+v", d.Name, i, p, l)
			}
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

// TestCountsAgree: a count of one takes the singular noun in an error.
func TestCountsAgree(t *testing.T) {
	p := Params{Style: "rail-optimized", Servers: 4, Rails: 1, NICSpeed: 400, NICPorts: []string{"eth1", "eth2"}, HCAs: []string{"mlx5_0"},
		Leaf: Tier{Platform: "nvue", Model: "SN5600", Ports: 128, Downlinks: 64, Uplinks: 64, Speed: 400}}
	_, err := Expand(p)
	if err == nil || !strings.Contains(err.Error(), "2 ports listed for 1 rail:") {
		t.Errorf("error %v, want one saying 2 ports listed for 1 rail", err)
	}
	p.NICPorts, p.HCAs = []string{"eth1"}, []string{"mlx5_0", "mlx5_1"}
	if _, err := Expand(p); err == nil || !strings.Contains(err.Error(), "2 HCAs listed for 1 rail:") {
		t.Errorf("error %v, want one saying 2 HCAs listed for 1 rail", err)
	}
}
