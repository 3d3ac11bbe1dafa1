package compiler

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// bufferConvention charges a SONiC switch's buffer plan the way its ASIC
// reads the lossless profiles SONiC programs (compiler/physics
// ConventionBudget). On a Broadcom XGS ASIC the profile's size is a
// reserved minimum and xoff the headroom, drawn from the ingress pool's
// shared headroom, so the plan holds the minimum of every lossless PG and
// the headroom pool of the xoffs, not size = xoff + xon per PG. Other
// platforms keep the plan as it is: their renderers program headroom in
// their own terms.
func (c *compilation) bufferConvention(plan *ir.BufferPlan, d *ir.Device, sw platforms.Switch, s *ir.Switch, counts map[*ir.Headroom]int, lossless int) {
	fam, ok := platforms.FamilyOf(sw)
	if !ok || d.Platform != ir.PlatformSONiC || fam.BufferConvention == "" {
		return
	}
	plan.Convention = fam.BufferConvention
	var classes []physics.PortClassProfile
	for _, h := range s.Headrooms {
		if n := counts[h]; n > 0 {
			classes = append(classes, physics.PortClassProfile{Name: h.Name, Xoff: h.Xoff, Size: h.Size, Ports: n})
		}
	}
	in := physics.ConventionBudgetInput{Convention: plan.Convention, BufferBytes: sw.BufferBytes,
		ReservedBytes: plan.LosslessBytes, Classes: classes, LosslessPriorities: lossless}
	var derived []physics.Derivation
	if plan.Convention == physics.ConventionBroadcomXGS {
		m := physics.PGMinimum(c.f.MTU.Switch, sw.CellBytes)
		in.PGMinBytes = m.Value
		derived = append(derived, m)
	}
	budget, minimum, headroom, _ := physics.ConventionBudget(in)
	derived = append(derived, budget)
	plan.PGMinBytes, plan.MinimumBytes, plan.HeadroomBytes = in.PGMinBytes, minimum, headroom
	fromShared := minimum + headroom
	if sw.HeadroomPoolBytes > 0 {
		fromShared = minimum
	}
	plan.LossyBytes = sw.BufferBytes - plan.LosslessBytes - fromShared
	// The convention's demand replaces the generic one.
	out := plan.Derived[:0]
	for _, dv := range plan.Derived {
		if dv.Field != "buffer-demand" {
			out = append(out, dv)
		}
	}
	for _, dv := range derived {
		out = append(out, toIR(dv))
	}
	plan.Derived = out
}
