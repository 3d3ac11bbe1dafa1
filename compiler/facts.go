package compiler

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/placement"
)

// attachFacts puts on the model what renderers would otherwise look up
// below the IR: the catalog's disruption classes, and the placement of
// every server. Renderers import the IR alone (DESIGN.md), so whatever
// they print from the catalog or the placement reaches them here.
func attachFacts(fab *ir.Fabric) {
	if fab == nil {
		return
	}
	attachDisruptions(fab)
	fab.Placement = placement.Of(fab)
}
