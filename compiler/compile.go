// Package compiler turns a loaded intent into the per-device model and
// lints it.
//
// The verbs of the pipeline:
//
//	Load     .cue files        -> schema.Intent      (package schema)
//	Compile  schema.Intent     -> *ir.Fabric         (this package: expand, derive)
//	Lint     *ir.Fabric        -> diag.List          (package compiler/lint)
//	Render   *ir.Device        -> []Artifact         (package renderers/...)
//
// Compile derives every value once: headroom per port class, the buffer plan
// per switch model and port mix, one QoS policy for all switches, one NIC
// profile for all hosts. Values that many devices share are computed once
// and shared, which is what keeps a 100,000-GPU fabric fast to compile.
package compiler

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/compiler/topology"
	"github.com/rocefab/rocefab/schema"
)

// Default cable lengths of switch-to-switch links when the intent gives
// none: a spine in the next rack row, a superspine in the same building
// (Alibaba HPN: every fibre of a pod building is below 100 m).
const (
	DefaultSpineCable      = "10m"
	DefaultSuperspineCable = "50m"
)

// DefaultModels is the switch model a tier gets when the intent names its
// platform but no model: a current 51.2T box of each.
var DefaultModels = map[string]string{
	ir.PlatformEOS:   "7060X6-64PE",
	ir.PlatformNVUE:  "SN5600",
	ir.PlatformSONiC: "DS5000",
	ir.PlatformNXOS:  "N9364D-GX2A",
}

// Compile expands and derives the fabric, then runs the lint suite over it.
// The fabric is nil when the intent cannot be expanded; the diagnostics say
// why, at the user's positions.
func Compile(in *schema.Intent) (*ir.Fabric, diag.List) {
	c := newCompilation(in)
	fab := c.compile()
	fitSONiCModes(fab)
	attachFacts(fab)
	if fab == nil {
		c.diags.Sort()
		return nil, c.diags
	}
	ds := append(c.diags, lint.Run(lint.Suite, fab, in)...)
	ds.Sort()
	return fab, ds
}

// Expand is Compile without lint: the model alone, for tools that only need
// the devices.
func Expand(in *schema.Intent) (*ir.Fabric, diag.List) {
	c := newCompilation(in)
	fab := c.compile()
	fitSONiCModes(fab)
	attachFacts(fab)
	c.diags.Sort()
	return fab, c.diags
}

type compilation struct {
	in    *schema.Intent
	f     *schema.Fabric
	diags diag.List
	fab   *ir.Fabric

	qosByCell map[int]*ir.QoS // QoS with ECN cells converted, by cell size
	cellErr   map[string]bool // models already reported for an unknown cell size
	// rtt is the round trip of the fabric's longest path, the DCQCN fluid
	// model's loop delay (ecnmodel.go).
	rtt physics.Derivation
}

func newCompilation(in *schema.Intent) *compilation {
	return &compilation{in: in, f: &in.Fabric, qosByCell: map[int]*ir.QoS{}, cellErr: map[string]bool{}}
}

