package eos

import (
	"regexp"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/internal/clitree"
)

// dialect is how EOS prints its configuration: three columns a level,
// `end` last (Arista EOS User Manual, "Configuration sessions" and the
// running-config examples throughout; aristanetworks/avd's eos_cli_config_gen
// templates print the same shape).
var dialect = &clitree.Dialect{
	Indent: 3,
	End:    "end",
	// EOS takes `default <command>` in every configuration mode (Arista
	// EOS User Manual, "Command-Line Interface": the no and default forms).
	Reset: "default ",
	Keys: []clitree.KeyRule{
		{Prefix: "description ", Overrides: true},
		{Prefix: "speed ", Overrides: true},
		{Prefix: "mtu ", Overrides: true},
		{Prefix: "service-profile ", Overrides: true},
		// One line per traffic class lists its DSCPs; a shorter list
		// is negated first, so that a DSCP it drops leaves the class.
		{Prefix: "qos map dscp ", Re: regexp.MustCompile(`^qos map dscp (.+) to traffic-class [0-9]+$`)},
		{Prefix: "qos map traffic-class ", Re: regexp.MustCompile(`^qos map traffic-class (.+) to tx-queue [0-9]+$`)},
		{Prefix: "qos trust ", Overrides: true},
		{Prefix: "priority-flow-control pause watchdog default timeout ", Overrides: true},
		{Prefix: "priority-flow-control pause watchdog default recovery-time ", Overrides: true},
		{Prefix: "priority-flow-control pause watchdog default polling-interval ", Overrides: true},
		{Prefix: "priority-flow-control pause watchdog port action ", Overrides: true},
		{Prefix: "priority-flow-control priority ", Re: regexp.MustCompile(`^priority-flow-control priority [0-7] (.+)$`), Overrides: true},
		{Prefix: "priority-flow-control ", Re: regexp.MustCompile(`^priority-flow-control (on)$`), Overrides: true},
		{Prefix: "platform trident mmu headroom-pool limit bytes ", Overrides: true},
		{Prefix: "platform trident mmu queue profile ", Re: regexp.MustCompile(`^platform trident mmu queue profile (\S+) apply$`), Overrides: true},
		{Prefix: "ingress headroom bytes ", Overrides: true},
		{Prefix: "ip hardware fib load-balance distribution ", Overrides: true},
		{Prefix: "priority ", Re: regexp.MustCompile(`^priority (strict)$`), Overrides: true},
		{Prefix: "bandwidth percent ", Overrides: true},
		{Prefix: "random-detect ecn minimum-threshold ", Re: regexp.MustCompile(`^random-detect ecn (minimum-threshold .+)$`), Overrides: true},
	},
	// The catalog element each owned line realises (compiler/platforms
	// Elements), most specific first.
	Kinds: []clitree.KindRule{
		{Top: "qos map dscp ", Kind: ir.ElementDSCPMap},
		{Top: "qos map traffic-class ", Kind: ir.ElementTCQueue},
		{Top: "qos random-detect ecn", Kind: ir.ElementECN},
		{Top: "priority-flow-control pause watchdog", Kind: ir.ElementPFCWatchdog},
		{Top: "platform trident mmu", Kind: ir.ElementHeadroomCable},
		{Top: "ip hardware fib load-balance", Kind: ir.ElementAdaptiveRouting},
		{Top: "qos profile ", Leaf: "qos trust", Kind: ir.ElementDSCPMap},
		{Top: "qos profile ", Leaf: "priority-flow-control pause watchdog", Kind: ir.ElementPFCWatchdog},
		{Top: "qos profile ", Leaf: "priority-flow-control", Kind: ir.ElementPFC},
		{Top: "qos profile ", Leaf: "priority", Kind: ir.ElementStrict},
		{Top: "qos profile ", Leaf: "bandwidth", Kind: ir.ElementETS},
		{Top: "qos profile ", Leaf: "random-detect", Kind: ir.ElementECN},
		{Top: "interface ", Leaf: "mtu", Kind: ir.ElementMTU},
		{Top: "interface ", Leaf: "speed", Kind: renderers.KindPortSpeed},
		{Top: "interface ", Leaf: "service-profile", Kind: ir.ElementPFC},
	},
	// `no priority` marks a round-robin queue in a QoS profile, and the
	// profile's `no priority-flow-control` lines turn PFC or its watchdog
	// off: the running configuration keeps them as written.
	Negations: []clitree.Negation{
		{Mode: "uc-tx-queue ", Line: "no priority"},
		{Mode: "tx-queue ", Line: "no priority"},
		{Mode: "qos profile ", Line: "no priority-flow-control"},
		{Mode: "qos profile ", Line: "no priority-flow-control pause watchdog"},
	},
}

