package renderers

import (
	"strings"
	"testing"
)

func TestCLIForm(t *testing.T) {
	for line, want := range map[string]string{
		"   speed 400g-4":                          "speed Ng-N",
		"interface Ethernet1/5":                    "interface IF",
		"  description to leaf-00:swp1":            "description TEXT",
		"qos map dscp 24 25 26 to traffic-class 3": "qos map dscp N... to traffic-class N",
		"  class type queuing c-out-8q-q3":         "class type queuing c-out-8q-qN",
		"  random-detect minimum-threshold 48 kbytes maximum-threshold 97 kbytes drop-probability 20 weight 0 ecn": "random-detect minimum-threshold N kbytes maximum-threshold N kbytes drop-probability N weight N ecn",
	} {
		if got, ok := CLIForm(line); !ok || got != want {
			t.Errorf("CLIForm(%q) = %q %v, want %q", line, got, ok, want)
		}
	}
	for _, l := range []string{"", "!", "! a comment", "   ! indented comment"} {
		if _, ok := CLIForm(l); ok {
			t.Errorf("CLIForm(%q) is a statement", l)
		}
	}
}

func TestNVUEForm(t *testing.T) {
	for _, c := range []struct {
		path  []string
		value string
		empty bool
		want  string
	}{
		{[]string{"set", "interface", "swp1s1", "link", "speed"}, "400G", false, "set interface IF link speed NG"},
		{[]string{"set", "qos", "pfc", "400G-30m", "cable-length"}, "30", false, "set qos pfc PROFILE cable-length N"},
		{[]string{"set", "interface", "swp2", "qos", "pfc", "profile"}, "400G-30m", false, "set interface IF qos pfc profile PROFILE"},
		{[]string{"set", "interface", "swp2", "link", "breakout", "2x"}, "", true, "set interface IF link breakout Nx {}"},
		{[]string{"set", "qos", "roce", "state"}, "enabled", false, "set qos roce state enabled"},
	} {
		if got := NVUEForm(c.path, c.value, c.empty); got != c.want {
			t.Errorf("NVUEForm(%v, %q) = %q, want %q", c.path, c.value, got, c.want)
		}
	}
}

// A verify form is marked directly above its line (inBlock), or once above
// the top-level line of its block; VerifyMarked finds either and nothing
// else.
func TestMarkVerifyCLI(t *testing.T) {
	text := "! header\nfoo 1\ninterface Ethernet1/1\n  speed 400\n  mtu 9216\ninterface Ethernet1/2\n  speed 400\n"
	isVerify := func(f string) bool { return f == "speed N" || f == "foo N" }
	for _, inBlock := range []bool{true, false} {
		out := string(MarkVerifyCLI([]byte(text), isVerify, inBlock))
		lines := strings.Split(out, "\n")
		marks := strings.Count(out, "! verify: speed N\n")
		if marks != 2 {
			t.Errorf("inBlock %v: %d speed marks, want 2:\n%s", inBlock, marks, out)
		}
		if !strings.Contains(out, "! verify: foo N\nfoo 1\n") {
			t.Errorf("inBlock %v: top-level line unmarked:\n%s", inBlock, out)
		}
		if !inBlock && !strings.Contains(out, "! verify: speed N\ninterface Ethernet1/1\n") {
			t.Errorf("block mark not above the block:\n%s", out)
		}
		if inBlock && !strings.Contains(out, "  ! verify: speed N\n  speed 400\n") {
			t.Errorf("in-block mark not above the line:\n%s", out)
		}
		for i, l := range lines {
			f, ok := CLIForm(l)
			if !ok {
				continue
			}
			if got := VerifyMarked(lines, i, f); got != isVerify(f) {
				t.Errorf("inBlock %v: line %q marked %v", inBlock, l, got)
			}
		}
	}
	unmarked := strings.Split(text, "\n")
	if VerifyMarked(unmarked, 3, "speed N") {
		t.Error("an unmarked line reads as marked")
	}
}
