package lint

import (
	"fmt"
	"regexp"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// eosLaneRE is an EOS front-panel port EthernetN/L: its cage and lane.
var eosLaneRE = regexp.MustCompile(`^Ethernet([0-9]+)/([1-8])$`)

// eosSlowPort is an EOS port that uses its whole cage slower than the
// cage's own speed, and the speed the renderer gives it ("" when no
// whole number of lanes carries it).
type eosSlowPort struct {
	port  ir.Port
	cage  int // the model's cage speed, Gbit/s
	speed string
}

// eosSlowPorts returns the ports of EOS switch d that use their whole cage
// (EthernetN/1 and no other lane of cage N) at a speed below the model's
// cage speed, as the EOS renderer finds them (laneSpeeds).
func eosSlowPorts(d *ir.Device) []eosSlowPort {
	if d.Platform != ir.PlatformEOS || d.Switch == nil {
		return nil
	}
	sw, ok := platforms.LookupSwitch(d.Model)
	if !ok {
		return nil
	}
	cage := sw.MaxPortGbps()
	split := map[string]bool{}
	for _, p := range d.Switch.Ports {
		if m := eosLaneRE.FindStringSubmatch(p.Name); m != nil && m[2] != "1" {
			split[m[1]] = true
		}
	}
	var out []eosSlowPort
	for _, p := range d.Switch.Ports {
		m := eosLaneRE.FindStringSubmatch(p.Name)
		if m == nil || m[2] != "1" || split[m[1]] || p.SpeedGbps <= 0 || p.SpeedGbps >= cage {
			continue
		}
		sp, _ := ir.EOSCageSpeed(p.SpeedGbps, cage)
		out = append(out, eosSlowPort{port: p, cage: cage, speed: sp})
	}
	return out
}

// eosCageSpeeds: a port that uses its whole EOS cage slower than the cage
// keeps the cage's default speed, and its link does not come up, when no
// whole number of the cage's lanes carries its speed (the renderer writes
// a GAP in place of a speed). One finding per model and speed.
func eosCageSpeeds(p *Pass) {
	seen := map[string]bool{}
	for _, d := range p.Fabric.Switches() {
		for _, s := range eosSlowPorts(d) {
			k := fmt.Sprintf("%s %d", d.Model, s.port.SpeedGbps)
			if s.speed != "" || seen[k] {
				continue
			}
			seen[k] = true
			at := p.At("topology")
			if s.port.Facing == ir.RoleHost {
				at = p.At("topology", "nic", "speed")
			}
			p.Report(diag.Diagnostic{Pos: at, Severity: diag.Error, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: d.Name, Port: s.port.Name, Message: fmt.Sprintf(
				"eos: %s port %s links at %s on a whole %s cage of %s lanes (%s), and EOS takes a speed as a whole number of lanes (speed <G>g-<lanes>): the port would keep the cage's %s and not come up; run the link at a multiple of %s or use another model",
				d.Name, s.port.Name, speedStr(s.port.SpeedGbps), speedStr(s.cage), speedStr(s.cage/8), d.Model, speedStr(s.cage), speedStr(s.cage/8))})
		}
	}
}
