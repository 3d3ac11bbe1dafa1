package nvue

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

var (
	_ renderers.Platform = Renderer{}
	_ renderers.Applier  = Renderer{}
)

// State is a switch's NVUE configuration within the owned scope (see
// docs/ownership.md): every leaf of the `set` tree below an owned root,
// flattened. Paths are the `set` tree's keys joined with "/"
// ("qos/roce/mode", "interface/swp1/link/mtu"), a key holding "/" or "~"
// escaped as in a JSON pointer (RFC 6901: "~1", "~0"). Values are the
// scalars as NVUE prints them, unquoted ("lossless", "9216", "on"), and
// "{}" for an empty mapping: the entries of NVUE's collections of empty
// objects (a PFC profile's switch-priority 3, a breakout mode 4x).
type State struct {
	elements []renderers.Element
}

// Elements returns the state's leaves sorted by path.
func (s *State) Elements() []renderers.Element { return slices.Clone(s.elements) }

// emptyValue is the value of an empty mapping.
const emptyValue = "{}"

// ifaceKey stands for an owned interface name in a root.
const ifaceKey = "<if>"

// ownedRoots are the subtrees of the `set` tree that rocefab owns: what the
// renderer writes. Everything else (system, router bgp, vrf, bridge, the
// other QoS profiles, an interface's ip addresses) is foreign: never read
// into a state, never changed.
var ownedRoots = [][]string{
	{"qos", "roce"},
	{"qos", "mapping", "default-global"},
	{"qos", "egress-queue-mapping", "default-global"},
	{"qos", "egress-scheduler", "default-global"},
	{"qos", "congestion-control", "default-global"},
	{"qos", "pfc"},
	{"qos", "pfc-watchdog"},
	{"qos", "traffic-pool"},
	{"router", "adaptive-routing"},
	{"interface", ifaceKey, "description"},
	{"interface", ifaceKey, "link", "mtu"},
	{"interface", ifaceKey, "link", "speed"},
	{"interface", ifaceKey, "link", "breakout"},
	{"interface", ifaceKey, "qos", "pfc"},
	{"interface", ifaceKey, "qos", "pfc-watchdog"},
	{"interface", ifaceKey, "router", "adaptive-routing"},
}

// scope is the owned scope of one switch: the roots, with its interfaces.
type scope struct {
	ifaces map[string]bool
	// anyIface owns the roots of every interface: the scope of a
	// remediation applied without its device (Renderer.Apply).
	anyIface bool
}

// scopeOf returns d's scope: its ports and the parents of its split ports
// (whose `link breakout` the renderer writes).
func scopeOf(d *ir.Device) scope {
	s := scope{ifaces: map[string]bool{}}
	if d.Switch == nil {
		return s
	}
	for _, p := range d.Switch.Ports {
		s.ifaces[p.Name] = true
		if m := splitRE.FindStringSubmatch(p.Name); m != nil {
			s.ifaces[m[1]] = true
		}
	}
	return s
}

