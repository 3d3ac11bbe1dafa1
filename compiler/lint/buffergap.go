package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// The buffer gaps an intent can accept (buffers.acceptGaps).
const (
	GapReserve       = "reserve"
	GapPriorityGroup = "priority-group"
)

// reserveGapPlatforms have no share of the shared buffer held for one
// class: EOS computes its pools itself (the XGS MMU statements rocefab
// renders are the headroom pool and per-port ingress headroom, switches.md
// §1.1; Jericho buffers are platform-managed), NX-OS carves its buffer
// implicitly with per-class queue-limits only (switches.md §0, §4.1). The
// catalog's pool-percent entries say the same (compiler/platforms
// catalog.json).
var reserveGapPlatforms = []string{"eos", "nxos"}

// bufferGaps reports the buffer elements a platform cannot render for the
// intent, with the severity the intent's acceptance gives them: a
// reservation the intent wrote and a lossless class that would share its
// pauses with another are errors unless buffers.acceptGaps names them,
// since SUMMARY, RF102 and the buffer plan would otherwise describe a
// buffer the switch does not have. It returns the platforms whose
// pool-percent gap it reported, for PlatformGap to skip.
func bufferGaps(p *Pass, byPlatform map[string][]*ir.Device) map[string]bool {
	done := map[string]bool{}
	b := p.Fabric.Buffers
	if len(b.Reserves) > 0 {
		for _, plat := range reserveGapPlatforms {
			ds := byPlatform[plat]
			if len(ds) == 0 {
				continue
			}
			done[plat] = true
			sev, tail := reserveGapSeverity(b, "without")
			p.Report(diag.Diagnostic{Pos: p.Pos("buffers.reserve"), Severity: sev, Rule: p.Analyzer.ID, Name: p.Analyzer.Name,
				Device: ds[0].Name, Message: fmt.Sprintf(
					"%s (%s): buffers.reserve holds %s, but %s has no share of the shared buffer held for one class: nothing is rendered, and a burst of another class can take the buffer it was to keep%s",
					plat, plural(len(ds), "switch", "switches"), reserveText(b.Reserves), plat, tail)})
		}
	}
	sonicReserveGap(p, byPlatform[ir.PlatformSONiC])
	headroomGaps(p)
	lossless := losslessPriorities(p.Fabric)
	if ds := byPlatform["nvue"]; len(ds) > 0 && len(lossless) > 1 {
		sev, tail := diag.Error, `; state buffers.acceptGaps: ["priority-group"] to build with it`
		if b.Accepts(GapPriorityGroup) {
			sev, tail = diag.Warning, " (accepted in buffers.acceptGaps)"
		}
		// Cumulus Linux keeps one lossless traffic pool per mode
		// (default-lossless, or roce-lossless with qos roce; NVUE
		// reference, qos traffic-pool) and places every PFC switch
		// priority in its one lossless priority group; a PFC frame for
		// the group pauses every priority in it.
		p.Report(diag.Diagnostic{Pos: p.Pos("classes"), Severity: sev, Rule: p.Analyzer.ID, Name: p.Analyzer.Name,
			Device: ds[0].Name, Message: fmt.Sprintf(
				"nvue (%s): lossless priorities %s share one priority group and one lossless pool: NVUE has a single lossless group, so a pause for one class stops the others%s",
				plural(len(ds), "switch", "switches"), strings.Join(lossless, ", "), tail)})
	}
	return done
}

// reserveText lists reservations, which the model keeps by class name.
func reserveText(rs []ir.Reserve) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%d%% for %s", r.Percent, r.Class))
	}
	return strings.Join(parts, ", ")
}

// losslessPriorities lists the lossless priorities with their first class.
func losslessPriorities(f *ir.Fabric) []string {
	var out []string
	seen := map[int]bool{}
	for _, c := range f.LosslessClasses() {
		if !seen[c.Priority] {
			seen[c.Priority] = true
			out = append(out, fmt.Sprintf("%d (%s)", c.Priority, c.Name))
		}
	}
	return out
}

// headroomGaps reports switches whose platform cannot be configured with
// the headroom pool their ports need (EOS takes at most 32 MiB, catalog
// maxHeadroomPoolBytes): the pool is configured at its largest, and a pause
// on every port at once can overrun it and drop lossless packets.
func headroomGaps(p *Pass) {
	ps, users := plans(p.Fabric)
	for _, b := range ps {
		ds := users[b]
		if len(ds) == 0 || b.HeadroomNeeded <= b.HeadroomBytes {
			continue
		}
		caps, ok := platforms.PlatformCapabilities(ds[0].Platform)
		if !ok || caps.MaxHeadroomPoolBytes == 0 {
			continue
		}
		ir.SortDevices(ds)
		if reach, _ := headroomReach(ds[0], b); reach > b.HeadroomBytes {
			continue // RF104 reports the overrun pauses reach
		}
		p.Report(diag.Diagnostic{Pos: p.Pos("buffers.headroom"), Severity: diag.Warning, Rule: p.Analyzer.ID, Name: p.Analyzer.Name,
			Device: ds[0].Name, Message: fmt.Sprintf(
				"%s %s (%s): the ports need a headroom pool of %s, but %s takes at most %s: the pool is configured at that, and a pause on every port at once can overrun it and drop lossless packets (fewer or shorter-cabled lossless ports need less)",
				ds[0].Platform, b.Model, deviceCount(ds), bytesStr(b.HeadroomNeeded), ds[0].Platform, bytesStr(caps.MaxHeadroomPoolBytes))})
	}
}

