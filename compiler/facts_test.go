package compiler_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// threeTiers is a fabric of three platforms in three tiers, and so with
// pods.
const threeTiers = `name: "lab"
topology: {servers: 1000, rails: 8, leaf: {platform: "sonic", model: "DS5000", downlinks: 64, uplinks: 64},
	spine: {platform: "nvue", model: "SN5600"}, superspine: {platform: "eos", model: "7060X6-64PE"}}
buffers: congestion: queues: 64
`

// TestFabricCarriesPlacement checks that the compiled fabric carries the
// placement of every server, which the scheduler renderers read instead
// of deriving it: a three-tier fabric's servers each sit in a leaf group
// and a pod.
func TestFabricCarriesPlacement(t *testing.T) {
	fab := compile(t, threeTiers)
	v := fab.Placement
	if v == nil {
		t.Fatal("the compiled fabric carries no placement")
	}
	if v.Fabric != fab.Name || v.Tiers != 3 || len(v.Pods) != 2 {
		t.Errorf("placement of %q, %d tiers, %d pods; want %q, 3 tiers, 2 pods", v.Fabric, v.Tiers, len(v.Pods), fab.Name)
	}
	servers := 0
	for _, d := range fab.Devices {
		if d.Role != ir.RoleHost {
			continue
		}
		servers++
		p, ok := v.Position(d.Name)
		if !ok || p.Group == nil || p.Pod == nil {
			t.Errorf("%s: position %+v, %v; want a leaf group and a pod", d.Name, p, ok)
		}
	}
	if servers == 0 || v.Servers != servers {
		t.Errorf("placement counts %d servers, the fabric has %d", v.Servers, servers)
	}
}

// TestElementKindsAreCatalogElements checks that every element kind the
// IR gives renderers to label statements with is a catalog element, so
// the disruption a plan reads for it is the catalog's.
func TestElementKindsAreCatalogElements(t *testing.T) {
	for _, k := range ir.ElementKinds() {
		if !slices.Contains(platforms.Elements(), k) {
			t.Errorf("ir element kind %q is not a catalog element (compiler/platforms: %v)", k, platforms.Elements())
		}
	}
}

// TestDevicesCarryVerifyForms checks that every device carries exactly
// its platform's verify forms from the statement table, which its
// renderer marks in the artifact.
func TestDevicesCarryVerifyForms(t *testing.T) {
	fab := compile(t, threeTiers)
	want := map[string]map[string]bool{}
	for _, s := range platforms.Statements() {
		if s.Status == platforms.Verify {
			if want[s.Platform] == nil {
				want[s.Platform] = map[string]bool{}
			}
			want[s.Platform][s.Form] = true
		}
	}
	seen := map[string]bool{}
	for _, d := range fab.Devices {
		seen[d.Platform] = true
		if !maps.Equal(d.Verify, want[d.Platform]) {
			t.Errorf("%s (%s): verify forms %v, statement table %v", d.Name, d.Platform, slices.Sorted(maps.Keys(d.Verify)), slices.Sorted(maps.Keys(want[d.Platform])))
		}
	}
	if !seen[ir.PlatformEOS] || len(want[ir.PlatformEOS]) == 0 {
		t.Errorf("the fabric has no EOS device with verify forms to check")
	}
}

// TestSwitchesCarryCageSpeeds checks that every switch carries its
// model's cage speed from the catalog, which the EOS renderer writes a
// slower port's lanes against.
func TestSwitchesCarryCageSpeeds(t *testing.T) {
	fab := compile(t, threeTiers)
	for _, d := range fab.Switches() {
		sw, ok := platforms.LookupSwitch(d.Model)
		if !ok || sw.MaxPortGbps() == 0 {
			t.Fatalf("%s: model %q has no cage speed in the catalog", d.Name, d.Model)
		}
		if d.Switch.CageGbps != sw.MaxPortGbps() {
			t.Errorf("%s (%s): cage %d Gbit/s, catalog %d", d.Name, d.Model, d.Switch.CageGbps, sw.MaxPortGbps())
		}
	}
}