// classify says where segs lies: inside an owned root (root is the root's
// length), on the way to one (toward), or outside.
func (s scope) classify(segs []string) (root int, toward bool) {
	for _, r := range ownedRoots {
		n := min(len(segs), len(r))
		ok := true
		for i := range n {
			if r[i] == ifaceKey {
				ok = s.anyIface || s.ifaces[segs[i]]
			} else {
				ok = r[i] == segs[i]
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		if len(segs) >= len(r) {
			return len(r), false
		}
		toward = true
	}
	return 0, toward
}

// rootLen is the length of the root segs lies in, from the root patterns
// alone (any interface): what Diff needs to bound an unset.
func rootLen(segs []string) int {
	for _, r := range ownedRoots {
		if len(segs) < len(r) {
			continue
		}
		ok := true
		for i, k := range r {
			if k != ifaceKey && k != segs[i] {
				ok = false
				break
			}
		}
		if ok {
			return len(r)
		}
	}
	return 0
}

// emptyEntry reports whether segs names an entry of one of NVUE's
// collections of empty objects that the renderer writes: the switch
// priorities of a PFC profile or a traffic pool, and a breakout mode. `nv
// set` names such an entry without a value (`nv set qos pfc P
// switch-priority 3`, `nv set interface swp1 link breakout 4x`).
func emptyEntry(segs []string) bool {
	n := len(segs)
	switch {
	case n == 5 && segs[0] == "qos" && (segs[1] == "pfc" || segs[1] == "traffic-pool") && segs[3] == "switch-priority":
		return true
	case n == 5 && segs[0] == "interface" && segs[2] == "link" && segs[3] == "breakout":
		return true
	}
	return false
}

// kindBreakout is a port's breakout, which the platform catalog has none
// of, as it has no port speed (renderers.KindPortSpeed): it recreates the
// link.
const kindBreakout = "breakout"

// floorDisruption is the least a change of a kind disrupts whatever the
// catalog says: a new speed or breakout takes the port down, and the
// document's header treats an MTU change as a port flap, since the
// Cumulus Linux guide does not say that it is hitless.
var floorDisruption = renderers.Floors{
	renderers.KindPortSpeed: renderers.PortFlap,
	kindBreakout:            renderers.PortFlap,
	"mtu":                   renderers.PortFlap,
}

// kindOf names the catalog element (compiler/platforms) that an owned path
// realises.
func kindOf(segs []string) string {
	if len(segs) < 2 {
		return ""
	}
	if segs[0] == "interface" {
		if len(segs) < 3 {
			return ""
		}
		rest := segs[2:]
		switch {
		case rest[0] == "description":
			return ""
		case len(rest) >= 2 && rest[0] == "link" && rest[1] == "mtu":
			return "mtu"
		case len(rest) >= 2 && rest[0] == "link" && rest[1] == "speed":
			return renderers.KindPortSpeed
		case len(rest) >= 2 && rest[0] == "link" && rest[1] == "breakout":
			return kindBreakout
		case len(rest) >= 2 && rest[0] == "qos" && rest[1] == "pfc":
			return "pfc"
		case len(rest) >= 2 && rest[0] == "qos" && rest[1] == "pfc-watchdog":
			return "pfc-watchdog"
		case len(rest) >= 2 && rest[0] == "router":
			return "adaptive-routing"
		}
		return ""
	}
	if segs[0] == "router" {
		return "adaptive-routing"
	}
	switch segs[1] {
	case "roce":
		// qos roce installs the profile's PFC and buffer pools: a change
		// reprograms buffers, as a PFC change does.
		return "pfc"
	case "mapping":
		return "dscp-map"
	case "egress-queue-mapping":
		return "tc-queue"
	case "egress-scheduler":
		return "ets"
	case "congestion-control":
		return "ecn"
	case "pfc-watchdog":
		return "pfc-watchdog"
	case "traffic-pool":
		return "pool-percent"
	case "pfc":
		if len(segs) >= 4 {
			switch segs[3] {
			case "cable-length":
				return "headroom-cable"
			case "port-buffer", "xoff-threshold", "xon-threshold":
				return "xoff-xon"
			}
		}
		return "pfc"
	}
	return ""
}

// escapeSeg escapes a key for a path (RFC 6901).
func escapeSeg(s string) string {
	if strings.IndexByte(s, '~') < 0 && strings.IndexByte(s, '/') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// splitPath undoes joinPath.
func splitPath(p string) []string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.Contains(s, "~") {
			segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
	}
	return segs
}

func joinPath(segs []string) string {
	var b strings.Builder
	for i, s := range segs {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(escapeSeg(s))
	}
	return b.String()
}

// newState sorts elements by path, the later of two equal paths winning.
func newState(es []renderers.Element) *State {
	slices.SortStableFunc(es, func(a, b renderers.Element) int { return strings.Compare(a.Path, b.Path) })
	out := es[:0]
	for _, e := range es {
		if len(out) > 0 && out[len(out)-1].Path == e.Path {
			out[len(out)-1] = e
			continue
		}
		out = append(out, e)
	}
	return &State{elements: out}
}

// Desired returns d's desired state: the tree its nvue.yaml prints,
// flattened.
func (Renderer) Desired(d *ir.Device) (renderers.State, error) {
	r, err := newRender(d)
	if err != nil {
		return nil, err
	}
	set, err := r.tree()
	if err != nil {
		return nil, fmt.Errorf("nvue: %s: %w", d.Name, err)
	}
	sc := scopeOf(d)
	var es []renderers.Element
	var walk func(n *node, segs []string) error
	walk = func(n *node, segs []string) error {
		for _, c := range n.children {
			p := append(segs, c.key)
			if !c.leaf && len(c.children) > 0 {
				if err := walk(c, p); err != nil {
					return err
				}
				continue
			}
			if root, _ := sc.classify(p); root == 0 {
				return fmt.Errorf("nvue: %s: internal error: %s is rendered outside the owned scope", d.Name, joinPath(p))
			}
			v := c.raw
			if !c.leaf {
				v = emptyValue
				if !emptyEntry(p) {
					return fmt.Errorf("nvue: %s: internal error: empty mapping %s is not a collection entry nv set can name", d.Name, joinPath(p))
				}
			}
			es = append(es, renderers.Element{Path: joinPath(p), Value: v, Kind: kindOf(p)})
		}
		return nil
	}
	if err := walk(set, nil); err != nil {
		return nil, err
	}
	return newState(es), nil
}

// Parse reads d's running configuration, the artifact named nvue.yaml as
// `nv config show -o yaml` prints it, within the owned scope. It takes the
// list form that command prints (a `- header:` item and a `- set:` item),
// a single mapping with a `set` key, or a bare `set` tree (the NVUE API's
// root object). Interface and number ranges in keys (swp1-32, '0,3'),
// which NVUE prints unless --expand is given, are expanded. A device
// without the file runs nothing yet: an empty state.
func (Renderer) Parse(d *ir.Device, running []renderers.Artifact) (renderers.State, error) {
	if d == nil {
		return nil, fmt.Errorf("nvue: nil device")
	}
	at, err := renderers.RunningFile(running, File)
	if err != nil {
		return nil, fmt.Errorf("nvue: %s: %w", d.Name, err)
	}
	var found *renderers.Artifact
	if at >= 0 {
		found = &running[at]
	}
	if found == nil {
		return &State{}, nil
	}
	s, err := parseRunning(found.Content, scopeOf(d))
	if err != nil {
		return nil, fmt.Errorf("nvue: %s: %w", found.Path, err)
	}
	return s, nil
}

// setTree returns the `set` mapping of a running document, nil for an
// empty one.
func setTree(src []byte) (*rnode, error) {
	top, err := readTop(src)
	if err != nil || top == nil {
		return nil, err
	}
	switch top.Kind {
	case yaml.ScalarNode:
		if top.Tag == "!!null" {
			return nil, nil
		}
	case yaml.SequenceNode:
		var set *rnode
		for _, item := range top.Content {
			if item.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("line %d: a list item that is not a mapping: nv config show prints `- header:` and `- set:` items", item.Line)
			}
			s, err := setOf(item)
			if err != nil {
				return nil, err
			}
			if s != nil {
				if set != nil {
					return nil, fmt.Errorf("line %d: a second `set` item: nv config show prints one", item.Line)
				}
				set = s
			}
		}
		return set, nil
	case yaml.MappingNode:
		for i := 0; i+1 < len(top.Content); i += 2 {
			if k := top.Content[i].Value; k == "set" || k == "header" || k == "unset" {
				return setOf(top)
			}
		}
		return top, nil
	}
	return nil, fmt.Errorf("line %d: the document is neither a list of `set` items nor a mapping", top.Line)
}

// setOf returns the `set` value of one item; header is metadata, and an
// unset item belongs to a patch, not to a running configuration.
func setOf(item *rnode) (*rnode, error) {
	var set *rnode
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		switch k.Value {
		case "header":
		case "set":
			switch {
			case v.Kind == yaml.MappingNode:
				set = v
			case v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == ""):
			default:
				return nil, fmt.Errorf("line %d: `set` is not a mapping", v.Line)
			}
		default:
			return nil, fmt.Errorf("line %d: item key %q: a running configuration has only header and set (nv config show -o yaml)", k.Line, k.Value)
		}
	}
	return set, nil
}

