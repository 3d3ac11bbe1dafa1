package eos_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// handled returns the devices of f this renderer takes: EOS switches.
func handled(f *ir.Fabric) []*ir.Device { return rendertest.Devices(f, ir.PlatformEOS) }

func render(t *testing.T, d *ir.Device) string {
	t.Helper()
	return string(rendertest.RenderOne(t, eos.Renderer{}, d, "eos.cfg", renderers.Text).Content)
}

// tomahawk returns leaf-eos as a Tomahawk switch, the family that takes
// buffer statements, with nothing else changed.
func tomahawk() *ir.Device {
	d := irtest.Fabric().Device("leaf-eos")
	b := *d.Switch.Buffers
	b.ASIC = "tomahawk5"
	irtest.Retarget(d, d.Platform, "7060X6-64PE")
	d.Switch.Buffers = &b
	return d
}

// eosSpine returns the test fabric's spine as if it ran EOS on a Jericho.
func eosSpine() *ir.Device {
	d := irtest.Fabric().Device("spine-00")
	irtest.Retarget(d, ir.PlatformEOS, "7800R3-36P")
	for i := range d.Switch.Ports {
		d.Switch.Ports[i].Name = irtest.PortName(ir.PlatformEOS, i+1)
	}
	return d
}

func TestGolden(t *testing.T) {
	devs := handled(irtest.Fabric())
	if len(devs) == 0 {
		t.Fatal("the test fabric has no EOS switch")
	}
	for _, d := range devs {
		t.Run(d.Name, func(t *testing.T) {
			rendertest.Golden(t, "testdata/"+d.Name+"/eos.cfg", []byte(render(t, d)))
		})
	}
	// Variants cover the buffer families the test fabric's model does not.
	t.Run("tomahawk", func(t *testing.T) {
		rendertest.Golden(t, "testdata/variants/leaf-eos-tomahawk5.cfg", []byte(render(t, tomahawk())))
	})
	t.Run("jericho-spine", func(t *testing.T) {
		rendertest.Golden(t, "testdata/variants/spine-00-jericho.cfg", []byte(render(t, eosSpine())))
	})
}

func TestDeterministic(t *testing.T) {
	for _, mk := range []func() *ir.Device{
		func() *ir.Device { return irtest.Fabric().Device("leaf-eos") }, tomahawk, eosSpine,
	} {
		rendertest.Deterministic(t, mk, func(d *ir.Device) string { return render(t, d) })
	}
}

