package sonic

import (
	"encoding/json"
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
)

// A quarantine shuts a faulty cable's switch port and its release brings
// it back (renderers.PortAdmin). SONiC keeps a port's administrative
// state in CONFIG_DB as PORT|<port> admin_status, "up" or "down": what
// `config interface shutdown <interface_name>` and `config interface
// startup <interface_name>` set (sonic-net/sonic-utilities@691b1bbc
// doc/Command-Reference.md, "config interface shutdown"; its tests check
// that `config interface shutdown Ethernet0` leaves PORT Ethernet0
// {"admin_status": "down"}), and the field this platform already writes
// "up" on every port (sonic.go). rocefab changes it the way it applies
// every SONiC change: one RFC 6902 operation on that field in the
// remediation's apply-patch, which the SSH target runs with `config
// apply-patch` inside a GCU checkpoint it rolls back to unconfirmed
// (targets/ssh), and the directory target applies to config_db.json.
// "add" rather than "replace": RFC 6902 "add" on an object member sets it
// whether or not it exists, where "replace" fails on a missing one.

var _ renderers.PortAdmin = Renderer{}

// AdminRemediation returns the patch that shuts port of switch d (up
// false) or brings it back (up true).
func (Renderer) AdminRemediation(d *ir.Device, port string, up bool) (renderers.Remediation, error) {
	if err := renderers.CheckAdminPort(d, port); err != nil {
		return renderers.Remediation{}, fmt.Errorf("sonic: %w", err)
	}
	rem := Remediation{ApplyPatch: []PatchOp{{Op: "add", Path: pointer("PORT", port, "admin_status"), Value: stringJSON(string(renderers.AdminOf(up)))}}}
	return renderers.Remediation{Format: renderers.JSON, Content: rem.encode()}, nil
}

// AdminState reads port's admin_status from the running config_db.json.
// A port without one is unknown: rocefab does not name SONiC's default.
func (Renderer) AdminState(d *ir.Device, running []renderers.Artifact, port string) (renderers.AdminState, error) {
	src, err := renderers.RunningContent(running, FileName)
	if err != nil {
		return "", fmt.Errorf("sonic: the admin_status of %s: %w", port, err)
	}
	var db struct {
		Port map[string]map[string]json.RawMessage `json:"PORT"`
	}
	if err := json.Unmarshal(src, &db); err != nil {
		return "", fmt.Errorf("sonic: %s: %w", FileName, err)
	}
	row, ok := db.Port[port]
	if !ok {
		return "", fmt.Errorf("sonic: port %s is not in the running PORT table", port)
	}
	raw, ok := row["admin_status"]
	if !ok {
		return renderers.AdminUnknown, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("sonic: PORT|%s admin_status: %w", port, err)
	}
	if state, ok := renderers.ReadAdminState(s); ok {
		return state, nil
	}
	return "", fmt.Errorf("sonic: PORT|%s admin_status %q: allowed are up, down", port, s)
}
