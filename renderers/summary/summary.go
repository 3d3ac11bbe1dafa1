// Package summary writes SUMMARY.md, what a reviewer of a build reads
// first: the devices by role and platform, the files the build wrote, the
// classes, the derived thresholds, the tenants and the findings.
//
// Every figure in it is read from the compiled fabric (the IR), the same
// values explain prints and the renderers write, never from the intent,
// whose sizes may be in units (cells) that only a platform turns into
// bytes.
package summary

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// File is the summary's path in a build.
const File = "SUMMARY.md"

// Renderer renders SUMMARY.md as the last of a build's fabric-wide
// artifacts: its file map lists the ones rendered before it.
type Renderer struct {
	// Files lists the renderers of a device's files as a build writes them
	// by default; the file map shows those of the first device of each
	// group, so that it cannot drift from the files.
	Files func(d *ir.Device) []renderers.Renderer
	// Findings are the compiler's findings on the intent.
	Findings diag.List
	// Dir is the intent's directory: findings' positions are written
	// relative to it, so that the file is the same on every machine.
	Dir string
}

var _ renderers.FabricRenderer = Renderer{}

// RenderFabric renders SUMMARY.md; earlier are the fabric-wide artifacts
// the build writes besides it.
func (r Renderer) RenderFabric(f *ir.Fabric, earlier []renderers.Artifact) ([]renderers.Artifact, error) {
	return []renderers.Artifact{{Path: File, Format: renderers.Text, Content: r.render(f, earlier)}}, nil
}

// inventoryFile is the path of the expanded fabric, which the file map
// describes in its own row.
const inventoryFile = "inventory.json"

func (r Renderer) render(f *ir.Fabric, earlier []renderers.Artifact) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	t := f.Topology
	groups := deviceGroups(f)

	p("# %s\n\n", mdText(f.Name))
	servers := "servers"
	if t.Servers == 1 {
		servers = "server"
	}
	p("%s fabric, %s, %s %s x %s", t.Style, diag.Plural(t.Tiers, "tier", "tiers"), thousands(int64(t.Servers)), servers,
		diag.Plural(t.Rails, "rail", "rails"))
	if t.Pods > 0 {
		p(", %s", diag.Plural(t.Pods, "pod", "pods"))
	}
	p(". MTU: switch %d, host %d, RoCE path %d.\n\n", f.MTU.Switch, f.MTU.Host, f.MTU.RoCE)
	p("Sizes are in KiB (1,024 B) and MiB (1,048,576 B), with the exact bytes the artifacts hold in\n")
	p("parentheses. `rocefab explain PATH DEVICE[:PORT]` shows how each derived value was computed.\n\n")

	p("## Devices\n\n")
	table(&b, []string{"role", "platform", "model", "names", "count"}, 4,
		func(row func(...string)) {
			for _, g := range groups {
				row(string(g.role), g.platform, g.model, nameRange(g.devices), thousands(int64(len(g.devices))))
			}
		})
	p("\n%s links.", thousands(int64(len(f.Links))))
	for _, tier := range slices.Sorted(maps.Keys(t.Oversubscription)) {
		p(" %s oversubscription %.2f:1.", tier, t.Oversubscription[tier])
	}
	p("\n\n")

	r.writeFileMap(&b, f, groups, earlier)
	writeClasses(&b, f, groups)
	writeThresholds(&b, f, groups)
	writeTenants(&b, f)
	writeNextSteps(&b, f, groups)

	p("## Findings\n\n")
	if len(r.Findings) == 0 {
		p("None.\n")
	}
	base := ""
	if r.Dir != "" {
		base, _ = filepath.Abs(r.Dir)
	}
	for _, d := range r.Findings.Dedupe() {
		if rel, err := filepath.Rel(base, d.Pos.File); err == nil && base != "" && filepath.IsAbs(d.Pos.File) {
			d.Pos.File = filepath.ToSlash(rel)
		}
		p("- %s\n", codeSpan(d.String()))
	}
	return []byte(b.String())
}

// group is the devices of one role, platform and model, in fabric order.
type group struct {
	role            ir.Role
	platform, model string
	devices         []*ir.Device
}

