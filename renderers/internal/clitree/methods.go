package clitree

import (
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Tables names a CLI platform's plumbing: a type without fields whose CLI
// method returns the platform's [Platform], so that [Methods] can reach it
// from a renderer's zero value.
type Tables interface{ CLI() *Platform }

// Methods gives a CLI platform's renderer, by embedding, the methods of
// rendering, plan and apply, and quarantine, each that of the Platform T
// names: EOS and NX-OS differ only in their tables, never in how they
// hand them to the plan engine. A renderer embedding it stays a
// ready-to-use zero value.
type Methods[T Tables] struct{}

// A renderer embedding Methods is all of these (Tables itself is a type
// argument here only for the compiler to check the method sets).
var (
	_ renderers.ModelRenderer = Methods[Tables]{}
	_ renderers.Platform      = Methods[Tables]{}
	_ renderers.Applier       = Methods[Tables]{}
	_ renderers.ScopeChecker  = Methods[Tables]{}
	_ renderers.PortAdmin     = Methods[Tables]{}
)

func (Methods[T]) cli() *Platform {
	var t T
	return t.CLI()
}

// Render returns switch d's artifact, printed from its model ([Methods.Model]).
func (m Methods[T]) Render(d *ir.Device) ([]renderers.Artifact, error) { return m.cli().Render(d) }

// RenderDesired returns switch d's artifact and desired state from one
// model (renderers.ModelRenderer).
func (m Methods[T]) RenderDesired(d *ir.Device) ([]renderers.Artifact, renderers.State, error) {
	return m.cli().RenderDesired(d)
}

// Model returns switch d's configuration model: the stanza tree its
// artifact is printed from, each line naming the catalog element it
// realises, comments included. It refuses, with an error, a device that
// is not a switch of the platform, that carries an unsafe name, or whose
// model holds a value the platform cannot take.
func (m Methods[T]) Model(d *ir.Device) (*Tree, error) { return m.cli().Model(d) }

// Desired returns switch d's desired state: its model within the owned
// scope ([Platform.Desired]).
func (m Methods[T]) Desired(d *ir.Device) (renderers.State, error) { return m.cli().Desired(d) }

// State returns the desired state of switch d given its model t (from
// [Methods.Model]): t within the owned scope. It refuses a tree that a
// parser read from text.
func (m Methods[T]) State(d *ir.Device, t *Tree) (renderers.State, error) { return m.cli().State(d, t) }

// Parse reads d's running configuration (`show running-config` text)
// within the owned scope: what rocefab does not write (routing,
// management, ACLs, other interfaces, the other lines of d's ports) is
// not read. A device without the file runs nothing of rocefab's yet.
func (m Methods[T]) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	return m.cli().Parse(d, running)
}

// Diff returns the changes that make running into desired, each with the
// disruption the catalog gives its element on the platform, and the CLI
// lines that make them, in the order a configuration session takes them
// ([Remediate]).
func (m Methods[T]) Diff(d *ir.Device, running, desired renderers.State) ([]renderers.Change, renderers.Remediation, error) {
	return m.cli().Diff(d, running, desired)
}

// Apply enters a remediation's lines into the running file as the device
// would, every line outside the owned scope kept byte for byte.
func (m Methods[T]) Apply(running []renderers.Artifact, rem renderers.Remediation) ([]renderers.Artifact, error) {
	return m.cli().Apply(running, rem)
}

// CheckScope refuses a remediation with a line outside switch d's owned
// scope, reading the remediation alone (renderers.ScopeChecker).
func (m Methods[T]) CheckScope(d *ir.Device, rem renderers.Remediation) error {
	return m.cli().CheckScope(d, rem)
}

// AdminRemediation returns the lines that shut port of switch d (up
// false) or bring it back (up true) (renderers.PortAdmin).
func (m Methods[T]) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	return m.cli().AdminRemediation(d, port, up)
}

// AdminState reads port's administrative state from the running file:
// `shutdown` down, `no shutdown` up, neither line the platform's
// [Platform.AdminUnset].
func (m Methods[T]) AdminState(d *ir.Device, running []renderers.Artifact, port string) (renderers.AdminState, error) {
	return m.cli().AdminState(running, port)
}
