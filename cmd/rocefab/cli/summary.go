package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/schema"
)

// summary writes SUMMARY.md: what a reviewer reads first. Positions are
// relative to the intent's directory so the file is the same on every
// machine.
func summary(f *ir.Fabric, ds diag.List, in *schema.Intent) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	t := f.Topology
	p("# %s\n\n", f.Name)
	p("%s fabric, %d tiers, %d servers x %d rails", t.Style, t.Tiers, t.Servers, t.Rails)
	if t.Pods > 0 {
		p(", %d pods", t.Pods)
	}
	p(". MTU: switch %d, host %d, RoCE path %d.\n\n", f.MTU.Switch, f.MTU.Host, f.MTU.RoCE)

	p("## Devices\n\n| role | platform | model | count |\n|---|---|---|---:|\n")
	type key struct {
		role            ir.Role
		platform, model string
	}
	counts := map[key]int{}
	for _, d := range f.Devices {
		counts[key{d.Role, d.Platform, d.Model}]++
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b key) int {
		if a.role != b.role {
			return a.role.Rank() - b.role.Rank()
		}
		return strings.Compare(a.platform+a.model, b.platform+b.model)
	})
	for _, k := range keys {
		p("| %s | %s | %s | %d |\n", k.role, k.platform, k.model, counts[k])
	}
	p("\n%d links.", len(f.Links))
	for _, tier := range slices.Sorted(maps.Keys(t.Oversubscription)) {
		p(" %s oversubscription %.2f:1.", tier, t.Oversubscription[tier])
	}
	p("\n\n## Classes\n\n| class | priority | DSCP | lossless | scheduling | ECN min / max / prob |\n|---|---:|---|---|---|---|\n")
	for _, c := range f.Classes {
		dscp := strings.Trim(fmt.Sprint(c.DSCP), "[]")
		if c.Default {
			dscp = strings.TrimSpace(dscp + " (default)")
		}
		sched := fmt.Sprintf("ETS %d%%", c.Bandwidth)
		if c.Strict {
			sched = "strict"
		}
		ecn := "off"
		if c.ECN != nil {
			ecn = fmt.Sprintf("%d B / %d B / %d%%", c.ECN.MinBytes, c.ECN.MaxBytes, c.ECN.Probability)
		}
		lossless := "no"
		if c.Lossless {
			lossless = "yes (PFC)"
		}
		if c.CNP {
			lossless += ", CNP"
		}
		p("| %s | %d | %s | %s | %s | %s |\n", c.Name, c.Priority, dscp, lossless, sched, ecn)
	}

	p("\n## Derived thresholds\n\nHeadroom per port and lossless priority, by port class:\n\n| port class | xoff | xon | size | needed |\n|---|---:|---:|---:|---:|\n")
	seenH := map[*ir.Headroom]bool{}
	var hs []*ir.Headroom
	seenB := map[*ir.BufferPlan]int{}
	var bs []*ir.BufferPlan
	for _, d := range f.Devices {
		if d.Switch == nil {
			continue
		}
		for _, h := range d.Switch.Headrooms {
			if !seenH[h] {
				seenH[h] = true
				hs = append(hs, h)
			}
		}
		if b := d.Switch.Buffers; b != nil {
			if seenB[b] == 0 {
				bs = append(bs, b)
			}
			seenB[b]++
		}
	}
	slices.SortFunc(hs, func(a, b *ir.Headroom) int { return strings.Compare(a.Name, b.Name) })
	for _, h := range hs {
		p("| %s | %d B | %d B | %d B | %d B |\n", h.Name, h.Xoff, h.Xon, h.Size, h.Required)
	}
	p("\nBuffer plans:\n\n| model | switches | buffer | reserved (%%) | headroom | shared lossy | PFC xoff point |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, bp := range bs {
		p("| %s | %d | %d B | %d B (%d%% %s) | %d B | %d B | %d B |\n", bp.Model, seenB[bp], bp.TotalBytes, bp.LosslessBytes,
			bp.ReservePercent, bp.ReserveName, bp.HeadroomBytes, bp.LossyBytes, bp.XoffPoint)
	}
	if hosts := f.Hosts(); len(hosts) > 0 && hosts[0].Host.Profile != nil {
		hp := hosts[0].Host.Profile
		p("\nHosts: %s via %s, trust %s, PFC on %s, NIC cable %gm, MTU %d, RoCE ToS %d, DCQCN %v.\n",
			hp.NICModel, hp.Tool, hp.Trust, prioList(hp.PFC), hp.CableM, hp.MTU, hp.RoCETOS, hp.DCQCN.Enabled)
	}
	if len(f.Tenants) > 0 {
		p("\n## Tenants\n\n| tenant | class | servers | NCCL_IB_TC |\n|---|---|---:|---:|\n")
		for _, tn := range f.Tenants {
			p("| %s | %s | %d | %d |\n", tn.Name, tn.ClassName, len(tn.Servers), tn.TrafficClass)
		}
	}
	p("\n## Findings\n\n")
	if len(ds) == 0 {
		p("None.\n")
	}
	base := ""
	if in != nil {
		base, _ = filepath.Abs(in.Dir)
	}
	for _, d := range ds {
		if rel, err := filepath.Rel(base, d.Pos.File); err == nil && base != "" && filepath.IsAbs(d.Pos.File) {
			d.Pos.File = filepath.ToSlash(rel)
		}
		p("- `%s`\n", d.String())
	}
	return []byte(b.String())
}

func prioList(pfc [8]bool) string {
	var out []string
	for i, on := range pfc {
		if on {
			out = append(out, fmt.Sprint(i))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return "priority " + strings.Join(out, ",")
}
