package cli

import (
	"slices"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
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
	"github.com/rocefab/rocefab/schema"
	"github.com/rocefab/rocefab/targets/routing"
)

// platforms is the one registry of the platforms rocefab renders and
// reaches (routing.Registry): the only place that pairs a platform with
// its renderer and its files. Routing may not import the renderers or
// the schema (DESIGN.md), the CLI may, so it is filled here.
var platforms = routing.Registry{
	Platforms: []routing.Descriptor{
		{Name: ir.PlatformEOS, Renderer: eos.Renderer{}, Artifact: eos.FileName, Running: eos.FileName},
		{Name: ir.PlatformNVUE, Renderer: nvue.Renderer{}, Artifact: nvue.File, Running: nvue.File},
		{Name: ir.PlatformSONiC, Renderer: sonic.Renderer{}, Artifact: sonic.FileName, Running: sonic.FileName},
		{Name: ir.PlatformNXOS, Renderer: nxos.Renderer{}, Artifact: nxos.FileName, Running: nxos.FileName},
		{Name: ir.PlatformLinux, Renderer: host.Renderer{}, Artifact: host.SettingsFile, Running: host.StateFile,
			Runtime: &routing.Runtime{File: host.Runtime, Path: host.RuntimePath, SettingsPath: host.SettingsPath}},
	},
	OpenConfig: routing.Descriptor{Name: "openconfig", Renderer: openconfig.Renderer{}, Platform: openconfig.Platform{},
		Artifact: openconfig.FileName, Running: openconfig.FileName},
	LoadInventory: loadInventory,
}

// registerErr is why routing refused the registry: nil, which routing's
// tests check (with a refused registry no platform is registered, and
// plan reports every device's platform unknown).
var registerErr = routing.Register(platforms)

// loadInventory loads an inventory file as routing reads it.
func loadInventory(file string) (*routing.Inventory, diag.List, error) {
	inv, ds, err := schema.LoadInventory(file)
	if err != nil || len(ds) > 0 || inv == nil {
		return nil, ds, err
	}
	return &routing.Inventory{PasswordEnv: inv.PasswordEnv, For: func(name, platform string) (routing.Access, string) {
		a, addr := inv.For(name, platform)
		// The same fields: a field schema adds fails to compile here.
		return routing.Access(a), addr
	}}, nil, nil
}

// renderersFor lists the renderers that apply to a device: its platform's
// native one and, for every switch, OpenConfig written as ocMode says
// ("compact" or "", "indented", "none"); for every Linux server, host.sh
// (INTENT.md section 4), which runs the runtime with its host.conf.
func renderersFor(d *ir.Device, ocMode string) []renderers.Renderer {
	var out []renderers.Renderer
	if desc, ok := routing.Lookup(d.Platform); ok {
		out = append(out, desc.Renderer)
	}
	if d.Switch != nil && ocMode != "none" {
		out = append(out, openconfig.Renderer{Compact: ocMode != "indented"})
	}
	if d.Platform == ir.PlatformLinux && d.Host != nil {
		out = append(out, host.Launcher{})
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
	// gnmiAddress, when set, is where monitoring/gnmic.yaml dials each
	// switch (build --inventory).
	gnmiAddress func(name, platform string) string
}

// deviceRenderers returns the renderers of a device's files as opt asks:
// the default ones (renderersFor), then what --emit adds.
func deviceRenderers(opt renderOptions) func(d *ir.Device) []renderers.Renderer {
	return func(d *ir.Device) []renderers.Renderer {
		rs := renderersFor(d, opt.openconfig)
		if emit := emitRenderers(d, opt.hostScript); len(emit) > 0 {
			// The single-file host.sh takes the launcher's place.
			rs = append(slices.DeleteFunc(rs, func(r renderers.Renderer) bool { return r == host.Launcher{} }), emit...)
		}
		if opt.modelDir != "" {
			rs = append(rs, renderers.Model{Dir: opt.modelDir})
		}
		return rs
	}
}

// fabricRenderers are the fabric-wide renderers, in the order their files
// are listed: tenants' NCCL environments, the host runtime and its systemd
// unit (hosts/), the schedulers' files (slurm/, k8s/) from the placement
// of every server, and inventory.json.
var fabricRenderers = []renderers.FabricRenderer{host.Tenants{}, host.Shared{}, scheduler.Renderer{}, monitoring.Renderer{}, inventory.Renderer{}}

// buildRegistry is what build renders with: the devices' files as opt
// asks, the fabric-wide files, and last SUMMARY.md, which lists them with
// ds, the intent's findings (positions relative to dir).
func buildRegistry(opt renderOptions, ds diag.List, dir string) renderers.Registry {
	sum := summary.Renderer{Files: deviceRenderers(renderOptions{openconfig: opt.openconfig}), Findings: ds, Dir: dir}
	fabric := slices.Clone(fabricRenderers)
	if opt.gnmiAddress != nil {
		for i, r := range fabric {
			if _, ok := r.(monitoring.Renderer); ok {
				fabric[i] = monitoring.Renderer{Address: opt.gnmiAddress}
			}
		}
	}
	return renderers.Registry{Device: deviceRenderers(opt), Fabric: append(fabric, sum)}
}

// statePlatforms, by device platform, model running configurations for
// plan and apply in place of the registry's platforms (routing.Options):
// empty but where a test stands in its own.
var statePlatforms = map[string]renderers.Platform{}
