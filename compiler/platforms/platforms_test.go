package platforms

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
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

func TestEverySwitchFigureIsSourced(t *testing.T) {
	for _, m := range SwitchModels() {
		s, ok := LookupSwitch(m)
		if !ok {
			t.Fatalf("LookupSwitch(%q) failed", m)
		}
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
	for _, m := range NICModels() {
		n, ok := LookupNIC(m)
		if !ok {
			t.Fatalf("LookupNIC(%q) failed", m)
		}
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
