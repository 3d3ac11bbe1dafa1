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
	"github.com/rocefab/rocefab/targets"
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

// emitRenderers returns the renderers that --emit adds for a device:
// with hostScript (--emit host-script), a Linux server's single-file
// host.sh.
func emitRenderers(d *ir.Device, hostScript bool) []renderers.Renderer {
	if hostScript && d.Platform == ir.PlatformLinux && d.Host != nil {
		return []renderers.Renderer{host.ScriptRenderer{}}
	}
	return nil
}

// renderFabricWide renders the artifacts that belong to the fabric rather
// than to one device: tenants' NCCL environments, the host runtime and its
// systemd unit (hosts/), and the schedulers' files (slurm/, k8s/) from the
// placement of every server.
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
	out = append(out, host.RenderFabric(fab)...)
	sched, err := scheduler.Render(placement.Of(fab))
	if err != nil {
		return nil, fmt.Errorf("rendering the scheduler files: %w", err)
	}
	return append(out, sched...), nil
}

// statePlatforms are the platforms that model a device's running
// configuration (renderers.Platform), by device platform, for those whose
// Platform is not the native renderer itself. plan and apply find a
// device's Platform here, or else on its native renderer.
var statePlatforms = map[string]renderers.Platform{}

// platformsFor returns the platforms that read, diff and apply devices'
// running configurations in the form the transport returns them. Over
// gNMI that is the OpenConfig platform for every switch, whatever its
// vendor: the tree a Get of the root returns and a SetRequest
// (renderers/openconfig). Through the directory target (transport "dir",
// or no inventory) it is the device's own platform (nativePlatform).
func platformsFor(transport string) targets.Platforms {
	if transport == transportGNMI {
		return func(d *ir.Device) (renderers.Platform, error) {
			if d.Switch == nil {
				return nil, fmt.Errorf("the inventory reaches this %s %s over gNMI, and rocefab models only switches' OpenConfig trees", d.Platform, d.Role)
			}
			return openconfig.Platform{}, nil
		}
	}
	return nativePlatform
}

// nativePlatform returns the platform that reads, diffs and (through
// renderers.Applier) applies a device's running configuration in the form
// the directory target keeps it: the device's own platform. A device
// whose platform has none yet gets an error saying so, and plan reports
// it as unsupported rather than skipping it.
func nativePlatform(d *ir.Device) (renderers.Platform, error) {
	if p, ok := statePlatforms[d.Platform]; ok {
		return p, nil
	}
	r, ok := nativeRenderers[d.Platform]
	if !ok {
		return nil, fmt.Errorf("platform %q has no renderer", d.Platform)
	}
	if p, ok := r.(renderers.Platform); ok {
		return p, nil
	}
	return nil, fmt.Errorf("rocefab cannot read %s running configurations yet: the platform has no model of them", d.Platform)
}

// appliersFor returns what applies a remediation to a device's running
// files, for the directory target: its platform, when it can.
func appliersFor(d *ir.Device) (renderers.Applier, error) {
	p, err := nativePlatform(d)
	if err != nil {
		return nil, err
	}
	a, ok := p.(renderers.Applier)
	if !ok {
		return nil, fmt.Errorf("rocefab cannot apply changes to %s running configuration files yet", d.Platform)
	}
	return a, nil
}
