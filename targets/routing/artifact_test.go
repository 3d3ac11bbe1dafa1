package routing_test

import (
	"path/filepath"
	"testing"

	// The CLI's wiring fills the registry (cmd/rocefab/cli/wire.go).
	_ "github.com/rocefab/rocefab/cmd/rocefab/cli"
	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/targets/routing"
)

// TestArtifactNames: the CLI's wiring registered the platforms, and each
// platform's Artifact is the file its renderer writes for a device, the name a
// transport reads the device's running configuration as; OpenConfig's is
// what gNMI reads.
func TestArtifactNames(t *testing.T) {
	seen := map[string]*ir.Device{}
	for _, ex := range []string{"mixed-fleet", "multitenant", "pod-2048"} {
		f, err := compiler.Load(filepath.Join("..", "..", "examples", ex), compiler.FrontOptions{})
		if err != nil || f.Fabric == nil || f.Diags.HasErrors() {
			t.Fatalf("%s: %v %v", ex, err, f.Diags)
		}
		for _, d := range f.Fabric.Devices {
			if seen[d.Platform] == nil {
				seen[d.Platform] = d
			}
		}
	}
	descs := routing.Platforms()
	if len(descs) == 0 {
		t.Fatal("no platform is registered: the CLI's wiring registers them (routing.Register)")
	}
	for name, desc := range descs {
		d := seen[name]
		if d == nil {
			t.Errorf("no example has a %s device", name)
			continue
		}
		arts, err := desc.Renderer.Render(d)
		if err != nil || len(arts) == 0 {
			t.Fatalf("%s: %v", d.Name, err)
		}
		found := false
		for _, a := range arts {
			found = found || a.Path == d.Name+"/"+desc.Artifact
		}
		if !found || desc.Name != name || desc.Running == "" {
			t.Errorf("%s (%s): artifact %q is not among what its renderer writes: %v", d.Name, name, desc.Artifact, arts[0].Path)
		}
		if (desc.Runtime != nil) != (name == ir.PlatformLinux) {
			t.Errorf("%s: a host runtime is for servers, and only theirs", name)
		}
	}
	if oc, ok := routing.OpenConfig(); !ok || oc.Running != openconfig.FileName {
		t.Errorf("gNMI reads %q, the OpenConfig renderer writes %q", oc.Running, openconfig.FileName)
	}
}

// TestEveryPlatformChecksScope: every platform plan and apply use, native
// or OpenConfig over gNMI, checks a remediation against its owned scope
// before a push.
func TestEveryPlatformChecksScope(t *testing.T) {
	for name, desc := range routing.Platforms() {
		p := desc.Platform
		if p == nil {
			var ok bool
			if p, ok = desc.Renderer.(renderers.Platform); !ok {
				continue // planned unsupported, with why
			}
		}
		if _, ok := p.(renderers.ScopeChecker); !ok {
			t.Errorf("platform %s has no scope check (renderers.ScopeChecker)", name)
		}
	}
	oc, _ := routing.OpenConfig()
	if _, ok := oc.Platform.(renderers.ScopeChecker); !ok {
		t.Error("the OpenConfig platform has no scope check (renderers.ScopeChecker)")
	}
}
