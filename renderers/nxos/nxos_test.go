package nxos

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/ir/irtest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/internal/clitree/clitreetest"
	"github.com/rocefab/rocefab/renderers/rendertest"
)

// handled returns the devices of the test fabric this renderer takes.
func handled(f *ir.Fabric) []*ir.Device { return rendertest.Devices(f, ir.PlatformNXOS) }

func render(t *testing.T, d *ir.Device) string {
	t.Helper()
	return string(rendertest.RenderOne(t, Renderer{}, d, FileName, renderers.Text).Content)
}

func leaf(t *testing.T) *ir.Device { return irtest.Device(t, "leaf-nxos") }

// cloneSwitch returns a copy of d whose switch, QoS, queues, classes and
// ports can be changed without touching the shared test fabric.
func cloneSwitch(d *ir.Device) *ir.Device {
	return clitreetest.Variant(d, func(*ir.Switch, *ir.QoS) {})
}

func TestGolden(t *testing.T) {
	ds := handled(irtest.Fabric())
	if len(ds) == 0 {
		t.Fatal("no NX-OS switch in the test fabric")
	}
	for _, d := range ds {
		t.Run(d.Name, func(t *testing.T) {
			rendertest.Golden(t, path.Join("testdata", d.Name, FileName), []byte(render(t, d)))
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, d := range handled(irtest.Fabric()) {
		rendertest.Deterministic(t, func() *ir.Device { return irtest.Fabric().Device(d.Name) }, func(d *ir.Device) string { return render(t, d) })
	}
}

// block returns the lines below the top-level line head, up to the next
// top-level line, trimmed; nil when head is absent.
func block(cfg, head string) []string {
	var out []string
	in, found := false, false
	for l := range strings.SplitSeq(cfg, "\n") {
		if l == "" {
			continue
		}
		top := !strings.HasPrefix(l, " ")
		switch {
		case top && l == head:
			in, found = true, true
		case top:
			in = false
		case in:
			out = append(out, strings.TrimSpace(l))
		}
	}
	if !found {
		return nil
	}
	return out
}

// sub returns the lines of a policy block below "class ... name" at the
// class level, up to the next class.
func sub(lines []string, classLine string) []string {
	var out []string
	in := false
	for _, l := range lines {
		if strings.HasPrefix(l, "class ") {
			in = l == classLine
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	return out
}

func TestLosslessClassIsLossless(t *testing.T) {
	d := leaf(t)
	cfg := render(t, d)
	qos := d.Switch.QoS
	roce := irtest.Fabric().Class("roce")
	if roce == nil || !roce.Lossless {
		t.Fatal("test fabric lost its lossless roce class")
	}
	q := qos.TCToQueue[roce.Priority]

	// Its DSCP lands in its queue.
	cm := block(cfg, "class-map type qos match-any "+classPrefix+"3-roce")
	if !slices.Equal(cm, []string{"match dscp 26"}) {
		t.Errorf("roce class map = %q, want match dscp 26", cm)
	}
	in := block(cfg, "policy-map type qos "+policyQoSIn)
	if got := sub(in, "class "+classPrefix+"3-roce"); !slices.Equal(got, []string{"set qos-group " + strconv.Itoa(q)}) {
		t.Errorf("roce class sets %q, want qos-group %d", got, q)
	}
	if got := sub(in, "class class-default"); !slices.Equal(got, []string{"set qos-group 0"}) {
		t.Errorf("class-default sets %q, want qos-group 0", got)
	}

	// PFC pauses exactly the lossless priorities, in the queue they land in.
	nq := block(cfg, "policy-map type network-qos "+policyNetworkQoS)
	var paused []string
	for _, l := range nq {
		if strings.HasPrefix(l, "pause ") {
			paused = append(paused, l)
		}
	}
	if !slices.Equal(paused, []string{"pause pfc-cos 3"}) {
		t.Errorf("network-qos pauses %q, want only pfc-cos 3", paused)
	}
	if got := sub(nq, "class type network-qos c-8q-nq3"); !slices.Contains(got, "pause pfc-cos 3") {
		t.Errorf("c-8q-nq3 = %q, want pause pfc-cos 3", got)
	}

	// ECN marks in kbytes, the model's thresholds rounded down, so below
	// the XOFF point whatever a kbyte is.
	out := block(cfg, "policy-map type queuing "+policyQueuingOut)
	q3 := sub(out, "class type queuing c-out-8q-q3")
	re := regexp.MustCompile(`^random-detect minimum-threshold (\d+) kbytes maximum-threshold (\d+) kbytes drop-probability (\d+) weight 0 ecn$`)
	var m []string
	for _, l := range q3 {
		if m = re.FindStringSubmatch(l); m != nil {
			break
		}
	}
	if m == nil {
		t.Fatalf("c-out-8q-q3 = %q, want a random-detect ... ecn line", q3)
	}
	kmin, _ := strconv.ParseInt(m[1], 10, 64)
	kmax, _ := strconv.ParseInt(m[2], 10, 64)
	if kmin != 146 || kmax != 1464 || m[3] != "20" {
		t.Errorf("ECN = %s..%s kbytes at %s %%, want 146..1464 kbytes (150000..1500000 B rounded down) at 20 %%", m[1], m[2], m[3])
	}
	// The threshold is in kbytes (1,024 bytes), the XOFF point in bytes.
	if xp := d.Switch.Buffers.XoffPoint; kmax*1024 >= xp {
		t.Errorf("ECN max %d kbytes (%d B) not below the XOFF point %d B", kmax, kmax*1024, xp)
	}

	// CNP is strict and first.
	if got := sub(out, "class type queuing c-out-8q-q6"); !slices.Equal(got, []string{"priority level 1"}) {
		t.Errorf("CNP queue = %q, want priority level 1", got)
	}

	// ETS weights as the model gives them, summing to 100, unused queues 0.
	want := map[string]int{"c-out-8q-q1": 30, "c-out-8q-q3": 50, "c-out-8q-q-default": 20,
		"c-out-8q-q2": 0, "c-out-8q-q4": 0, "c-out-8q-q5": 0, "c-out-8q-q7": 0}
	sum := 0
	for cls, w := range want {
		got := sub(out, "class type queuing "+cls)
		if len(got) == 0 || got[0] != fmt.Sprintf("bandwidth remaining percent %d", w) {
			t.Errorf("%s = %q, want bandwidth remaining percent %d", cls, got, w)
		}
		sum += w
	}
	if sum != 100 {
		t.Errorf("ETS weights sum to %d", sum)
	}

	// Both system policies are attached.
	sys := block(cfg, "system qos")
	for _, l := range []string{"service-policy type network-qos " + policyNetworkQoS, "service-policy type queuing output " + policyQueuingOut} {
		if !slices.Contains(sys, l) {
			t.Errorf("system qos = %q, missing %q", sys, l)
		}
	}
}

func TestInterfaces(t *testing.T) {
	d := leaf(t)
	cfg := render(t, d)
	if len(d.Switch.Ports) == 0 {
		t.Fatal("leaf has no ports")
	}
	for _, p := range d.Switch.Ports {
		got := block(cfg, "interface "+p.Name)
		if got == nil {
			t.Errorf("no interface block for %s", p.Name)
			continue
		}
		for _, l := range []string{
			"description to " + p.Peer + ":" + p.PeerPort,
			"mtu 9216",
			"speed 400000",
			"priority-flow-control mode on",
			"priority-flow-control watch-dog-interval on",
			"service-policy type qos input " + policyQoSIn,
		} {
			if !slices.Contains(got, l) {
				t.Errorf("interface %s = %q, missing %q", p.Name, got, l)
			}
		}
	}
	nq := block(cfg, "policy-map type network-qos "+policyNetworkQoS)
	for _, cls := range []string{"c-8q-nq1", "c-8q-nq3", "c-8q-nq6", "c-8q-nq-default"} {
		if got := sub(nq, "class type network-qos "+cls); !slices.Contains(got, "mtu 9216") {
			t.Errorf("%s = %q, want mtu 9216", cls, got)
		}
	}
}

func TestWatchdogLines(t *testing.T) {
	cfg := render(t, leaf(t))
	for _, l := range []string{
		"priority-flow-control watch-dog-interval on",
		"priority-flow-control watch-dog interval 100",
		"priority-flow-control watch-dog shutdown-multiplier 2",
		"priority-flow-control auto-restore multiplier 4",
	} {
		if !strings.Contains(cfg, "\n"+l+"\n") {
			t.Errorf("missing top-level %q", l)
		}
	}
	if !strings.Contains(cfg, "detect  200 ms -> interval 100 ms x shutdown-multiplier 2 = 200 ms") {
		t.Error("missing the comment that maps detect onto the timers")
	}
}

func TestWatchdogTimers(t *testing.T) {
	for _, tc := range []struct {
		detect, restore int
		want            wdTimers
	}{
		{200, 400, wdTimers{100, 2, 4}},
		{150, 300, wdTimers{150, 1, 2}},
		{250, 1000, wdTimers{125, 2, 8}},
		{50, 100, wdTimers{100, 1, 1}},         // below the shortest interval: clamped
		{5000, 20000, wdTimers{500, 10, 40}},   // long detect: coarser polling
		{20000, 1000, wdTimers{1000, 10, 1}},   // beyond reach: the closest
		{0, 0, wdTimers{100, 1, 1}},            // nonsense in, valid timers out
		{-5, -5, wdTimers{100, 1, 1}},          // same
		{1000, 100000, wdTimers{1000, 1, 100}}, // restore capped
	} {
		if got := watchdogTimers(tc.detect, tc.restore); got != tc.want {
			t.Errorf("watchdogTimers(%d, %d) = %+v, want %+v", tc.detect, tc.restore, got, tc.want)
		}
	}
}

func TestWatchdogGaps(t *testing.T) {
	d := cloneSwitch(leaf(t))
	d.Switch.QoS.Watchdog.Action = "alert"
	d.Switch.QoS.Watchdog.DetectMs = 50
	cfg := render(t, d)
	for _, s := range []string{`GAP: watchdog action "alert" is not expressible`, "GAP: the model's times are not exactly expressible"} {
		if !strings.Contains(cfg, s) {
			t.Errorf("missing %q", s)
		}
	}

	d = cloneSwitch(leaf(t))
	d.Switch.QoS.Watchdog.Enabled = false
	cfg = render(t, d)
	if !strings.Contains(cfg, "\npriority-flow-control watch-dog-interval off\n") || strings.Contains(cfg, "watch-dog interval ") {
		t.Error("a disabled watchdog must be off globally with no timers")
	}
	if got := block(cfg, "interface Ethernet1/1"); !slices.Contains(got, "priority-flow-control watch-dog-interval off") {
		t.Errorf("interface = %q, want the watchdog off", got)
	}
}

func TestHeadroomGap(t *testing.T) {
	d := leaf(t)
	cfg := render(t, d)
	if !strings.Contains(cfg, "GAP: per-port-class PFC headroom") {
		t.Error("missing the headroom gap")
	}
	for _, h := range d.Switch.Headrooms {
		want := fmt.Sprintf("%s (%d Gbit/s, %s m cable, ports ", h.Name, h.SpeedGbps, strconv.FormatFloat(h.CableM, 'f', -1, 64))
		want2 := fmt.Sprintf("size %d B, xoff %d B, xon %d B", h.Size, h.Xoff, h.Xon)
		if !strings.Contains(cfg, want) || !strings.Contains(cfg, want2) {
			t.Errorf("headroom class %s not listed with its values", h.Name)
		}
	}
	if !strings.Contains(cfg, `GAP: 30 % of the shared buffer (49500000 B) reserved for "roce"`) {
		t.Error("missing the buffer reservation gap")
	}
	if strings.Contains(cfg, "\n  pause buffer-size") {
		t.Error("pause buffer thresholds rendered although they are a gap")
	}

	long := cloneSwitch(leaf(t))
	h := *long.Switch.Ports[0].Headroom
	h.Name, h.CableM = "400G-150m", 150
	long.Switch.Ports[0].Headroom = &h
	if cfg := render(t, long); !strings.Contains(cfg, "WARNING: port class 400G-150m has 150 m of cable") {
		t.Error("a cable beyond 100 m must be called out")
	}
}

func TestLoadBalancing(t *testing.T) {
	cfg := render(t, leaf(t))
	if got := block(cfg, "hardware profile dlb"); !slices.Equal(got, []string{"mode flowlet", "dlb-interface Ethernet1/33"}) {
		t.Errorf("adaptive: dlb = %q", got)
	}
	if !strings.Contains(cfg, "disruption on change: reboot") {
		t.Error("DLB must be marked reboot")
	}

	d := cloneSwitch(leaf(t))
	d.Switch.LoadBalancing = "spray"
	if got := block(render(t, d), "hardware profile dlb"); !slices.Equal(got, []string{"mode per-packet", "dlb-interface Ethernet1/33"}) {
		t.Errorf("spray: dlb = %q", got)
	}

	d.Switch.LoadBalancing = "ecmp"
	cfg = render(t, d)
	if strings.Contains(cfg, "hardware profile dlb") || !strings.Contains(cfg, "ECMP with the platform's default hash") {
		t.Error("ecmp must leave DLB out and say so")
	}
}

func TestNoLosslessClass(t *testing.T) {
	d := cloneSwitch(leaf(t))
	d.Switch.QoS.PFC = nil
	for i := range d.Switch.QoS.Queues {
		d.Switch.QoS.Queues[i].Lossless = false
	}
	cfg := render(t, d)
	if strings.Contains(cfg, "pause pfc-cos") {
		t.Error("pause rendered without a lossless priority")
	}
	if got := block(cfg, "interface Ethernet1/1"); !slices.Contains(got, "priority-flow-control mode off") {
		t.Errorf("interface = %q, want PFC off", got)
	}
}

func TestInvalidModel(t *testing.T) {
	for name, mutate := range map[string]func(d *ir.Device){
		"mtu above 9216": func(d *ir.Device) { d.Switch.MTU = 9300 },
		"two lossless priorities in one queue": func(d *ir.Device) {
			d.Switch.QoS.TCToQueue[4] = 3
			d.Switch.QoS.PFC = []int{3, 4}
		},
		"queue out of range":       func(d *ir.Device) { d.Switch.QoS.Queues[0].ID = 8 },
		"ECN probability 0":        func(d *ir.Device) { d.Switch.QoS.Queues[2].ECN = &ir.ECN{MinBytes: 1, MaxBytes: 2} },
		"duplicate queue":          func(d *ir.Device) { d.Switch.QoS.Queues[1].ID = d.Switch.QoS.Queues[0].ID },
		"lossless priority 9":      func(d *ir.Device) { d.Switch.QoS.PFC = []int{9} },
		"DSCP to traffic class 8":  func(d *ir.Device) { d.Switch.QoS.DSCPToTC[5] = 8 },
		"unknown load balancing":   func(d *ir.Device) { d.Switch.LoadBalancing = "random" },
		"unknown watchdog action":  func(d *ir.Device) { d.Switch.QoS.Watchdog.Action = "reboot" },
		"unknown role":             func(d *ir.Device) { d.Role = "router" },
		"port facing unknown role": func(d *ir.Device) { d.Switch.Ports[0].Facing = "x\ny" },
		"unsafe port headroom name": func(d *ir.Device) {
			h := *d.Switch.Ports[0].Headroom
			h.Name = "a;b"
			d.Switch.Ports[0].Headroom = &h
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := cloneSwitch(leaf(t))
			// TCToQueue is an array, copied with the QoS value.
			mutate(d)
			if _, err := (Renderer{}).Render(d); err == nil {
				t.Error("rendered an invalid model")
			}
		})
	}
}

func TestRefusesUnsafeNames(t *testing.T) {
	bad := []string{"x\nfeature bash", "x;reload", "x$(reboot)", "x`id`", `x"y`, "x'y"}
	names := rendertest.SwitchNames(0, 0)
	names["model"] = func(d *ir.Device, v string) { d.Model = v }
	rendertest.RefusesNames(t, Renderer{}, func() *ir.Device { return cloneSwitch(leaf(t)) }, bad, names)
}

// TestCommentsAreTopLevel keeps comments out of sub-modes and makes sure no
// line is empty or carries a character a CLI session would interpret.
func TestCommentsAreTopLevel(t *testing.T) {
	cfg := render(t, leaf(t))
	if !strings.HasSuffix(cfg, "\n") {
		t.Error("file does not end in a newline")
	}
	for i, l := range strings.Split(strings.TrimSuffix(cfg, "\n"), "\n") {
		switch {
		case l == "":
			t.Errorf("line %d is empty", i+1)
		case strings.Contains(strings.TrimSpace(l), "!") && !strings.HasPrefix(l, "!"):
			t.Errorf("line %d has a \"!\" inside a command: %q", i+1, l)
		case strings.HasPrefix(strings.TrimSpace(l), "!") && strings.HasPrefix(l, " "):
			t.Errorf("line %d is an indented comment: %q", i+1, l)
		case strings.ContainsAny(l, "\t\r`$;"):
			t.Errorf("line %d has a control or shell character: %q", i+1, l)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	names := []string{"Ethernet1/10", "Ethernet1/2", "Ethernet2/1", "Ethernet1/1", "Ethernet1/33", "Ethernet1/01"}
	slices.SortFunc(names, naturalCompare)
	want := []string{"Ethernet1/1", "Ethernet1/01", "Ethernet1/2", "Ethernet1/10", "Ethernet1/33", "Ethernet2/1"}
	if !slices.Equal(names, want) {
		t.Errorf("sorted = %q, want %q", names, want)
	}
}

func TestDSCPList(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{[]int{26}, "26"},
		{[]int{10, 18}, "10,18"},
		{[]int{24, 25, 26, 27, 28, 29, 30, 31}, "24-31"},
		{[]int{0, 1, 3, 5, 6, 7}, "0-1,3,5-7"},
	} {
		if got := dscpList(tc.in); got != tc.want {
			t.Errorf("dscpList(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSanitizedClassNames(t *testing.T) {
	d := cloneSwitch(leaf(t))
	for i := range d.Switch.QoS.Queues {
		if c := d.Switch.QoS.Queues[i].Class; c.Name == "roce" {
			c.Name = "ro.ce." + strings.Repeat("x", 50)
		}
	}
	// The compiler derives the class's kbytes under its name.
	d.Switch.Derived = slices.Clone(d.Switch.Derived)
	for i, x := range d.Switch.Derived {
		d.Switch.Derived[i].Field = strings.Replace(x.Field, "[roce]", "[ro.ce."+strings.Repeat("x", 50)+"]", 1)
	}
	cfg := render(t, d)
	want := "class-map type qos match-any ROCEFAB-TC3-ro_ce_" + strings.Repeat("x", maxObjectName-len("ROCEFAB-TC3-ro_ce_"))
	if !strings.Contains(cfg, want+"\n") {
		t.Errorf("want a sanitized, 40-character class map name %q", want)
	}
}

// FuzzRender feeds odd values into a real switch: Render must never panic,
// and whatever it accepts must be clean CLI text.
func FuzzRender(f *testing.F) {
	f.Add("leaf-nxos", "Ethernet1/1", 9216, 200, 400, 50, int64(150000), int64(1500000), 20, "adaptive")
	f.Add("a\nb", "Eth;1", 0, -1, 0, 101, int64(0), int64(-1), 0, "spray")
	f.Fuzz(func(t *testing.T, name, port string, mtu, detect, restore, weight int, kmin, kmax int64, prob int, lb string) {
		d := cloneSwitch(irtest.Fabric().Device("leaf-nxos"))
		d.Name = name
		d.Switch.Ports[0].Name = port
		d.Switch.MTU = mtu
		d.Switch.LoadBalancing = lb
		d.Switch.QoS.Watchdog.DetectMs, d.Switch.QoS.Watchdog.RestoreMs = detect, restore
		d.Switch.QoS.Queues[1].Weight = weight
		d.Switch.QoS.Queues[2].ECN = &ir.ECN{MinBytes: kmin, MaxBytes: kmax, Probability: prob}
		arts, err := Renderer{}.Render(d)
		if err != nil {
			return
		}
		for l := range strings.SplitSeq(string(arts[0].Content), "\n") {
			if strings.ContainsAny(l, "\t\r`$;") {
				t.Fatalf("unsafe line %q", l)
			}
			if strings.HasPrefix(l, " ") && strings.HasPrefix(strings.TrimSpace(l), "!") {
				t.Fatalf("indented comment %q", l)
			}
		}
	})
}

// TestBreakouts: ports named Ethernet1/P/N exist only once cage P is
// broken out, so a leaf whose 100G host ports split 400G cages carries
// the breakout of each cage by Cisco's map, before its interfaces, and a
// cage of mixed speeds gets a GAP and no breakout.
func TestBreakouts(t *testing.T) {
	d := cloneSwitch(leaf(t))
	irtest.Retarget(d, d.Platform, "N9364D-GX2A")
	d.Switch.Ports = d.Switch.Ports[:0]
	for _, p := range []struct {
		name  string
		speed int
	}{{"Ethernet1/1/1", 100}, {"Ethernet1/1/2", 100}, {"Ethernet1/2/1", 200}, {"Ethernet1/2/2", 200}, {"Ethernet1/3/1", 100}, {"Ethernet1/3/2", 400}, {"Ethernet1/4", 400}} {
		d.Switch.Ports = append(d.Switch.Ports, ir.Port{Name: p.name, SpeedGbps: p.speed, CableM: 5})
	}
	cfg := render(t, d)
	for _, want := range []string{"interface breakout module 1 port 1 map 100g-4x", "interface breakout module 1 port 2 map 200g-2x"} {
		i := strings.Index(cfg, "\n"+want+"\n")
		if i < 0 {
			t.Errorf("no %q in\n%s", want, cfg)
			continue
		}
		if j := strings.Index(cfg, "\ninterface Ethernet1/1/1\n"); j < i {
			t.Errorf("%q comes after the interfaces it creates", want)
		}
	}
	if strings.Contains(cfg, "port 3 map") || strings.Contains(cfg, "port 4 map") {
		t.Errorf("a mixed-speed or unsplit cage is broken out:\n%s", cfg)
	}
	if !strings.Contains(cfg, "! GAP: Ethernet1/3 carries ports at 100, 400 Gbit/s") {
		t.Errorf("no GAP for the mixed cage Ethernet1/3:\n%s", cfg)
	}
}

// TestECNKbytesFromModel: the random-detect line prints the kbytes the
// compiler derived, and a switch without them, or with thresholds off the
// kbyte grid, is refused rather than given thresholds no one derived.
func TestECNKbytesFromModel(t *testing.T) {
	d := cloneSwitch(leaf(t))
	d.Switch.Derived = []ir.Derivation{{Field: ir.ECNField("min", "roce"), Value: 1024}, {Field: ir.ECNField("max", "roce"), Value: 2048}}
	if cfg := render(t, d); !strings.Contains(cfg, "random-detect minimum-threshold 1 kbytes maximum-threshold 2 kbytes ") {
		t.Errorf("the derived 1..2 kbytes are not written:\n%s", cfg)
	}
	for _, derived := range [][]ir.Derivation{
		nil,
		{{Field: ir.ECNField("min", "roce"), Value: 1000}, {Field: ir.ECNField("max", "roce"), Value: 2048}},
		{{Field: ir.ECNField("min", "roce"), Value: 2048}, {Field: ir.ECNField("max", "roce"), Value: 2048}},
	} {
		d.Switch.Derived = derived
		if _, err := (Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "kbytes") {
			t.Errorf("derived %v: rendered, or refused for another reason: %v", derived, err)
		}
	}
}
