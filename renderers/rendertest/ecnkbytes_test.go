package rendertest_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
	"github.com/rocefab/rocefab/renderers/nxos"
)

// TestNXOSECNKbytes: the ECN thresholds an NX-OS switch is written with are
// the ones the compiler derives and explain prints (Switch.Derived,
// ecn-min[class] and ecn-max[class]), including thresholds below 2 KiB,
// where the kbyte grid moves them, and lint's RF117 warning names the same
// kbytes exactly where the grid moved them.
func TestNXOSECNKbytes(t *testing.T) {
	line := regexp.MustCompile(`(?m)^ +random-detect minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes `)
	for _, c := range []struct {
		min, max string
		lo, hi   int64 // kbytes
		moved    bool  // RF117 reports it
	}{
		{"100KB", "300KB", 97, 292, false},
		{"150KB", "1500KB", 146, 1464, false},
		{"1000B", "1500B", 1, 2, true},  // under the grid: max raised to 2 kbytes
		{"2000B", "2100B", 1, 2, false}, // rounded down only
		{"2100B", "3000B", 1, 2, true},  // one kbyte after rounding: min lowered
	} {
		what := fmt.Sprintf("ECN %s..%s", c.min, c.max)
		f, ds := linttest.CompileSource(t, fmt.Sprintf(`name: "k"
topology: {servers: 8, rails: 1, nic: {speed: "400G", cable: "3m"},
	leaf: {platform: "nxos", model: "N9364D-GX2A", downlinks: 8, uplinks: 8, speed: "400G"}}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: %q, max: %q, probability: 20}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 50}
}
`, c.min, c.max))
		if f == nil || ds.HasErrors() {
			t.Fatalf("%s: not compiled: %v", what, ds)
		}
		n := 0
		for _, d := range f.Switches() {
			if d.Platform != ir.PlatformNXOS {
				continue
			}
			n++
			lo, okLo := d.Switch.Programmed(ir.ECNField("min", "roce"))
			hi, okHi := d.Switch.Programmed(ir.ECNField("max", "roce"))
			if !okLo || !okHi || lo != c.lo*1024 || hi != c.hi*1024 {
				t.Errorf("%s: %s derives %d..%d B (%v %v), want %d..%d kbytes", what, d.Name, lo, hi, okLo, okHi, c.lo, c.hi)
			}
			m := line.FindAllStringSubmatch(renderText(t, what, nxos.Renderer{}, d), -1)
			if len(m) != 1 {
				t.Fatalf("%s: %s has %d random-detect lines, want 1", what, d.Name, len(m))
			}
			if m[0][1] != strconv.FormatInt(lo/1024, 10) || m[0][2] != strconv.FormatInt(hi/1024, 10) {
				t.Errorf("%s: %s is written with %s..%s kbytes, explain derives %d..%d B", what, d.Name, m[0][1], m[0][2], lo, hi)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no NX-OS switch", what)
		}
		lint := fmt.Sprintf("written as %d..%d kbytes (%d..%d B)", c.lo, c.hi, c.lo*1024, c.hi*1024)
		found := slices.ContainsFunc(ds, func(d diag.Diagnostic) bool {
			return d.Rule == "RF117" && strings.Contains(d.Message, "kbyte grid") && strings.Contains(d.Message, lint)
		})
		other := slices.ContainsFunc(ds, func(d diag.Diagnostic) bool { return strings.Contains(d.Message, "kbyte grid") })
		if found != c.moved || (other && !found) {
			t.Errorf("%s: lint reports %q: %v (any kbyte finding: %v), want %v:\n%v", what, lint, found, other, c.moved, ds)
		}
	}
}
