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
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/inventory"
	"github.com/rocefab/rocefab/renderers/monitoring"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/scheduler"
	"github.com/rocefab/rocefab/renderers/summary"
	"github.com/rocefab/rocefab/targets/routing"
)

// renderersFor lists the renderers that apply to a device: its platform's
// native one and, for every switch, OpenConfig written as ocMode says
// ("compact" or "", "indented", "none").
func renderersFor(d *ir.Device, ocMode string) []renderers.Renderer {
	var out []renderers.Renderer
	if desc, ok := routing.Lookup(d.Platform); ok {
		out = append(out, desc.Renderer)
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

// statePlatforms, by device platform, model running configurations for
// plan and apply in place of the registry's platforms (routing.Options):
// empty but where a test stands in its own.
var statePlatforms = map[string]renderers.Platform{}
