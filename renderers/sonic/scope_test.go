package sonic

import (
	"maps"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// TestScopeForIsTheDesiredScope: the scope Parse derives without rendering
// the ports is the scope of the whole desired state, and owns every field
// of it, for the test fabric's SONiC leaf and its variants.
func TestScopeForIsTheDesiredScope(t *testing.T) {
	devices := []*ir.Device{irtest.Fabric().Device("leaf-sonic")}
	for _, d := range variants(t) {
		devices = append(devices, d)
	}
	for _, d := range devices {
		want, _, err := build(d)
		if err != nil {
			t.Fatal(err)
		}
		full := scopeOf(d, want)
		got, err := scopeFor(d)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got.desired, full.desired) || !maps.Equal(got.rendered, full.rendered) || !maps.Equal(got.ports, full.ports) {
			t.Errorf("%s: scope %+v, desired state's %+v", d.Name, got, full)
		}
		for _, e := range want {
			if !got.owns(e.table, e.key, e.field) {
				t.Errorf("%s: %s|%s|%s is desired but not owned", d.Name, e.table, e.key, e.field)
			}
		}
	}
}