func (c *compilation) errorf(pos diag.Pos, format string, args ...any) {
	c.diags = append(c.diags, diag.Diagnostic{Rule: schema.RuleSchema, Name: schema.NameSchema,
		Severity: diag.Error, Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// pos returns the position of a dotted intent path.
func (c *compilation) pos(path string) diag.Pos {
	if path == "" {
		return c.in.Pos()
	}
	return c.in.Pos(strings.Split(path, ".")...)
}

func (c *compilation) compile() *ir.Fabric {
	c.fab = &ir.Fabric{Name: c.f.Name,
		MTU: ir.MTU{Switch: c.f.MTU.Switch, Host: c.f.MTU.Host, RoCE: c.f.MTU.RoCE, Pos: c.pos("mtu")}}
	c.classes()
	var res *topology.Result
	if c.f.Topology.Style == "explicit" {
		res = c.explicit()
	} else {
		res = c.expand()
	}
	if res == nil {
		return nil
	}
	fab := c.fab
	fab.Devices, fab.Links = res.Devices, res.Links
	ir.SortDevices(fab.Devices)
	fab.Index()
	if c.duplicateNames() {
		return nil
	}
	t := c.f.Topology
	fab.Topology = ir.Topology{Style: t.Style, Tiers: res.Tiers, Servers: len(fab.Hosts()), Rails: t.Rails,
		Pods: res.Pods, Oversubscription: res.Oversubscription, Pos: c.pos("topology")}
	qos := c.qos()
	c.switches(qos)
	c.hosts()
	c.tenants()
	c.reordering()
	c.policy()
	return fab
}

// classes converts the intent's classes, ordered by priority then name.
func (c *compilation) classes() {
	for _, name := range slices.Sorted(maps.Keys(c.f.Classes)) {
		k := c.f.Classes[name]
		cl := &ir.Class{Name: name, Priority: k.Priority, DSCP: slices.Clone(k.DSCP), Lossless: k.Lossless,
			CNP: k.CNP, Strict: k.Strict, Default: k.Default, Pos: c.pos("classes." + name)}
		if cl.DSCP == nil {
			cl.DSCP = []int{}
		}
		if k.Bandwidth != nil && !k.Strict {
			cl.Bandwidth = *k.Bandwidth
		}
		if e := k.ECN; e != nil && e.Enabled {
			cl.ECN = &ir.ECN{MinBytes: e.Min.Bytes, MaxBytes: e.Max.Bytes, Probability: e.Probability,
				MinCells: e.Min.Cells, MaxCells: e.Max.Cells, Pos: c.pos("classes." + name + ".ecn")}
		}
		c.fab.Classes = append(c.fab.Classes, cl)
	}
	slices.SortStableFunc(c.fab.Classes, func(a, b *ir.Class) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.Name, b.Name))
	})
}

// lookupSwitch resolves a switch model for the tier at path, reporting an
// unknown model or a platform the model does not run.
func (c *compilation) lookupSwitch(path, platform, model string) (platforms.Switch, bool) {
	sw, ok := platforms.LookupSwitch(model)
	if !ok {
		c.errorf(c.pos(path+".model"), "%s.model: unknown switch model %q: known models are %s",
			path, model, strings.Join(platforms.SwitchModels(), ", "))
		return sw, false
	}
	if !slices.Contains(sw.Platforms, platform) {
		c.errorf(c.pos(path+".platform"), "%s.platform: %q does not run on %s: it runs %s",
			path, platform, sw.Model, strings.Join(sw.Platforms, ", "))
		return sw, false
	}
	return sw, true
}

func portsAt(sw platforms.Switch, gbps int) int { return sw.Ports[schema.FormatSpeed(gbps)] }

func physicalPorts(sw platforms.Switch) int {
	best, n := 0, 0
	for sp, count := range sw.Ports {
		g, err := schema.ParseSpeed(sp)
		if err == nil && g > best {
			best, n = g, count
		}
	}
	return n
}

