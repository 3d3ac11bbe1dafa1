package nxos

import (
	"regexp"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/internal/clitree"
)

// dialect is how NX-OS prints its configuration: two columns a level,
// `!Command:`/`!Time:` comment lines first, `version` and `feature` lines
// (Cisco Nexus 9000 NX-OS Fundamentals Configuration Guide, "Working with
// Configuration Files", shows the shape).
var dialect = &clitree.Dialect{
	Indent: 2,
	Keys: []clitree.KeyRule{
		{Prefix: "description ", Overrides: true},
		{Prefix: "speed ", Overrides: true},
		{Prefix: "mtu ", Overrides: true},
		// A match-any class map matches every `match` line: a changed
		// DSCP list is negated before the new one is entered.
		{Prefix: "match dscp "},
		{Prefix: "set qos-group ", Overrides: true},
		{Prefix: "pause pfc-cos "},
		{Prefix: "bandwidth remaining percent ", Overrides: true},
		{Prefix: "priority level ", Overrides: true},
		{Prefix: "random-detect ", Overrides: true},
		// A service policy of a type is detached before another is
		// attached.
		{Prefix: "service-policy type qos input "},
		{Prefix: "service-policy type network-qos "},
		{Prefix: "service-policy type queuing output "},
		{Prefix: "priority-flow-control mode ", Overrides: true},
		{Prefix: "priority-flow-control watch-dog-interval ", Overrides: true},
		{Prefix: "priority-flow-control watch-dog interval ", Overrides: true},
		{Prefix: "priority-flow-control watch-dog shutdown-multiplier ", Overrides: true},
		{Prefix: "priority-flow-control auto-restore multiplier ", Overrides: true},
		{Prefix: "mode ", Overrides: true},
		{Prefix: "dlb-interface "},
	},
	// The catalog element each owned line realises (compiler/platforms
	// Elements), most specific first.
	Kinds: []clitree.KindRule{
		{Top: "class-map type qos ", Kind: ir.ElementDSCPMap},
		{Top: "policy-map type qos ", Kind: ir.ElementDSCPMap},
		{Top: "policy-map type network-qos ", Leaf: "pause", Kind: ir.ElementPFC},
		{Top: "policy-map type network-qos ", Leaf: "mtu", Kind: ir.ElementMTU},
		{Top: "policy-map type queuing ", Leaf: "bandwidth", Kind: ir.ElementETS},
		{Top: "policy-map type queuing ", Leaf: "priority", Kind: ir.ElementStrict},
		{Top: "policy-map type queuing ", Leaf: "random-detect", Kind: ir.ElementECN},
		{Top: "system qos", Leaf: "service-policy type network-qos", Kind: ir.ElementPFC},
		{Top: "system qos", Leaf: "service-policy type queuing", Kind: ir.ElementETS},
		{Top: "priority-flow-control ", Kind: ir.ElementPFCWatchdog},
		{Top: "hardware profile dlb", Kind: ir.ElementAdaptiveRouting},
		{Top: "interface ", Leaf: "mtu", Kind: ir.ElementMTU},
		{Top: "interface ", Leaf: "speed", Kind: renderers.KindPortSpeed},
		{Top: "interface ", Leaf: "shutdown", Kind: kindAdmin},
		{Top: "interface ", Leaf: "priority-flow-control mode", Kind: ir.ElementPFC},
		{Top: "interface ", Leaf: "priority-flow-control watch-dog", Kind: ir.ElementPFCWatchdog},
		{Top: "interface ", Leaf: "service-policy", Kind: ir.ElementDSCPMap},
	},
	// NX-OS keeps `no shutdown` in an interface's configuration.
	Negations: []clitree.Negation{{Mode: "interface ", Line: "no shutdown"}},
}

// kindAdmin is a port's administrative state, which the catalog has none
// of: a change takes the link down, as a new speed does, which floor says.
const kindAdmin = "admin-state"

var floor = renderers.Floors{renderers.KindPortSpeed: renderers.PortFlap, kindAdmin: renderers.PortFlap}

