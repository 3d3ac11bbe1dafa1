package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// platformRefusals reports, as errors of RF117, what a platform's renderer
// refuses outright rather than renders differently: lint must find every
// condition that would make build fail, at the intent's field, before
// build starts. Each check reads the same model the renderer reads.
func platformRefusals(p *Pass) {
	sonicSharedPG(p)
	sonicPortModes(p)
	nxosBreakouts(p)
	eosCageSpeeds(p)
}

// nxosWholeRE is an NX-OS port that uses its whole cage: Ethernet1/P.
var nxosWholeRE = regexp.MustCompile(`^Ethernet1/[0-9]+$`)

// nxosBreakouts: an NX-OS port named Ethernet1/P/N exists only once cage
// P is broken out, and a breakout map splits a cage into ports of one
// speed from Cisco's list (platforms.NXOSBreakoutMap). A cage whose ports
// run speeds no map makes would be rendered with no breakout and its
// ports would not exist; a port on a whole cage below the cage's speed
// would be rendered "speed N" on the cage, a form no source shows for a
// cage of a faster speed. One finding per model and speeds.
func nxosBreakouts(p *Pass) {
	seen := map[string]bool{}
	for _, d := range p.Fabric.Switches() {
		if d.Platform != ir.PlatformNXOS {
			continue
		}
		sw, ok := platforms.LookupSwitch(d.Model)
		if !ok {
			continue
		}
		names := make([]string, len(d.Switch.Ports))
		speeds := make([]int, len(d.Switch.Ports))
		for i, pt := range d.Switch.Ports {
			names[i], speeds[i] = pt.Name, pt.SpeedGbps
		}
		for _, pt := range d.Switch.Ports {
			if !nxosWholeRE.MatchString(pt.Name) || pt.SpeedGbps <= 0 || pt.SpeedGbps >= sw.MaxPortGbps() {
				continue
			}
			k := fmt.Sprintf("%s whole %d", d.Model, pt.SpeedGbps)
			if seen[k] {
				continue
			}
			seen[k] = true
			at := p.At("topology")
			if pt.Facing == ir.RoleHost {
				at = p.At("topology", "nic", "speed")
			}
			p.Report(diag.Diagnostic{Pos: at, Severity: diag.Error, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: d.Name, Port: pt.Name, Message: fmt.Sprintf(
				"nxos: %s port %s links at %s on a whole %s cage of %s: NX-OS runs a %s cage slower only broken out (maps %s), and no public source shows a whole cage taking a lower speed; run the tier at the link's speed (its ports are then broken out) or the link at %s",
				d.Name, pt.Name, speedStr(pt.SpeedGbps), speedStr(sw.MaxPortGbps()), d.Model, speedStr(sw.MaxPortGbps()), strings.Join(ir.NXOSBreakoutMaps(), ", "), speedStr(sw.MaxPortGbps()))})
		}
		for _, c := range ir.NXOSCages(names, speeds, sw.MaxPortGbps()) {
			if c.Map != "" {
				continue
			}
			gs := make([]string, len(c.Speeds))
			for i, g := range c.Speeds {
				gs[i] = speedStr(g)
			}
			k := d.Model + " " + strings.Join(gs, ",")
			if seen[k] {
				continue
			}
			seen[k] = true
			p.Report(diag.Diagnostic{Pos: p.At("topology"), Severity: diag.Error, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: d.Name, Message: fmt.Sprintf(
				"nxos: %s cage Ethernet1/%d is split into ports at %s, but %s's %s cages break out only by the maps %s (one speed per cage): run every port of a split cage at one speed such a map makes, or use another model",
				d.Name, c.Port, strings.Join(gs, ", "), d.Model, speedStr(sw.MaxPortGbps()), strings.Join(ir.NXOSBreakoutMaps(), ", "))})
		}
	}
}