// lines returns the configuration lines (comments and separators dropped)
// with their indentation.
func lines(cfg string) []string {
	var out []string
	for l := range strings.Lines(cfg) {
		l = strings.TrimRight(l, "\n")
		if strings.TrimSpace(l) == "!" || strings.HasPrefix(strings.TrimSpace(l), "! ") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// block returns the lines indented under the first line equal to head.
func block(t *testing.T, cfg, head string) []string {
	t.Helper()
	ls := lines(cfg)
	i := slices.Index(ls, head)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", head, cfg)
	}
	var out []string
	for _, l := range ls[i+1:] {
		if !strings.HasPrefix(l, " ") {
			break
		}
		out = append(out, l)
	}
	return out
}

func has(t *testing.T, ls []string, want string) {
	t.Helper()
	if !slices.Contains(ls, want) {
		t.Errorf("missing line %q in:\n%s", want, strings.Join(ls, "\n"))
	}
}

// TestLosslessClass checks, without the golden file, that the lossless
// class is lossless on this hop.
func TestLosslessClass(t *testing.T) {
	for _, d := range []*ir.Device{irtest.Fabric().Device("leaf-eos"), tomahawk(), eosSpine()} {
		t.Run(d.Name+"/"+d.Model, func(t *testing.T) {
			cfg := render(t, d)
			ls := lines(cfg)
			q := d.Switch.QoS
			kw := "tx-queue"
			if d.Model == "7060X6-64PE" {
				kw = "uc-tx-queue"
			}

			// Every DSCP is mapped exactly once, to the model's class.
			seen := map[int]int{}
			re := regexp.MustCompile(`^qos map dscp ([0-9 ]+) to traffic-class ([0-7])$`)
			for _, l := range ls {
				m := re.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				tc, _ := strconv.Atoi(m[2])
				for f := range strings.FieldsSeq(m[1]) {
					dscp, _ := strconv.Atoi(f)
					if _, dup := seen[dscp]; dup {
						t.Errorf("DSCP %d mapped twice", dscp)
					}
					seen[dscp] = tc
				}
			}
			for dscp := range 64 {
				if got, ok := seen[dscp]; !ok || got != q.DSCPToTC[dscp] {
					t.Errorf("DSCP %d -> %d (mapped %v), want traffic class %d", dscp, got, ok, q.DSCPToTC[dscp])
				}
			}
			has(t, ls, "qos map dscp 26 to traffic-class 3")
			has(t, ls, "qos map dscp 48 to traffic-class 6")
			has(t, ls, "qos map dscp 10 18 to traffic-class 1")
			// Identity entries are the EOS default and not written.
			for _, l := range ls {
				if strings.HasPrefix(l, "qos map traffic-class ") {
					t.Errorf("identity traffic-class map written: %q", l)
				}
			}

			p := block(t, cfg, "qos profile ROCEFAB")
			has(t, p, "   qos trust dscp")
			has(t, p, "   priority-flow-control on")
			var noDrop []string
			for _, l := range p {
				if strings.HasSuffix(l, " no-drop") {
					noDrop = append(noDrop, l)
				}
			}
			if want := []string{"   priority-flow-control priority 3 no-drop"}; !slices.Equal(noDrop, want) {
				t.Errorf("no-drop priorities %q, want %q", noDrop, want)
			}
			for _, prio := range []int{0, 1, 2, 4, 5, 6, 7} {
				has(t, p, fmt.Sprintf("   priority-flow-control priority %d drop", prio))
			}

			// ETS weights, strict CNP, ECN in bytes on the lossless queue.
			queue := func(id int) []string {
				var out []string
				in := false
				for _, l := range p {
					switch {
					case l == fmt.Sprintf("   %s %d", kw, id):
						in = true
					case !strings.HasPrefix(l, "      "):
						in = false
					case in:
						out = append(out, strings.TrimSpace(l))
					}
				}
				if len(out) == 0 {
					t.Fatalf("no %s %d in the profile:\n%s", kw, id, strings.Join(p, "\n"))
				}
				return out
			}
			if got, want := queue(0), []string{"no priority", "bandwidth percent 20"}; !slices.Equal(got, want) {
				t.Errorf("queue 0: %q, want %q", got, want)
			}
			if got, want := queue(1), []string{"no priority", "bandwidth percent 30"}; !slices.Equal(got, want) {
				t.Errorf("queue 1: %q, want %q", got, want)
			}
			if got, want := queue(6), []string{"priority strict"}; !slices.Equal(got, want) {
				t.Errorf("CNP queue 6: %q, want %q", got, want)
			}
			q3 := queue(3)
			if want := []string{"no priority", "bandwidth percent 50"}; !slices.Equal(q3[:2], want) {
				t.Errorf("queue 3: %q, want it to start %q", q3, want)
			}
			ecn := regexp.MustCompile(`^random-detect ecn minimum-threshold (\d+) bytes maximum-threshold (\d+) bytes max-mark-probability (\d+)$`)
			m := ecn.FindStringSubmatch(q3[len(q3)-1])
			if m == nil {
				t.Fatalf("queue 3 has no ECN line in bytes: %q", q3)
			}
			minB, _ := strconv.ParseInt(m[1], 10, 64)
			maxB, _ := strconv.ParseInt(m[2], 10, 64)
			if minB != 150_000 || maxB != 1_500_000 || m[3] != "20" {
				t.Errorf("ECN %s..%s B at %s %%, want 150000..1500000 B at 20 %%", m[1], m[2], m[3])
			}
			if xoff := d.Switch.Buffers.XoffPoint; maxB >= xoff {
				t.Errorf("ECN maximum %d B not below the XOFF point %d B", maxB, xoff)
			}
			has(t, ls, "qos random-detect ecn allow non-ect")

			// Watchdog: seconds, drop on each port.
			has(t, ls, "priority-flow-control pause watchdog default timeout 0.2")
			has(t, ls, "priority-flow-control pause watchdog default recovery-time 0.4")
			has(t, ls, "priority-flow-control pause watchdog default polling-interval 0.04")
			has(t, p, "   priority-flow-control pause watchdog")
			has(t, p, "   priority-flow-control pause watchdog port action drop")

			// Every port: description, its speed where the whole 800G
			// cage of 100G lanes runs slower, clamped MTU, the profile.
			for _, port := range d.Switch.Ports {
				got := block(t, cfg, "interface "+port.Name)
				want := []string{fmt.Sprintf("   description to %s:%s", port.Peer, port.PeerPort)}
				if d.Model == "7060X6-64PE" && port.SpeedGbps < 800 {
					want = append(want, fmt.Sprintf("   speed %dg-%d", port.SpeedGbps, port.SpeedGbps/100))
				}
				want = append(want, "   mtu 9214", "   service-profile ROCEFAB")
				if !slices.Equal(got, want) {
					t.Errorf("interface %s: %q, want %q", port.Name, got, want)
				}
			}
			if !strings.Contains(cfg, "! MTU: the model asks 9216 B; EOS takes at most 9214 B, so 9214 B is rendered.") {
				t.Error("no note on the MTU clamp")
			}
		})
	}
}

// TestBuffers checks the headroom statements where the MMU takes them, and
// the gaps where it does not.
func TestBuffers(t *testing.T) {
	d := tomahawk()
	cfg := render(t, d)
	ls := lines(cfg)
	b := d.Switch.Buffers
	has(t, ls, fmt.Sprintf("platform trident mmu headroom-pool limit bytes %d", b.HeadroomBytes))
	// One lossless priority; the 30 m class is the largest.
	var largest int64
	for _, h := range d.Switch.Headrooms {
		largest = max(largest, h.Size)
	}
	if got, want := block(t, cfg, "platform trident mmu queue profile ROCEFAB"), []string{fmt.Sprintf("   ingress headroom bytes %d", largest)}; !slices.Equal(got, want) {
		t.Errorf("MMU profile %q, want %q", got, want)
	}
	has(t, ls, "platform trident mmu queue profile ROCEFAB apply")
	for _, h := range d.Switch.Headrooms {
		if !strings.Contains(cfg, fmt.Sprintf("%s xoff %d B, xon %d B", h.Name, h.Xoff, h.Xon)) {
			t.Errorf("no xoff/xon gap for class %s", h.Name)
		}
	}
	for _, want := range []string{"! gap: per port class PFC headroom", "! gap: xoff/xon per port class", "! gap: reserve 30 %"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("missing %q", want)
		}
	}

	// Elsewhere no buffer statement, and the gap says so.
	for _, d := range []*ir.Device{irtest.Fabric().Device("leaf-eos"), eosSpine()} {
		cfg := render(t, d)
		if strings.Contains(cfg, "\nplatform ") {
			t.Errorf("%s (%s): buffer statements on a platform without a known MMU knob", d.Name, d.Model)
		}
		if !strings.Contains(cfg, "! gap: per port class PFC headroom (") {
			t.Errorf("%s: no headroom gap", d.Name)
		}
	}
}