// whole are the top-level sections rocefab owns with all below them: its
// own class maps and policy maps, by their ROCEFAB names, and the global
// PFC watchdog and DLB statements.
var whole = []clitree.Match{
	{Prefix: "class-map type qos match-any " + classPrefix},
	{Prefix: "policy-map type qos " + policyQoSIn, Re: regexp.MustCompile(`^policy-map type qos ` + policyQoSIn + `$`)},
	{Prefix: "policy-map type network-qos " + policyNetworkQoS, Re: regexp.MustCompile(`^policy-map type network-qos ` + policyNetworkQoS + `$`)},
	{Prefix: "policy-map type queuing " + policyQueuingOut, Re: regexp.MustCompile(`^policy-map type queuing ` + policyQueuingOut + `$`)},
	{Prefix: "priority-flow-control watch-dog-interval "},
	{Prefix: "priority-flow-control watch-dog interval "},
	{Prefix: "priority-flow-control watch-dog shutdown-multiplier "},
	{Prefix: "priority-flow-control auto-restore multiplier "},
	{Prefix: "hardware profile dlb", Re: regexp.MustCompile(`^hardware profile dlb$`)},
}

// systemQoS is `system qos`, of which rocefab owns the network-qos and
// output queuing policies; a device's other system policies (type qos
// input, control-plane) stay its own.
var systemQoS = []clitree.Match{
	{Prefix: "service-policy type network-qos "},
	{Prefix: "service-policy type queuing output "},
}

// portLines are the lines of an interface rocefab owns.
var portLines = []clitree.Match{
	{Prefix: "description "},
	{Prefix: "speed "},
	{Prefix: "mtu "},
	{Prefix: "priority-flow-control mode "},
	{Prefix: "priority-flow-control watch-dog-interval "},
	{Prefix: "service-policy type qos input "},
	{Prefix: "no shutdown", Re: regexp.MustCompile(`^no shutdown$`)},
	{Prefix: "shutdown", Re: regexp.MustCompile(`^shutdown$`)},
}

// scope is the owned scope on switch d; a nil d owns the port lines of
// every interface, which is what a remediation, naming only the device's
// ports, may touch.
func scope(d *ir.Device) clitree.Scope {
	return clitree.Scope{
		Whole: whole,
		Parts: []clitree.Part{
			{Parent: func(line string) bool { return line == "system qos" }, Children: systemQoS},
			{Parent: clitree.Ports(d), Children: portLines},
		},
	}
}

// cli is the plan and apply plumbing NX-OS shares with the other CLI
// platforms (clitree.Platform), given NX-OS's tables above.
var cli = &clitree.Platform{
	Name:    ir.PlatformNXOS,
	File:    FileName,
	Dialect: dialect,
	Floor:   floor,
	Scope:   scope,
	Model:   model,
	// A quarantine shuts a faulty cable's switch port and its release brings
	// it back (renderers.PortAdmin), each pushed as any remediation: over SSH
	// inside the checkpoint rocefab takes and rolls back to (targets/ssh), or
	// applied to the running nxos.cfg by the directory target. The lines are
	// `interface EthernetX/Y` and `shutdown` or `no shutdown` below it, the
	// commands Ansible's nxos_interfaces module sends for an interface's
	// "enabled" (ansible-collections/cisco.nxos@08fd28f5
	// plugins/module_utils/network/nxos/config/interfaces/interfaces.py).
	// NX-OS keeps `no shutdown` in the running configuration; an interface
	// with neither line has the platform's default, which "(no) system
	// default switchport shutdown" sets for layer-2 ports and which differs
	// between Nexus families for layer-3 ones (the same file,
	// get_interface_defaults): rocefab does not read it, so such a port's
	// state is unknown and a release never brings it up.
	AdminUnset: renderers.AdminUnknown,
}

// Foreign returns the lines of an NX-OS running configuration that lie
// outside the owned scope of every device, exactly as they are: what
// applying a remediation keeps byte for byte.
func Foreign(running []byte) []string { return cli.Foreign(running) }
