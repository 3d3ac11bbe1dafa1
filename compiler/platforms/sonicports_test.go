package platforms

import (
	"slices"
	"strings"
	"testing"
)

func TestEverySONiCModelHasAPortMap(t *testing.T) {
	if err := ValidateSONiCSKUs(); err != nil {
		t.Fatal(err)
	}
	for _, m := range SwitchModels() {
		sw, _ := LookupSwitch(m)
		if !sw.RunsPlatform("sonic") {
			continue
		}
		if _, ok := LookupSONiCSKU(m); !ok {
			t.Errorf("%s runs SONiC but has no port map under sonic/", m)
		}
	}
}

// TestDefaultModesGivePortConfig checks SONiC's breakout rule as
// implemented here against every vendor's own port_config.ini: the ports
// the default modes of platform.json and hwsku.json derive are its rows.
func TestDefaultModesGivePortConfig(t *testing.T) {
	for _, m := range SONiCSKUModels() {
		sku, _ := LookupSONiCSKU(m)
		got, err := sku.DefaultPorts()
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if len(got) != len(sku.Default) {
			t.Fatalf("%s: %d ports derived, port_config.ini has %d", m, len(got), len(sku.Default))
		}
		for i, g := range got {
			w := sku.Default[i]
			if g.Name != w.Name || !slices.Equal(g.Lanes, w.Lanes) || g.Alias != w.Alias || g.Index != w.Index ||
				(w.SpeedMbps != 0 && g.SpeedMbps != w.SpeedMbps) || (w.FEC != "" && w.FEC != "none" && g.FEC != w.FEC) {
				t.Errorf("%s: derived %+v, port_config.ini %+v", m, g, w)
			}
		}
	}
}

func TestDS5000Lanes(t *testing.T) {
	sku, ok := LookupSONiCSKU("celestica-ds5000")
	if !ok {
		t.Fatal("no DS5000 port map")
	}
	// The example: Ethernet8 is lanes 17-24, lanes 9-16 belong to
	// Ethernet24 (port_config.ini of the DS5000 SKU).
	lanes := map[string][]int{}
	ports, _ := sku.DefaultPorts()
	for _, p := range ports {
		lanes[p.Name] = p.Lanes
	}
	if !slices.Equal(lanes["Ethernet8"], []int{17, 18, 19, 20, 21, 22, 23, 24}) ||
		!slices.Equal(lanes["Ethernet24"], []int{9, 10, 11, 12, 13, 14, 15, 16}) {
		t.Fatalf("Ethernet8 %v, Ethernet24 %v", lanes["Ethernet8"], lanes["Ethernet24"])
	}
	// 2x400G splits each cage's lanes in platform.json order: Ethernet8
	// and Ethernet12 take 17-20 and 21-24.
	l, err := sku.Layout(400, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 128 {
		t.Fatalf("%d ports at 2x400G, want 128", len(l))
	}
	if l[2].Name != "Ethernet8" || l[3].Name != "Ethernet12" || !slices.Equal(l[3].Lanes, []int{21, 22, 23, 24}) ||
		l[3].Alias != "Eth2/5" || l[3].Parent != "Ethernet8" || l[3].Mode != "2x400G" || l[3].SpeedMbps != 400000 {
		t.Fatalf("third and fourth ports: %+v %+v", l[2], l[3])
	}
	// The SKU has no 4x200G on Ethernet8: a 256x200G layout is refused,
	// naming the port, rather than invented.
	if _, err := sku.Layout(200, 4); err == nil || !strings.Contains(err.Error(), "Ethernet8") {
		t.Fatalf("Layout(200, 4) = %v, want a refusal naming Ethernet8", err)
	}
}

func TestModeForPrefersDefaultSpeed(t *testing.T) {
	sku, _ := LookupSONiCSKU("SN5600")
	p := sku.Ports[0]
	// 4x200G[100G,...] is the only four-way mode; 100G is one of its
	// supported speeds.
	if m, ok := p.ModeFor(4, 100000); !ok || !strings.HasPrefix(m, "4x200G") {
		t.Errorf("ModeFor(4, 100G) = %q, %v", m, ok)
	}
	if m, ok := p.ModeFor(2, 400000); !ok || !strings.HasPrefix(m, "2x400G") {
		t.Errorf("ModeFor(2, 400G) = %q, %v", m, ok)
	}
	if _, ok := p.ModeFor(8, 100000); ok {
		t.Error("ModeFor(8, 100G) found a mode the SKU does not list")
	}
}

func TestDecodeSONiCSKURejects(t *testing.T) {
	sku, _ := LookupSONiCSKU("DS5000")
	base := `{"model":"m","hwsku":"h","platform":"p","source":{"repo":"r","commit":"` + strings.Repeat("a", 40) + `","files":["f"]},"ports":[{"name":"Ethernet0","lanes":[1,2],"index":[1,1],"defaultMode":"%s","breakoutModes":[{"mode":"2x50G","aliases":["a","b"]}]}],"portConfig":[]}`
	for _, c := range []struct{ data, want string }{
		{strings.Replace(base, "%s", "2x50G", 1) + "{}", "data after"},
		{strings.Replace(base, "%s", "1x100G", 1), "not one of"},
		{strings.Replace(strings.Replace(base, "%s", "2x50G", 1), `"model"`, `"modell"`, 1), "unknown field"},
	} {
		if _, err := DecodeSONiCSKU([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeSONiCSKU = %v, want %q", err, c.want)
		}
	}
	if sku.Source.Ref == "" {
		t.Error("the DS5000 map comes from a pull request: its source must say so")
	}
}
