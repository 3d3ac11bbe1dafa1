package routing

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nvue"
)

// TestRegister: a registry with a platform named twice or a descriptor
// missing a file name is refused and changes nothing; a registry taken
// is what Lookup, Platforms and the gNMI platform give.
func TestRegister(t *testing.T) {
	prev := current.Load() // the CLI's, which the other tests read
	t.Cleanup(func() { current.Store(prev) })
	load := func(string) (*Inventory, diag.List, error) { return nil, nil, nil }
	stand := Descriptor{Name: ir.PlatformNVUE, Renderer: nvue.Renderer{}, Artifact: nvue.File, Running: nvue.File}
	oc := Descriptor{Name: "openconfig", Renderer: nvue.Renderer{}, Artifact: "oc.json", Running: "oc.json"}
	for name, r := range map[string]Registry{
		"twice":         {Platforms: []Descriptor{stand, stand}, OpenConfig: oc, LoadInventory: load},
		"no artifact":   {Platforms: []Descriptor{{Name: "x", Renderer: nvue.Renderer{}, Running: "x"}}, OpenConfig: oc, LoadInventory: load},
		"no loader":     {Platforms: []Descriptor{stand}, OpenConfig: oc},
		"no OpenConfig": {Platforms: []Descriptor{stand}, LoadInventory: load},
	} {
		before := Platforms()
		if err := Register(r); err == nil {
			t.Errorf("%s: registered", name)
		}
		if got := Platforms(); len(got) != len(before) {
			t.Errorf("%s: a refused registry changed the platforms: %v", name, got)
		}
	}
	if err := Register(Registry{Platforms: []Descriptor{stand}, OpenConfig: oc, LoadInventory: load}); err != nil {
		t.Fatal(err)
	}
	if d, ok := Lookup(ir.PlatformNVUE); !ok || d.Artifact != nvue.File || len(Platforms()) != 1 {
		t.Errorf("lookup of nvue: %v %v, platforms %v", d, ok, Platforms())
	}
	if got, ok := OpenConfig(); !ok || got.Artifact != "oc.json" {
		t.Errorf("OpenConfig: %v %v", got, ok)
	}
	p, err := models{}.forTransport(transportGNMI)(&ir.Device{Name: "leaf", Platform: ir.PlatformEOS, Switch: &ir.Switch{}})
	if err != nil || p != (nvue.Renderer{}) {
		t.Errorf("the gNMI platform is %v, %v: not the registered OpenConfig one", p, err)
	}
}

// TestModels: a platform without a renderer, or one a test stands in for,
// is what the registry says; servers are not modelled over gNMI.
func TestModels(t *testing.T) {
	m := models{}
	if _, err := m.native(&ir.Device{Platform: "junos"}); err == nil || err.Error() != `platform "junos" has no renderer` {
		t.Errorf("junos: %v", err)
	}
	if _, err := m.forTransport(transportGNMI)(&ir.Device{Platform: ir.PlatformLinux, Role: ir.RoleHost}); err == nil ||
		!strings.Contains(err.Error(), "models only switches' OpenConfig trees") {
		t.Errorf("a server over gNMI: %v", err)
	}
	var stand renderers.Platform = nvue.Renderer{}
	if p, err := (models{state: map[string]renderers.Platform{ir.PlatformEOS: stand}}).native(&ir.Device{Platform: ir.PlatformEOS}); err != nil || p != stand {
		t.Errorf("a stand-in platform: %v, %v", p, err)
	}
}

// TestReachDirectory: without an inventory every device is read from
// running/ beside the intent, and gNMI without TLS has nothing to reach.
func TestReachDirectory(t *testing.T) {
	dir := t.TempDir()
	r, ds, err := Reach(Options{Dir: dir})
	if err != nil || len(ds) > 0 {
		t.Fatal(err, ds)
	}
	if r.Name != "directory running" || r.Close() != nil {
		t.Errorf("route %q", r.Name)
	}
	if _, _, err := Reach(Options{Dir: dir, Plaintext: true}); err == nil || !strings.Contains(err.Error(), "without --inventory nothing is reached over gNMI") {
		t.Errorf("plaintext without an inventory: %v", err)
	}
}
