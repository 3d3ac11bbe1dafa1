package lint

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// verifyForms is the part of RF117 that counts, per platform the fabric
// uses, the statement forms its artifacts carry that no public source
// confirms (status verify in the statement table, compiler/platforms
// statements.json). The artifacts mark each of them; this says, before
// anything is pushed, how many there are and which.
func verifyForms(p *Pass) {
	byPlatform := VerifyForms(p.Fabric.Switches())
	for _, plat := range slices.Sorted(maps.Keys(byPlatform)) {
		forms := byPlatform[plat]
		var first *ir.Device
		n := 0
		for _, d := range p.Fabric.Switches() {
			if d.Platform == plat {
				if first == nil {
					first = d
				}
				n++
			}
		}
		quoted := make([]string, len(forms))
		for i, f := range forms {
			quoted[i] = "`" + f + "`"
		}
		p.ReportDevice(p.Pos("topology"), first.Name, "",
			"%s (%s): %s no public source confirms, marked verify in the artifacts: %s; check them on the target release before a push (docs/statements.md)",
			plat, plural(n, "switch", "switches"), plural(len(forms), "statement form", "statement forms"), strings.Join(quoted, ", "))
	}
}

// VerifyForms returns, per platform, the statement forms marked verify in
// the statement table that the platform's renderer writes for these
// devices, sorted: a form counts when the conditions of its row (When)
// hold for at least one device of the platform.
func VerifyForms(devices []*ir.Device) map[string][]string {
	out := map[string][]string{}
	for _, row := range platforms.Statements() {
		if row.Status != platforms.Verify {
			continue
		}
		for _, d := range devices {
			if d.Switch != nil && d.Platform == row.Platform && holds(d, row.When) {
				out[row.Platform] = append(out[row.Platform], row.Form)
				break
			}
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// holds reports whether every When word holds for d.
func holds(d *ir.Device, when []string) bool {
	for _, w := range when {
		negate, conds := platforms.ParseCondition(w)
		if slices.ContainsFunc(conds, func(c string) bool { return condition(d, c) }) == negate {
			return false
		}
	}
	return true
}

// splitLaneRE is an EOS interface on a later lane of its cage.
var splitLaneRE = regexp.MustCompile(`^Ethernet[0-9]+/[2-8]$`)

// condition evaluates one of platforms.StatementConditions for a switch;
// an unknown name never holds (the table's decoder refuses them).
func condition(d *ir.Device, c string) bool {
	s := d.Switch
	q := s.QoS
	switch c {
	case "lossless":
		return q != nil && len(q.PFC) > 0
	case "watchdog":
		return q != nil && q.Watchdog.Enabled
	case "headroom":
		return len(s.Headrooms) > 0 || slices.ContainsFunc(s.Ports, func(p ir.Port) bool { return p.Headroom != nil })
	case "lb:ecmp", "lb:adaptive", "lb:spray":
		return s.LoadBalancing == strings.TrimPrefix(c, "lb:")
	case "mmu:xgs", "mmu:dnx":
		return asicFamily(d) == strings.TrimPrefix(c, "mmu:")
	case "tc-remap":
		if q == nil {
			return false
		}
		for tc := range 7 {
			if q.TCToQueue[tc] != tc {
				return true
			}
		}
		return false
	case "split-cage":
		return slices.ContainsFunc(s.Ports, func(p ir.Port) bool { return p.SpeedGbps > 0 && splitLaneRE.MatchString(p.Name) })
	case "slow-cage":
		return len(eosSlowPorts(d)) > 0
	case "port-speed":
		return slices.ContainsFunc(s.Ports, func(p ir.Port) bool { return p.SpeedGbps > 0 })
	}
	return false
}

// asicFamily is "xgs" for Broadcom Trident and Tomahawk, "dnx" for Jericho
// and Qumran, "" otherwise: by the ASIC the buffer plan names, else by the
// Arista model series, as the EOS renderer tells its MMU.
func asicFamily(d *ir.Device) string {
	if b := d.Switch.Buffers; b != nil {
		a := strings.ToLower(b.ASIC)
		switch {
		case strings.Contains(a, "tomahawk"), strings.Contains(a, "trident"):
			return "xgs"
		case strings.Contains(a, "jericho"), strings.Contains(a, "qumran"):
			return "dnx"
		}
	}
	if d.Platform != ir.PlatformEOS {
		return ""
	}
	m := strings.TrimPrefix(strings.ToUpper(d.Model), "DCS-")
	for _, p := range []string{"7050", "7060", "7260", "7300X", "7368", "7388"} {
		if strings.HasPrefix(m, p) {
			return "xgs"
		}
	}
	for _, p := range []string{"7020R", "7280", "7500R", "7800"} {
		if strings.HasPrefix(m, p) {
			return "dnx"
		}
	}
	return ""
}
