package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/platforms"
)

// The fixture under testdata is shaped like sonic-config-engine's own test
// platform (src/sonic-config-engine/tests/sample_platform.json and
// sample_hwsku.json at sonic-net/sonic-buildimage@086b03bd), whose expected
// outputs (test_cfggen_platformJson.py) give Ethernet8 in 4x25G[10G] lanes
// "8", alias Eth3/1, index 3, speed 25000, and Ethernet4 in 2x50G lanes
// "4,5", alias Eth2/1, index 2, speed 50000.
func fixture() options {
	return options{root: "testdata", platformDir: "device/test/x86_64-test-r0", hwsku: "TEST-SKU", model: "test",
		repo: "sonic-net/sonic-buildimage", commit: strings.Repeat("0", 40)}
}

func TestConvertFixture(t *testing.T) {
	data, err := convert(fixture())
	if err != nil {
		t.Fatal(err)
	}
	sku, err := platforms.DecodeSONiCSKU(data)
	if err != nil {
		t.Fatal(err)
	}
	// Ethernet12 is in platform.json but not in hwsku.json: SONiC does not
	// create it.
	if len(sku.Ports) != 3 {
		t.Fatalf("%d parents, want 3 (those hwsku.json lists)", len(sku.Ports))
	}
	ports, err := sku.DefaultPorts()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]platforms.SONiCPortEntry{}
	for _, p := range ports {
		by[p.Name] = p
	}
	for _, c := range []struct {
		name, alias string
		lanes       []int
		index, mbps int
	}{
		{"Ethernet8", "Eth3/1", []int{8}, 3, 25000},
		{"Ethernet4", "Eth2/1", []int{4, 5}, 2, 50000},
		{"Ethernet0", "Eth1", []int{0, 1, 2, 3}, 1, 100000},
	} {
		p := by[c.name]
		if p.Alias != c.alias || !slices.Equal(p.Lanes, c.lanes) || p.Index != c.index || p.SpeedMbps != c.mbps {
			t.Errorf("%s = %+v, want alias %s lanes %v index %d speed %d", c.name, p, c.alias, c.lanes, c.index, c.mbps)
		}
	}
	// hwsku.json's fec applies to the parent's children; SONiC's own rule
	// gives no FEC below 50G a lane.
	if by["Ethernet0"].FEC != "rs" || by["Ethernet4"].FEC != "" {
		t.Errorf("fec: Ethernet0 %q, Ethernet4 %q; want rs and none", by["Ethernet0"].FEC, by["Ethernet4"].FEC)
	}
	// A mixed mode splits lanes by group: two 25G ports of one lane, then
	// one 50G port of two.
	mixed, err := sku.Ports[2].Breakout("2x25G(2)+1x50G(2)")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mixed {
		got = append(got, m.Name+":"+intsStr(m.Lanes))
	}
	if want := []string{"Ethernet8:8", "Ethernet9:9", "Ethernet10:10,11"}; !slices.Equal(got, want) {
		t.Errorf("2x25G(2)+1x50G(2) = %v, want %v", got, want)
	}
}

func intsStr(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func TestConvertRefusesMismatch(t *testing.T) {
	// A port_config.ini that disagrees with platform.json (lanes moved, as
	// an invented lane list would) is refused.
	dir := t.TempDir()
	o := fixture()
	src := filepath.Join(o.root, filepath.FromSlash(o.platformDir))
	dst := filepath.Join(dir, filepath.FromSlash(o.platformDir))
	for _, f := range []string{"platform.json", "TEST-SKU/hwsku.json", "TEST-SKU/port_config.ini"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".ini") {
			b = []byte(strings.Replace(string(b), "Ethernet8     8 ", "Ethernet8     9 ", 1))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.root = dir
	if _, err := convert(o); err == nil || !strings.Contains(err.Error(), "Ethernet8") {
		t.Fatalf("convert = %v, want a mismatch naming Ethernet8", err)
	}
}
