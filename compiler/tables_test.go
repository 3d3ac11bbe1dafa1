package compiler_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
)

// TestSONiCTables: a SONiC switch carries how its release takes each
// CONFIG_DB change, other devices nothing; the release is the tier's, or
// the default.
func TestSONiCTables(t *testing.T) {
	for _, c := range []struct {
		release string
		// WRED_PROFILE green_max_threshold replaced on the 7060X6-64PE (th5)
		wred string
	}{
		{"", "config-reload"}, // 202411: only azure_lossless fields
		{`, release: "202505"`, "apply-patch"},
		{`, release: "202511"`, "apply-patch"},
	} {
		f := compile(t, th5Intent(16, "3m", `platform: "sonic"`+c.release, `platform: "eos", model: "7060X6-64PE"`, "30m"))
		n := 0
		for _, d := range f.Devices {
			if d.Platform != ir.PlatformSONiC {
				if d.Apply != nil {
					t.Errorf("%s (%s) carries SONiC rules", d.Name, d.Platform)
				}
				continue
			}
			n++
			for _, w := range []struct{ op, path, want string }{
				{"replace", "WRED_PROFILE/roce_ecn/green_max_threshold", c.wred},
				{"add", "BREAKOUT_CFG/Ethernet0", "breakout"},
				{"replace", "QUEUE/Ethernet0|3/scheduler", "apply-patch"},
				{"replace", "DSCP_TO_TC_MAP/AZURE/26", "config-reload"},
			} {
				if got := d.Apply.Method(w.op, strings.Split(w.path, "/"), nil); got != w.want {
					t.Errorf("%s%s: %s %s by %s, want %s", d.Name, c.release, w.op, w.path, got, w.want)
				}
			}
			if d.Apply.Disruption("BREAKOUT_CFG") != "port-flap" {
				t.Errorf("%s: BREAKOUT_CFG %s", d.Name, d.Apply.Disruption("BREAKOUT_CFG"))
			}
		}
		if n == 0 {
			t.Fatal("no SONiC switch")
		}
	}
}

// TestSONiCRelease: a sonic tier names a release the catalog holds rules
// of, an nvue tier a Cumulus Linux one, and other tiers none.
func TestSONiCRelease(t *testing.T) {
	for _, c := range []struct{ leaf, want string }{
		{`platform: "sonic", model: "DS5000", release: "5.14"`, "5.14"},
		{`platform: "nvue", model: "SN5600", release: "202411"`, "names a SONiC release"},
		{`platform: "eos", model: "7060X6-64PE", release: "202411"`, "only nvue and sonic tiers read"},
	} {
		errs := compileErrors(t, `name: "t"
topology: {servers: 16, rails: 1, nic: {speed: "400G", cable: "3m"},
	leaf: {`+c.leaf+`, downlinks: 16, uplinks: 16, speed: "400G"}}
hosts: nic: ports: ["eth1"]
hosts: nccl: hca: ["mlx5_0"]`)
		if !strings.Contains(errs, c.want) || !strings.Contains(errs, "topology.leaf.release") {
			t.Errorf("%s: %s", c.leaf, errs)
		}
	}
}

// compileErrors compiles src, which must load, and returns the
// diagnostics of a compilation that must fail.
func compileErrors(t *testing.T, src string) string {
	t.Helper()
	_, ds := compiler.Compile(load(t, src))
	if !ds.HasErrors() {
		t.Fatalf("compiled: %v", ds)
	}
	return fmt.Sprint(ds)
}

// TestSONiCReleaseInherited: a sonic spine under sonic leaves runs their
// release unless it names its own.
func TestSONiCReleaseInherited(t *testing.T) {
	for _, c := range []struct{ spine, want string }{
		{`platform: "sonic", model: "7060X6-64PE"`, "202505"},
		{`platform: "sonic", model: "7060X6-64PE", release: "202511"`, "202511"},
	} {
		f := compile(t, th5Intent(16, "3m", `platform: "sonic", release: "202505"`, c.spine, "30m"))
		for _, d := range f.Switches() {
			want := c.want
			if d.Role == ir.RoleLeaf {
				want = "202505"
			}
			if d.Release != want {
				t.Errorf("%s (%s): release %q, want %q", d.Name, c.spine, d.Release, want)
			}
		}
	}
}
