package gnmitest

import (
	"encoding/json"
	"fmt"
	"maps"
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
