package cli

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/scheduler"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// nativeRenderers is the composition root of rendering: the native
// renderer of each platform. It is the only place that knows the concrete
// renderers.
var nativeRenderers = map[string]renderers.Renderer{
	ir.PlatformEOS:   eos.Renderer{},
	ir.PlatformNVUE:  nvue.Renderer{},
	ir.PlatformSONiC: sonic.Renderer{},
	ir.PlatformNXOS:  nxos.Renderer{},
	ir.PlatformLinux: host.Renderer{},
}

// renderersFor lists the renderers that apply to a device: its platform's
// native one and, for every switch, OpenConfig written as ocMode says
// ("compact" or "", "indented", "none").
func renderersFor(d *ir.Device, ocMode string) []renderers.Renderer {
	var out []renderers.Renderer
	if r, ok := nativeRenderers[d.Platform]; ok {
		out = append(out, r)
	}
	if d.Switch != nil && ocMode != "none" {
		out = append(out, openconfig.Renderer{Compact: ocMode != "indented"})
	}
	return out
}

// renderFabricWide renders the artifacts that belong to the fabric rather
// than to one device: tenants' NCCL environments, and the schedulers'
// files (slurm/, k8s/) from the placement of every server.
// inventory.json and SUMMARY.md are written by build itself.
func renderFabricWide(fab *ir.Fabric) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, t := range fab.Tenants {
		art, err := host.RenderTenant(t)
		if err != nil {
			return nil, fmt.Errorf("rendering tenant %s: %w", t.Name, err)
		}
		out = append(out, art)
	}
	sched, err := scheduler.Render(placement.Of(fab))
	if err != nil {
		return nil, fmt.Errorf("rendering the scheduler files: %w", err)
	}
	return append(out, sched...), nil
}
