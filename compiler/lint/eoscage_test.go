package lint

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
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
