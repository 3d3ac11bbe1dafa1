package routing

import (
	"errors"
	"fmt"
	"maps"
	"sync/atomic"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
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
	// Platform reads, diffs and applies the running configuration where
	// Renderer does not itself (OpenConfig's renderer and its platform are
	// two types); nil elsewhere.
	Platform renderers.Platform
	// Runtime is, for servers, the host runtime they run and where it is
	// installed; nil for switches.
	Runtime *Runtime
}

// platform is what models the platform's running configurations: its
// Platform, else its renderer when that is one.
func (d Descriptor) platform() (renderers.Platform, bool) {
	if d.Platform != nil {
		return d.Platform, true
	}
	p, ok := d.Renderer.(renderers.Platform)
	return p, ok
}

// Runtime is the host runtime of this build (hosts/rocefab-host.sh) and
// where a server keeps it and its settings (host.conf): what the host
// target installs before it runs the runtime.
type Runtime struct {
	File               func() []byte
	Path, SettingsPath string
}

// Registry is what routing reaches devices with that its layer does not
// import (DESIGN.md: routing imports targets and transports): the
// platform renderers, paired with their artifacts, and the loader of an
// inventory file. The CLI's wiring fills it once, before any Reach.
type Registry struct {
	// Platforms are the platforms rocefab renders natively, one each.
	Platforms []Descriptor
	// OpenConfig is the platform every switch is reached as over gNMI:
	// the tree a Get of the root returns, read as the OpenConfig
	// artifact.
	OpenConfig Descriptor
	// LoadInventory reads and checks an inventory file; its diagnostics
	// are the file's findings, its error a file that cannot be read.
	LoadInventory func(file string) (*Inventory, diag.List, error)
}

// registry is the one registry of platforms, as Register filled it.
type registry struct {
	descriptors   map[string]Descriptor
	openConfig    Descriptor
	loadInventory func(file string) (*Inventory, diag.List, error)
}

// current is the registry; nil until Register.
var current atomic.Pointer[registry]

// Register makes r the registry of platforms that Lookup, Platforms and
// Reach use. A platform named twice, or a descriptor without a name, a
// renderer or its file names, is an error, and the registry is then
// unchanged.
func Register(r Registry) error {
	reg := &registry{descriptors: make(map[string]Descriptor, len(r.Platforms)), openConfig: r.OpenConfig, loadInventory: r.LoadInventory}
	for _, d := range append([]Descriptor{r.OpenConfig}, r.Platforms...) {
		if d.Name == "" || d.Renderer == nil || d.Artifact == "" || d.Running == "" {
			return fmt.Errorf("platform %q: a descriptor names its platform, renderer, artifact and running file", d.Name)
		}
	}
	for _, d := range r.Platforms {
		if _, dup := reg.descriptors[d.Name]; dup {
			return fmt.Errorf("platform %q registered twice", d.Name)
		}
		reg.descriptors[d.Name] = d
	}
	if _, ok := r.OpenConfig.platform(); !ok {
		return fmt.Errorf("the OpenConfig descriptor has no platform to read running configurations with")
	}
	if r.LoadInventory == nil {
		return errors.New("no inventory loader")
	}
	current.Store(reg)
	return nil
}

// registered is the registry, empty before Register.
func registered() *registry {
	if r := current.Load(); r != nil {
		return r
	}
	return &registry{}
}

// Lookup returns the descriptor of a device platform.
func Lookup(platform string) (Descriptor, bool) {
	d, ok := registered().descriptors[platform]
	return d, ok
}

// Platforms returns the descriptors of every native platform, by name.
func Platforms() map[string]Descriptor {
	return maps.Clone(registered().descriptors)
}

// OpenConfig returns the descriptor of the platform switches are reached
// as over gNMI, false before Register.
func OpenConfig() (Descriptor, bool) {
	d := registered().openConfig
	return d, d.Renderer != nil
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
			desc, _ := OpenConfig()
			p, ok := desc.platform()
			if !ok {
				return nil, errors.New("internal error: no OpenConfig platform is registered")
			}
			return p, nil
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
	desc, ok := Lookup(d.Platform)
	if !ok {
		return nil, fmt.Errorf("platform %q has no renderer", d.Platform)
	}
	if p, ok := desc.platform(); ok {
		return p, nil
	}
	return nil, fmt.Errorf("rocefab cannot read %s running configurations yet: the platform has no model of them", d.Platform)
}

// appliers returns what applies a remediation to a device's running
// files, for the directory target: its platform, when it can.
func (m models) appliers(d *ir.Device) (renderers.Applier, error) {
	p, err := m.native(d)
	return capable[renderers.Applier](p, err, fmt.Errorf("rocefab cannot apply changes to %s running configuration files yet", d.Platform))
}
