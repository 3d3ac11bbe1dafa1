package platforms

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/rendertest"
)

func TestCatalogDecodesStrictly(t *testing.T) {
	if err := Validate(); err != nil {
		t.Fatalf("embedded catalog: %v", err)
	}
	// Decoding into the exported types with unknown fields disallowed must
	// succeed on its own too, independent of decode's extra checks.
	dec := json.NewDecoder(bytes.NewReader(catalogJSON))
	dec.DisallowUnknownFields()
	var c catalog
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	if len(c.Switches) == 0 || len(c.NICs) == 0 || len(c.Platforms) == 0 {
		t.Fatalf("catalog is empty: %d switches, %d nics, %d platforms", len(c.Switches), len(c.NICs), len(c.Platforms))
	}
}

func TestDecodeRejectsBadCatalogs(t *testing.T) {
	valid := string(catalogJSON)
	tests := []struct {
		name, data, wantErr string
	}{
		{"unknown field", strings.Replace(valid, `"cellBytes": 254,`, `"cellBytes": 254, "cellbytesTypo": 1,`, 1), "unknown field"},
		{"trailing data", valid + "{}", "data after"},
		{"missing source", strings.Replace(valid, `"maxHeadroomBytes": "0: unknown, no per-PG limit published"`, `"maxHeadroomBytes": ""`, 1), "no source for maxHeadroomBytes"},
		{"bad level", strings.Replace(valid, `"tc-queue": {"level": "yes", "note": "qos map traffic-class … to tx-queue"}`, `"tc-queue": {"level": "maybe"}`, 1), `level "maybe"`},
		{"partial without rendering", strings.Replace(valid, `"rendered": "the fixed mapping qos-group N = queue N", `, ``, 1), "says nothing about what is rendered"},
		{"bad disruption", strings.Replace(valid, `"disruption": "reboot"`, `"disruption": "explode"`, 1), `disruption "explode"`},
		{"duplicate alias", strings.Replace(valid, `"aliases": ["MSN4600C"]`, `"aliases": ["msn5600"]`, 1), "used twice"},
		{"bad port speed", strings.Replace(valid, `"ports": {"100G": 64},`, `"ports": {"25G": 64},`, 1), `ports "25G"`},
		{"unknown platform on switch", strings.Replace(valid, `"platforms": ["sonic"],`, `"platforms": ["junos"],`, 1), `unknown platform "junos"`},
		{"missing element", strings.Replace(valid, `"spray": {"level": "yes", "note": "hardware profile dlb `+"`mode per-packet`"+`; needs a reload", "disruption": "reboot"},`, ``, 1), `element "spray" missing`},
	}
	for _, tt := range tests {
		if tt.data == valid {
			t.Fatalf("%s: replacement did not apply", tt.name)
		}
		_, err := decode([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: err = %v, want it to mention %q", tt.name, err, tt.wantErr)
		}
	}
}

// lookupAll returns the catalog entry of each of models by its name,
// failing t for a model lookup does not find.
func lookupAll[T any](t *testing.T, models []string, lookup func(string) (T, bool)) map[string]T {
	t.Helper()
	out := make(map[string]T, len(models))
	for _, m := range models {
		x, ok := lookup(m)
		if !ok {
			t.Fatalf("lookup of %q failed", m)
		}
		out[m] = x
	}
	return out
}

func TestEverySwitchFigureIsSourced(t *testing.T) {
	for m, s := range lookupAll(t, SwitchModels(), LookupSwitch) {
		checkSourced(t, m, s.Sources, switchFigures)
		if s.BufferBytes == 0 && !strings.Contains(s.Sources["bufferBytes"], "unknown") {
			t.Errorf("%s: zero buffer not explained", m)
		}
		if s.CellBytes == 0 && !strings.Contains(s.Sources["cellBytes"], "unknown") {
			t.Errorf("%s: zero cell not explained", m)
		}
	}
}

func TestEveryNICFigureIsSourced(t *testing.T) {
	for m, n := range lookupAll(t, NICModels(), LookupNIC) {
		checkSourced(t, m, n.Sources, nicFigures)
	}
}

// checkSourced fails t for each of figures that model m's sources give no
// source, or whose source marks an estimate other than as "verify: ".
func checkSourced(t *testing.T, m string, sources map[string]string, figures []string) {
	t.Helper()
	for _, f := range figures {
		src := sources[f]
		if strings.TrimSpace(src) == "" {
			t.Errorf("%s: no source for %s", m, f)
		}
		if strings.HasPrefix(strings.ToLower(src), "verify") && !strings.HasPrefix(src, "verify: ") {
			t.Errorf("%s: %s: estimates are marked %q, got %q", m, f, "verify: ", src)
		}
	}
}

func TestEveryPlatformHasEveryElement(t *testing.T) {
	for _, p := range Platforms() {
		c, ok := PlatformCapabilities(p)
		if !ok {
			t.Fatalf("PlatformCapabilities(%q) failed", p)
		}
		if c.Platform != p {
			t.Errorf("platform %q reports itself as %q", p, c.Platform)
		}
		if len(c.Elements) != len(Elements()) {
			t.Errorf("%s: %d elements, want %d", p, len(c.Elements), len(Elements()))
		}
		for _, e := range Elements() {
			s, ok := c.Elements[e]
			if !ok {
				t.Errorf("%s: element %q missing", p, e)
				continue
			}
			if !slices.Contains([]string{LevelYes, LevelPartial, LevelNo}, s.Level) {
				t.Errorf("%s/%s: level %q", p, e, s.Level)
			}
			if s.Level != LevelYes && s.Rendered == "" {
				t.Errorf("%s/%s: %s without what is rendered instead", p, e, s.Level)
			}
			if d := Disruption(p, e); d != s.Disruption || !slices.Contains([]string{Hitless, PortFlap, TrafficPause, Reboot}, d) {
				t.Errorf("%s/%s: disruption %q (support says %q)", p, e, d, s.Disruption)
			}
		}
	}
}

func TestRequiredEntries(t *testing.T) {
	for _, m := range []string{"7060X6-64PE", "SN5600", "DS5000", "N9364D-GX2A", "7060DX5-64S", "SN4600C", "N9332D-GX2B"} {
		if _, ok := LookupSwitch(m); !ok {
			t.Errorf("switch %q missing", m)
		}
	}
	for _, m := range []string{"connectx-5", "connectx-6dx", "connectx-7", "bluefield-3", "connectx-8", "bluefield-2"} {
		if _, ok := LookupNIC(m); !ok {
			t.Errorf("nic %q missing", m)
		}
	}
}

func TestLookupIsCaseInsensitive(t *testing.T) {
	for _, name := range []string{"7060X6-64PE", "7060x6-64pe", "dcs-7060x6-64pe", " DCS-7060X6-64PE "} {
		s, ok := LookupSwitch(name)
		if !ok || s.Model != "7060X6-64PE" {
			t.Errorf("LookupSwitch(%q) = %q, %v", name, s.Model, ok)
		}
	}
	for _, name := range []string{"sn5600", "Sn5600", "MSN5600"} {
		if s, ok := LookupSwitch(name); !ok || s.Model != "SN5600" {
			t.Errorf("LookupSwitch(%q) = %q, %v", name, s.Model, ok)
		}
	}
	if s, ok := LookupSwitch("n9k-c9364d-gx2a"); !ok || s.Model != "N9364D-GX2A" {
		t.Errorf("LookupSwitch by order code = %q, %v", s.Model, ok)
	}
	for _, name := range []string{"ConnectX-7", "CONNECTX-7", "cx7"} {
		if n, ok := LookupNIC(name); !ok || n.Model != "connectx-7" {
			t.Errorf("LookupNIC(%q) = %q, %v", name, n.Model, ok)
		}
	}
	if n, ok := LookupNIC("ConnectX-6 Dx"); !ok || n.Model != "connectx-6dx" {
		t.Errorf("LookupNIC(ConnectX-6 Dx) = %q, %v", n.Model, ok)
	}
	if c, ok := PlatformCapabilities("NVUE"); !ok || c.Platform != "nvue" {
		t.Errorf("PlatformCapabilities(NVUE) = %q, %v", c.Platform, ok)
	}
	for _, name := range []string{"", "7060X6", "sn5600x", "connectx"} {
		if _, ok := LookupSwitch(name); ok {
			t.Errorf("LookupSwitch(%q) found something", name)
		}
		if _, ok := LookupNIC(name); ok {
			t.Errorf("LookupNIC(%q) found something", name)
		}
	}
}

func TestModelListsAreSorted(t *testing.T) {
	for _, l := range [][]string{SwitchModels(), NICModels()} {
		if !slices.IsSorted(l) || len(l) == 0 {
			t.Errorf("not sorted or empty: %v", l)
		}
	}
	// Callers may modify what they get.
	SwitchModels()[0] = "changed"
	if SwitchModels()[0] == "changed" {
		t.Error("SwitchModels shares its slice")
	}
	s, _ := LookupSwitch("SN5600")
	s.Ports["800G"] = 1
	if s2, _ := LookupSwitch("SN5600"); s2.Ports["800G"] != 64 {
		t.Error("LookupSwitch shares its maps")
	}
}

func TestOutOfOrderPlacement(t *testing.T) {
	tests := map[string]bool{
		"connectx-5": false, "connectx-6dx": true, "connectx-7": true,
		"connectx-8": true, "bluefield-2": true, "bluefield-3": true,
		"thor2": false, "e810": false, "pollara-400": true,
	}
	for m, want := range tests {
		if n, _ := LookupNIC(m); n.OutOfOrder != want {
			t.Errorf("%s: OutOfOrder = %v, want %v", m, n.OutOfOrder, want)
		}
	}
	for _, m := range NICModels() {
		if n, _ := LookupNIC(m); n.MLX5() && n.DefaultCableM != 7 {
			t.Errorf("%s: default cable %g m, mlx5 assumes 7 m", m, n.DefaultCableM)
		}
	}
}

func TestSwitchFigures(t *testing.T) {
	tests := []struct {
		model    string
		cell     int
		platform string
		ports    map[string]int
	}{
		{"SN5600", 192, "nvue", map[string]int{"800G": 64}},
		{"7060X6-64PE", 254, "eos", map[string]int{"800G": 64}},
		{"DS5000", 254, "sonic", map[string]int{"800G": 64}},
		{"N9364D-GX2A", 0, "nxos", map[string]int{"400G": 64}},
		{"SN4600C", 144, "sonic", map[string]int{"100G": 64}},
	}
	for _, tt := range tests {
		s, _ := LookupSwitch(tt.model)
		if s.CellBytes != tt.cell || !s.RunsPlatform(tt.platform) || !s.RunsPlatform(strings.ToUpper(tt.platform)) {
			t.Errorf("%s: cell %d platforms %v", tt.model, s.CellBytes, s.Platforms)
		}
		for speed, n := range tt.ports {
			if s.Ports[speed] != n {
				t.Errorf("%s: %d×%s, want %d", tt.model, s.Ports[speed], speed, n)
			}
		}
		if s.BufferBytes <= 0 {
			t.Errorf("%s: no buffer size", tt.model)
		}
	}
	if s, _ := LookupSwitch("SN5600"); s.RunsPlatform("eos") {
		t.Error("SN5600 does not run EOS")
	}
}

func TestCapabilitiesFollowTheMatrix(t *testing.T) {
	// switches.md §0, where rocefab renders what the platform offers. The
	// levels are what the renderers write, which RF117 reports: EOS's
	// per-queue MMU reservation and NX-OS's fixed pause thresholds are
	// partial in the matrix but not rendered, so they are "no" here.
	tests := []struct{ platform, element, level string }{
		{"eos", ElementXoffXon, LevelNo},
		{"eos", ElementPoolPercent, LevelNo},
		{"eos", ElementHeadroomCable, LevelPartial},
		{"eos", ElementAdaptiveRouting, LevelPartial},
		{"nvue", ElementPoolPercent, LevelYes},
		{"nvue", ElementXoffXon, LevelYes},
		{"nvue", ElementAdaptiveRouting, LevelYes},
		{"sonic", ElementAdaptiveRouting, LevelNo},
		{"sonic", ElementSpray, LevelNo},
		{"sonic", ElementWatchdogActionAlert, LevelYes},
		{"nxos", ElementPoolPercent, LevelNo},
		{"nxos", ElementTCQueue, LevelPartial},
		{"nxos", ElementXoffXon, LevelNo},
		{"nxos", ElementAdaptiveRouting, LevelYes},
		{"openconfig", ElementPFC, LevelNo},
		{"openconfig", ElementPFCWatchdog, LevelNo},
		{"openconfig", ElementECN, LevelYes},
		{"linux", ElementPFC, LevelYes},
	}
	for _, tt := range tests {
		c, _ := PlatformCapabilities(tt.platform)
		if got := c.Elements[tt.element].Level; got != tt.level {
			t.Errorf("%s/%s = %q, want %q", tt.platform, tt.element, got, tt.level)
		}
	}
}

func TestDisruption(t *testing.T) {
	tests := []struct{ platform, element, want string }{
		{"linux", ElementPFC, PortFlap},                // mlx5_toggle_port_link (hosts.md §0)
		{"nxos", ElementAdaptiveRouting, Reboot},       // hardware profile dlb needs a reload
		{"nxos", ElementSpray, Reboot},                 //
		{"nvue", ElementAdaptiveRouting, TrafficPause}, // switchd reload
		{"nvue", ElementPoolPercent, TrafficPause},     // buffer reprogramming
		{"sonic", ElementPoolPercent, TrafficPause},
		{"eos", ElementPoolPercent, TrafficPause}, // MMU profile apply
		{"eos", ElementDSCPMap, Hitless},
		{"SONiC", ElementECN, Hitless},
		{"junos", ElementPFC, ""},
		{"eos", "no-such-element", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := Disruption(tt.platform, tt.element); got != tt.want {
			t.Errorf("Disruption(%q, %q) = %q, want %q", tt.platform, tt.element, got, tt.want)
		}
	}
}

// TestVendorNICs pins what the catalog says of the NICs beyond NVIDIA's:
// their drivers' device names, tools, congestion control and limits, and
// the rocefab settings each cannot take.
func TestVendorNICs(t *testing.T) {
	tests := []struct {
		name, model, rdma, cc, iface string
		tools                        []string
		tcs, lossless                int
		gaps                         []string
	}{
		{"BCM57608", "thor2", "bnxt_re%d", "dcqcn-p", "bnxt_re-configfs", []string{"dcb"}, 8, 1,
			[]string{"cable-length", "dcqcn-parameters", "ecn-priority", "roce-dscp"}},
		{"Intel E810", "e810", "irdma%d", "dcqcn", "irdma-configfs", []string{"dcb"}, 4, 1,
			[]string{"cable-length", "cnp-dscp", "dcqcn-parameters", "ecn-priority", "software-dcb", "traffic-classes"}},
		{"pollara", "pollara-400", "ionic_%d", "dcqcn", "ionic-sysfs", nil, 8, 8,
			[]string{"cable-length", "dcqcn-parameters", "ecn-priority", "nic-qos"}},
		{"cx7", "connectx-7", "mlx5_%d", "dcqcn", "mlx5", []string{"mlnx_qos", "dcb"}, 8, 8, nil},
	}
	for _, tt := range tests {
		n, ok := LookupNIC(tt.name)
		if !ok || n.Model != tt.model {
			t.Fatalf("LookupNIC(%q) = %q, %v", tt.name, n.Model, ok)
		}
		if n.RDMADevice != tt.rdma || n.CongestionControl != tt.cc || n.CCInterface != tt.iface ||
			!slices.Equal(n.Tools, tt.tools) || n.MaxTrafficClasses != tt.tcs || n.MaxLossless != tt.lossless {
			t.Errorf("%s: %+v", tt.model, n)
		}
		if got := slices.Sorted(maps.Keys(n.Gaps)); !slices.Equal(got, tt.gaps) {
			t.Errorf("%s: gaps %v, want %v", tt.model, got, tt.gaps)
		}
		if n.MLX5() != (tt.iface == "mlx5") {
			t.Errorf("%s: MLX5() = %v", tt.model, n.MLX5())
		}
	}
}

func TestFamilies(t *testing.T) {
	if err := ValidateFamilies(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"7060X6-64PE": "tomahawk", "DS5000": "tomahawk", "7060DX5-64S": "tomahawk",
		"SN5600": "spectrum", "SN4600C": "spectrum", "SN3700": "spectrum",
		"N9364D-GX2A": "cloudscale", "N9332D-GX2B": "cloudscale",
	}
	for model, fam := range want {
		sw, ok := LookupSwitch(model)
		if !ok {
			t.Fatalf("%s not in the catalog", model)
		}
		f, ok := FamilyOf(sw)
		if !ok || f.Family != fam {
			t.Errorf("%s: family %q, want %q", model, f.Family, fam)
		}
	}
	if _, ok := FamilyOf(Switch{ASIC: "Unknown"}); ok {
		t.Error("an unknown ASIC has no family")
	}
}

func TestDecodeFamiliesRejects(t *testing.T) {
	for _, bad := range []string{
		`{"families": [{"family": "x", "match": ["X"], "headroomModel": "guess", "sources": {}}]}`,
		`{"families": [{"family": "x", "match": ["X"], "headroomModel": "min-frame-cell", "responseTimeNs": 0}]}`,
		`{"families": [{"family": "x", "match": [], "headroomModel": "sonic-spectrum", "pipelineLatencyKiB": 19, "macPhyDelayKiB": 0.8}]}`,
		`{"families": [], "extra": 1}`,
		`{"families": []} {}`,
	} {
		if _, err := decodeFamilies([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

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

// The catalog's port count of a SONiC-capable model at each speed is what
// its SKU's platform.json lays out when every cage takes the same breakout
// mode (the compiler splits every cage alike): no more, since a cage
// without the mode would not come up, and no fewer.
func TestCatalogPortsMatchSKU(t *testing.T) {
	for _, m := range SONiCSKUModels() {
		sw, ok := LookupSwitch(m)
		if !ok {
			t.Errorf("SONiC SKU %s: no catalog switch", m)
			continue
		}
		sku, _ := LookupSONiCSKU(m)
		for speed, n := range sw.Ports {
			g, err := strconv.Atoi(strings.TrimSuffix(speed, "G"))
			if err != nil {
				continue // 1.6T: no SKU here runs it
			}
			most := 0
			for perCage := 1; perCage <= 8; perCage++ {
				if ports, err := sku.Layout(g, perCage); err == nil {
					most = max(most, len(ports))
				}
			}
			if most != n {
				t.Errorf("%s: the catalog gives %d×%s, the SKU %s lays out %d with every cage in one mode", m, n, speed, sku.HWSKU, most)
			}
		}
	}
}

func TestStatementsValid(t *testing.T) {
	if err := ValidateStatements(); err != nil {
		t.Fatal(err)
	}
	rows := Statements()
	if len(rows) == 0 {
		t.Fatal("no statement rows")
	}
	for _, r := range rows {
		got, ok := LookupStatement(r.Platform, r.Form)
		if !ok || got.Status != r.Status || IsVerify(r.Platform, r.Form) != (r.Status == Verify) {
			t.Errorf("%s `%s`: lookup gives %+v %v", r.Platform, r.Form, got, ok)
		}
	}
	if IsVerify("eos", "no such form") {
		t.Error("an unknown form reads as verify")
	}
}

// The decoder refuses rows a reader could not trust: a verify form with no
// condition, an unknown condition, a status other than the two, a row
// listed twice.
func TestStatementsRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"verify without when": `[{"platform":"eos","form":"x","status":"verify","source":"s"}]`,
		"unknown condition":   `[{"platform":"eos","form":"x","status":"verify","when":["sunny"],"source":"s"}]`,
		"unknown alternative": `[{"platform":"eos","form":"x","status":"verify","when":["lb:ecmp|random"],"source":"s"}]`,
		"bad status":          `[{"platform":"eos","form":"x","status":"maybe","source":"s"}]`,
		"no source":           `[{"platform":"eos","form":"x","status":"sourced","source":""}]`,
		"unknown platform":    `[{"platform":"junos","form":"x","status":"sourced","source":"s"}]`,
		"twice":               `[{"platform":"eos","form":"x","status":"sourced","source":"s"},{"platform":"eos","form":"x","status":"sourced","source":"t"}]`,
		"unknown field":       `[{"platform":"eos","form":"x","status":"sourced","source":"s","note":"n"}]`,
	} {
		if _, err := decodeStatements([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := decodeStatements([]byte(`[{"platform":"eos","form":"x","status":"verify","when":["!mmu:dnx","lb:adaptive|spray"],"source":"s"}]`)); err != nil {
		t.Errorf("valid conditions refused: %v", err)
	}
}

func TestParseCondition(t *testing.T) {
	neg, conds := ParseCondition("!lb:adaptive|spray")
	if !neg || !slices.Equal(conds, []string{"lb:adaptive", "lb:spray"}) {
		t.Errorf("got %v %v", neg, conds)
	}
	neg, conds = ParseCondition("lossless")
	if neg || !slices.Equal(conds, []string{"lossless"}) {
		t.Errorf("got %v %v", neg, conds)
	}
}

// docs/statements.md is the table rendered; ROCEFAB_UPDATE=1 rewrites it.
func TestStatementsDoc(t *testing.T) {
	want, err := StatementsMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	rendertest.Golden(t, filepath.Join("..", "..", "docs", "statements.md"), want)
	for _, r := range Statements() {
		if !strings.Contains(string(want), "| `"+r.Form+"` |") {
			t.Errorf("%s `%s` missing from the document", r.Platform, r.Form)
		}
	}
}
