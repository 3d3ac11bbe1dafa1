package renderers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
)

// Disruption is what applying a change does to traffic, from the platform
// catalog (compiler/platforms) through each device's model.
type Disruption string

// The disruption classes, from least to most disruptive.
const (
	Hitless      Disruption = "hitless"       // no traffic impact
	PortFlap     Disruption = "port-flap"     // the link goes down and up
	TrafficPause Disruption = "traffic-pause" // buffers are reprogrammed: traffic pauses or drops briefly
	Reboot       Disruption = "reboot"        // the device (or its forwarding agent) restarts
)

// rank orders the classes; an unknown class ranks as a reboot, so that a
// misspelt class is never taken for a harmless one.
func (d Disruption) rank() int {
	switch d {
	case Hitless:
		return 0
	case PortFlap:
		return 1
	case TrafficPause:
		return 2
	}
	return 3
}

// Worst returns the most disruptive of ds, Hitless for none.
func Worst(ds ...Disruption) Disruption {
	w := Hitless
	for _, d := range ds {
		if d.rank() > w.rank() {
			w = d
		}
	}
	return w
}

// ParseDisruption returns the class named s.
func ParseDisruption(s string) (Disruption, error) {
	switch d := Disruption(s); d {
	case Hitless, PortFlap, TrafficPause, Reboot:
		return d, nil
	}
	return "", fmt.Errorf("disruption %q: allowed are hitless, port-flap, traffic-pause, reboot", s)
}

// Element is one leaf of a device's configuration within the scope
// rocefab owns, flattened: the unit that a diff compares. Every platform's
// desired state (stanza tree, table map, YAML tree, ygot tree, host
// settings) flattens into elements, so that plans, digests and their JSON
// form are the same for every platform.
type Element struct {
	// Path addresses the element in the platform's own terms, unique within
	// a device: a CLI stanza path ("interface Ethernet1/1 > mtu"), a
	// config_db key and field ("PORT|Ethernet0|mtu"), an NVUE path
	// ("qos/roce/mode"), an OpenConfig path, a host setting ("eth2/pfc").
	Path string `json:"path"`
	// Value is the element's value as the device prints it ("" for a line
	// that is present or absent, such as a CLI command without a value).
	Value string `json:"value"`
	// Kind is the catalog element it realises (compiler/platforms
	// Elements: "pfc", "ecn", "mtu", ...); "" for what the catalog does not
	// list (descriptions), which changes hitlessly.
	Kind string `json:"element,omitempty"`
}

// State is a device's configuration within the scope rocefab owns, as one
// platform models it: the desired state a renderer computes, or the running
// state a parser reads. Elements flattens it.
type State interface {
	// Elements returns the state's leaves sorted by Path, with unique paths.
	Elements() []Element
}

// Elements is a State that is a list of elements: platforms whose model is
// flat (config_db fields, host settings) use it as it is.
type Elements []Element

// Elements returns e sorted by path.
func (e Elements) Elements() []Element {
	out := slices.Clone(e)
	slices.SortFunc(out, func(a, b Element) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Change is one difference, within the owned scope, between what a device
// runs and what the intent wants.
type Change struct {
	Path string `json:"path"`
	// Before is the running value, nil when the element is absent on the
	// device; After is the desired value, nil when it is to be removed.
	Before *string `json:"before"`
	After  *string `json:"after"`
	// Kind is the catalog element (see Element.Kind).
	Kind       string     `json:"element,omitempty"`
	Disruption Disruption `json:"disruption"`
	// Method is how the change reaches the device where its platform has
	// more than one way, and then on every change (SONiC: "apply-patch",
	// "config-reload" or "breakout"); "" elsewhere.
	Method string `json:"method,omitempty"`
}

// Action is what a change does.
func (c Change) Action() string {
	switch {
	case c.Before == nil:
		return "add"
	case c.After == nil:
		return "remove"
	}
	return "modify"
}

// Disruptions gives the disruption of changing each catalog element on a
// device: ir.Device.Disruption, filled by the compiler from the catalog.
type Disruptions map[string]string

// Of returns the disruption of changing an element of kind; an element the
// catalog does not list (a description) changes hitlessly, and a class
// the catalog misspells is taken as a reboot.
func (ds Disruptions) Of(kind string) Disruption {
	s, ok := ds[kind]
	if !ok || s == "" {
		return Hitless
	}
	d, err := ParseDisruption(s)
	if err != nil {
		return Reboot
	}
	return d
}

// KindPortSpeed is the element of a port's speed, which the catalog has
// none of: every switch platform renders one, and a new speed takes the
// link down while both ends retrain (IEEE 802.3 clause 73
// auto-negotiation, or a forced speed that drops the link until the peer
// matches), which each platform's Floors say.
const KindPortSpeed = "port-speed"

// Floors are the least a change of each kind disrupts whatever the
// catalog says: what a platform knows of the elements the catalog has
// none of, or says too little of.
type Floors map[string]Disruption

// Of returns the floor of kind, Hitless for a kind without one.
func (f Floors) Of(kind string) Disruption {
	if d, ok := f[kind]; ok {
		return d
	}
	return Hitless
}

// Raise raises each change's disruption to at least its kind's floor.
func (f Floors) Raise(changes []Change) {
	for i, c := range changes {
		changes[i].Disruption = Worst(c.Disruption, f.Of(c.Kind))
	}
}

// DiffElements compares running with desired, element by element, and
// returns the changes in path order. Elements that are the same on both
// sides give no change; each change carries the disruption of its kind.
func DiffElements(running, desired []Element, ds Disruptions) []Change {
	have := make(map[string]Element, len(running))
	for _, e := range running {
		have[e.Path] = e
	}
	var out []Change
	seen := make(map[string]bool, len(desired))
	for _, w := range desired {
		seen[w.Path] = true
		h, ok := have[w.Path]
		if ok && h.Value == w.Value {
			continue
		}
		c := Change{Path: w.Path, After: new(w.Value), Kind: w.Kind, Disruption: ds.Of(w.Kind)}
		if ok {
			c.Before = new(h.Value)
		}
		out = append(out, c)
	}
	for _, h := range running {
		if !seen[h.Path] {
			out = append(out, Change{Path: h.Path, Before: new(h.Value), Kind: h.Kind, Disruption: ds.Of(h.Kind)})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return cmp.Compare(a.Path, b.Path) })
	return out
}

// Remediation is what makes a device match its desired state, in the
// platform's own terms: CLI lines for a configuration session, NVUE
// commands, an RFC 6902 JSON patch of config_db, a gNMI SetRequest, host
// settings to write.
type Remediation struct {
	Format  Format `json:"format"`
	Content []byte `json:"content"`
}

// Platform is what plan needs of one platform beyond rendering: the
// device's desired state as data, its running configuration read into the
// same model within the owned scope, and the diff between the two with the
// platform's remediation.
type Platform interface {
	// Desired returns d's desired state; Render's artifacts print it.
	Desired(d *ir.Device) (State, error)
	// Parse reads the running configuration, in the form the device returns
	// it (the artifact's file name and format), into the model restricted
	// to the owned scope: what lies outside it is never read into a state.
	Parse(d *ir.Device, running []Artifact) (State, error)
	// Diff returns the ordered changes that make running into desired and
	// the remediation that applies them; no change for equal states.
	Diff(d *ir.Device, running, desired State) ([]Change, Remediation, error)
}