// headroomReach returns the headroom the congested priority groups of a
// switch fill when the PFC pauses of RF102's N groups land at once: the N
// largest per-group headrooms its ports need (what arrives after XOFF is
// set by each port's speed and cable, whatever limit a platform applies),
// and the largest of them.
func headroomReach(d *ir.Device, b *ir.BufferPlan) (reach, largest int64) {
	s := d.Switch
	lossless := 0
	if s.QoS != nil {
		lossless = len(s.QoS.PFC)
	}
	var per []int64
	for _, port := range s.Ports {
		if port.Headroom == nil {
			continue
		}
		for range lossless {
			per = append(per, port.Headroom.Size)
		}
	}
	if len(per) == 0 {
		return 0, 0
	}
	slices.Sort(per)
	largest = per[len(per)-1]
	n := min(max(1, b.CongestedQueues), len(per))
	for _, h := range per[len(per)-n:] {
		reach += h
	}
	return reach, largest
}

// sonicReserveGap reports a buffers.reserve that SONiC cannot hold as the
// intent means it, a share for one class alone. renderers/sonic writes the
// reserves as one ingress_lossless_pool that every lossless priority group
// draws on: on Spectrum that pool is the reserve itself, on Broadcom XGS
// lossy and lossless groups share the ingress pool and the reserve is what
// the egress lossy pool leaves to the lossless groups (compiler/physics
// BroadcomLosslessPool). Either way the reserve is held against lossy
// traffic for the lossless classes together: a single reserved lossless
// class is what the intent asks for, but two lossless classes share each
// other's share, and a lossy class's reserve goes to the lossless pool
// instead of to it. Severity follows the EOS and NX-OS reserve gap.
func sonicReserveGap(p *Pass, ds []*ir.Device) {
	b := p.Fabric.Buffers
	if len(ds) == 0 || len(b.Reserves) == 0 {
		return
	}
	var lossy, lossless []string
	for _, r := range b.Reserves {
		if r.Percent <= 0 {
			continue
		}
		if c := p.Fabric.Class(r.Class); c != nil && c.Lossless {
			lossless = append(lossless, r.Class)
		} else {
			lossy = append(lossy, r.Class)
		}
	}
	var unreserved []string
	for _, c := range p.Fabric.LosslessClasses() {
		if b.ReservePercent(c.Name) <= 0 {
			unreserved = append(unreserved, c.Name)
		}
	}
	var why []string
	if len(lossy) > 0 {
		what := "lossy classes %s have"
		if len(lossy) == 1 {
			what = "lossy class %s has"
		}
		why = append(why, fmt.Sprintf(what+" no pool of its own, and the share goes to the lossless priority groups", strings.Join(lossy, ", ")))
	}
	if len(lossless) > 0 && len(lossless)+len(unreserved) > 1 {
		why = append(why, fmt.Sprintf("lossless classes %s draw on that one pool, so a burst of one can take the share meant for another",
			strings.Join(append(slices.Clone(lossless), unreserved...), ", ")))
	}
	if len(why) == 0 {
		return
	}
	ds = slices.Clone(ds)
	ir.SortDevices(ds)
	sev, tail := reserveGapSeverity(b, "with")
	p.Report(diag.Diagnostic{Pos: p.Pos("buffers.reserve"), Severity: sev, Rule: p.Analyzer.ID, Name: p.Analyzer.Name,
		Device: ds[0].Name, Message: fmt.Sprintf(
			"sonic (%s): buffers.reserve holds %s, but SONiC holds it as one ingress lossless pool that every lossless priority group shares, kept from lossy traffic only: %s%s",
			plural(len(ds), "switch", "switches"), reserveText(b.Reserves), strings.Join(why, "; "), tail)})
}

// reserveGapSeverity is how a buffers.reserve gap is reported and the
// words that end its message: an error telling how to build with or
// without (build) what the platform cannot hold, unless the intent
// accepts the gap or states no reserve (the default one), which warn.
func reserveGapSeverity(b ir.BufferPolicy, build string) (diag.Severity, string) {
	switch {
	case b.Accepts(GapReserve):
		return diag.Warning, " (accepted in buffers.acceptGaps)"
	case !b.ReserveStated:
		return diag.Warning, " (the default reserve; the intent states none)"
	}
	return diag.Error, `; state buffers.acceptGaps: ["reserve"] to build ` + build + ` it`
}
