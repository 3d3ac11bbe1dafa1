package openconfig

import (
	"encoding/json"
	"testing"
)

// TestAppendJSONString holds appendJSONString to json.Marshal's escaping.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "to gpu-0001:eth1", "to leaf-r0-000:Ethernet1/5", `a"b`, `a\b`, "a<b>&c", "tab\there", "é", "\x7f", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want[1:len(want)-1]) {
			t.Errorf("appendJSONString(%q) = %q, want %q", s, got[1:], want[1:len(want)-1])
		}
	}
}
