package sonic_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// TestCheckScopeRefuses: a remediation with an operation or a breakout
// outside the switch's owned scope is refused, by CheckScope with the
// switch and by Apply (the emulated switch) without it, and names the
// operation.
func TestCheckScopeRefuses(t *testing.T) {
	d := irtest.Fabric().Device("leaf-sonic")
	have := parse(t, d, runningArts(d, runningDB(t, d, true)))
	_, rem, err := sonic.Renderer{}.Diff(d, have, desired(t, d))
	if err != nil {
		t.Fatal(err)
	}
	var r sonic.Remediation
	if err := json.Unmarshal(rem.Content, &r); err != nil {
		t.Fatal(err)
	}
	port := d.Switch.Ports[0].Name
	for _, tc := range []struct {
		name  string
		edit  func(r *sonic.Remediation)
		want  string
		apply bool // Apply, without the switch, refuses it too
	}{
		{"remove a foreign table", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "remove", Path: "/BGP_NEIGHBOR"})
		}, "(remove /BGP_NEIGHBOR): table BGP_NEIGHBOR is not rocefab's", true},
		{"replace the hostname", func(r *sonic.Remediation) {
			r.ConfigReload = append(r.ConfigReload, sonic.PatchOp{Op: "replace", Path: "/DEVICE_METADATA/localhost/hostname", Value: json.RawMessage(`"pwned"`)})
		}, "(replace /DEVICE_METADATA/localhost/hostname): field hostname of DEVICE_METADATA|localhost is not rocefab's", true},
		{"a foreign field of an owned row", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "replace", Path: "/PORT/" + port + "/fec", Value: json.RawMessage(`"none"`)})
		}, "field fec of PORT|" + port + " is not rocefab's", false},
		{"remove a port", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "remove", Path: "/PORT/" + port})
		}, "removing a port or the PORT table is never rocefab's", false},
		{"a foreign port's priority groups", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "remove", Path: "/BUFFER_PG/Ethernet9999|3-4"})
		}, "row BUFFER_PG|Ethernet9999|3-4 is not rocefab's", false},
		{"a row with a foreign field", func(r *sonic.Remediation) {
			r.ApplyPatch = append(r.ApplyPatch, sonic.PatchOp{Op: "add", Path: "/PORT_QOS_MAP/" + port, Value: json.RawMessage(`{"pfc_enable": "3,4", "pfc_to_pg_map": "X"}`)})
		}, "field pfc_to_pg_map of PORT_QOS_MAP|" + port + " is not rocefab's", false},
		{"a breakout of another port", func(r *sonic.Remediation) {
			r.Breakout = append(r.Breakout, sonic.Breakout{Port: "Ethernet9999", Mode: "1x400G"})
		}, "breakout of Ethernet9999 to 1x400G", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := r
			e.ApplyPatch = slices.Clone(r.ApplyPatch)
			e.ConfigReload = slices.Clone(r.ConfigReload)
			e.Breakout = slices.Clone(r.Breakout)
			tc.edit(&e)
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			bad := renderers.Remediation{Format: renderers.JSON, Content: b}
			err = sonic.Renderer{}.CheckScope(d, bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "outside the owned scope") {
				t.Errorf("CheckScope: %v, want %q", err, tc.want)
			}
			if _, err := (sonic.Renderer{}).Apply(runningArts(d, runningDB(t, d, true)), bad); tc.apply && (err == nil || !strings.Contains(err.Error(), "outside the owned scope")) {
				t.Errorf("Apply: %v", err)
			}
		})
	}
}
