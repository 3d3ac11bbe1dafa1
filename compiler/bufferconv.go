package compiler

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// sonicConvention is the buffer convention d's lossless profiles are read
// with: its ASIC family's when d runs SONiC, "" otherwise (other platforms
// program headroom in their own terms).
func sonicConvention(d *ir.Device, fam platforms.ASICFamily) string {
	if d.Platform != ir.PlatformSONiC {
		return ""
	}
	return fam.BufferConvention
}

// conventionHeadroom makes a port class's headroom the figure SONiC
// programs under convention, so that explain, SUMMARY, the headroom pool
// and config_db.json give one number. On Broadcom XGS the PG's headroom is
// its xoff, drawn from the shared headroom pool, and xon_offset reserves
// nothing: size and the physics' requirement become xoff. A fixed headroom
// (fixed >= 0) is the xoff there, since xoff is what the profile reserves.
// Spectrum's headroom is size = xoff + xon already.
func conventionHeadroom(h *ir.Headroom, convention string, fixed int64) {
	if convention != physics.ConventionBroadcomXGS {
		return
	}
	required := h.Required
	for _, dv := range h.Derived {
		if dv.Field == "xoff" {
			required = dv.Value
		}
	}
	if fixed >= 0 {
		h.Xoff = h.Size
	}
	hd := physics.ConventionHeadroom(convention, h.Xoff, h.Xon)
	h.Size, h.Required = hd.Value, required
	for i, dv := range h.Derived {
		if dv.Field == "headroom" {
			h.Derived[i] = toIR(hd)
		}
	}
}

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
	// The SDK's reserved cells are in no pool SONiC configures, as the
	// vendors' SKU files keep them out (catalog sdkReservedBytes).
	plan.SDKReservedBytes = sw.SDKReservedBytes
	usable := sw.BufferBytes - sw.SDKReservedBytes
	in := physics.ConventionBudgetInput{Convention: plan.Convention, BufferBytes: usable,
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
	plan.LossyBytes = usable - plan.LosslessBytes - fromShared
	var xoff *ir.Derivation
	if plan.Convention == physics.ConventionBroadcomXGS {
		// Lossy and lossless priority groups share the one ingress pool
		// renderers/sonic writes (size = buffer − SDK reserve − minimums, holding the
		// headroom pool as its xoff); lossy traffic is bounded by the
		// egress lossy pool alone. The XOFF point is that of the pool the
		// lossless groups see when lossy traffic holds all it can.
		lp := physics.BroadcomLosslessPool(usable-minimum, plan.HeadroomBytes, plan.LossyBytes)
		plan.PoolBytes = lp.Value
		xo := physics.CongestedXoffPoint(plan.PoolBytes, plan.AlphaLog2, plan.CongestedQueues)
		plan.XoffPoint = xo.Value
		derived = append(derived, lp)
		x := toIR(xo)
		xoff = &x
	}
	// The convention's demand and XOFF point replace the generic ones.
	out := plan.Derived[:0]
	var tail []ir.Derivation
	for _, dv := range plan.Derived {
		switch {
		case dv.Field == "buffer-demand":
		case dv.Field == "xoff-point" && xoff != nil:
			// Keep the generic derivation's source notes (the platform's
			// default α) on the convention's.
			xoff.Source = dv.Source
			tail = append(tail, *xoff)
		default:
			out = append(out, dv)
		}
	}
	for _, dv := range derived {
		out = append(out, toIR(dv))
	}
	plan.Derived = append(out, tail...)
}
