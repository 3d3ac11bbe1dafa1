package compiler_test

import (
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// TestDevicesCarryCatalogDisruptions checks that every device knows, for
// its platform and (switches) OpenConfig, the catalog's disruption of each
// element: a plan labels changes with them.
func TestDevicesCarryCatalogDisruptions(t *testing.T) {
	fab := compile(t, `name: "lab"
topology: {
	servers: 8
	rails:   2
	leaf: {platform: "nvue", model: "SN5600"}
}
hosts: nic: ports: ["eth1", "eth2"]
hosts: nccl: hca: ["mlx5_0", "mlx5_1"]
`)
	for _, d := range fab.Devices {
		for _, p := range []string{d.Platform, ir.PlatformOpenConfig} {
			if p == ir.PlatformOpenConfig && d.Switch == nil {
				if _, ok := d.Disruption[p]; ok {
					t.Errorf("%s: a server has OpenConfig disruptions", d.Name)
				}
				continue
			}
			for _, e := range platforms.Elements() {
				if got, want := d.Disruption[p][e], platforms.Disruption(p, e); got != want {
					t.Errorf("%s: %s %s: disruption %q, catalog %q", d.Name, p, e, got, want)
				}
			}
		}
	}
	if got := fab.Devices[len(fab.Devices)-1].Disruption[ir.PlatformLinux]["pfc"]; got != "port-flap" {
		t.Errorf("a server's PFC change is %q, want port-flap (mlx5 toggles the link)", got)
	}
}
