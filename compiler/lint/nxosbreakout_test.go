package lint

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// TestNXOSBreakouts: an NX-OS cage split into ports at one speed a map
// makes is fine; one split into ports of mixed speeds, or at its own
// speed, is an RF117 error naming the speeds and the maps, and so is a
// port below the speed of the whole cage it uses.
func TestNXOSBreakouts(t *testing.T) {
	d, p, got := gapPass("leaf-nxos", "N9364D-GX2A")
	set := func(ports ...ir.Port) { d.Switch.Ports = ports }
	set(ir.Port{Name: "Ethernet1/1/1", SpeedGbps: 100}, ir.Port{Name: "Ethernet1/1/2", SpeedGbps: 100}, ir.Port{Name: "Ethernet1/2", SpeedGbps: 400})
	nxosBreakouts(p)
	if len(*got) != 0 {
		t.Fatalf("100G ports of a 400G cage: findings %v", *got)
	}
	set(ir.Port{Name: "Ethernet1/3/1", SpeedGbps: 100}, ir.Port{Name: "Ethernet1/3/2", SpeedGbps: 400})
	nxosBreakouts(p)
	if len(*got) != 1 || (*got)[0].Severity != diag.Error || (*got)[0].Rule != "RF117" ||
		!strings.Contains((*got)[0].Message, "Ethernet1/3 is split into ports at 100G, 400G") || !strings.Contains((*got)[0].Message, "100g-4x") {
		t.Fatalf("mixed cage: findings %v", *got)
	}
	*got = nil
	set(ir.Port{Name: "Ethernet1/5", SpeedGbps: 100, Facing: ir.RoleHost})
	nxosBreakouts(p)
	if !oneErrorAt(*got, "Ethernet1/5", "links at 100G on a whole 400G cage of N9364D-GX2A") {
		t.Fatalf("100G on a whole 400G cage: findings %v", *got)
	}
}

// oneErrorAt says whether got is one error, on port, whose message holds
// phrase.
func oneErrorAt(got []diag.Diagnostic, port, phrase string) bool {
	return len(got) == 1 && got[0].Severity == diag.Error && got[0].Port == port && strings.Contains(got[0].Message, phrase)
}

// gapPass returns the test fabric's device name, made a model, and a
// PlatformGap pass over the fabric whose findings collect in got.
func gapPass(name, model string) (d *ir.Device, p *Pass, got *[]diag.Diagnostic) {
	f := irtest.Fabric()
	d = f.Device(name)
	d.Model = model
	got = new([]diag.Diagnostic)
	p = &Pass{Fabric: f, Analyzer: PlatformGap, Report: func(x diag.Diagnostic) { *got = append(*got, x) }}
	return d, p, got
}