// maxRange bounds the members one range key expands to, so that a key
// such as swp1-999999999 cannot exhaust memory.
const maxRange = 4096

// rangeRE is one part of a range key: a name ending in a number range
// (swp1-32, 0-7) or a name (swp3, 26).
var rangeRE = regexp.MustCompile(`^(.*?)([0-9]+)-([0-9]+)$`)

// expandKey returns the members of a range key at a collection (interface
// names, DSCP values, priorities, traffic classes); a plain key is itself.
func expandKey(parent, key string) ([]string, error) {
	if !strings.ContainsAny(key, ",-") {
		return []string{key}, nil
	}
	if !rangeParent(parent) {
		return []string{key}, nil
	}
	var out []string
	for part := range strings.SplitSeq(key, ",") {
		m := rangeRE.FindStringSubmatch(part)
		if m == nil {
			out = append(out, part)
			continue
		}
		lo, err1 := strconv.Atoi(m[2])
		hi, err2 := strconv.Atoi(m[3])
		if err1 != nil || err2 != nil || hi < lo || hi-lo >= maxRange || len(out)+hi-lo >= maxRange {
			// Not a range NVUE would print (swp1-swp4 style names keep
			// their dash): a plain key.
			out = append(out, part)
			continue
		}
		for i := lo; i <= hi; i++ {
			out = append(out, m[1]+strconv.Itoa(i))
		}
	}
	return out, nil
}

