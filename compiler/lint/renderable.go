package lint

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
)

// platformRefusals reports, as errors of RF117, what a platform's renderer
// refuses outright rather than renders differently: lint must find every
// condition that would make build fail, at the intent's field, before
// build starts. Each check reads the same model the renderer reads.
func platformRefusals(p *Pass) {
	sonicSharedPG(p)
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
