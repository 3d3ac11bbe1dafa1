package lint

import (
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
)

// NICSpeed is RF121.
var NICSpeed = &Analyzer{
	ID: "RF121", Name: "nic-speed", Severity: diag.Error,
	Title: "a server NIC slower than the topology's NIC links",
	Doc: `Every server port runs at the topology's NIC speed (topology.nic.speed, or a NIC's own speed in an
explicit topology), and the leaves' downlinks, buffers, headroom and ECN thresholds are computed for
it. A NIC model whose fastest port is slower (an Intel E810 at 100GbE under the default 400G) cannot
link at that speed: the link comes up slower or not at all, and every figure derived from the speed
is wrong on both ends. rocefab's NIC catalog (compiler/platforms/catalog.json) gives each model's
fastest port with its source. Give the NICs' real speed, or name the model the servers have. Each
model the intent names is checked against the speed of its servers (hosts.nic.model, each model of
a mixed fleet's hosts.nic.models, an explicit server's model); the default model is not.`,
	Run: func(p *Pass) {
		seen := map[string]bool{}
		// Whether the intent names the fleet's model is one lookup of its
		// positions, not one per server.
		var modelWritten, looked bool
		for _, d := range p.Fabric.Hosts() {
			prof := d.Host.Profile
			if prof == nil {
				continue
			}
			nic, ok := p.lookupNIC(prof.NICModel)
			if !ok || seen[nic.Model] {
				continue // RF109 and the renderer name unknown models
			}
			fleet := p.Fabric.HostProfile
			if fleet != nil && !looked {
				modelWritten, looked = written(p, "hosts", "nic", "model"), true
			}
			if fleet != nil && !modelWritten && strings.EqualFold(nic.Model, fleet.NICModel) && !d.Pos.IsValid() {
				continue // the schema's default model, which the intent does not claim the servers have
			}
			i := slices.IndexFunc(d.Host.NICs, func(n ir.NIC) bool { return n.SpeedGbps > nic.MaxSpeedGbps })
			if i < 0 {
				continue
			}
			seen[nic.Model] = true
			at := p.Pos("hosts.nic.model")
			if fleet != nil && !strings.EqualFold(nic.Model, fleet.NICModel) {
				at = p.Pos("hosts.nic.models") // a mixed fleet's other model
			}
			if d.Pos.IsValid() {
				at = d.Pos // an explicit inventory's server
			}
			n := d.Host.NICs[i]
			p.ReportDevice(at, d.Name, n.Port, "the servers' links run at %dG, but %s ports reach at most %dG (%s)",
				n.SpeedGbps, nic.Model, nic.MaxSpeedGbps, nic.Sources["maxSpeedGbps"])
		}
	},
}

// written reports whether the intent itself gives the field at labels, not
// the schema's default: a field the user wrote has a position of its own,
// and one they did not resolves to its nearest enclosing field's.
func written(p *Pass, labels ...string) bool {
	return p.Intent != nil && p.At(labels...) != p.At(labels[:len(labels)-1]...)
}
