package schema

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  int64
		cells bool
		err   string
	}{
		{"150KB", 150_000, false, ""},
		{"1500KB", 1_500_000, false, ""},
		{"64KiB", 65_536, false, ""},
		{"2MB", 2_000_000, false, ""},
		{"1MiB", 1 << 20, false, ""},
		{"100", 100, false, ""},
		{"10 B", 10, false, ""},
		{"1.5MB", 1_500_000, false, ""},
		{"12 cells", 12, true, ""},
		{"1.5cells", 0, false, "whole numbers"},
		{"3x", 0, false, `invalid size "3x": want a byte count`},
		{"KB", 0, false, "invalid size"},
		{"-1KB", 0, false, "invalid size"},
	} {
		got, cells, err := ParseSize(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSize(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want || cells != c.cells {
			t.Errorf("ParseSize(%q) = %d, %v, %v; want %d, %v", c.in, got, cells, err, c.want, c.cells)
		}
	}
}

func TestParseOthers(t *testing.T) {
	if n, err := ParseRate("50Gbit"); err != nil || n != 50e9 {
		t.Errorf("ParseRate(50Gbit) = %d, %v", n, err)
	}
	if _, err := ParseRate("50Gbps"); err == nil || !strings.Contains(err.Error(), "Gbit") {
		t.Errorf("ParseRate(50Gbps) error = %v, want the accepted forms", err)
	}
	if n, err := ParseSpeed("1.6T"); err != nil || n != 1600 {
		t.Errorf("ParseSpeed(1.6T) = %d, %v", n, err)
	}
	if _, err := ParseSpeed("300G"); err == nil {
		t.Error("ParseSpeed(300G) accepted")
	}
	if m, err := ParseLength("1.2km"); err != nil || m != 1200 {
		t.Errorf("ParseLength(1.2km) = %g, %v", m, err)
	}
	if _, err := ParseLength("3 furlongs"); err == nil {
		t.Error("ParseLength(3 furlongs) accepted")
	}
	if d, err := ParseDuration("200ms"); err != nil || d != 200*time.Millisecond {
		t.Errorf("ParseDuration(200ms) = %v, %v", d, err)
	}
	if FormatSpeed(1600) != "1.6T" || FormatSpeed(400) != "400G" || FormatLength(2.5) != "2.5m" {
		t.Error("Format functions do not invert the parsers")
	}
}

func TestValidName(t *testing.T) {
	for _, bad := range []string{"", "a;b", "x$(y)", "a`b`", "a'b", `a"b`, "a\nb", "a b", "-a", strings.Repeat("a", 65),
		"Ethernet1/1", ".", "..", "./x", "x/..", "a/../../x", "/abs", `a\b`} {
		if ValidName(bad) {
			t.Errorf("ValidName(%q) = true", bad)
		}
	}
	for _, good := range []string{"roce", "gpu-0000", "mlx5_0", "train-175b", "a.b", "a..b"} {
		if !ValidName(good) {
			t.Errorf("ValidName(%q) = false", good)
		}
	}
	for _, good := range []string{"Ethernet1/1", "swp1", "eth2", "Ethernet1/1/2"} {
		if !ValidInterface(good) {
			t.Errorf("ValidInterface(%q) = false", good)
		}
	}
}