// expand resolves the topology parameters and expands them.
func (c *compilation) expand() *topology.Result {
	t := c.f.Topology
	rails := t.Rails
	p := topology.Params{Style: t.Style, Servers: t.Servers, Rails: rails, NICSpeed: t.NIC.Speed.Gbps,
		NICCable: t.NIC.Cable.Metres, NICModel: c.f.Hosts.NIC.Model, PodServer: t.Pod.Servers}
	p.NICPorts, p.HCAs = c.nicNames(rails)
	if p.NICPorts == nil {
		return nil
	}
	if t.Leaf.Model == "" {
		t.Leaf.Model = DefaultModels[t.Leaf.Platform]
	}
	leafSw, ok := c.lookupSwitch("topology.leaf", t.Leaf.Platform, t.Leaf.Model)
	if !ok {
		return nil
	}
	leafSpeed := t.Leaf.Speed.Gbps
	if !c.checkRelease("topology.leaf", t.Leaf.Platform, t.Leaf.Release) {
		return nil
	}
	p.Leaf = topology.Tier{Platform: t.Leaf.Platform, Model: leafSw.Model, Release: t.Leaf.Release, Ports: portsAt(leafSw, leafSpeed),
		Physical: physicalPorts(leafSw), Speed: leafSpeed, Downlinks: t.Leaf.Downlinks, Uplinks: t.Leaf.Uplinks}
	if p.Leaf.Ports == 0 {
		c.errorf(c.pos("topology.leaf.speed"), "topology.leaf.speed: %s has no %s ports", leafSw.Model, t.Leaf.Speed.Raw)
		return nil
	}
	if !c.sonicLayout("topology.leaf", &p.Leaf, leafSw) {
		return nil
	}
	if p.Leaf.Downlinks == 0 {
		p.Leaf.Downlinks = p.Leaf.Ports / 2
	}
	if p.Leaf.Uplinks == 0 && !c.in.Has("topology", "leaf", "uplinks") {
		p.Leaf.Uplinks = p.Leaf.Ports - p.Leaf.Downlinks
	}
	perRail := (t.Servers + p.Leaf.Downlinks - 1) / p.Leaf.Downlinks
	leaves := perRail * rails
	if t.Style != "rail-optimized" {
		leaves = (t.Servers*rails + p.Leaf.Downlinks - 1) / p.Leaf.Downlinks
	}
	if t.Spine != nil || leaves > 1 {
		sp, ok := c.tier("topology.spine", t.Spine, t.Leaf.Platform, t.Leaf.Model, t.Leaf.Release, leafSpeed, DefaultSpineCable)
		if !ok {
			return nil
		}
		p.Spine = sp
	} else {
		p.Leaf.Uplinks = 0
	}
	if t.Superspine != nil {
		if p.Spine == nil {
			c.errorf(c.pos("topology.superspine"), "topology.superspine: a superspine tier needs a spine tier")
			return nil
		}
		ss, ok := c.tier("topology.superspine", t.Superspine, p.Spine.Platform, p.Spine.Model, p.Spine.Release, p.Spine.Speed, DefaultSuperspineCable)
		if !ok {
			return nil
		}
		p.Super = ss
	}
	p.Naming = topology.DefaultNaming(t.Style)
	for _, n := range []struct {
		dst *string
		src string
	}{{&p.Naming.Leaf, c.f.Naming.Leaf},
		{&p.Naming.Spine, c.f.Naming.Spine}, {&p.Naming.Superspine, c.f.Naming.Superspine}, {&p.Naming.Server, c.f.Naming.Server}} {
		if n.src != "" {
			*n.dst = n.src
		}
	}
	res, err := topology.Expand(p)
	if err != nil {
		if te, ok := err.(*topology.Error); ok {
			c.errorf(c.pos(te.Field), "%s", te.Error())
		} else {
			c.errorf(c.pos("topology"), "topology: %v", err)
		}
		return nil
	}
	return res
}

// tier resolves a spine or superspine tier, defaulting to the tier below.
func (c *compilation) tier(path string, t *schema.Tier, platform, model, release string, speed int, cable string) (*topology.Tier, bool) {
	if t == nil {
		t = &schema.Tier{}
	}
	if t.Platform != "" && t.Platform != platform {
		platform, model, release = t.Platform, DefaultModels[t.Platform], ""
	}
	if t.Model != "" {
		model = t.Model
	}
	if t.Release != "" {
		release = t.Release
	}
	if !c.checkRelease(path, platform, t.Release) {
		return nil, false
	}
	if t.Speed.Gbps != 0 {
		speed = t.Speed.Gbps
	}
	m, _ := schema.ParseLength(cable)
	if t.Cable.Raw != "" {
		m = t.Cable.Metres
	}
	sw, ok := c.lookupSwitch(path, platform, model)
	if !ok {
		return nil, false
	}
	out := &topology.Tier{Platform: platform, Model: sw.Model, Release: release, Ports: portsAt(sw, speed), Physical: physicalPorts(sw),
		Speed: speed, Cable: m, Count: t.Count}
	if out.Ports == 0 {
		c.errorf(c.pos(path), "%s: %s has no %s ports", path, sw.Model, schema.FormatSpeed(speed))
		return nil, false
	}
	if !c.sonicLayout(path, out, sw) {
		return nil, false
	}
	return out, true
}

