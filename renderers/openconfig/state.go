package openconfig

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// Platform is the OpenConfig platform of plan and apply: a switch's
// desired state is the artifact's tree within the owned scope ([Owned]),
// its running configuration is the device's RFC 7951 JSON as a gNMI Get
// returns it, and a remediation is a gNMI SetRequest that replaces /qos
// and updates (or deletes) the owned leaves of each port.
type Platform struct{}

var (
	_ renderers.Platform = Platform{}
	_ renderers.Applier  = Platform{}
)

// State is a switch's OpenConfig configuration within the owned scope:
// every configuration leaf below /qos and the owned leaves of each of the
// switch's ports, flattened. Paths are gNMI path strings
// ("/interfaces/interface[name=Ethernet1/1]/config/mtu", the openconfig
// reference's gnmi-path-strings.md), values RFC 7951 JSON scalars ("9214",
// "\"1500000\"" for a uint64, "\"openconfig-if-ethernet:SPEED_400GB\"")
// and a leaf-list its JSON array.
type State struct {
	elements []renderers.Element
	// qos is the desired /qos as the value of a gNMI replace (RFC 7951,
	// its members qualified); empty for a parsed running state, which is
	// never pushed.
	qos string
}

// Elements returns the state's leaves sorted by path.
func (s *State) Elements() []renderers.Element { return slices.Clone(s.elements) }

// Desired returns the desired state of switch d: the owned leaves of the
// typed tree its artifact is emitted from (flatten), and that tree's /qos
// as the value of the replace that pushes it.
func (Platform) Desired(d *ir.Device) (renderers.State, error) {
	c, err := checkedPlan(d)
	if err != nil {
		return nil, err
	}
	s, err := desiredOf(c, ports(d))
	if err != nil {
		return nil, fmt.Errorf("openconfig: %s: %w", d.Name, err)
	}
	return s, nil
}

// desiredTemplate is the desired state of one shape (ocdevice.go's shape:
// everything but the port descriptions), with a placeholder in each
// description, as emit's template is.
type desiredTemplate struct {
	elements []renderers.Element
	qos      string
	// descs[i] is the port whose description elements[descAt[i]] holds.
	descAt, descs []int
}

type desiredOnce struct {
	sync.Once
	t   *desiredTemplate
	err error
}

// desiredTemplates holds one *desiredOnce per shape seen in this process.
var desiredTemplates sync.Map

// desiredOf is the desired state of c. A plan of a thousand switches of a
// few shapes builds and walks the typed tree of each shape once: the
// state of a switch is its shape's with its own descriptions put in,
// which is what walking its own tree gives (a test checks it).
func desiredOf(c *config, ports map[string]bool) (*State, error) {
	e, _ := desiredTemplates.LoadOrStore(shape(c), &desiredOnce{})
	once := e.(*desiredOnce)
	once.Do(func() { once.t, once.err = makeDesiredTemplate(c, ports) })
	if once.err != nil {
		return nil, once.err
	}
	t := once.t
	s := &State{elements: slices.Clone(t.elements), qos: t.qos}
	for i, at := range t.descAt {
		s.elements[at].Value = quote(c.ports[t.descs[i]].description)
	}
	return s, nil
}