// deviceGroups groups the fabric's devices by role (top tier first),
// platform and model.
func deviceGroups(f *ir.Fabric) []*group {
	type key struct {
		role            ir.Role
		platform, model string
	}
	byKey := map[key]*group{}
	var out []*group
	for _, d := range f.Devices {
		k := key{d.Role, d.Platform, d.Model}
		g := byKey[k]
		if g == nil {
			g = &group{role: d.Role, platform: d.Platform, model: d.Model}
			byKey[k] = g
			out = append(out, g)
		}
		g.devices = append(g.devices, d)
	}
	slices.SortStableFunc(out, func(a, b *group) int {
		return cmp.Or(a.role.Rank()-b.role.Rank(), cmp.Compare(a.platform, b.platform), cmp.Compare(a.model, b.model))
	})
	return out
}

// nameRange names a group's devices: one name, two, or the first and last.
func nameRange(ds []*ir.Device) string {
	switch len(ds) {
	case 0:
		return ""
	case 1:
		return codeSpan(ds[0].Name)
	case 2:
		return codeSpan(ds[0].Name) + ", " + codeSpan(ds[1].Name)
	}
	return codeSpan(ds[0].Name) + " … " + codeSpan(ds[len(ds)-1].Name)
}

// writeFileMap lists what build writes, from the artifacts the renderers
// give for the first device of each group and the fabric-wide ones, so the
// map cannot drift from the files.
func (r Renderer) writeFileMap(b *strings.Builder, f *ir.Fabric, groups []*group, earlier []renderers.Artifact) {
	b.WriteString("## Files\n\n")
	table(b, []string{"files", "for"}, 2, func(row func(...string)) {
		row(codeSpan(File), "this summary")
		if slices.ContainsFunc(earlier, func(a renderers.Artifact) bool { return a.Path == inventoryFile }) {
			row(codeSpan(inventoryFile), fmt.Sprintf("the expanded fabric, %s devices and %s links; an intent with %s reads it back",
				thousands(int64(len(f.Devices))), thousands(int64(len(f.Links))), codeSpan(`topology: {style: "explicit", inventory: "inventory.json"}`)))
		}
		for _, g := range groups {
			d := g.devices[0]
			paths, err := r.deviceFiles(d)
			if err != nil {
				row("-", fmt.Sprintf("%s: not rendered (%v)", d.Name, err))
				continue
			}
			var files []string
			for _, p := range paths {
				rel := strings.TrimPrefix(p, d.Name+"/")
				files = append(files, codeSpan("<"+roleWord(g.role)+">/"+rel))
			}
			row(strings.Join(files, ", "), fmt.Sprintf("%s (%s %s): %s", devicesOf(len(g.devices), g.role), g.platform, g.model, nameRange(g.devices)))
		}
		// Tenants get a row each; other fabric-wide files one row per
		// directory.
		var dirs []string
		byDir := map[string][]string{}
		for _, a := range earlier {
			if a.Path == inventoryFile {
				continue
			}
			dir, _, _ := strings.Cut(a.Path, "/")
			if dir == "tenants" {
				row(codeSpan(a.Path), "NCCL environment of tenant "+mdText(strings.TrimSuffix(filepath.Base(a.Path), ".env")))
				continue
			}
			if _, ok := byDir[dir]; !ok {
				dirs = append(dirs, dir)
			}
			byDir[dir] = append(byDir[dir], codeSpan(a.Path))
		}
		for _, dir := range dirs {
			row(strings.Join(byDir[dir], ", "), "the whole fabric, for "+dir)
		}
	})
	b.WriteString("\n")
}

// deviceFiles returns the paths of d's default files, named by the
// renderers that can name them and rendered by the others.
func (r Renderer) deviceFiles(d *ir.Device) ([]string, error) {
	if r.Files == nil {
		return nil, nil
	}
	var out []string
	for _, rd := range r.Files(d) {
		if n, ok := rd.(renderers.Namer); ok {
			paths, err := n.Names(d)
			if err != nil {
				return nil, err
			}
			out = append(out, paths...)
			continue
		}
		arts, err := rd.Render(d)
		if err != nil {
			return nil, err
		}
		for _, a := range arts {
			out = append(out, a.Path)
		}
	}
	return out, nil
}

