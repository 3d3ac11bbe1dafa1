package routing

import (
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers/openconfig"
)

// TestArtifactNames: each platform's Artifact is the file its renderer
// writes for a device, the name a transport reads the device's running
// configuration as; OpenConfig's is what gNMI reads.
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
	for name, desc := range Platforms() {
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
	}
	if openConfig.Running != openconfig.FileName {
		t.Errorf("gNMI reads %q, the OpenConfig renderer writes %q", openConfig.Running, openconfig.FileName)
	}
}