// sonicPortModes: a SONiC port runs the speeds of its cage's breakout
// mode (platform.json breakout_modes: the default and bracketed speeds);
// the compiler picks the cage's mode that runs the link's speed, and a
// port no mode of as many ports serves would be rendered at a speed its
// cage does not run, and not come up. One finding per model, mode and
// speed.
func sonicPortModes(p *Pass) {
	seen := map[string]bool{}
	// The speeds of each model's cage and mode, parsed once: a fabric of a
	// thousand SONiC switches has a hundred thousand ports of a few modes.
	type mode struct{ model, parent, mode string }
	type speeds struct {
		parent platforms.SONiCParent
		ms     []int
		ok     bool
	}
	modes := map[mode]speeds{}
	for _, d := range p.Fabric.Switches() {
		if d.Platform != ir.PlatformSONiC {
			continue
		}
		sku, ok := platforms.LookupSONiCSKU(d.Model)
		if !ok {
			continue
		}
		for _, port := range d.Switch.Ports {
			if port.SKU == nil {
				continue
			}
			mk := mode{d.Model, port.SKU.BreakoutParent, port.SKU.BreakoutMode}
			sp, known := modes[mk]
			if !known {
				if sp.parent, sp.ok = sku.Parent(port.SKU.BreakoutParent); sp.ok {
					var err error
					sp.ms, err = sp.parent.ModeSpeeds(port.SKU.BreakoutMode)
					sp.ok = err == nil
				}
				modes[mk] = sp
			}
			parent, ms := sp.parent, sp.ms
			if !sp.ok || slices.Contains(ms, port.SpeedGbps*1000) {
				continue
			}
			k := fmt.Sprintf("%s %s %d", d.Model, port.SKU.BreakoutMode, port.SpeedGbps)
			if seen[k] {
				continue
			}
			seen[k] = true
			at := p.At("topology")
			if port.Facing == ir.RoleHost {
				at = p.At("topology", "nic", "speed")
			}
			p.Report(diag.Diagnostic{Pos: at, Severity: diag.Error, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: d.Name, Message: fmt.Sprintf(
				"sonic: %s port %s links at %dG, but its cage %s is in breakout mode %s, which runs %s, and SKU %s has no mode of as many ports that runs %dG (its modes: %s): run the links at a speed one of those modes runs, or use another model",
				d.Name, port.Name, port.SpeedGbps, port.SKU.BreakoutParent, port.SKU.BreakoutMode, mbps(ms), sku.HWSKU, port.SpeedGbps, strings.Join(parent.ModeNames(), ", "))})
		}
	}
}

// mbps lists speeds in Mb/s as SONiC writes them in gigabits: "400G, 800G".
func mbps(ms []int) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = strconv.Itoa(m/1000) + "G"
	}
	return strings.Join(out, ", ")
}

// sonicSharedPG: SONiC maps each lossless priority to its own priority
// group and every lossy one to group 0 (renderers/sonic). A lossless class
// on a priority whose group also carries lossy traffic would have the
// lossy traffic paused and its headroom taken by lossy bursts, so the
// renderer refuses it.
func sonicSharedPG(p *Pass) {
	seen := map[*ir.QoS]bool{}
	for _, d := range p.Fabric.Switches() {
		q := d.Switch.QoS
		if d.Platform != ir.PlatformSONiC || q == nil || seen[q] {
			continue
		}
		seen[q] = true
		lossless := map[int]bool{}
		for _, pr := range q.PFC {
			lossless[pr] = true
		}
		lossyPG := map[int]bool{}
		for tc := range 8 {
			if !lossless[tc] {
				lossyPG[q.TCToPG[tc]] = true
			}
		}
		for _, c := range p.Fabric.LosslessClasses() {
			if c.Priority < 0 || c.Priority > 7 || !lossyPG[q.TCToPG[c.Priority]] {
				continue
			}
			p.Report(diag.Diagnostic{Pos: p.At("classes", c.Name, "priority"), Severity: diag.Error, Rule: p.Analyzer.ID,
				Name: p.Analyzer.Name, Device: d.Name, Message: fmt.Sprintf(
					"sonic: lossless class %s on priority %d shares priority group %d with the lossy priorities, and SONiC cannot pause one without the other: put the class on a priority other than %d",
					c.Name, c.Priority, q.TCToPG[c.Priority], c.Priority)})
			return
		}
	}
}
