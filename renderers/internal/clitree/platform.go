package clitree

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Platform is the plan and apply plumbing a CLI platform shares: desired
// state from its own model, running state from `show running-config`
// text, both within the owned scope, and the diff and apply of the
// dialect. A platform supplies only its tables and its model, so that EOS
// and NX-OS cannot drift apart in how they read, compare or enter a
// configuration.
type Platform struct {
	// Name is the platform's key in the IR (ir.PlatformEOS, ...): its
	// device disruptions are looked up under it, and its errors begin
	// with it.
	Name string
	// File is the base name of the configuration file, in the rendered
	// and the running artifacts alike.
	File string
	// Dialect is how the platform prints and enters its configuration.
	Dialect *Dialect
	// Floor raises a change's disruption to at least this for its kind.
	Floor renderers.Floors
	// Scope is the owned scope on switch d; a nil d owns the lines of
	// every interface, which is what a remediation, naming only the
	// device's ports, may touch.
	Scope func(d *ir.Device) Scope
	// Model builds switch d's configuration model (a [Builder]'s tree),
	// which [Platform.Print] prints as File.
	Model func(d *ir.Device) (*Tree, error)
	// AdminUnset is the administrative state of an interface whose
	// running configuration has neither `shutdown` nor `no shutdown`.
	AdminUnset renderers.AdminState
}

// Print prints switch d's model t as its one artifact, File in d's
// directory.
func (p *Platform) Print(d *ir.Device, t *Tree) []renderers.Artifact {
	path := d.Name + "/" + p.File
	if t.built {
		return []renderers.Artifact{printed.Artifact(path, renderers.Text, t.printTo(printed.Get(t.size)))}
	}
	return []renderers.Artifact{{Path: path, Format: renderers.Text, Content: t.Bytes()}}
}

// printed holds the buffers built models are printed into.
var printed renderers.ContentPool

// Render returns switch d's artifacts, printed from its model.
func (p *Platform) Render(d *ir.Device) ([]renderers.Artifact, error) {
	t, err := p.Model(d)
	if err != nil {
		return nil, err
	}
	return p.Print(d, t), nil
}

// RenderDesired returns switch d's artifacts and desired state from one
// model (renderers.ModelRenderer).
func (p *Platform) RenderDesired(d *ir.Device) ([]renderers.Artifact, renderers.State, error) {
	t, err := p.Model(d)
	if err != nil {
		return nil, nil, err
	}
	s, err := p.State(d, t)
	if err != nil {
		return nil, nil, err
	}
	return p.Print(d, t), s, nil
}

// Desired returns switch d's desired state: its model within the owned
// scope, comments dropped. The artifact is printed from the same model,
// so the two cannot disagree, and no text is read back.
func (p *Platform) Desired(d *ir.Device) (renderers.State, error) {
	t, err := p.Model(d)
	if err != nil {
		return nil, err
	}
	return p.State(d, t)
}

// State returns the desired state of switch d given its model t: t
// restricted to d's owned scope. A tree parsed from text is refused: the
// desired state is what a renderer built, never a reading of its text.
func (p *Platform) State(d *ir.Device, t *Tree) (renderers.State, error) {
	if t == nil || !t.built {
		return nil, fmt.Errorf("%s: the desired state is a renderer's model, not a configuration read from text", p.Name)
	}
	return p.Dialect.NewState(p.Scope(d).Restrict(t)), nil
}

// Parse reads d's running configuration within the owned scope; what lies
// outside it is not read. A device without the file runs nothing of
// rocefab's yet.
func (p *Platform) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	if d == nil {
		return nil, errors.New(p.Name + ": nil device")
	}
	text, err := Running(running, p.File)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p.Name, d.Name, err)
	}
	return p.Dialect.NewState(p.Scope(d).Restrict(parse(text))), nil
}

// Diff returns the changes that make running into desired, in path order,
// each with the disruption the catalog gives its element on the platform,
// and the CLI lines that make them, in the order a configuration session
// takes them ([Remediate]).
func (p *Platform) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	var ds renderers.Disruptions
	if d != nil {
		ds = d.Disruption[p.Name]
	}
	changes, lines, err := p.Dialect.Diff(running, desired, p.Scope(d), ds, p.Floor)
	if err != nil {
		return nil, renderers.Remediation{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	if len(changes) == 0 {
		return nil, renderers.Remediation{}, nil
	}
	return changes, renderers.Remediation{Format: renderers.Text, Content: Text(lines)}, nil
}

// Apply enters a remediation's lines into the running file as the device
// would, every line outside the owned scope kept byte for byte. A
// remediation that only sets one interface's administrative state (a
// quarantine's, AdminPort) changes that line and nothing else.
func (p *Platform) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	scope := p.Scope(nil)
	if port, ok := AdminPort(rem); ok {
		scope = AdminScope(port)
	}
	out, err := p.Dialect.ApplyArtifacts(running, rem, p.File, scope)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return out, nil
}

// Foreign returns the lines of a running configuration that lie outside
// the owned scope of every device, exactly as they are: what applying a
// remediation keeps byte for byte.
func (p *Platform) Foreign(running []byte) []string {
	return p.Scope(nil).Foreign(parse(running))
}

// Ports returns whether a top-level line opens one of switch d's own
// interfaces; for a nil d (or one without a switch), any interface.
func Ports(d *ir.Device) func(line string) bool {
	var ports map[string]bool
	if d != nil && d.Switch != nil {
		ports = make(map[string]bool, len(d.Switch.Ports))
		for _, p := range d.Switch.Ports {
			ports[p.Name] = true
		}
	}
	return func(line string) bool {
		name, ok := strings.CutPrefix(line, "interface ")
		return ok && (ports == nil || ports[name])
	}
}

// CheckScope checks, from the remediation alone, that every line of rem
// lies inside switch d's owned scope: it enters the lines into an empty
// configuration with d's scope, which refuses a command for any line
// outside it ("outside the owned scope").
func (p *Platform) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	if ok, err := renderers.ScopeInput(p.Name, d, rem, renderers.Text, "CLI lines"); !ok {
		return err
	}
	if _, err := p.Dialect.Apply(nil, rem.Content, p.Scope(d)); err != nil {
		return fmt.Errorf("%s: %s: %w", p.Name, d.Name, err)
	}
	return nil
}