// nicNames returns the netdev and RDMA device of each rail's NIC.
func (c *compilation) nicNames(rails int) (ports, hcas []string) {
	ports = slices.Clone(c.f.Hosts.NIC.Ports)
	if len(ports) == 0 {
		for i := range rails {
			ports = append(ports, "eth"+strconv.Itoa(i+1))
		}
	}
	hcas = slices.Clone(c.f.Hosts.NCCL.HCA)
	if len(hcas) == 0 {
		for i := range rails {
			hcas = append(hcas, c.rdmaDeviceName(i))
		}
	}
	if len(ports) != rails {
		c.errorf(c.pos("hosts.nic.ports"), "hosts.nic.ports: %s for %s: list one RDMA netdev per rail",
			diag.Plural(len(ports), "port", "ports"), diag.Plural(rails, "rail", "rails"))
		return nil, nil
	}
	if len(hcas) != rails {
		c.errorf(c.pos("hosts.nccl.hca"), "hosts.nccl.hca: %s for %s: list one RDMA device per rail",
			diag.Plural(len(hcas), "device", "devices"), diag.Plural(rails, "rail", "rails"))
		return nil, nil
	}
	return ports, hcas
}

// explicitRails returns the rails of an explicit topology whose intent
// states none: one per listed NIC port when hosts.nic.ports lists them
// (nicPorts), else the most links of any server, at least the highest
// leaf rail plus one, and 1 for a list without servers' links.
func explicitRails(list *schema.DeviceList, nicPorts int) int {
	if nicPorts > 0 {
		return nicPorts
	}
	hosts := map[string]bool{}
	rails := 1
	for _, d := range list.Devices {
		switch {
		case d.Role == string(ir.RoleHost):
			hosts[d.Name] = true
		case d.Rail != nil:
			rails = max(rails, *d.Rail+1)
		}
	}
	links := map[string]int{}
	for _, l := range list.Links {
		for _, e := range []string{l.A, l.B} {
			if dn, _, _ := strings.Cut(e, ":"); hosts[dn] {
				links[dn]++
				rails = max(rails, links[dn])
			}
		}
	}
	return rails
}