func TestHeadroomPoolClamped(t *testing.T) {
	d := tomahawk()
	d.Switch.Buffers.HeadroomBytes = 40_000_000
	cfg := render(t, d)
	has(t, lines(cfg), "platform trident mmu headroom-pool limit bytes 33554432")
	if !strings.Contains(cfg, "! gap: headroom pool of 40000000 B") {
		t.Error("no gap for the clamped headroom pool")
	}
}

func TestLoadBalancing(t *testing.T) {
	for _, tt := range []struct {
		dev       func() *ir.Device
		mode      string
		want, gap string
	}{
		{tomahawk, "adaptive", "ip hardware fib load-balance distribution dynamic", ""},
		{tomahawk, "spray", "ip hardware fib load-balance distribution dynamic", "! gap: packet spraying"},
		{tomahawk, "ecmp", "ip hardware fib load-balance distribution hash", ""},
		{eosSpine, "adaptive", "", "! gap: adaptive load balancing"},
		{eosSpine, "ecmp", "", ""},
	} {
		d := tt.dev()
		d.Switch.LoadBalancing = tt.mode
		cfg := render(t, d)
		var got []string
		for _, l := range lines(cfg) {
			if strings.HasPrefix(l, "ip hardware fib load-balance") {
				got = append(got, l)
			}
		}
		var want []string
		if tt.want != "" {
			want = []string{tt.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: %q, want %q", d.Model, tt.mode, got, want)
		}
		if tt.gap != "" && !strings.Contains(cfg, tt.gap) {
			t.Errorf("%s %s: missing %q", d.Model, tt.mode, tt.gap)
		}
		if !strings.Contains(cfg, "! change: ") {
			t.Errorf("%s %s: no disruption note", d.Model, tt.mode)
		}
	}
}

func TestWatchdog(t *testing.T) {
	t.Run("forward", func(t *testing.T) {
		d := tomahawk()
		d.Switch.QoS.Watchdog.Action = "forward"
		cfg := render(t, d)
		has(t, block(t, cfg, "qos profile ROCEFAB"), "   priority-flow-control pause watchdog port action notify-only")
		if !strings.Contains(cfg, "! gap: watchdog action forward") {
			t.Error("no gap for the forward action")
		}
	})
	t.Run("alert", func(t *testing.T) {
		d := tomahawk()
		d.Switch.QoS.Watchdog.Action = "alert"
		has(t, block(t, render(t, d), "qos profile ROCEFAB"), "   priority-flow-control pause watchdog port action notify-only")
	})
	t.Run("rounding", func(t *testing.T) {
		d := tomahawk()
		d.Switch.QoS.Watchdog.DetectMs, d.Switch.QoS.Watchdog.RestoreMs = 15, 1005
		ls := lines(render(t, d))
		has(t, ls, "priority-flow-control pause watchdog default timeout 0.02")
		has(t, ls, "priority-flow-control pause watchdog default recovery-time 1.01")
		has(t, ls, "priority-flow-control pause watchdog default polling-interval 0.005")
	})
	t.Run("off", func(t *testing.T) {
		d := tomahawk()
		d.Switch.QoS.Watchdog.Enabled = false
		cfg := render(t, d)
		has(t, block(t, cfg, "qos profile ROCEFAB"), "   no priority-flow-control pause watchdog")
		if strings.Contains(cfg, "watchdog default") {
			t.Error("watchdog timers rendered while the watchdog is off")
		}
	})
}

func TestMTUUnclamped(t *testing.T) {
	d := tomahawk()
	d.Switch.MTU = 9100
	cfg := render(t, d)
	has(t, lines(cfg), "   mtu 9100")
	if strings.Contains(cfg, "! MTU:") {
		t.Error("clamp note without a clamp")
	}
}

func TestRefusesBadValues(t *testing.T) {
	for name, mutate := range map[string]func(d *ir.Device){
		"dscp map":      func(d *ir.Device) { d.Switch.QoS.DSCPToTC[5] = 9 },
		"ecn prob":      func(d *ir.Device) { d.Switch.QoS.Queues[2].ECN.Probability = 0 },
		"ecn order":     func(d *ir.Device) { d.Switch.QoS.Queues[2].ECN.MinBytes = 2_000_000 },
		"pfc priority":  func(d *ir.Device) { d.Switch.QoS.PFC = []int{8} },
		"wd action":     func(d *ir.Device) { d.Switch.QoS.Watchdog.Action = "reboot" },
		"lb mode":       func(d *ir.Device) { d.Switch.LoadBalancing = "random" },
		"mtu":           func(d *ir.Device) { d.Switch.MTU = 0 },
		"duplicate q":   func(d *ir.Device) { d.Switch.QoS.Queues = append(d.Switch.QoS.Queues, d.Switch.QoS.Queues[0]) },
		"bandwidth":     func(d *ir.Device) { d.Switch.QoS.Queues[0].Weight = 101 },
		"tc to queue 9": func(d *ir.Device) { d.Switch.QoS.TCToQueue[1] = 9 },
	} {
		d := tomahawk()
		if d.Switch.QoS.Queues[2].Class.Name != "roce" {
			t.Fatal("test fabric changed: queue index 2 is not roce")
		}
		mutate(d)
		if _, err := (eos.Renderer{}).Render(d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestRefusesUnsafeNames checks that no name that could end a line or mean
// something to a CLI or a shell reaches the artifact.
func TestRefusesUnsafeNames(t *testing.T) {
	bad := []string{"a\nb", "a;b", "a$(b)", "a`b`", `a"b`, "a'b", "a b"}
	rendertest.RefusesNames(t, eos.Renderer{}, tomahawk, bad, rendertest.SwitchNames(1, 0))
	// Free text (model, ASIC) may hold spaces but nothing that ends a line
	// or reaches a shell.
	for _, s := range []string{"7060\nreload", "x;y", "$(x)", "`x`", `"x"`} {
		d := tomahawk()
		d.Model = s
		if _, err := (eos.Renderer{}).Render(d); err == nil {
			t.Errorf("model %q: no error", s)
		}
		d = tomahawk()
		d.Switch.Buffers.ASIC = s
		if _, err := (eos.Renderer{}).Render(d); err == nil {
			t.Errorf("ASIC %q: no error", s)
		}
	}
	d := tomahawk()
	d.Switch.Buffers.ASIC = "Tomahawk 5 (BCM78900)"
	if _, err := (eos.Renderer{}).Render(d); err != nil {
		t.Errorf("ASIC with spaces: %v", err)
	}
}

// TestComments checks that every line is either a comment, a separator or
// a configuration line at a known depth, so that no comment text can be
// mistaken for a command.
func TestComments(t *testing.T) {
	cfg := render(t, tomahawk())
	for l := range strings.Lines(cfg) {
		l = strings.TrimRight(l, "\n")
		body := strings.TrimLeft(l, " ")
		if ind := len(l) - len(body); ind%3 != 0 || ind > 6 {
			t.Errorf("odd indentation: %q", l)
		}
		if body == "" {
			t.Errorf("empty line")
		}
	}
	if !bytes.HasSuffix([]byte(cfg), []byte("\n")) {
		t.Error("no final newline")
	}
}

// TestECNAtXoffIsPrinted: an ECN maximum at the XOFF point is the model's
// to print and lint's to judge (RF102): the artifact carries the model's
// thresholds and the point, and no verdict of its own.
func TestECNAtXoffIsPrinted(t *testing.T) {
	d := tomahawk()
	d.Switch.Buffers.XoffPoint = 1_000_000
	cfg := render(t, d)
	rendertest.Contains(t, "eos.cfg", cfg,
		"maximum-threshold 1500000 bytes",
		"! The ingress XOFF point of a lossless priority group is 1000000 B (lint RF102 compares the ECN maxima with it).",
	)
	if strings.Contains(cfg, "warning") || strings.Contains(cfg, "stays under") {
		t.Errorf("the renderer judges RF102:\n%s", cfg)
	}
}

// TestTwoLosslessPriorities checks that PFC follows the model's list and
// that the port headroom covers every lossless priority.
func TestTwoLosslessPriorities(t *testing.T) {
	d := tomahawk()
	d.Switch.QoS.PFC = []int{4, 3, 4}
	cfg := render(t, d)
	p := block(t, cfg, "qos profile ROCEFAB")
	has(t, p, "   priority-flow-control priority 3 no-drop")
	has(t, p, "   priority-flow-control priority 4 no-drop")
	has(t, p, "   priority-flow-control priority 5 drop")
	var largest int64
	for _, h := range d.Switch.Headrooms {
		largest = max(largest, h.Size)
	}
	has(t, block(t, cfg, "platform trident mmu queue profile ROCEFAB"), fmt.Sprintf("   ingress headroom bytes %d", 2*largest))
}

func TestNoLosslessClass(t *testing.T) {
	d := tomahawk()
	d.Switch.QoS.PFC = nil
	cfg := render(t, d)
	p := block(t, cfg, "qos profile ROCEFAB")
	has(t, p, "   no priority-flow-control")
	if cfgText := strings.Join(lines(cfg), "\n"); strings.Contains(cfgText, "no-drop") || strings.Contains(cfgText, "queue profile ROCEFAB apply") {
		t.Errorf("lossless configuration without a lossless class:\n%s", cfg)
	}
}

func TestTrafficClass7(t *testing.T) {
	d := tomahawk()
	d.Switch.QoS.TCToQueue[7] = 5
	cfg := render(t, d)
	if strings.Contains(cfg, "traffic-class 7 to tx-queue") {
		t.Error("traffic class 7 remapped")
	}
	if !strings.Contains(cfg, "! gap: traffic class 7 to tx-queue 5") {
		t.Error("no gap for traffic class 7")
	}
}

// TestTrafficClassMap checks that a traffic class on another queue than its
// own is mapped, and marked for verification on Trident/Tomahawk.
func TestTrafficClassMap(t *testing.T) {
	d := tomahawk()
	d.Switch.QoS.TCToQueue[1] = 0
	cfg := render(t, d)
	has(t, lines(cfg), "qos map traffic-class 1 to tx-queue 0")
	if !strings.Contains(cfg, "! verify: the traffic-class to tx-queue map") {
		t.Error("no verify mark on the Tomahawk traffic-class map")
	}
}

// TestLaneSpeed checks that the ports of a broken-out cage carry their
// speed with the lane count, a port using a whole 800G cage of 100G lanes
// its speed with the lanes it needs, one at the cage's speed none, and one
// no whole number of lanes carries a GAP.
func TestLaneSpeed(t *testing.T) {
	d := tomahawk()
	base := d.Switch.Ports[0]
	d.Switch.Ports = nil
	for _, p := range []struct {
		name  string
		speed int
	}{{"Ethernet1/1", 400}, {"Ethernet1/5", 400}, {"Ethernet2/1", 400}, {"Ethernet3/3", 400}, {"Ethernet4/2", 400},
		{"Ethernet5/1", 800}, {"Ethernet6/1", 200}, {"Ethernet7/1", 50}} {
		port := base
		port.Name, port.SpeedGbps = p.name, p.speed
		d.Switch.Ports = append(d.Switch.Ports, port)
	}
	cfg := render(t, d)
	has(t, block(t, cfg, "interface Ethernet1/1"), "   speed 400g-4")
	has(t, block(t, cfg, "interface Ethernet1/5"), "   speed 400g-4")
	has(t, block(t, cfg, "interface Ethernet2/1"), "   speed 400g-4")
	has(t, block(t, cfg, "interface Ethernet3/3"), "   speed 400g-2")
	has(t, block(t, cfg, "interface Ethernet4/2"), "   speed 400g-1")
	has(t, block(t, cfg, "interface Ethernet6/1"), "   speed 200g-2")
	for _, name := range []string{"Ethernet5/1", "Ethernet7/1"} {
		for _, l := range block(t, cfg, "interface "+name) {
			if strings.Contains(l, "speed") {
				t.Errorf("%s has %q", name, l)
			}
		}
	}
	if !strings.Contains(cfg, "! GAP: Ethernet7/1 runs 50 Gbit/s on a whole 800 Gbit/s cage of 100 Gbit/s lanes") {
		t.Errorf("no GAP for the 50G port:\n%s", cfg)
	}
}

// TestSeveralReservedClasses renders a buffer plan that reserves for two
// classes: the comment names both, and a name that is not one is refused.
func TestSeveralReservedClasses(t *testing.T) {
	d := tomahawk()
	b := *d.Switch.Buffers
	b.UnheldName = "roce, storage"
	b.UnheldPercent = 50
	d.Switch.Buffers = &b
	if out := render(t, d); !strings.Contains(out, "for roce, storage:") {
		t.Errorf("the reserve gap does not name both classes:\n%s", out)
	}
	b.UnheldName = "roce, st;orage"
	if _, err := (eos.Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "reserved class 2") {
		t.Errorf("a reserving class that is not a name: %v", err)
	}
}
