package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
)

// DefaultClasses is the class set of an intent that names none: the
// `nv set qos roce` profile with ECN thresholds of [DefaultECN]. RoCE on
// DSCP 26, priority 3, lossless, with ECN from 50 KB to 100 KB; CNP on DSCP
// 48, strict priority 6; everything else on priority 0. ETS 50/50 between
// RoCE and the rest.
func DefaultClasses() map[string]Class {
	return map[string]Class{
		"roce": {Priority: 3, DSCP: []int{26}, Lossless: true, Bandwidth: new(50), ECN: DefaultECN()},
		"cnp":  {Priority: 6, DSCP: []int{48}, CNP: true, Strict: true},
		"bulk": {Priority: 0, Default: true, Bandwidth: new(50)},
	}
}

// DefaultECN is the ECN profile of a lossless class that does not give one.
//
// ECN must mark before PFC pauses, and under all-to-all traffic every
// lossless priority group of a switch congests at once: each then reaches
// XOFF at α·pool/(1+N·α) (compiler/physics CongestedXoffPoint), about the
// reserved pool divided by the ports. With the default 30 % reserve and
// α = 1 that is 101 KB on a Tomahawk 5 at 512×100G, 139 KB on a Tomahawk 4
// at 256×100G and 187 KB on an SN5600 at 256 ports: NVUE's 150 KB/1.5 MB
// (`nv set qos roce`) would let PFC fire first on every catalog switch at
// its full port count. The maximum, 100 KB, stays below the lowest of these
// points; the minimum, 50 KB, is the DCQCN paper's Kmin (5 KB at 40 Gbit/s,
// about 1 µs of queue) kept in time at 400 Gbit/s (physics.md §3.1). The
// DCQCN fluid model (compiler/physics SimulateDCQCN) predicts 16 flows keep
// a 100G to 800G port 95 % busy or more with them and ConnectX defaults at
// round trips of 2 to 20 µs (99 % at 2 µs, 95 % at 800G and 20 µs;
// physics.md §3.3).
func DefaultECN() *ECN {
	return &ECN{Enabled: true, Min: Size{Written: Written{Raw: "50KB"}, Bytes: 50_000},
		Max: Size{Written: Written{Raw: "100KB"}, Bytes: 100_000}, Probability: 100}
}

// DefaultReservePercent is the share of the shared buffer held for the
// lossless class when the intent does not say: enough that checkpoint and
// other lossy bursts cannot take the buffer RoCE needs.
const DefaultReservePercent = 30

// check holds the schema rules CUE cannot say simply: fields required by
// the value of another field.
func (in *Intent) check() diag.List {
	var ds diag.List
	t := in.Fabric.Topology
	switch t.Style {
	case "explicit":
		if t.Inventory == "" {
			ds = append(ds, schemaDiag(in.Pos("topology", "style"),
				"topology.inventory: missing value: the explicit style reads its devices and links from a JSON file (the inventory.json that build writes)"))
		}
		if in.Has("topology", "servers") {
			ds = append(ds, schemaDiag(in.Pos("topology", "servers"),
				"topology.servers: not allowed with style \"explicit\": the inventory lists the servers"))
		}
	default:
		if t.Servers == 0 {
			ds = append(ds, schemaDiag(in.Pos("topology"),
				"topology.servers: missing value: want the number of servers (1 to 100000) for style %q", t.Style))
		}
		if t.Inventory != "" {
			ds = append(ds, schemaDiag(in.Pos("topology", "inventory"),
				"topology.inventory: only with style \"explicit\" (style is %q)", t.Style))
		}
	}
	ds = append(ds, in.checkRenderable()...)
	for key, pattern := range map[string]string{"leaf": in.Fabric.Naming.Leaf, "spine": in.Fabric.Naming.Spine,
		"superspine": in.Fabric.Naming.Superspine, "server": in.Fabric.Naming.Server} {
		if pattern == "" {
			continue
		}
		if err := CheckPattern(pattern); err != nil {
			ds = append(ds, schemaDiag(in.Pos("naming", key), "naming.%s: %v", key, err))
		}
	}
	return ds
}

// CheckPattern validates a device-name pattern: its literal text must be
// name characters, and only {rail}, {pod} and {n} may be substituted.
func CheckPattern(p string) error {
	lit := p
	for _, ph := range []string{"{rail}", "{pod}", "{n}"} {
		lit = strings.ReplaceAll(lit, ph, "0")
	}
	if strings.ContainsAny(lit, "{}") {
		return fmt.Errorf("invalid pattern %q: only {rail}, {pod} and {n} may be substituted", p)
	}
	if !strings.Contains(p, "{n}") {
		return fmt.Errorf("invalid pattern %q: it must contain {n}, or every device would get the same name", p)
	}
	if !ValidName(lit) {
		return fmt.Errorf("invalid pattern %q: names are %s", p, NameForms)
	}
	return nil
}

// fill applies the defaults that depend on other fields and so cannot be
// written as CUE defaults.
func (in *Intent) fill() {
	f := &in.Fabric
	if len(f.Classes) == 0 {
		f.Classes = DefaultClasses()
	}
	for name, c := range f.Classes {
		if c.Lossless && c.ECN == nil {
			c.ECN = DefaultECN()
			f.Classes[name] = c
		}
	}
	if f.Buffers.Reserve == nil && !in.Has("buffers", "reserve") {
		f.Buffers.Reserve = map[string]int{}
		for _, name := range slices.Sorted(maps.Keys(f.Classes)) {
			if f.Classes[name].Lossless {
				f.Buffers.Reserve[name] = DefaultReservePercent
				break
			}
		}
	}
	if f.Hosts.NIC.Cable.Raw == "" {
		f.Hosts.NIC.Cable = f.Topology.NIC.Cable
	}
	if f.Topology.Leaf.Speed.Raw == "" {
		f.Topology.Leaf.Speed = f.Topology.NIC.Speed
	}
}
