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
// speed, is an RF117 error naming the speeds and the maps.
func TestNXOSBreakouts(t *testing.T) {
	f := irtest.Fabric()
	d := f.Device("leaf-nxos")
	d.Model = "N9364D-GX2A"
	set := func(ports ...ir.Port) {
		d.Switch.Ports = ports
	}
	var got []diag.Diagnostic
	p := &Pass{Fabric: f, Analyzer: PlatformGap, Report: func(d diag.Diagnostic) { got = append(got, d) }}
	set(ir.Port{Name: "Ethernet1/1/1", SpeedGbps: 100}, ir.Port{Name: "Ethernet1/1/2", SpeedGbps: 100}, ir.Port{Name: "Ethernet1/2", SpeedGbps: 400})
	nxosBreakouts(p)
	if len(got) != 0 {
		t.Fatalf("100G ports of a 400G cage: findings %v", got)
	}
	set(ir.Port{Name: "Ethernet1/3/1", SpeedGbps: 100}, ir.Port{Name: "Ethernet1/3/2", SpeedGbps: 400})
	nxosBreakouts(p)
	if len(got) != 1 || got[0].Severity != diag.Error || got[0].Rule != "RF117" ||
		!strings.Contains(got[0].Message, "Ethernet1/3 is split into ports at 100G, 400G") || !strings.Contains(got[0].Message, "100g-4x") {
		t.Fatalf("mixed cage: findings %v", got)
	}
}
