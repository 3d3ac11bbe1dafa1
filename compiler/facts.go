package compiler

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// attachFacts puts on the model what renderers would otherwise look up
// below the IR: the catalog's disruption classes and verify marks, and the
// placement of every server. Renderers import the IR alone (DESIGN.md),
// so whatever they print from the catalog or the placement reaches them
// here.
func attachFacts(fab *ir.Fabric) {
	if fab == nil {
		return
	}
	attachDisruptions(fab)
	attachVerifyForms(fab)
	attachCageSpeeds(fab)
	fab.Placement = placement.Of(fab)
}

// attachVerifyForms gives every device the statement forms of its
// platform that no source confirms: the catalog's one set per platform,
// shared by its devices.
func attachVerifyForms(fab *ir.Fabric) {
	for _, d := range fab.Devices {
		d.Verify = platforms.VerifyForms(d.Platform)
	}
}

// attachCageSpeeds gives every switch its model's cage speed from the
// catalog, which the EOS renderer writes a slower port's lanes against.
func attachCageSpeeds(fab *ir.Fabric) {
	for _, d := range fab.Devices {
		if d.Switch == nil {
			continue
		}
		if sw, ok := platforms.LookupSwitch(d.Model); ok {
			d.Switch.CageGbps = sw.MaxPortGbps()
		}
	}
}