// floor raises a change's disruption to at least this for its kind.
var floor = renderers.Floors{renderers.KindPortSpeed: renderers.PortFlap}

// whole are the top-level sections rocefab owns with all below them: what
// Render writes, by the statement's own words. The QoS profile, MMU
// profile and their apply statement are owned under rocefab's own name
// only, except the apply statement, of which EOS keeps one.
var whole = []clitree.Match{
	{Prefix: "qos map dscp ", Re: regexp.MustCompile(`^qos map dscp [0-9 ]+ to traffic-class [0-9]+$`)},
	{Prefix: "qos map traffic-class ", Re: regexp.MustCompile(`^qos map traffic-class [0-9 ]+ to tx-queue [0-9]+$`)},
	{Prefix: "qos random-detect ecn allow non-ect"},
	{Prefix: "priority-flow-control pause watchdog default "},
	{Prefix: "platform trident mmu headroom-pool limit bytes "},
	{Prefix: "platform trident mmu queue profile " + ProfileName, Re: regexp.MustCompile(`^platform trident mmu queue profile ` + ProfileName + `$`)},
	{Prefix: "platform trident mmu queue profile ", Re: regexp.MustCompile(`^platform trident mmu queue profile \S+ apply$`)},
	{Prefix: "ip hardware fib load-balance distribution "},
	{Prefix: "qos profile " + ProfileName, Re: regexp.MustCompile(`^qos profile ` + ProfileName + `$`)},
}

// portLines are the lines of an interface rocefab owns.
var portLines = []clitree.Match{
	{Prefix: "description "},
	{Prefix: "speed "},
	{Prefix: "mtu "},
	{Prefix: "service-profile "},
}

// scope is the owned scope on switch d: the sections above and the owned
// lines of d's own ports; a nil d owns those lines of every interface,
// which is what a remediation, naming only the device's ports, may touch.
func scope(d *ir.Device) clitree.Scope {
	return clitree.Scope{
		Whole: whole,
		Parts: []clitree.Part{{
			Parent:   clitree.Ports(d),
			Children: portLines,
		}},
	}
}

// cli is the plan and apply plumbing EOS shares with the other CLI
// platforms (clitree.Platform), given EOS's tables above.
var cli = &clitree.Platform{
	Name:    ir.PlatformEOS,
	File:    FileName,
	Dialect: dialect,
	Floor:   floor,
	Scope:   scope,
	Model:   model,
	// A quarantine shuts a faulty cable's switch port and its release brings
	// it back (renderers.PortAdmin), each pushed as any remediation: in a
	// configuration session committed with a timer over SSH (targets/ssh), or
	// applied to the running eos.cfg by the directory target. The lines are
	// `interface EthernetX` and `shutdown` or `no shutdown` below it, the
	// commands Ansible's eos_interfaces module sends for an interface's
	// "enabled" (ansible-collections/arista.eos@01a7b943
	// plugins/module_utils/network/eos/config/interfaces/interfaces.py,
	// generate_commands). `show running-config` prints `shutdown` under an
	// interface that is administratively down and nothing for one that is up:
	// the same module reads "enabled" as the absence of that line
	// (arista.eos@015a8303 plugins/module_utils/network/eos/facts/interfaces/
	// interfaces.py, render_config).
	AdminUnset: renderers.AdminUp,
}

// Foreign returns the lines of an EOS running configuration that lie
// outside the owned scope of every device, exactly as they are: what
// applying a remediation keeps byte for byte.
func Foreign(running []byte) []string { return cli.Foreign(running) }