// rangeParent reports whether the keys below parent are a collection's
// whose keys NVUE prints as ranges.
func rangeParent(parent string) bool {
	switch parent {
	case "interface", "dscp", "switch-priority", "traffic-class":
		return true
	}
	return false
}

// parseRunning flattens the owned part of src's `set` tree.
func parseRunning(src []byte, sc scope) (*State, error) {
	set, err := setTree(src)
	if err != nil {
		return nil, err
	}
	if set == nil {
		return &State{}, nil
	}
	var es []renderers.Element
	// joined is segs as a path: each leaf's path is its parent's and its
	// key, rather than all its keys joined again.
	var walk func(n *rnode, segs []string, joined string, inside bool) error
	walk = func(n *rnode, segs []string, joined string, inside bool) error {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				if inside {
					return fmt.Errorf("line %d: a key that is not a scalar", k.Line)
				}
				continue
			}
			parent := ""
			if len(segs) > 0 {
				parent = segs[len(segs)-1]
			}
			one := [1]string{k.Value}
			keys := one[:]
			if rangeParent(parent) && (strings.IndexByte(k.Value, ',') >= 0 || strings.IndexByte(k.Value, '-') >= 0) {
				var err error
				if keys, err = expandKey(parent, k.Value); err != nil {
					return fmt.Errorf("line %d: %w", k.Line, err)
				}
			}
			for _, key := range keys {
				// segs is a stack: a path is used while its subtree is
				// walked, and never kept.
				p := append(segs, key)
				in := inside
				if !in {
					root, toward := sc.classify(p)
					if root == 0 {
						if toward && v.Kind == yaml.MappingNode {
							if err := walk(v, p, childPath(joined, key), false); err != nil {
								return err
							}
						}
						continue
					}
					in = true
				}
				if err := leaf(&es, v, p, childPath(joined, key), walk); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(set, make([]string, 0, 16), "", false); err != nil {
		return nil, err
	}
	return newState(es), nil
}

// childPath is the path of key below the path parent (joinPath).
func childPath(parent, key string) string {
	if parent == "" {
		return escapeSeg(key)
	}
	return parent + "/" + escapeSeg(key)
}

// leaf reads the owned value v at p (joined: its path): a mapping by
// walking it, a scalar as an element.
func leaf(es *[]renderers.Element, v *rnode, p []string, joined string, walk func(*rnode, []string, string, bool) error) error {
	switch v.Kind {
	case yaml.MappingNode:
		if len(v.Content) == 0 {
			*es = append(*es, renderers.Element{Path: joined, Value: emptyValue, Kind: kindOf(p)})
			return nil
		}
		return walk(v, p, joined, true)
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			// `key:` with nothing after it is an empty object in NVUE's
			// printing of collections.
			*es = append(*es, renderers.Element{Path: joined, Value: emptyValue, Kind: kindOf(p)})
			return nil
		}
		*es = append(*es, renderers.Element{Path: joined, Value: v.Value, Kind: kindOf(p)})
		return nil
	case yaml.AliasNode:
		return fmt.Errorf("line %d: %s is an alias: NVUE prints none, and rocefab reads none in what it owns", v.Line, joined)
	}
	return fmt.Errorf("line %d: %s is a list; NVUE's owned keys are mappings and scalars", v.Line, joined)
}
