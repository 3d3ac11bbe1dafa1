package nxos

import (
	"regexp"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/internal/clitree"
)

// Platform is the NX-OS platform of plan and apply: a switch's desired
// state is its model, the stanza tree nxos.cfg is printed from, within the
// owned scope (docs/ownership.md), its running configuration is `show
// running-config` text, and a remediation is the CLI lines of a
// configuration session. It is the renderer itself, so that plan and apply
// find it on the device's native renderer.
type Platform = Renderer

var (
	_ renderers.Platform = Renderer{}
	_ renderers.Applier  = Renderer{}
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
		{Top: "interface ", Leaf: "speed", Kind: kindPortSpeed},
		{Top: "interface ", Leaf: "shutdown", Kind: kindAdmin},
		{Top: "interface ", Leaf: "priority-flow-control mode", Kind: ir.ElementPFC},
		{Top: "interface ", Leaf: "priority-flow-control watch-dog", Kind: ir.ElementPFCWatchdog},
		{Top: "interface ", Leaf: "service-policy", Kind: ir.ElementDSCPMap},
	},
	// NX-OS keeps `no shutdown` in an interface's configuration.
	Negations: []clitree.Negation{{Mode: "interface ", Line: "no shutdown"}},
}

// Elements the catalog has none of: a port's speed and its administrative
// state, whose change takes the link down, which floor says.
const (
	kindPortSpeed = "port-speed"
	kindAdmin     = "admin-state"
)

var floor = map[string]renderers.Disruption{kindPortSpeed: renderers.PortFlap, kindAdmin: renderers.PortFlap}

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
}

// Desired returns switch d's desired state: its model (the one nxos.cfg is
// printed from) within the owned scope (clitree.Platform).
func (Renderer) Desired(d *ir.Device) (renderers.State, error) { return cli.Desired(d) }

// State returns the desired state of switch d given its model t (from
// [Renderer.Model]): t within the owned scope. It refuses a tree that a
// parser read from text.
func (Renderer) State(d *ir.Device, t *clitree.Tree) (renderers.State, error) { return cli.State(d, t) }

// Parse reads d's running configuration (nxos.cfg, `show running-config`
// text) within the owned scope: features, BGP, management, ACLs, other
// interfaces and the lines of d's ports that rocefab does not write are
// not read. A device without the file runs nothing of rocefab's yet.
func (Renderer) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	return cli.Parse(d, running)
}

// Diff returns the changes that make running into desired, each with the
// disruption the catalog gives its element on NX-OS, and the CLI lines
// that make them, in the order a configuration session takes them
// (clitree's Remediate: a class map that goes is removed after the
// policy map that names it changed).
func (Renderer) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	return cli.Diff(d, running, desired)
}

// Apply enters a remediation's lines into the running nxos.cfg as NX-OS
// would, every line outside the owned scope kept byte for byte.
func (Renderer) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	return cli.Apply(running, rem)
}

// CheckScope refuses a remediation with a line outside switch d's owned
// scope, reading the remediation alone (renderers.ScopeChecker).
func (Renderer) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	return cli.CheckScope(d, rem)
}

// Foreign returns the lines of an NX-OS running configuration that lie
// outside the owned scope of every device, exactly as they are: what
// applying a remediation keeps byte for byte.
func Foreign(running []byte) []string { return cli.Foreign(running) }
