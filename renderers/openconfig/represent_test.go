package openconfig

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestRepresentatives keeps the first port of each kind (MTU, speed,
// whether it has a description) and the rest of the config as it is.
func TestRepresentatives(t *testing.T) {
	c := &config{
		ports: []port{
			{name: "Ethernet1/1", description: "to a", mtu: 9214, speedGbps: 400},
			{name: "Ethernet1/5", description: "to b", mtu: 9214, speedGbps: 400},
			{name: "Ethernet2/1", mtu: 9214, speedGbps: 400},
			{name: "Ethernet3/1", description: "to c", mtu: 9214, speedGbps: 800},
			{name: "Ethernet4/1", description: "to d", mtu: 1500, speedGbps: 400},
			{name: "Ethernet5/1", description: "to e", mtu: 9214, speedGbps: 800},
		},
		lossless: []string{"roce"},
	}
	r := representatives(c)
	var got []string
	for _, p := range r.ports {
		got = append(got, p.name)
	}
	if want := []string{"Ethernet1/1", "Ethernet2/1", "Ethernet3/1", "Ethernet4/1"}; !slices.Equal(got, want) {
		t.Errorf("representatives: ports %v, want %v", got, want)
	}
	if len(c.ports) != 6 || !slices.Equal(r.lossless, c.lossless) {
		t.Errorf("representatives changed its input or dropped the rest of the config")
	}
}

// TestAppendJSONString holds appendJSONString to json.Marshal's escaping.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "to gpu-0001:eth1", "to leaf-r0-000:Ethernet1/5", `a"b`, `a\b`, "a<b>&c", "tab\there", "é", "\x7f", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want[1:len(want)-1]) {
			t.Errorf("appendJSONString(%q) = %q, want %q", s, got[1:], want[1:len(want)-1])
		}
	}
}