// writeClasses writes the class table. ECN thresholds are those the
// switches program (in bytes, after any cell rounding); where switch
// models differ they are given per model.
func writeClasses(b *strings.Builder, f *ir.Fabric, groups []*group) {
	b.WriteString("## Classes\n\n")
	table(b, []string{"class", "priority", "DSCP", "lossless", "scheduling", "ECN min / max / probability"}, 9,
		func(row func(...string)) {
			for _, c := range f.Classes {
				dscp := strings.Trim(fmt.Sprint(c.DSCP), "[]")
				if c.Default {
					dscp = strings.TrimSpace(dscp + " (default: every DSCP no class lists)")
				}
				sched := fmt.Sprintf("ETS %d%%", c.Bandwidth)
				if c.Strict {
					sched = "strict"
				}
				lossless := "no"
				if c.Lossless {
					lossless = "yes (PFC)"
				}
				if c.CNP {
					lossless += ", CNP"
				}
				row(mdText(c.Name), strconv.Itoa(c.Priority), dscp, lossless, sched, classECN(c, groups))
			}
		})
	b.WriteString("\n")
}

// classECN describes the ECN profile switches program for class c.
func classECN(c *ir.Class, groups []*group) string {
	type prof struct {
		min, max int64
		prob     int
	}
	var order []prof
	models := map[prof][]string{}
	for _, g := range groups {
		d := g.devices[0]
		if d.Switch == nil || d.Switch.QoS == nil {
			continue
		}
		for _, q := range d.Switch.QoS.Queues {
			if q.Class == nil || q.Class.Name != c.Name || q.ECN == nil {
				continue
			}
			pr := prof{q.ECN.MinBytes, q.ECN.MaxBytes, q.ECN.Probability}
			if _, ok := models[pr]; !ok {
				order = append(order, pr)
			}
			if !slices.Contains(models[pr], g.model) {
				models[pr] = append(models[pr], g.model)
			}
		}
	}
	if len(order) == 0 {
		return "off"
	}
	var parts []string
	for _, pr := range order {
		s := fmt.Sprintf("%s / %s / %d%%", size(pr.min), size(pr.max), pr.prob)
		if len(order) > 1 {
			s += " on " + strings.Join(models[pr], ", ")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// writeThresholds writes the headroom per port class and the buffer plans,
// each row naming the role, platform and model it holds for: the same port
// class has different thresholds on ASICs with different cells, and
// switches of one model with different port mixes have different plans.
func writeThresholds(b *strings.Builder, f *ir.Fabric, groups []*group) {
	b.WriteString("## Derived thresholds\n\nPFC headroom per port and lossless priority, by port class (speed and cable length):\n\n")
	table(b, []string{"role", "platform", "model", "port class", "xoff", "xon", "size", "needed"}, 4,
		func(row func(...string)) {
			for _, g := range groups {
				for _, h := range groupHeadrooms(g) {
					row(string(g.role), g.platform, g.model, h.Name, size(h.Xoff), size(h.Xon), size(h.Size), size(h.Required))
				}
			}
		})
	b.WriteString("\nBuffer plans (the headroom pool is the sum of every port's headroom over its lossless priorities):\n\n")
	table(b, []string{"role", "platform", "model", "ports by class", "switches", "buffer", "reserved", "headroom pool", "shared lossy", "PFC xoff point"}, 4,
		func(row func(...string)) {
			for _, g := range groups {
				plans, count, mix := groupPlans(g)
				for _, bp := range plans {
					reserved := size(bp.LosslessBytes)
					if bp.ReserveName != "" {
						reserved += fmt.Sprintf(", %d%% for %s", bp.ReservePercent, bp.ReserveName)
					}
					if bp.Shared {
						// The platform holds no share for one class: every
						// class draws on the shared pool (RF117).
						reserved = "none: shared pool"
						if bp.UnheldName != "" {
							reserved += fmt.Sprintf(", %d%% for %s not held (RF117)", bp.UnheldPercent, bp.UnheldName)
						}
					}
					row(string(g.role), g.platform, g.model, mix[bp], thousands(int64(count[bp])), size(bp.TotalBytes), reserved,
						size(bp.HeadroomBytes), size(bp.LossyBytes), size(bp.XoffPoint))
				}
			}
		})
	if hosts := f.Hosts(); len(hosts) > 0 && hosts[0].Host.Profile != nil {
		hp := hosts[0].Host.Profile
		dcqcn := "off"
		if hp.DCQCN.Enabled {
			dcqcn = "on"
		}
		cm := ""
		if hp.RDMACMClass != nil {
			cm = " (class " + hp.RDMACMClass.Name + ")"
		}
		fmt.Fprintf(b, "\nHosts: %s via %s, trust %s, PFC on %s, NIC cable %gm, MTU %d, rdma_cm ToS %d%s, DCQCN %s.\n",
			hp.NICModel, hp.Tool, hp.Trust, prioList(hp.PFC), hp.CableM, hp.MTU, hp.RoCETOS, cm, dcqcn)
		// A mixed fleet: the servers of another NIC model, each model's
		// profile once, in the order of the servers.
		seen := map[*ir.HostProfile][]*ir.Device{hp: nil}
		var others []*ir.HostProfile
		for _, d := range hosts {
			p := d.Host.Profile
			if _, ok := seen[p]; !ok {
				others = append(others, p)
			}
			if p != hp {
				seen[p] = append(seen[p], d)
			}
		}
		for _, p := range others {
			var cc []string
			for _, k := range p.CCKnobs {
				cc = append(cc, k.Name+" "+k.Value)
			}
			what := "no NIC cable"
			if p.CableM > 0 {
				what = fmt.Sprintf("NIC cable %gm", p.CableM)
			}
			if len(cc) > 0 {
				what += ", congestion control " + p.CCKnobs[0].Driver + " " + strings.Join(cc, ", ")
			}
			fmt.Fprintf(b, "Hosts %s (%s): %s via %s, %s.\n", nameRange(seen[p]), thousands(int64(len(seen[p]))), p.NICModel, p.Tool, what)
		}
	}
	b.WriteString("\n")
}

// groupHeadrooms returns the distinct port classes of a group's switches,
// by speed, then cable length.
func groupHeadrooms(g *group) []*ir.Headroom {
	var hs []*ir.Headroom
	for _, d := range g.devices {
		if d.Switch == nil {
			continue
		}
		for _, h := range d.Switch.Headrooms {
			if !slices.Contains(hs, h) {
				hs = append(hs, h)
			}
		}
	}
	slices.SortStableFunc(hs, func(a, b *ir.Headroom) int {
		return cmp.Or(cmp.Compare(a.SpeedGbps, b.SpeedGbps), cmp.Compare(a.CableM, b.CableM))
	})
	return hs
}

// groupPlans returns the distinct buffer plans of a group's switches in
// fabric order, how many switches use each, and each plan's port mix
// ("32 × 400G-3m, 32 × 400G-30m", from its first switch).
func groupPlans(g *group) ([]*ir.BufferPlan, map[*ir.BufferPlan]int, map[*ir.BufferPlan]string) {
	var plans []*ir.BufferPlan
	count := map[*ir.BufferPlan]int{}
	mix := map[*ir.BufferPlan]string{}
	for _, d := range g.devices {
		if d.Switch == nil || d.Switch.Buffers == nil {
			continue
		}
		bp := d.Switch.Buffers
		if count[bp] == 0 {
			plans = append(plans, bp)
			var parts []string
			for _, h := range d.Switch.Headrooms {
				n := 0
				for _, pt := range d.Switch.Ports {
					if pt.Headroom == h {
						n++
					}
				}
				parts = append(parts, fmt.Sprintf("%d × %s", n, h.Name))
			}
			mix[bp] = strings.Join(parts, ", ")
		}
		count[bp]++
	}
	return plans, count, mix
}

// writeTenants lists the tenants with the servers they run on.
func writeTenants(b *strings.Builder, f *ir.Fabric) {
	if len(f.Tenants) == 0 {
		return
	}
	all := len(f.Hosts())
	b.WriteString("## Tenants\n\n")
	table(b, []string{"tenant", "class", "servers", "NCCL_IB_TC"}, 3, func(row func(...string)) {
		for _, tn := range f.Tenants {
			servers := fmt.Sprintf("%s of %s", thousands(int64(len(tn.Servers))), thousands(int64(all)))
			if len(tn.Servers) == 0 || len(tn.Servers) == all {
				// No server list means any server: say so rather
				// than count zero.
				servers = fmt.Sprintf("every server (%s)", thousands(int64(all)))
			}
			row(mdText(tn.Name), mdText(tn.ClassName), servers, strconv.Itoa(tn.TrafficClass))
		}
	})
	b.WriteString("\n")
}

// writeNextSteps says what a reviewer does with the build.
func writeNextSteps(b *strings.Builder, f *ir.Fabric, groups []*group) {
	b.WriteString("## Next steps\n\n")
	b.WriteString("1. Read the findings below: each names the intent line that caused it, and\n" +
		"   `rocefab lint --explain RFnnn` says why its rule matters.\n")
	for _, g := range groups {
		d := g.devices[0]
		if d.Switch != nil && len(d.Switch.Ports) > 0 {
			fmt.Fprintf(b, "1. Check a threshold against its formula and inputs, e.g.\n   %s.\n",
				codeSpan("rocefab explain PATH "+d.Name+":"+d.Switch.Ports[0].Name+" headroom"))
			break
		}
	}
	b.WriteString("1. Review the artifacts as a diff against the previous build: the same intent always gives the\n" +
		"   same bytes, so every changed line comes from a changed intent or a new rocefab.\n")
	b.WriteString("1. Plan the change against what the devices run: `rocefab plan PATH -o fabric.plan` reads each\n" +
		"   device's running configuration (`running/` beside the intent, or the devices of\n" +
		"   `--inventory FILE`), compares what rocefab owns and labels each change with what it disrupts.\n" +
		"1. Apply it: `rocefab apply fabric.plan` pushes exactly that plan (refused when stale), in waves\n" +
		"   with commit-confirm, and rolls back a wave that does not converge; `--canary N` starts with\n" +
		"   N devices.\n")
	b.WriteString("1. Or by hand: load each switch's native file with its platform's own tooling (docs/switches.md\n" +
		"   says which changes pause traffic or flap ports); on each server install `hosts/rocefab-host.sh`,\n" +
		"   its `host.conf` and `hosts/rocefab-qos@.service` (README.md, Hosts), and run\n" +
		"   `rocefab-host.sh --check` first to see what it would change")
	if len(f.Tenants) > 0 {
		b.WriteString(";\n   start each job with its tenant's `tenants/<name>.env`")
	}
	b.WriteString(".\n\n")
}

// table writes a markdown table: the header, the separator, and the rows
// body adds. Columns from right on hold numbers and are right-aligned; a
// right beyond the last column aligns none. Every row gets the header's
// number of cells, and a '|' inside a cell is escaped (GFM tables 4.10).
func table(b *strings.Builder, header []string, right int, body func(row func(...string))) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i >= right {
			b.WriteString("---:|")
			continue
		}
		b.WriteString("---|")
	}
	b.WriteString("\n")
	body(func(cells ...string) {
		row := make([]string, len(header))
		for i := range row {
			if i < len(cells) {
				row[i] = strings.ReplaceAll(cells[i], "|", `\|`)
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	})
}

// size formats a byte count as KiB or MiB with the exact bytes in
// parentheses, e.g. "13.00 MiB (13,631,488 B)".
func size(n int64) string {
	a := n
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 1<<20:
		return fmt.Sprintf("%.2f MiB (%s B)", float64(n)/(1<<20), thousands(n))
	case a >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%s B)", float64(n)/(1<<10), thousands(n))
	}
	return thousands(n) + " B"
}

// thousands formats n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// roleWord names a device of a role as users do: a host is a server.
func roleWord(role ir.Role) string {
	if role == ir.RoleHost {
		return "server"
	}
	return string(role)
}

// devicesOf names n devices of a role: "the server", "each of the 64 leaf
// switches".
func devicesOf(n int, role ir.Role) string {
	noun := string(role) + " switch"
	if role == ir.RoleHost {
		noun = "server"
	}
	if n == 1 {
		return "the " + noun
	}
	if role != ir.RoleHost {
		noun += "e"
	}
	return "each of the " + thousands(int64(n)) + " " + noun + "s"
}

// codeSpan writes s as inline code, with a fence longer than any run of
// backticks inside it (CommonMark 6.1), so that a finding quoting a
// command stays one span.
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdText escapes the characters that would start markdown markup in a
// name: names allow '.', '_' and '-', of which '_' can start emphasis.
func mdText(s string) string { return strings.ReplaceAll(s, "_", `\_`) }

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