// makeDesiredTemplate builds the typed tree of c's shape, a placeholder
// in each description, and flattens it.
func makeDesiredTemplate(c *config, ports map[string]bool) (*desiredTemplate, error) {
	marked := *c
	marked.ports = slices.Clone(c.ports)
	for i := range marked.ports {
		if marked.ports[i].description != "" {
			marked.ports[i].description = placeholder(i)
		}
	}
	tree, err := build(&marked)
	if err != nil {
		return nil, err
	}
	elements, err := flatten(tree, ports)
	if err != nil {
		return nil, err
	}
	qos, err := replaceOf(tree)
	if err != nil {
		return nil, err
	}
	t := &desiredTemplate{elements: elements, qos: qos}
	if strings.Contains(t.qos, "@rocefab-description-") {
		return nil, fmt.Errorf("internal error: a description placeholder in /qos")
	}
	for at, e := range t.elements {
		v := e.Value
		if !strings.Contains(v, "@rocefab-description-") {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(v, `"@rocefab-description-%d@"`, &i); err != nil || i < 0 || i >= len(c.ports) || quote(placeholder(i)) != v {
			return nil, fmt.Errorf("internal error: description placeholder %s at %s", v, e.Path)
		}
		t.descAt, t.descs = append(t.descAt, at), append(t.descs, i)
	}
	return t, nil
}

// Parse reads d's running OpenConfig JSON (the artifact named
// openconfig.json, RFC 7951 as a gNMI Get of the root returns it) within
// the owned scope. Everything else in it, other interfaces, subinterfaces,
// network instances, vendor augmentations, state leaves, is not read. A
// device without the file runs nothing yet: an empty state.
func (Platform) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	if d == nil {
		return nil, fmt.Errorf("openconfig: nil device")
	}
	var found *renderers.Artifact
	for i, a := range running {
		if path.Base(a.Path) != FileName {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("openconfig: %s: two running configurations, %s and %s", d.Name, found.Path, a.Path)
		}
		found = &running[i]
	}
	if found == nil {
		return &State{}, nil
	}
	s, err := read(found.Content, ports(d))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", found.Path, err)
	}
	return s, nil
}

// ports is the set of d's port names: the interfaces whose owned leaves
// are rocefab's.
func ports(d *ir.Device) map[string]bool {
	out := map[string]bool{}
	if d.Switch != nil {
		for _, p := range d.Switch.Ports {
			out[p.Name] = true
		}
	}
	return out
}

// portLeaves are the leaves of an interface list entry that rocefab owns
// ([Owned]), relative to the entry, with the catalog element each
// realises. The port speed is not a catalog element; changing it retrains
// the link, which floorDisruption says.
var portLeaves = map[string]string{
	"config/mtu":                          "mtu",
	"config/description":                  "",
	"ethernet/config/port-speed":          renderers.KindPortSpeed,
	"ethernet/config/enable-flow-control": "pfc",
}

// floorDisruption is the least a change of a kind disrupts whatever the
// catalog says: a new port speed takes the link down (renderers.KindPortSpeed).
var floorDisruption = renderers.Floors{renderers.KindPortSpeed: renderers.PortFlap}

// kindOf names the catalog element that the leaf at schema path p (a
// path without keys) realises.
func kindOf(p string) string {
	switch {
	case strings.HasPrefix(p, "/interfaces/interface/"):
		return portLeaves[strings.TrimPrefix(p, "/interfaces/interface/")]
	case strings.HasPrefix(p, "/qos/classifiers/"):
		return "dscp-map"
	case strings.HasPrefix(p, "/qos/forwarding-groups/"), strings.HasPrefix(p, "/qos/queues/"):
		return "tc-queue"
	case strings.HasPrefix(p, "/qos/queue-management-profiles/"):
		return "ecn"
	case strings.HasPrefix(p, "/qos/buffer-allocation-profiles/"):
		return "pool-percent"
	case strings.HasPrefix(p, "/qos/scheduler-policies/"):
		switch {
		case strings.Contains(p, "/one-rate-two-color/"), strings.Contains(p, "/two-rate-three-color/"):
			return "shaping"
		case strings.HasSuffix(p, "/config/priority"):
			return "strict"
		}
		return "ets"
	case strings.HasPrefix(p, "/qos/interfaces/"):
		switch {
		case strings.Contains(p, "/input/classifiers/"):
			return "dscp-map"
		case strings.HasSuffix(p, "/queue-management-profile"):
			return "ecn"
		case strings.Contains(p, "/output/scheduler-policy/"):
			return "ets"
		case strings.Contains(p, "/output/queues/"):
			return "tc-queue"
		}
	}
	return ""
}

// compareScalars orders numbers by value and everything else as text.
func compareScalars(a, b string) int {
	if isDigits(a) && isDigits(b) && len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// escapeKey is appendKey's escaping as a string, s itself when nothing
// needs escaping.
func escapeKey(s string) string {
	if !strings.ContainsAny(s, keySpecial) {
		return s
	}
	return string(appendKey(nil, s))
}
