package routing

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nvue"
)

// TestEveryPlatformChecksScope: every platform plan and apply use, native
// or OpenConfig over gNMI, checks a remediation against its owned scope
// before a push.
func TestEveryPlatformChecksScope(t *testing.T) {
	m := models{}
	for name := range Platforms() {
		p, err := m.native(&ir.Device{Name: "d", Platform: name})
		if err != nil {
			continue // planned unsupported, with why
		}
		if _, ok := p.(renderers.ScopeChecker); !ok {
			t.Errorf("platform %s has no scope check (renderers.ScopeChecker)", name)
		}
	}
	p, err := m.forTransport(transportGNMI)(&ir.Device{Name: "leaf", Platform: ir.PlatformEOS, Switch: &ir.Switch{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(renderers.ScopeChecker); !ok {
		t.Error("the OpenConfig platform has no scope check (renderers.ScopeChecker)")
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
