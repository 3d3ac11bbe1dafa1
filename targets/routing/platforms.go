package routing

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/sonic"
	"github.com/rocefab/rocefab/targets"
)

// Descriptor is one device platform as rocefab renders and reaches it.
type Descriptor struct {
	// Name is the device platform (ir.Device.Platform).
	Name string
	// Renderer renders a device's native artifact. When it is also a
	// renderers.Platform it reads and diffs the device's running
	// configuration, and when a renderers.Applier it applies a remediation
	// to the running files the directory target keeps.
	Renderer renderers.Renderer
	// Artifact is the file name of the device's native artifact: what
	// build writes below the device's directory, and what a transport
	// names the running configuration it reads (SSH), or finds it as
	// (running/<device>/ beside the intent).
	Artifact string
	// Running is the file name a device's running configuration is read
	// as: a switch's native artifact; a server's state, the host runtime's
	// --check --json report.
	Running string
}

// descriptors is the registry of the platforms rocefab renders natively,
// by name: the only place that pairs a platform with its renderer.
var descriptors = map[string]Descriptor{
	ir.PlatformEOS:   {Name: ir.PlatformEOS, Renderer: eos.Renderer{}, Artifact: eos.FileName, Running: eos.FileName},
	ir.PlatformNVUE:  {Name: ir.PlatformNVUE, Renderer: nvue.Renderer{}, Artifact: nvue.File, Running: nvue.File},
	ir.PlatformSONiC: {Name: ir.PlatformSONiC, Renderer: sonic.Renderer{}, Artifact: sonic.FileName, Running: sonic.FileName},
	ir.PlatformNXOS:  {Name: ir.PlatformNXOS, Renderer: nxos.Renderer{}, Artifact: nxos.FileName, Running: nxos.FileName},
	ir.PlatformLinux: {Name: ir.PlatformLinux, Renderer: host.Renderer{}, Artifact: host.SettingsFile, Running: host.StateFile},
}

// openConfig is the platform every switch is reached as over gNMI: the
// tree a Get of the root returns, read as the OpenConfig artifact.
var openConfig = Descriptor{Name: "openconfig", Renderer: openconfig.Renderer{}, Artifact: openconfig.FileName, Running: openconfig.FileName}

// Lookup returns the descriptor of a device platform.
func Lookup(platform string) (Descriptor, bool) {
	d, ok := descriptors[platform]
	return d, ok
}

// Platforms returns the descriptors of every native platform, by name.
func Platforms() map[string]Descriptor {
	out := make(map[string]Descriptor, len(descriptors))
	for k, v := range descriptors {
		out[k] = v
	}
	return out
}

// models finds the platform that models a device's running configuration;
// state, when it names the device's platform, stands in for the
// registry's (tests give their own).
type models struct {
	state map[string]renderers.Platform
}

// forTransport returns the platforms that read, diff and apply devices'
// running configurations in the form the transport returns them. Over
// gNMI that is the OpenConfig platform for every switch, whatever its
// vendor: the tree a Get of the root returns and a SetRequest
// (renderers/openconfig). Through the directory target (transport "dir",
// or no inventory) and over SSH it is the device's own platform (native).
func (m models) forTransport(transport string) targets.Platforms {
	if transport == transportGNMI {
		return func(d *ir.Device) (renderers.Platform, error) {
			if d.Switch == nil {
				return nil, fmt.Errorf("the inventory reaches this %s %s over gNMI, and rocefab models only switches' OpenConfig trees", d.Platform, d.Role)
			}
			return openconfig.Platform{}, nil
		}
	}
	return m.native
}

// native returns the platform that reads, diffs and (through
// renderers.Applier) applies a device's running configuration in the form
// the directory target keeps it: the device's own platform. A device
// whose platform has none yet gets an error saying so, and plan reports
// it as unsupported rather than skipping it.
func (m models) native(d *ir.Device) (renderers.Platform, error) {
	if p, ok := m.state[d.Platform]; ok {
		return p, nil
	}
	desc, ok := descriptors[d.Platform]
	if !ok {
		return nil, fmt.Errorf("platform %q has no renderer", d.Platform)
	}
	if p, ok := desc.Renderer.(renderers.Platform); ok {
		return p, nil
	}
	return nil, fmt.Errorf("rocefab cannot read %s running configurations yet: the platform has no model of them", d.Platform)
}

// appliers returns what applies a remediation to a device's running
// files, for the directory target: its platform, when it can.
func (m models) appliers(d *ir.Device) (renderers.Applier, error) {
	p, err := m.native(d)
	if err != nil {
		return nil, err
	}
	a, ok := p.(renderers.Applier)
	if !ok {
		return nil, fmt.Errorf("rocefab cannot apply changes to %s running configuration files yet", d.Platform)
	}
	return a, nil
}
