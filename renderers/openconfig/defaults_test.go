package openconfig_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir/irtest"
)

// editTree rewrites an RFC 7951 document through its decoded form.
func editTree(t *testing.T, js []byte, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func members(t *testing.T, v any, path ...string) []any {
	t.Helper()
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not an object", p)
		}
		v = m[p]
	}
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%s: not a list", strings.Join(path, "/"))
	}
	return l
}

func child(v any, path ...string) map[string]any {
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	return v.(map[string]any)
}

// TestDefaultsAreNotDrift: a device that reports every leaf at its YANG
// default (openconfig/lemming fills defaults in, such as red/uniform's
// drop and enable-ecn, both default false) and a device that leaves the
// leaves at their default out (drop false, enable-flow-control false)
// both run the desired state; a leaf away from its default is a change.
func TestDefaultsAreNotDrift(t *testing.T) {
	d := irtest.Fabric().Device("leaf-eos")
	art := render(t, d)
	profiles := func(doc map[string]any) []any {
		return members(t, doc, "openconfig-qos:qos", "queue-management-profiles", "queue-management-profile")
	}
	cases := []struct {
		name    string
		edit    func(doc map[string]any)
		changed []string
	}{
		{"reported", func(doc map[string]any) {
			for _, p := range profiles(doc) {
				p.(map[string]any)["red"] = map[string]any{"uniform": map[string]any{"config": map[string]any{"drop": false, "enable-ecn": false}}}
			}
		}, nil},
		{"omitted", func(doc map[string]any) {
			for _, p := range profiles(doc) {
				delete(child(p, "wred", "uniform", "config"), "drop")
			}
			for _, i := range members(t, doc, "openconfig-interfaces:interfaces", "interface") {
				delete(child(i, "openconfig-if-ethernet:ethernet", "config"), "enable-flow-control")
			}
		}, nil},
		{"away from the default", func(doc map[string]any) {
			p := profiles(doc)[0].(map[string]any)
			p["red"] = map[string]any{"uniform": map[string]any{"config": map[string]any{"drop": true}}}
		}, []string{"/red/uniform/config/drop"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			running := editTree(t, art, c.edit)
			changes, _, err := platform.Diff(d, parse(t, d, running), desired(t, d))
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != len(c.changed) {
				t.Fatalf("%d changes, want %d: %v", len(changes), len(c.changed), changes)
			}
			for i, ch := range changes {
				if !strings.HasSuffix(ch.Path, c.changed[i]) {
					t.Errorf("change %s, want one at %s", ch.Path, c.changed[i])
				}
			}
		})
	}
}
