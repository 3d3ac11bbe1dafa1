package eos

import "testing"

// TestCagePort holds cagePort to ^Ethernet([0-9]+)/([1-8])$, the pattern it
// replaces.
func TestCagePort(t *testing.T) {
	for _, tc := range []struct {
		name string
		cage string
		lane int
		ok   bool
	}{
		{"Ethernet1/1", "1", 0, true},
		{"Ethernet12/8", "12", 7, true},
		{"Ethernet01/5", "01", 4, true},
		{"Ethernet1/9", "", 0, false},
		{"Ethernet1/0", "", 0, false},
		{"Ethernet1/10", "", 0, false},
		{"Ethernet/1", "", 0, false},
		{"Ethernet1", "", 0, false},
		{"Ethernet1/1/1", "", 0, false},
		{"Ethernet1a/1", "", 0, false},
		{"Management1/1", "", 0, false},
		{"Ethernet1/", "", 0, false},
		{"", "", 0, false},
	} {
		cage, lane, ok := cagePort(tc.name)
		if cage != tc.cage || lane != tc.lane || ok != tc.ok {
			t.Errorf("cagePort(%q) = %q, %d, %v; want %q, %d, %v", tc.name, cage, lane, ok, tc.cage, tc.lane, tc.ok)
		}
	}
}
