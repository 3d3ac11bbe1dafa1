package lint

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// TestEOSCageSpeeds: an EOS port using its whole 800G cage at 200G is a
// slow-cage port with speed 200g-2 and no finding; at 50G no whole number
// of 100G lanes carries it, an RF117 error naming the speed and cage; a
// port of a split cage or at the cage's speed is none of these.
func TestEOSCageSpeeds(t *testing.T) {
	d, p, got := gapPass("leaf-eos", "7060X6-64PE")
	set := func(ports ...ir.Port) { d.Switch.Ports = ports }

	set(ir.Port{Name: "Ethernet1/1", SpeedGbps: 800}, ir.Port{Name: "Ethernet2/1", SpeedGbps: 400}, ir.Port{Name: "Ethernet2/5", SpeedGbps: 400})
	if s := eosSlowPorts(d); len(s) != 0 || condition(d, "slow-cage") {
		t.Errorf("a whole cage at its speed and a split cage: slow ports %v", s)
	}
	set(ir.Port{Name: "Ethernet3/1", SpeedGbps: 200})
	if s := eosSlowPorts(d); len(s) != 1 || s[0].speed != "200g-2" || !condition(d, "slow-cage") {
		t.Errorf("200G on a whole 800G cage: slow ports %v", s)
	}
	eosCageSpeeds(p)
	if len(*got) != 0 {
		t.Fatalf("200G on a whole 800G cage: findings %v", *got)
	}
	set(ir.Port{Name: "Ethernet4/1", SpeedGbps: 50, Facing: ir.RoleHost})
	eosCageSpeeds(p)
	if !oneErrorAt(*got, "Ethernet4/1", "links at 50G on a whole 800G cage of 100G lanes (7060X6-64PE)") {
		t.Fatalf("50G on a whole 800G cage: findings %v", *got)
	}
}

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

func TestSONiCPortGaps(t *testing.T) {
	f := irtest.Fabric()
	var got []diag.Diagnostic
	p := &Pass{Fabric: f, Analyzer: PlatformGap, Report: func(d diag.Diagnostic) { got = append(got, d) }}
	sonicPortGaps(p)
	// test-64 is no catalog model: one finding for its switches.
	if len(got) != 1 || !strings.Contains(got[0].Message, "test-64 has no SONiC port map") {
		t.Fatalf("findings %v", got)
	}
	// A DS5000 whose port is not one its SKU creates at 400G.
	d := f.Device("leaf-sonic")
	d.Model = "DS5000"
	for i := range d.Switch.Ports {
		d.Switch.Ports[i].SKU = &ir.SKUPort{SerDes: []int{1, 2, 3, 4}}
	}
	d.Switch.Ports[1].SKU = nil
	got = nil
	sonicPortGaps(p)
	if len(got) != 1 || got[0].Port != d.Switch.Ports[1].Name || !strings.Contains(got[0].Message, "SKU DS5000") {
		t.Fatalf("findings %v", got)
	}
}
