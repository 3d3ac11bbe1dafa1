package clitree

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/renderers"
)

// State is a device's configuration within the owned scope as a tree of
// lines, the shape `show running-config` prints, and its elements.
type State struct {
	Tree     *Tree
	elements []renderers.Element
}

// NewState returns the state of an owned tree (from [Scope.Restrict]).
func (d *Dialect) NewState(t *Tree) *State {
	return &State{Tree: t, elements: d.Elements(t)}
}

// Elements returns the state's elements sorted by path.
func (s *State) Elements() []renderers.Element { return slices.Clone(s.elements) }

// Diff returns the changes between running and desired, each with the
// disruption ds gives its kind raised to floor's for that kind (a speed
// change flaps the port whatever the catalog says of the element), and the
// remediation lines. Both states must be this package's; a nil running
// state is an empty one.
func (d *Dialect) Diff(running, desired renderers.State, s Scope, ds renderers.Disruptions, floor renderers.Floors) ([]renderers.Change, []string, error) {
	want, ok := desired.(*State)
	if !ok || want == nil {
		return nil, nil, fmt.Errorf("the desired state is %T, not a CLI stanza tree", desired)
	}
	have := &State{Tree: &Tree{}}
	if running != nil {
		h, ok := running.(*State)
		if !ok || h == nil {
			return nil, nil, fmt.Errorf("the running state is %T, not a CLI stanza tree", running)
		}
		have = h
	}
	changes := renderers.DiffElements(have.elements, want.elements, ds)
	if len(changes) == 0 {
		return nil, nil, nil
	}
	floor.Raise(changes)
	return changes, d.Remediate(have.Tree, want.Tree, s), nil
}

// Text joins remediation lines into the text of a configuration session.
func Text(lines []string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}
