package compiler_test

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
)

// TestSONiCTables: a SONiC switch carries how each CONFIG_DB table is
// applied, from the catalog, and other devices carry nothing.
func TestSONiCTables(t *testing.T) {
	f := compile(t, `name: "t"
topology: {servers: 16, rails: 1, nic: {speed: "400G", cable: "3m"},
	leaf: {platform: "sonic", model: "DS5000", downlinks: 16, uplinks: 16, speed: "400G"},
	spine: {platform: "eos", model: "7060X6-64PE", speed: "400G", cable: "30m"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`)
	n := 0
	for _, d := range f.Devices {
		if d.Platform != ir.PlatformSONiC {
			if d.Tables != nil {
				t.Errorf("%s (%s) carries SONiC tables", d.Name, d.Platform)
			}
			continue
		}
		n++
		for table, want := range map[string]ir.TableApply{
			"BUFFER_POOL":  {Disruption: "reboot", Method: "config-reload"},
			"BREAKOUT_CFG": {Disruption: "port-flap", Method: "breakout"},
			"QUEUE":        {Disruption: "hitless", Method: "apply-patch"},
		} {
			if got := d.Tables[table]; got != want {
				t.Errorf("%s: %s applied as %+v, want %+v", d.Name, table, got, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no SONiC switch")
	}
}
