package gnmitest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// WithForeign returns tree, an RFC 7951 OpenConfig document (a rendered
// artifact), with configuration rocefab does not own added, as a device
// runs it: interfaces appended to /interfaces/interface, and top-level
// members (network instances, /system) added or replaced.
func WithForeign(tree []byte, interfaces []json.RawMessage, root map[string]json.RawMessage) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(tree, &doc); err != nil {
		return nil, fmt.Errorf("the tree: %w", err)
	}
	var ifs struct {
		Interface []json.RawMessage `json:"interface"`
	}
	if err := json.Unmarshal(doc["openconfig-interfaces:interfaces"], &ifs); err != nil {
		return nil, fmt.Errorf("the tree's interfaces: %w", err)
	}
	ifs.Interface = append(ifs.Interface, interfaces...)
	b, err := json.Marshal(ifs)
	if err != nil {
		return nil, err
	}
	doc["openconfig-interfaces:interfaces"] = b
	maps.Copy(doc, root)
	return json.MarshalIndent(doc, "", "  ")
}

// Foreign is what an OpenConfig tree js holds outside rocefab's scope in
// the trees tests serve: the interfaces named (management, loopback) and
// the network instances, each as canonical JSON (members sorted), so that
// trees are compared by content and not by the order a server prints
// them in. A named interface missing from js is an error: the foreign
// configuration a comparison guards is gone.
func Foreign(js []byte, interfaces ...string) (string, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(js, &doc); err != nil {
		return "", err
	}
	var ifs struct {
		Interface []map[string]json.RawMessage `json:"interface"`
	}
	if err := json.Unmarshal(doc["openconfig-interfaces:interfaces"], &ifs); err != nil {
		return "", fmt.Errorf("openconfig-interfaces:interfaces: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	for _, i := range ifs.Interface {
		var name string
		if json.Unmarshal(i["name"], &name) != nil || !slices.Contains(interfaces, name) {
			continue
		}
		seen[name] = true
		b, err := json.Marshal(i)
		if err != nil {
			return "", err
		}
		c, err := canonical(b)
		if err != nil {
			return "", err
		}
		out = append(out, c)
	}
	for _, n := range interfaces {
		if !seen[n] {
			return "", fmt.Errorf("interface %s is gone from the tree", n)
		}
	}
	c, err := canonical(doc["openconfig-network-instance:network-instances"])
	if err != nil {
		return "", fmt.Errorf("openconfig-network-instance:network-instances: %w", err)
	}
	return strings.Join(append(out, c), "\n"), nil
}

// canonical is js with its object members sorted, as encoding/json
// writes a decoded value.
func canonical(js []byte) (string, error) {
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return "", fmt.Errorf("%w: %s", err, js)
	}
	b, err := json.Marshal(v)
	return string(b), err
}
