package platforms

import (
	"slices"
	"strings"
	"testing"
)

// TestNativeBuffers: the platforms that need native buffer defaults are
// exactly the switch platforms whose pool-percent is "no", every catalog
// switch running one has them with a source, and a missing entry is an
// error the catalog check reports.
func TestNativeBuffers(t *testing.T) {
	var no []string
	for _, p := range []string{"eos", "nvue", "sonic", "nxos"} {
		if !HoldsReserve(p) {
			no = append(no, p)
		}
	}
	if !slices.Equal(no, nativePlatforms) {
		t.Errorf("platforms without a pool percentage %v, native defaults kept for %v", no, nativePlatforms)
	}
	if HoldsReserve("no-such-platform") {
		t.Error("an unknown platform holds a reserve")
	}
	for _, m := range SwitchModels() {
		s, _ := LookupSwitch(m)
		for _, p := range nativePlatforms {
			n, ok := s.NativeFor(p)
			if s.RunsPlatform(p) != ok {
				t.Errorf("%s: runs %s = %v, native defaults = %v", m, p, s.RunsPlatform(p), ok)
			}
			// α from 1/128 to 8: the range the platforms' thresholds take
			// (switches.md §1.1).
			if ok && (n.AlphaLog2 < -7 || n.AlphaLog2 > 3 || strings.TrimSpace(n.Source) == "") {
				t.Errorf("%s: native %s α 2^%d, source %q: want α in 1/128..8 with a source", m, p, n.AlphaLog2, n.Source)
			}
		}
	}
	s, _ := LookupSwitch("7060X6-64PE")
	s.Native = nil
	if err := checkSwitch(s); err == nil || !strings.Contains(err.Error(), "no native buffer defaults") {
		t.Errorf("a switch running eos without native defaults passes the check: %v", err)
	}
	s.Native = map[string]NativeBuffer{"nvue": {Source: "x"}, "eos": {Source: "y"}}
	if err := checkSwitch(s); err == nil || !strings.Contains(err.Error(), `"nvue"`) {
		t.Errorf("native defaults for a platform with a pool percentage pass the check: %v", err)
	}
}
