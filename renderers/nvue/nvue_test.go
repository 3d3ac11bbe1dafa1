package nvue_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/nvue"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// handled are the devices of the test fabric this renderer takes.
func handled(f *ir.Fabric) []*ir.Device { return rendertest.Devices(f, ir.PlatformNVUE) }

func render(t *testing.T, d *ir.Device) renderers.Artifact {
	t.Helper()
	return rendertest.RenderOne(t, nvue.Renderer{}, d, nvue.File, renderers.YAML)
}

func TestGolden(t *testing.T) {
	f := irtest.Fabric()
	ds := handled(f)
	if len(ds) != 2 {
		t.Fatalf("test fabric has %d nvue switches, want 2 (leaf-nvue, spine-00)", len(ds))
	}
	for _, d := range ds {
		t.Run(d.Name, func(t *testing.T) {
			a := render(t, d)
			rendertest.Golden(t, "testdata/golden/irtest/"+a.Path, a.Content)
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, d := range handled(irtest.Fabric()) {
		first := render(t, d).Content
		if again := render(t, d).Content; !bytes.Equal(first, again) {
			t.Errorf("%s: two renders differ", d.Name)
		}
		// The order the model lists ports and port classes in must not
		// show: the document is sorted.
		slices.Reverse(d.Switch.Ports)
		slices.Reverse(d.Switch.Headrooms)
		if shuffled := render(t, d).Content; !bytes.Equal(first, shuffled) {
			t.Errorf("%s: output depends on port order", d.Name)
		}
	}
}

// doc is the parsed `- set:` tree.
type doc map[string]any

func parse(t *testing.T, content []byte) doc {
	t.Helper()
	var items []map[string]any
	if err := yaml.Unmarshal(content, &items); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	if len(items) != 1 || items[0]["set"] == nil {
		t.Fatalf("want one `- set:` item, got %v", items)
	}
	return items[0]["set"].(map[string]any)
}

// at walks a path of keys; every key is a string, as NVUE keys are.
func (d doc) at(t *testing.T, path ...string) any {
	t.Helper()
	var v any = map[string]any(d)
	for i, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is not a mapping", strings.Join(path[:i], " "))
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("no %s", strings.Join(path[:i+1], " "))
		}
	}
	return v
}

func (d doc) int(t *testing.T, path ...string) int64 {
	t.Helper()
	switch v := d.at(t, path...).(type) {
	case int:
		return int64(v)
	case int64:
		return v
	default:
		t.Fatalf("%s = %v (%T), want an integer", strings.Join(path, " "), v, v)
	}
	return 0
}

func (d doc) str(t *testing.T, path ...string) string {
	t.Helper()
	s, ok := d.at(t, path...).(string)
	if !ok {
		t.Fatalf("%s = %v, want a string", strings.Join(path, " "), d.at(t, path...))
	}
	return s
}

func (d doc) keys(t *testing.T, path ...string) []string {
	t.Helper()
	m, ok := d.at(t, path...).(map[string]any)
	if !ok {
		t.Fatalf("%s is not a mapping", strings.Join(path, " "))
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func itoa(i int) string { return fmt.Sprint(i) }

// TestLossless checks, without the golden file, the lines that keep the
// lossless class lossless on this hop.
func TestLossless(t *testing.T) {
	f := irtest.Fabric()
	roce := f.Class("roce")
	for _, d := range handled(f) {
		t.Run(d.Name, func(t *testing.T) {
			s, q, b := d.Switch, d.Switch.QoS, d.Switch.Buffers
			a := render(t, d)
			y := parse(t, a.Content)

			if got := y.str(t, "qos", "roce", "state"); got != "enabled" {
				t.Errorf("qos roce state %q (Cumulus Linux %s)", got, nvue.NewestRelease)
			}
			if got := y.str(t, "qos", "roce", "mode"); got != "lossless" {
				t.Errorf("qos roce mode %q", got)
			}

			// Classification: DSCP trust, every DSCP mapped as the model says,
			// the roce DSCP onto the roce priority and that onto its queue.
			if got := y.str(t, "qos", "mapping", "default-global", "trust"); got != "l3" {
				t.Errorf("trust %q, want l3", got)
			}
			if n := len(y.keys(t, "qos", "mapping", "default-global", "dscp")); n != 64 {
				t.Errorf("%d DSCP entries, want 64", n)
			}
			for dscp, tc := range q.DSCPToTC {
				if got := y.int(t, "qos", "mapping", "default-global", "dscp", itoa(dscp), "switch-priority"); got != int64(tc) {
					t.Errorf("DSCP %d -> SP %d, want %d", dscp, got, tc)
				}
			}
			for _, dscp := range roce.DSCP {
				if got := y.int(t, "qos", "mapping", "default-global", "dscp", itoa(dscp), "switch-priority"); got != int64(roce.Priority) {
					t.Errorf("roce DSCP %d -> SP %d, want %d", dscp, got, roce.Priority)
				}
			}
			if got := y.int(t, "qos", "egress-queue-mapping", "default-global", "switch-priority", itoa(roce.Priority), "traffic-class"); got != int64(roce.Priority) {
				t.Errorf("roce SP %d -> TC %d", roce.Priority, got)
			}

			// PFC: one profile per port class, on exactly the lossless
			// priorities, with the model's headroom and thresholds.
			var want []string
			for _, h := range s.Headrooms {
				want = append(want, h.Name)
			}
			slices.Sort(want)
			if got := y.keys(t, "qos", "pfc"); !slices.Equal(got, want) {
				t.Errorf("PFC profiles %v, want %v", got, want)
			}
			for _, h := range s.Headrooms {
				p := []string{"qos", "pfc", h.Name}
				if got := y.keys(t, append(p, "switch-priority")...); !slices.Equal(got, []string{"3"}) {
					t.Errorf("%s: PFC on %v, want exactly [3]", h.Name, got)
				}
				for _, k := range []string{"tx", "rx"} {
					if got := y.str(t, append(p, k)...); got != "enable" {
						t.Errorf("%s: %s %q", h.Name, k, got)
					}
				}
				if got := y.int(t, append(p, "cable-length")...); got != int64(math.Ceil(h.CableM)) {
					t.Errorf("%s: cable-length %d, want %g", h.Name, got, h.CableM)
				}
				if buf := y.int(t, append(p, "port-buffer")...); buf != h.Size {
					t.Errorf("%s: port-buffer %d, want headroom %d", h.Name, buf, h.Size)
				}
				// The limits that start and stop PFC frames are Cumulus
				// Linux's to derive: the intent gives none, and NVIDIA
				// recommends not setting them.
				for _, k := range []string{"xoff-threshold", "xon-threshold"} {
					if _, ok := y.at(t, p...).(map[string]any)[k]; ok {
						t.Errorf("%s: %s set; the switch derives it", h.Name, k)
					}
				}
			}

			// Every port: its class's PFC profile, the watchdog, MTU and speed.
			for _, p := range s.Ports {
				i := []string{"interface", p.Name}
				if got := y.str(t, append(i, "qos", "pfc", "profile")...); got != p.Headroom.Name {
					t.Errorf("%s: PFC profile %q, want %q", p.Name, got, p.Headroom.Name)
				}
				if got := y.str(t, append(i, "qos", "pfc-watchdog", "state")...); got != "enable" {
					t.Errorf("%s: watchdog %q", p.Name, got)
				}
				if got := y.int(t, append(i, "link", "mtu")...); got != int64(s.MTU) {
					t.Errorf("%s: mtu %d, want %d", p.Name, got, s.MTU)
				}
				if got := y.str(t, append(i, "link", "speed")...); got != fmt.Sprintf("%dG", p.SpeedGbps) {
					t.Errorf("%s: speed %q", p.Name, got)
				}
				if got, want := y.str(t, append(i, "description")...), "to "+p.Peer+":"+p.PeerPort; got != want {
					t.Errorf("%s: description %q, want %q", p.Name, got, want)
				}
			}

			// ECN on the lossless queue: bytes, min < max < XOFF point.
			e := []string{"qos", "congestion-control", "default-global", "traffic-class", itoa(roce.Priority)}
			if got := y.str(t, append(e, "ecn")...); got != "enable" {
				t.Errorf("roce ecn %q", got)
			}
			minB, maxB := y.int(t, append(e, "min-threshold")...), y.int(t, append(e, "max-threshold")...)
			if minB != roce.ECN.MinBytes || maxB != roce.ECN.MaxBytes {
				t.Errorf("roce ECN %d..%d B, want %d..%d", minB, maxB, roce.ECN.MinBytes, roce.ECN.MaxBytes)
			}
			if !(minB < maxB && maxB < b.XoffPoint) {
				t.Errorf("roce ECN %d..%d B not below the XOFF point %d B", minB, maxB, b.XoffPoint)
			}
			if got := y.int(t, append(e, "probability")...); got != int64(roce.ECN.Probability) {
				t.Errorf("roce probability %d", got)
			}
			if got := y.str(t, "qos", "congestion-control", "default-global", "traffic-class", "6", "ecn"); got != "disable" {
				t.Errorf("cnp ecn %q, want disable", got)
			}

			// ETS: CNP strict, the rest DWRR summing to 100.
			es := []string{"qos", "egress-scheduler", "default-global", "traffic-class"}
			if got := y.str(t, append(es, "6", "mode")...); got != "strict" {
				t.Errorf("cnp mode %q, want strict", got)
			}
			sum := int64(0)
			for tc, w := range map[string]int64{"0": 20, "1": 30, "3": 50} {
				if got := y.str(t, append(es, tc, "mode")...); got != "dwrr" {
					t.Errorf("TC%s mode %q", tc, got)
				}
				got := y.int(t, append(es, tc, "bw-percent")...)
				if got != w {
					t.Errorf("TC%s bw-percent %d, want %d", tc, got, w)
				}
				sum += got
			}
			if sum != 100 {
				t.Errorf("ETS weights sum to %d", sum)
			}

			// Watchdog: detect time = polling interval x robustness.
			poll := y.int(t, "qos", "pfc-watchdog", "polling-interval")
			rob := y.int(t, "qos", "pfc-watchdog", "robustness")
			if poll*rob != int64(q.Watchdog.DetectMs) {
				t.Errorf("watchdog %d ms x %d, want %d ms", poll, rob, q.Watchdog.DetectMs)
			}

			// Buffer: the reserve in the lossless pool, the rest lossy.
			lossless := y.int(t, "qos", "traffic-pool", "roce-lossless", "memory-percent")
			lossy := y.int(t, "qos", "traffic-pool", "default-lossy", "memory-percent")
			if lossless != int64(b.ReservePercent) || lossless+lossy != 100 {
				t.Errorf("pools %d + %d, want %d + rest = 100", lossless, lossy, b.ReservePercent)
			}
			if got := y.keys(t, "qos", "traffic-pool", "roce-lossless", "switch-priority"); !slices.Equal(got, []string{"3"}) {
				t.Errorf("lossless pool priorities %v", got)
			}
			if got := y.keys(t, "qos", "traffic-pool", "default-lossy", "switch-priority"); slices.Contains(got, "3") || len(got) != 7 {
				t.Errorf("lossy pool priorities %v", got)
			}

			// Adaptive routing: global, and on switch-facing ports only.
			if got := y.str(t, "router", "adaptive-routing", "state"); got != "enabled" {
				t.Errorf("adaptive routing %q", got)
			}
			for _, p := range s.Ports {
				want := "enabled"
				if p.Facing == ir.RoleHost {
					want = "disabled"
				}
				if got := y.str(t, "interface", p.Name, "router", "adaptive-routing", "state"); got != want {
					t.Errorf("%s (%s-facing): adaptive routing %q, want %q", p.Name, p.Facing, got, want)
				}
			}
		})
	}
}

// TestRefusesBadValues checks that a NVUE switch whose model holds what
// the platform cannot take is refused; what every renderer refuses of
// any device is renderers' TestRefusesOtherDevices.
func TestRefusesBadValues(t *testing.T) {
	for name, mutate := range map[string]func(d *ir.Device){
		"no buffers":             func(d *ir.Device) { d.Switch.Buffers = nil },
		"unknown load balancing": func(d *ir.Device) { d.Switch.LoadBalancing = "hash" },
		"duplicate port":         func(d *ir.Device) { d.Switch.Ports = append(d.Switch.Ports, d.Switch.Ports[0]) },
		"reserve over 100":       func(d *ir.Device) { b := *d.Switch.Buffers; b.ReservePercent = 101; d.Switch.Buffers = &b },
	} {
		d := irtest.Fabric().Device("leaf-nvue")
		mutate(d)
		if _, err := (nvue.Renderer{}).Render(d); err == nil {
			t.Errorf("%s: rendered, want an error", name)
		}
	}
}

func TestUnsafeNames(t *testing.T) {
	bad := []string{"leaf\nqos: {}", "leaf;reboot", "leaf$(reboot)", "leaf`reboot`", "leaf'x", `leaf"x`}
	rendertest.RefusesNames(t, nvue.Renderer{}, func() *ir.Device { return irtest.Fabric().Device("leaf-nvue") }, bad, rendertest.SwitchNames(0, 0))
	// Text the name checks do not cover still cannot break a line.
	d := irtest.Fabric().Device("leaf-nvue")
	d.Model = "x\n- unset: {}"
	if _, err := (nvue.Renderer{}).Render(d); err == nil {
		t.Error("model with a newline: rendered, want an error")
	}
}

// TestGaps renders what NVUE cannot express and checks that each is said,
// at the element and in the header, and that the rest still renders.
func TestGaps(t *testing.T) {
	d := irtest.Fabric().Device("spine-00")
	s := d.Switch
	s.LoadBalancing = "spray"
	q := *s.QoS
	q.Watchdog.Action = "alert"
	s.QoS = &q
	s.Ports[0].SpeedGbps = 800
	a := render(t, d)
	y := parse(t, a.Content)
	text := string(a.Content)
	rendertest.Contains(t, "the NVUE YAML", text,
		"platform gap: packet spraying",
		`platform gap: PFC watchdog action "alert"`,
		"platform gap: Spectrum-4 runs adaptive routing at 200G and 400G only; this 800G port",
		"#   - adaptive routing runs at 200G and 400G only (Spectrum-4); these switch-facing ports keep ECMP hashing: swp1",
		"#   - packet spraying",
	)
	if got := y.str(t, "router", "adaptive-routing", "state"); got != "enabled" {
		t.Errorf("spray: adaptive routing %q, want enabled", got)
	}
	if got := y.str(t, "interface", "swp1", "router", "adaptive-routing", "state"); got != "disabled" {
		t.Errorf("800G port: adaptive routing %q, want disabled", got)
	}
	if got := y.str(t, "interface", "swp2", "router", "adaptive-routing", "state"); got != "enabled" {
		t.Errorf("400G port: adaptive routing %q, want enabled", got)
	}
	if got := y.str(t, "interface", "swp1", "link", "speed"); got != "800G" {
		t.Errorf("speed %q", got)
	}
}

func TestECMPAndWatchdogOff(t *testing.T) {
	d := irtest.Fabric().Device("leaf-nvue")
	s := d.Switch
	s.LoadBalancing = "ecmp"
	q := *s.QoS
	q.Watchdog = ir.Watchdog{}
	s.QoS = &q
	a := render(t, d)
	y := parse(t, a.Content)
	if got := y.str(t, "router", "adaptive-routing", "state"); got != "disabled" {
		t.Errorf("ecmp: adaptive routing %q, want disabled", got)
	}
	for _, p := range s.Ports {
		if _, ok := y.at(t, "interface", p.Name).(map[string]any)["router"]; ok {
			t.Errorf("ecmp: %s has a router key", p.Name)
		}
		if got := y.str(t, "interface", p.Name, "qos", "pfc-watchdog", "state"); got != "disable" {
			t.Errorf("watchdog off: %s state %q, want disable", p.Name, got)
		}
	}
	if _, ok := y.at(t, "qos").(map[string]any)["pfc-watchdog"]; ok {
		t.Error("watchdog off: global timers rendered")
	}
}

// TestLossy renders a fabric without a lossless class: no PFC anywhere.
func TestLossy(t *testing.T) {
	d := irtest.Fabric().Device("leaf-nvue")
	s := d.Switch
	q := *s.QoS
	q.PFC = nil
	q.Queues = slices.Clone(q.Queues)
	for i := range q.Queues {
		q.Queues[i].Lossless = false
	}
	s.QoS = &q
	b := *s.Buffers
	b.ReservePercent, b.ReserveName, b.Reserves = 0, "", nil
	s.Buffers = &b
	a := render(t, d)
	y := parse(t, a.Content)
	if got := y.str(t, "qos", "roce", "mode"); got != "lossy" {
		t.Errorf("mode %q, want lossy", got)
	}
	qos := y.at(t, "qos").(map[string]any)
	for _, k := range []string{"pfc", "pfc-watchdog", "traffic-pool"} {
		if _, ok := qos[k]; ok {
			t.Errorf("lossy fabric renders qos %s", k)
		}
	}
	for _, p := range s.Ports {
		if _, ok := y.at(t, "interface", p.Name).(map[string]any)["qos"]; ok {
			t.Errorf("lossy fabric: %s has qos", p.Name)
		}
	}
}

// TestBreakout checks that every parent of a used split port is broken out
// into the smallest mode that holds its highest child, and that a port that
// is not split gets no breakout.
func TestBreakout(t *testing.T) {
	d := handled(irtest.Fabric())[0]
	base := d.Switch.Ports[0]
	d.Switch.Ports = nil
	for _, name := range []string{"swp1s0", "swp1s1", "swp2s3", "swp3s5", "swp4"} {
		p := base
		p.Name = name
		d.Switch.Ports = append(d.Switch.Ports, p)
	}
	y := parse(t, render(t, d).Content)
	for parent, mode := range map[string]string{"swp1": "2x", "swp2": "4x", "swp3": "8x"} {
		if got := y.keys(t, "interface", parent, "link", "breakout"); !slices.Equal(got, []string{mode}) {
			t.Errorf("%s link breakout %v, want %s", parent, got, mode)
		}
	}
	if link, ok := y.at(t, "interface", "swp4", "link").(map[string]any); !ok || link["breakout"] != nil {
		t.Errorf("swp4 is not split but has link %v", y.at(t, "interface", "swp4", "link"))
	}
}

// TestReleases renders the on/off leaves Cumulus Linux 5.15 renamed in each
// release's spelling: `enable: 'on'` (quoted: YAML 1.1 reads a bare on as a
// boolean) through 5.14, `state: enabled` from 5.15; the newest documented
// release when the intent names none; and refuses a release it does not
// know rather than guess its keys.
func TestReleases(t *testing.T) {
	for _, tc := range []struct {
		release     string
		key         string
		on, off     string
		quotedOnOff bool
	}{
		{"5.6", "enable", "on", "off", true},
		{"5.14", "enable", "on", "off", true},
		{"5.15", "state", "enabled", "disabled", false},
		{"5.16", "state", "enabled", "disabled", false},
		{"", "state", "enabled", "disabled", false},
	} {
		t.Run("release "+tc.release, func(t *testing.T) {
			d := irtest.Fabric().Device("spine-00")
			d.Release = tc.release
			a := render(t, d)
			y := parse(t, a.Content)
			if got := y.str(t, "qos", "roce", tc.key); got != tc.on {
				t.Errorf("qos roce %s %q, want %q", tc.key, got, tc.on)
			}
			if got := y.str(t, "router", "adaptive-routing", tc.key); got != tc.on {
				t.Errorf("router adaptive-routing %s %q, want %q", tc.key, got, tc.on)
			}
			for _, p := range d.Switch.Ports {
				want := tc.on
				if p.Facing == ir.RoleHost {
					want = tc.off
				}
				if got := y.str(t, "interface", p.Name, "router", "adaptive-routing", tc.key); got != want {
					t.Errorf("%s: adaptive-routing %s %q, want %q", p.Name, tc.key, got, want)
				}
			}
			other := map[string]string{"enable": "state", "state": "enable"}[tc.key]
			if _, ok := y.at(t, "qos", "roce").(map[string]any)[other]; ok {
				t.Errorf("qos roce has both %s and %s", tc.key, other)
			}
			if got := bytes.Contains(a.Content, []byte("enable: 'on'")); got != tc.quotedOnOff {
				t.Errorf("quoted enable: 'on' present %v, want %v", got, tc.quotedOnOff)
			}
			rel := tc.release
			if rel == "" {
				rel = nvue.NewestRelease
			}
			if !bytes.Contains(a.Content, []byte("Cumulus Linux "+rel+" takes them")) {
				t.Errorf("the header does not name release %s", rel)
			}
			// Leaves 5.15 did not rename keep enable/disable.
			if got := y.str(t, "qos", "pfc", d.Switch.Headrooms[0].Name, "tx"); got != "enable" {
				t.Errorf("pfc tx %q", got)
			}
		})
	}
	for _, bad := range []string{"5.5", "5.17", "6.0", "5.1x", "5.014", "5"} {
		d := irtest.Fabric().Device("spine-00")
		d.Release = bad
		if _, err := (nvue.Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "release") {
			t.Errorf("release %q: err %v, want a refusal naming the release", bad, err)
		}
	}
}
