package openconfig

import (
	"encoding/json"
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// A quarantine shuts a faulty cable's switch port and its release brings
// it back (renderers.PortAdmin). Over gNMI that is one Set update of
// /interfaces/interface[name=X]/config/enabled, false or true: the leaf
// "contains the configured, desired state of the interface" and sets
// IF-MIB ifAdminStatus, default true (openconfig/public@94f58962
// release/models/interfaces/openconfig-interfaces.yang, leaf enabled). The
// gNMI target sends it with the commit-confirmed extension as any
// remediation (targets/gnmi), and the directory target applies it to
// openconfig.json (Apply).

var _ renderers.PortAdmin = Platform{}

// AdminRemediation returns the SetRequest that shuts port of switch d (up
// false) or brings it back (up true).
func (Platform) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	if err := renderers.CheckAdminPort(d, port); err != nil {
		return renderers.Remediation{}, fmt.Errorf("openconfig: %w", err)
	}
	p := &gpb.Path{Elem: []*gpb.PathElem{
		{Name: "interfaces"}, {Name: "interface", Key: map[string]string{"name": port}}, {Name: "config"}, {Name: "enabled"},
	}}
	val := []byte("false")
	if up {
		val = []byte("true")
	}
	req := &gpb.SetRequest{Update: []*gpb.Update{{Path: p, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: val}}}}}
	b, err := MarshalSetRequest(req)
	if err != nil {
		return renderers.Remediation{}, fmt.Errorf("openconfig: %w", err)
	}
	return renderers.Remediation{Format: renderers.Prototext, Content: b}, nil
}

// AdminState reads port's config/enabled from the running
// openconfig.json (RFC 7951, as a Get of the root returns it): up when
// true or absent (the leaf's default), down when false.
func (Platform) AdminState(d *ir.Device, running []renderers.Artifact, port string) (renderers.AdminState, error) {
	src, err := renderers.RunningContent(running, FileName)
	if err != nil {
		return "", fmt.Errorf("openconfig: the enabled leaf of %s: %w", port, err)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(src, &root); err != nil {
		return "", fmt.Errorf("openconfig: %s: %w", FileName, err)
	}
	raw, ok := root["openconfig-interfaces:interfaces"]
	if !ok {
		raw = root["interfaces"]
	}
	var ifs struct {
		Interface []struct {
			Name   string `json:"name"`
			Config struct {
				Enabled *bool `json:"enabled"`
			} `json:"config"`
		} `json:"interface"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &ifs); err != nil {
			return "", fmt.Errorf("openconfig: %s: interfaces: %w", FileName, err)
		}
	}
	for _, i := range ifs.Interface {
		if i.Name != port {
			continue
		}
		if i.Config.Enabled != nil && !*i.Config.Enabled {
			return renderers.AdminDown, nil
		}
		return renderers.AdminUp, nil
	}
	return "", fmt.Errorf("openconfig: interface %s is not in the running configuration", port)
}