// explicit builds the devices and links of an explicit topology.
func (c *compilation) explicit() *topology.Result {
	path := c.f.Topology.Inventory
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.in.Dir, path)
	}
	list, ds, err := schema.ReadDeviceList(path)
	if err != nil {
		c.errorf(c.pos("topology.inventory"), "topology.inventory: %v", err)
		return nil
	}
	c.diags = append(c.diags, ds...)
	if ds.HasErrors() {
		return nil
	}
	if !c.in.Has("topology", "rails") {
		// An explicit topology takes no counts (INTENT.md section 1): its
		// rails are the servers' NICs, not the default of 8.
		c.f.Topology.Rails = explicitRails(list, len(c.f.Hosts.NIC.Ports))
	}
	ports, hcas := c.nicNames(c.f.Topology.Rails)
	hcaOf := map[string]string{}
	for i, p := range ports {
		if i < len(hcas) {
			hcaOf[p] = hcas[i]
		}
	}
	railOf := map[string]int{}
	for i, p := range ports {
		railOf[p] = i
	}
	res := &topology.Result{Oversubscription: map[string]float64{}}
	byName := map[string]*ir.Device{}
	tiers := map[ir.Role]bool{}
	for _, d := range list.Devices {
		if _, dup := byName[d.Name]; dup {
			c.errorf(d.Pos, "device %s listed twice", d.Name)
			continue
		}
		dev := &ir.Device{Name: d.Name, Role: ir.Role(d.Role), Platform: d.Platform, Model: d.Model, Rail: -1, Pod: -1, Pos: d.Pos}
		if d.Rail != nil {
			dev.Rail = *d.Rail
		}
		if d.Pod != nil {
			dev.Pod = *d.Pod
		}
		if dev.Role == ir.RoleHost {
			dev.Host = &ir.Host{}
		} else {
			if sw, ok := platforms.LookupSwitch(d.Model); !ok {
				c.errorf(d.Pos, "device %s: unknown switch model %q: known models are %s", d.Name, d.Model,
					strings.Join(platforms.SwitchModels(), ", "))
				continue
			} else {
				dev.Model = sw.Model
			}
			dev.Switch = &ir.Switch{}
		}
		tiers[dev.Role] = true
		byName[d.Name] = dev
		res.Devices = append(res.Devices, dev)
	}
	used := map[string]diag.Pos{}
	skuPorts := sonicPorts{}
	for _, l := range list.Links {
		ends := [2]ir.Endpoint{}
		var devs [2]*ir.Device
		ok := true
		for i, e := range []string{l.A, l.B} {
			dn, pn, _ := strings.Cut(e, ":")
			ends[i] = ir.Endpoint{Device: dn, Port: pn}
			devs[i] = byName[dn]
			if devs[i] == nil {
				c.errorf(l.Pos, "link %s - %s: no device %s in the device list", l.A, l.B, dn)
				ok = false
				continue
			}
			if p, dup := used[e]; dup {
				c.errorf(l.Pos, "link %s - %s: port %s is already used by the link at %s", l.A, l.B, e, p)
				ok = false
			}
			used[e] = l.Pos
		}
		if !ok {
			continue
		}
		res.Links = append(res.Links, &ir.Link{A: ends[0], B: ends[1], SpeedGbps: l.SpeedGbps, CableM: l.CableM, Pos: l.Pos})
		for i := range 2 {
			me, peer := devs[i], devs[1-i]
			mine, theirs := ends[i], ends[1-i]
			if me.Switch != nil {
				port := ir.Port{Name: mine.Port, SpeedGbps: l.SpeedGbps, CableM: l.CableM,
					Peer: peer.Name, PeerPort: theirs.Port, Facing: peer.Role}
				skuPorts.fill(me, &port)
				me.Switch.Ports = append(me.Switch.Ports, port)
				continue
			}
			rail, known := railOf[mine.Port]
			if !known {
				rail = -1
			}
			me.Host.NICs = append(me.Host.NICs, ir.NIC{Port: mine.Port, HCA: hcaOf[mine.Port], Rail: rail,
				SpeedGbps: l.SpeedGbps, CableM: l.CableM, Peer: peer.Name, PeerPort: theirs.Port})
		}
	}
	for _, d := range res.Devices {
		if d.Host != nil {
			slices.SortStableFunc(d.Host.NICs, func(a, b ir.NIC) int { return cmp.Compare(a.Rail, b.Rail) })
		}
	}
	res.Tiers = 1
	if tiers[ir.RoleSpine] {
		res.Tiers = 2
	}
	if tiers[ir.RoleSuperspine] {
		res.Tiers = 3
	}
	res.Oversubscription = oversubscription(res.Devices)
	return res
}

// oversubscription measures down/up capacity at each tier boundary from the
// real port counts: the worst switch of the tier counts.
func oversubscription(devs []*ir.Device) map[string]float64 {
	out := map[string]float64{}
	for _, d := range devs {
		if d.Switch == nil || d.Role == ir.RoleSuperspine {
			continue
		}
		down, up := 0, 0
		for _, p := range d.Switch.Ports {
			if p.Facing.Rank() > d.Role.Rank() {
				down += p.SpeedGbps
			} else {
				up += p.SpeedGbps
			}
		}
		if up == 0 {
			continue
		}
		r := float64(down) / float64(up)
		key := string(d.Role)
		if old, ok := out[key]; !ok || r > old {
			out[key] = r
		}
	}
	return out
}

// duplicateNames reports device names that patterns made equal.
func (c *compilation) duplicateNames() bool {
	seen := make(map[string]bool, len(c.fab.Devices))
	for _, d := range c.fab.Devices {
		if seen[d.Name] {
			field := "naming"
			if c.f.Topology.Style == "explicit" {
				field = "topology.inventory"
			}
			c.errorf(c.pos(field), "%s: two devices are named %s: make each name pattern unique per tier (use {rail}, {pod}, {n})", field, d.Name)
			return true
		}
		if !schema.ValidName(d.Name) {
			c.errorf(c.pos("naming"), "naming: device name %q: names are %s", d.Name, schema.NameForms)
			return true
		}
		seen[d.Name] = true
	}
	return false
}
