package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/placement"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/inventory"
	"github.com/rocefab/rocefab/renderers/monitoring"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/scheduler"
	"github.com/rocefab/rocefab/renderers/sonic"
	"github.com/rocefab/rocefab/renderers/summary"
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

// renderOptions are the build's choices about what a device's artifacts
// are; the zero value is every artifact in its default form.
type renderOptions struct {
	// modelDir, when not empty, asks for the device's model as model.json
	// too, with positions relative to that directory (the intent's) so
	// that the file is the same on every machine.
	modelDir string
	// openconfig is how openconfig.json is written: "compact" (also for
	// ""), "indented" or "none".
	openconfig string
	// hostScript asks for each server's single-file host.sh too.
	hostScript bool
}

// deviceRenderers returns the renderers of a device's files as opt asks:
// the default ones (renderersFor), then what --emit adds.
func deviceRenderers(opt renderOptions) func(d *ir.Device) []renderers.Renderer {
	return func(d *ir.Device) []renderers.Renderer {
		rs := append(renderersFor(d, opt.openconfig), emitRenderers(d, opt.hostScript)...)
		if opt.modelDir != "" {
			rs = append(rs, modelRenderer{dir: opt.modelDir})
		}
		return rs
	}
}

// fabricRenderers are the fabric-wide renderers, in the order their files
// are listed: tenants' NCCL environments, the host runtime and its systemd
// unit (hosts/), the schedulers' files (slurm/, k8s/) from the placement
// of every server, and inventory.json.
var fabricRenderers = []renderers.FabricRenderer{tenantRenderer{}, hostRuntime{}, schedulerRenderer{}, monitoringRenderer{}, inventory.Renderer{}}

// buildRegistry is what build renders with: the devices' files as opt
// asks, the fabric-wide files, and last SUMMARY.md, which lists them with
// ds, the intent's findings (positions relative to dir).
func buildRegistry(opt renderOptions, ds diag.List, dir string) renderers.Registry {
	sum := summary.Renderer{Files: deviceRenderers(renderOptions{openconfig: opt.openconfig}), Findings: ds, Dir: dir}
	return renderers.Registry{Device: deviceRenderers(opt), Fabric: append(slices.Clone(fabricRenderers), sum)}
}

// renderDevice runs every renderer that applies to one device.
func renderDevice(d *ir.Device, opt renderOptions) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, r := range deviceRenderers(opt)(d) {
		arts, err := r.Render(d)
		if err != nil {
			return nil, err
		}
		out = append(out, arts...)
	}
	return out, nil
}

// renderFabricWide renders the fabric-wide artifacts other than
// SUMMARY.md and inventory.json, which describe the build itself.
func renderFabricWide(fab *ir.Fabric) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, r := range fabricRenderers {
		if _, ok := r.(inventory.Renderer); ok {
			continue
		}
		arts, err := r.RenderFabric(fab, out)
		if err != nil {
			return nil, err
		}
		out = append(out, arts...)
	}
	return out, nil
}

// tenantRenderer renders each tenant's NCCL environment.
type tenantRenderer struct{}

func (tenantRenderer) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	var out []renderers.Artifact
	for _, t := range fab.Tenants {
		art, err := host.RenderTenant(t)
		if err != nil {
			return nil, fmt.Errorf("rendering tenant %s: %w", t.Name, err)
		}
		out = append(out, art)
	}
	return out, nil
}

// hostRuntime renders the host runtime and its systemd unit, once for
// every server.
type hostRuntime struct{}

func (hostRuntime) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	return host.RenderFabric(fab), nil
}

// schedulerRenderer renders the schedulers' topology files from the
// placement of every server.
type schedulerRenderer struct{}

func (schedulerRenderer) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	arts, err := scheduler.Render(placement.Of(fab))
	if err != nil {
		return nil, fmt.Errorf("rendering the scheduler files: %w", err)
	}
	return arts, nil
}

// monitoringRenderer renders the Prometheus rules that watch the fabric
// for what rocefab doctor diagnoses.
type monitoringRenderer struct{}

func (monitoringRenderer) RenderFabric(fab *ir.Fabric, _ []renderers.Artifact) ([]renderers.Artifact, error) {
	return monitoring.Render(fab)
}

// modelRenderer writes a device's compiled model as model.json (--emit
// model), with positions relative to dir, the intent's directory, so that
// the file is the same on every machine.
type modelRenderer struct{ dir string }

func (m modelRenderer) Render(d *ir.Device) ([]renderers.Artifact, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	prefix, _ := json.Marshal(filepath.ToSlash(m.dir) + "/")
	b = bytes.ReplaceAll(b, append([]byte(`"file": `), prefix[:len(prefix)-1]...), []byte(`"file": "`))
	return []renderers.Artifact{{Path: d.Name + "/model.json", Format: renderers.JSON, Content: append(b, '\n')}}, nil
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
