package nxos

// Sources for the syntax, units and behaviour this renderer relies on (the
// ones not confirmed against a Cisco primary source are said so where they
// are used):
//
//   - Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide:
//     7.x "Using Modular QoS CLI" (type qos sets the qos-group that selects
//     the system-defined network-qos and queuing classes), "Configuring a
//     Priority Flow Control Watchdog Interval"; 10.5(x) "Configuring
//     Priority Flow Control" (watchdog workflow: interval, auto/fixed restore
//     and shutdown multipliers; PFC guidelines: enabling PFC does not flap
//     the port, pause buffer thresholds needed beyond 100 m of cable).
//   - Cisco NX-API REST SDK 9.3(x): "Configuring QoS Class Maps" (queuing
//     class maps are system-defined), "Configuring Priority Flow Control"
//     (modes auto/on/off, fixed-restore multiplier).
//   - Cisco's RoCE profile script for Nexus 9000 (roce_enable.py, Cisco
//     TME): c-8q-nq3 "pause pfc-cos", "mtu 9216", c-out-8q-q*
//     "bandwidth remaining percent", "priority level 1", "random-detect
//     minimum-threshold ... kbytes maximum-threshold ... kbytes
//     drop-probability ... weight 0 ecn" (kbytes in every Cisco example, as
//     in Azure/AzureLocal-Supportability's TOR QoS reference; no Cisco
//     source shows the bytes unit), per-port "priority-flow-control mode on" and
//     "priority-flow-control watch-dog-interval on".
//   - Cisco Nexus 9000 NX-OS Unicast Routing Configuration Guide 10.5(x),
//     "Configure Dynamic Load Balancing", as exercised by
//     CiscoTestAutomation/genielibs conf/dlb/nxos: "hardware profile dlb",
//     "mode flowlet|per-packet", "dlb-interface"; takes effect after
//     copy running-config startup-config and a reload.
//   - CiscoDevNet/terraform-provider-nxos gen/definitions/network_qos.yaml
//     (DME ipqosSetMTU 576-9216; ipqosPause fields) and
//     physical_interface.yaml (interface mtu 576-9216).
//   - shared/reference/switches.md §4 (model, example, pitfalls).

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/internal/clitree"
)

// FileName is the name of the one artifact a device gets, below its
// directory.
const FileName = "nxos.cfg"

// The policies the renderer owns carry a common prefix, so that an operator
// can tell them from policies of their own on the same device.
const (
	policyQoSIn      = "ROCEFAB-QOS-IN"
	policyNetworkQoS = "ROCEFAB-NETWORK-QOS"
	policyQueuingOut = "ROCEFAB-QUEUING-OUT"
	classPrefix      = "ROCEFAB-TC"
)

// NX-OS limits the renderer checks rather than letting the device reject
// a pushed line.
const (
	minMTU        = 576  // DME ipqosSetMTU and l1PhysIf mtu
	maxMTU        = 9216 // same
	maxObjectName = 40   // class-map and policy-map names
	numQueues     = 8    // the 8q template: c-out-8q-q1..q7 and q-default
)

// Renderer renders devices whose platform is "nxos": nxos.cfg, printed
// from the model Model returns. It is also NX-OS's platform of plan, apply
// and quarantine through NX-OS's tables (cli), which differ from EOS's in
// the dialect and the owned scope, not in how a state is read or diffed.
// The zero value is ready to use.
type Renderer struct{ clitree.Methods[tables] }

// tables names cli for the methods Renderer embeds.
type tables struct{}

// CLI returns NX-OS's plumbing (clitree.Tables).
func (tables) CLI() *clitree.Platform { return cli }

// verifyMark returns the "! verify:" comment of a line whose form is one
// of the verify forms no source confirms, and "" for another.
func verifyMark(verify map[string]bool, line string) string {
	if form, ok := renderers.CLIForm(line); ok && verify[form] {
		return "! " + renderers.VerifyMark(form)
	}
	return ""
}

// model builds the device's configuration model: the stanza tree of
// nxos.cfg, each line naming the catalog element it realises, comments
// included (a "! verify:" line above a block with a form no source
// confirms). It fails on a device that is not an NX-OS switch, on unsafe
// names, and on model values NX-OS cannot take (an MTU above 9216, two
// lossless priorities in one queue), rather than build a line the device
// would reject.
func model(d *ir.Device) (*clitree.Tree, error) {
	if d == nil {
		return nil, errors.New("nxos: nil device")
	}
	if err := renderers.CheckDevice(d); err != nil {
		return nil, err
	}
	if d.Platform != ir.PlatformNXOS {
		return nil, fmt.Errorf("nxos: device %q is platform %q, not %q", d.Name, d.Platform, ir.PlatformNXOS)
	}
	if d.Switch == nil {
		return nil, fmt.Errorf("nxos: device %q is not a switch", d.Name)
	}
	if d.Switch.QoS == nil {
		return nil, fmt.Errorf("nxos: switch %q has no QoS policy", d.Name)
	}
	b, err := newBuilder(d)
	if err != nil {
		return nil, fmt.Errorf("nxos: %s: %w", d.Name, err)
	}
	b.render()
	t := b.out.Tree()
	// Forms no source confirms get a "! verify:" line above their block
	// (comments stay outside policies), from the statement table the
	// device carries (ir.Device.Verify).
	t.MarkBlocks(func(line string) string { return verifyMark(d.Verify, line) })
	return t, nil
}

// builder holds one device's rendering: the IR, what was derived from it
// once, and the configuration model built so far.
type builder struct {
	d   *ir.Device
	sw  *ir.Switch
	qos *ir.QoS
	// queues indexes the model's queues by ID; nil where no class uses one.
	queues [numQueues]*ir.Queue
	// pfcCoS is, per queue, the lossless priority whose PFC it carries, or
	// -1.
	pfcCoS [numQueues]int
	// defaultTC is the priority that takes every DSCP no class lists.
	defaultTC int
	ports     []ir.Port // sorted in interface order
	out       *clitree.Builder
}

func newBuilder(d *ir.Device) (*builder, error) {
	b := &builder{d: d, sw: d.Switch, qos: d.Switch.QoS, out: clitree.NewBuilder(dialect.Indent)}
	if err := b.check(); err != nil {
		return nil, err
	}
	for i := range b.pfcCoS {
		b.pfcCoS[i] = -1
	}
	for i := range b.qos.Queues {
		q := &b.qos.Queues[i]
		if b.queues[q.ID] != nil {
			return nil, fmt.Errorf("queue %d listed twice", q.ID)
		}
		b.queues[q.ID] = q
	}
	for _, p := range b.qos.PFC {
		q := b.qos.TCToQueue[p]
		if prev := b.pfcCoS[q]; prev >= 0 && prev != p {
			return nil, fmt.Errorf("lossless priorities %d and %d share queue %d: NX-OS pauses one CoS per no-drop class", prev, p, q)
		}
		b.pfcCoS[q] = p
	}
	if c := b.qos.DefaultClass; c != nil {
		b.defaultTC = c.Priority
	}
	b.ports = slices.Clone(b.sw.Ports)
	slices.SortStableFunc(b.ports, func(x, y ir.Port) int { return naturalCompare(x.Name, y.Name) })
	return b, nil
}

// check rejects model values that would make an invalid or unsafe line.
// Names renderers.CheckDevice does not cover are checked here because they
// reach comments, and a newline in a comment would start a command.
func (b *builder) check() error {
	d, q := b.d, b.qos
	if d.Model != "" {
		if err := renderers.CheckName("model", d.Model); err != nil {
			return err
		}
	}
	if bp := b.sw.Buffers; bp != nil {
		for _, n := range []struct{ what, v string }{{"buffer model", bp.Model}, {"ASIC", bp.ASIC}, {"reserved class", bp.ReserveName}, {"unheld reserve", bp.UnheldName}} {
			if n.v == "" {
				continue
			}
			check := renderers.CheckName
			if n.what == "ASIC" || n.what == "reserved class" || n.what == "unheld reserve" {
				check = renderers.CheckComment // a catalog string, written in a comment only
			}
			if err := check(n.what, n.v); err != nil {
				return err
			}
		}
	}
	for _, n := range []struct {
		what string
		c    *ir.Class
	}{{"default class", q.DefaultClass}, {"CNP class", q.CNP}} {
		if n.c == nil {
			continue
		}
		if err := renderers.CheckName(n.what, n.c.Name); err != nil {
			return err
		}
		if !validTC(n.c.Priority) {
			return fmt.Errorf("%s %q has priority %d, outside 0..7", n.what, n.c.Name, n.c.Priority)
		}
	}
	if !validRole(d.Role) {
		return fmt.Errorf("unknown role %q", d.Role)
	}
	for _, p := range b.sw.Ports {
		if p.Facing != "" && !validRole(p.Facing) {
			return fmt.Errorf("port %s faces unknown role %q", p.Name, p.Facing)
		}
		if h := p.Headroom; h != nil {
			if err := renderers.CheckName("headroom profile", h.Name); err != nil {
				return err
			}
		}
	}
	switch b.sw.LoadBalancing {
	case "", "ecmp", "adaptive", "spray":
	default:
		return fmt.Errorf("unknown load balancing %q", b.sw.LoadBalancing)
	}
	switch q.Watchdog.Action {
	case "", "drop", "forward", "alert":
	default:
		return fmt.Errorf("unknown PFC watchdog action %q", q.Watchdog.Action)
	}
	if b.sw.MTU < minMTU || b.sw.MTU > maxMTU {
		return fmt.Errorf("switch MTU %d outside NX-OS's %d..%d", b.sw.MTU, minMTU, maxMTU)
	}
	if err := renderers.CheckQoSRanges(q); err != nil {
		return err
	}
	for _, qu := range q.Queues {
		if qu.Class != nil && !validTC(qu.Class.Priority) {
			return fmt.Errorf("class %q has priority %d, outside 0..7", qu.Class.Name, qu.Class.Priority)
		}
		if !qu.Strict && (qu.Weight < 0 || qu.Weight > 100) {
			return fmt.Errorf("queue %d has bandwidth share %d %%, outside 0..100", qu.ID, qu.Weight)
		}
		if e := qu.ECN; e != nil {
			if e.MinBytes <= 0 || e.MaxBytes < e.MinBytes {
				return fmt.Errorf("queue %d ECN thresholds %d..%d B are not an increasing positive range", qu.ID, e.MinBytes, e.MaxBytes)
			}
			if e.Probability < 1 || e.Probability > 100 {
				return fmt.Errorf("queue %d ECN probability %d %% outside 1..100", qu.ID, e.Probability)
			}
			// The kbytes are the compiler's (physics.InWholeKbytes, which
			// explain prints): a model without them, or not on the kbyte
			// grid, would make a random-detect line no one derived.
			if _, _, err := b.ecnKbytes(&qu); err != nil {
				return err
			}
		}
	}
	return nil
}

// ecnKbytes returns a queue's ECN thresholds in the whole kbytes the
// compiler derived for NX-OS (Switch.Derived, ecn-min[class] and
// ecn-max[class]: physics.InWholeKbytes), 1 <= lo < hi.
func (b *builder) ecnKbytes(qu *ir.Queue) (lo, hi int64, err error) {
	if qu.Class == nil {
		return 0, 0, fmt.Errorf("queue %d marks ECN but carries no class", qu.ID)
	}
	minB, okMin := b.sw.Programmed(ir.ECNField("min", qu.Class.Name))
	maxB, okMax := b.sw.Programmed(ir.ECNField("max", qu.Class.Name))
	if !okMin || !okMax {
		return 0, 0, fmt.Errorf("queue %d (class %s): the switch's derived values hold no ECN thresholds in kbytes (%s, %s): compile the device for NX-OS",
			qu.ID, qu.Class.Name, ir.ECNField("min", qu.Class.Name), ir.ECNField("max", qu.Class.Name))
	}
	if minB%1024 != 0 || maxB%1024 != 0 || minB < 1024 || maxB <= minB {
		return 0, 0, fmt.Errorf("queue %d (class %s): ECN thresholds %d..%d B are not whole kbytes with 1 <= min < max", qu.ID, qu.Class.Name, minB, maxB)
	}
	return minB / 1024, maxB / 1024, nil
}

func validTC(n int) bool { return n >= 0 && n < numQueues }

func validRole(r ir.Role) bool {
	switch r {
	case ir.RoleHost, ir.RoleLeaf, ir.RoleSpine, ir.RoleSuperspine:
		return true
	}
	return false
}

// render writes the whole file, in the order NX-OS needs: class maps before
// the policies naming them, policies before system qos and the interfaces
// that attach them.
func (b *builder) render() {
	b.header()
	b.classification()
	b.networkQoS()
	b.queuing()
	b.systemQoS()
	b.buffers()
	b.watchdog()
	b.breakouts()
	b.interfaces()
	b.loadBalancing()
}

// breakouts splits each cage whose ports the model names Ethernet1/P/N:
// the split ports exist only once their cage is broken out, so the
// breakout comes before the interfaces it creates. The map is the one
// Cisco documents for the ports' speed and count (ir.NXOSBreakoutMap) on
// a cage of the switch's cage speed (ir.Switch.CageGbps); a cage no map
// splits is an RF117 error of lint, and here a GAP with no breakout line.
func (b *builder) breakouts() {
	cage := b.sw.CageGbps
	if cage == 0 {
		// A model the catalog does not know: its cages are unknown.
		return
	}
	names := make([]string, len(b.ports))
	speeds := make([]int, len(b.ports))
	for i, p := range b.ports {
		names[i], speeds[i] = p.Name, p.SpeedGbps
	}
	cages := ir.NXOSCages(names, speeds, cage)
	if len(cages) == 0 {
		return
	}
	b.section("Breakouts: cages split into ports", "port-flap (NX-OS removes the configuration of a cage's interfaces when it breaks it out)")
	for _, c := range cages {
		if c.Map == "" {
			b.comment("GAP: Ethernet1/%d carries ports at %s Gbit/s, which no NX-OS breakout map (%s) of a %d Gbit/s cage makes: not broken out",
				c.Port, renderers.JoinInts(c.Speeds, ", "), strings.Join(ir.NXOSBreakoutMaps(), ", "), cage)
			continue
		}
		b.line(0, "", "interface breakout module 1 port %d map %s", c.Port, c.Map)
	}
}

// line writes one configuration line at depth, realising the catalog
// element kind ("" for none: a mode's own line, a description).
func (b *builder) line(depth int, kind, format string, args ...any) {
	b.out.Line(depth, kind, fmt.Sprintf(format, args...))
}

// comment writes a top-level "!" line. Comments are only ever written
// between blocks, never inside a policy, so that they cannot end a
// sub-mode on a device that treats them as input.
func (b *builder) comment(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if s == "" {
		b.out.Comment(0, "!")
		return
	}
	b.out.Comment(0, "! "+s)
}

// section starts a block with its title and the disruption a change to it
// causes (hitless, port-flap, traffic-pause or reboot), which plan reports
// per change.
func (b *builder) section(title, disruption string) {
	b.comment("")
	b.comment("=== %s ===", title)
	b.comment("disruption on change: %s", disruption)
}

func (b *builder) header() {
	d := b.d
	b.comment("rocefab: Cisco NX-OS configuration for %s", d.Name)
	desc := "role " + string(d.Role)
	if d.Model != "" {
		desc += ", model " + d.Model
	}
	if d.Rail >= 0 {
		desc += ", rail " + strconv.Itoa(d.Rail)
	}
	if d.Pod >= 0 {
		desc += ", pod " + strconv.Itoa(d.Pod)
	}
	b.comment("%s", desc)
	b.comment("Generated from the fabric intent: change the intent, not this file.")
	b.comment("Lines starting with \"!\" are comments. \"GAP\" marks what NX-OS cannot express.")
}

// className names the type qos class map of one priority. The priority in
// the name keeps names unique whatever the class names are; the class name
// is for the reader, cut down to what NX-OS accepts in object names.
func (b *builder) className(tc int) string {
	name := classPrefix + strconv.Itoa(tc)
	if c := b.classOfTC(tc); c != nil {
		name += "-" + sanitize(c.Name)
	}
	if len(name) > maxObjectName {
		name = name[:maxObjectName]
	}
	return name
}

// classOfTC returns the class whose priority is tc, or nil.
func (b *builder) classOfTC(tc int) *ir.Class {
	for _, q := range b.qos.Queues {
		if q.Class != nil && q.Class.Priority == tc {
			return q.Class
		}
	}
	if c := b.qos.DefaultClass; c != nil && c.Priority == tc {
		return c
	}
	return nil
}

// sanitize keeps the characters NX-OS accepts in class-map and policy-map
// names (letters, digits, hyphen, underscore) and replaces the rest.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

func (b *builder) classification() {
	b.section("Classification: DSCP -> priority -> qos-group (qos-group N is egress queue N)", "hitless")
	byTC := map[int][]int{}
	for dscp, tc := range b.qos.DSCPToTC {
		if tc != b.defaultTC {
			byTC[tc] = append(byTC[tc], dscp)
		}
	}
	tcs := sortedKeys(byTC)
	for _, tc := range tcs {
		b.comment("priority %d%s: DSCP %s -> qos-group %d", tc, b.classLabel(tc), dscpList(byTC[tc]), b.qos.TCToQueue[tc])
	}
	b.comment("every other DSCP: priority %d%s -> qos-group %d (class-default)", b.defaultTC, b.classLabel(b.defaultTC), b.qos.TCToQueue[b.defaultTC])
	for _, tc := range tcs {
		b.line(0, ir.ElementDSCPMap, "class-map type qos match-any %s", b.className(tc))
		b.line(1, ir.ElementDSCPMap, "match dscp %s", dscpList(byTC[tc]))
	}
	b.line(0, ir.ElementDSCPMap, "policy-map type qos %s", policyQoSIn)
	for _, tc := range tcs {
		b.line(1, ir.ElementDSCPMap, "class %s", b.className(tc))
		b.line(2, ir.ElementDSCPMap, "set qos-group %d", b.qos.TCToQueue[tc])
	}
	b.line(1, ir.ElementDSCPMap, "class class-default")
	b.line(2, ir.ElementDSCPMap, "set qos-group %d", b.qos.TCToQueue[b.defaultTC])
}

// classLabel is " (name)" for the class of a priority, for comments.
func (b *builder) classLabel(tc int) string {
	if c := b.classOfTC(tc); c != nil {
		return " (" + c.Name + ")"
	}
	return ""
}

// dscpList formats sorted DSCPs the way "match dscp" takes them, with runs
// as ranges: 10,18 or 24-31.
func dscpList(ds []int) string {
	var parts []string
	for i := 0; i < len(ds); {
		j := i
		for j+1 < len(ds) && ds[j+1] == ds[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ds[i], ds[j]))
		} else {
			parts = append(parts, strconv.Itoa(ds[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// usedQueues returns the queues that carry a class or a lossless priority,
// 1..7 first and the default queue (0) last, the order NX-OS lists the
// system classes in.
func (b *builder) usedQueues() []int {
	var ids []int
	for _, id := range queueOrder() {
		if b.queues[id] != nil || b.pfcCoS[id] >= 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// queueOrder is 1..7 then 0.
func queueOrder() []int { return []int{1, 2, 3, 4, 5, 6, 7, 0} }

func nqClass(q int) string {
	if q == 0 {
		return "c-8q-nq-default"
	}
	return "c-8q-nq" + strconv.Itoa(q)
}

func outClass(q int) string {
	if q == 0 {
		return "c-out-8q-q-default"
	}
	return "c-out-8q-q" + strconv.Itoa(q)
}

func (b *builder) networkQoS() {
	b.section("Network QoS: lossless (no-drop) priorities and class MTU, system-wide", "traffic-pause (buffers are re-carved)")
	b.comment("NX-OS defines the network-qos classes itself (c-8q-nqN matches qos-group N): this policy only")
	b.comment("sets them. Attaching a c-8q-* policy selects the 8-queue template.")
	if len(b.qos.PFC) == 0 {
		b.comment("no lossless priority in the model: no class pauses")
	}
	for _, q := range b.usedQueues() {
		if p := b.pfcCoS[q]; p >= 0 {
			b.comment("queue %d: PFC on priority %d (lossless), MTU %d", q, p, b.sw.MTU)
		}
	}
	b.line(0, "", "policy-map type network-qos %s", policyNetworkQoS)
	for _, q := range b.usedQueues() {
		b.line(1, "", "class type network-qos %s", nqClass(q))
		if p := b.pfcCoS[q]; p >= 0 {
			b.line(2, ir.ElementPFC, "pause pfc-cos %d", p)
		}
		b.line(2, ir.ElementMTU, "mtu %d", b.sw.MTU)
	}
}

// strictLevels gives each strict queue its NX-OS priority level: the CNP
// queue level 1, so that congestion notifications are never starved, then
// the other strict queues by queue number, highest first.
func (b *builder) strictLevels() map[int]int {
	var strict []int
	for _, q := range queueOrder() {
		if qu := b.queues[q]; qu != nil && qu.Strict {
			strict = append(strict, q)
		}
	}
	cnp := -1
	if c := b.qos.CNP; c != nil {
		cnp = b.qos.TCToQueue[c.Priority]
	}
	slices.SortFunc(strict, func(x, y int) int {
		if (x == cnp) != (y == cnp) {
			if x == cnp {
				return -1
			}
			return 1
		}
		return cmp.Compare(y, x)
	})
	levels := map[int]int{}
	for i, q := range strict {
		levels[q] = i + 1
	}
	return levels
}

func (b *builder) queuing() {
	b.section("Egress queuing: ETS, strict priority, ECN, system-wide", "hitless")
	b.comment("ECN thresholds are written in kbytes, the unit of every Cisco example (roce_enable.py, the Azure")
	b.comment("  TOR QoS reference): the model's bytes / 1024, rounded down, so that a threshold never lands above")
	b.comment("  the model's (ECN keeps marking before PFC pauses) whether NX-OS counts a kbyte as 1000 or 1024 B.")
	b.comment("weight 0 marks on the instantaneous queue depth. Queues no class uses get no bandwidth.")
	levels := b.strictLevels()
	for _, q := range queueOrder() {
		qu := b.queues[q]
		if qu == nil {
			continue
		}
		name := ""
		if qu.Class != nil {
			name = " (" + qu.Class.Name + ")"
		}
		var what []string
		if qu.Lossless {
			what = append(what, "lossless")
		}
		if qu.Strict {
			what = append(what, fmt.Sprintf("strict, priority level %d", levels[q]))
		} else {
			what = append(what, fmt.Sprintf("ETS %d %%", qu.Weight))
		}
		if e := qu.ECN; e != nil {
			lo, hi, _ := b.ecnKbytes(qu) // checked in check
			what = append(what, fmt.Sprintf("ECN %d..%d B -> %d..%d kbytes, %d %% at max", e.MinBytes, e.MaxBytes, lo, hi, e.Probability))
			if hi*1024 > e.MaxBytes || lo*1024 > e.MinBytes {
				what = append(what, "GAP: a threshold under the kbyte grid is raised to keep 1 kbyte <= min < max")
			}
		}
		b.comment("queue %d%s: %s", q, name, strings.Join(what, ", "))
	}
	if c := b.qos.CNP; c != nil {
		if qu := b.queues[b.qos.TCToQueue[c.Priority]]; qu == nil || !qu.Strict {
			b.comment("GAP: the CNP class %q is not on a strict queue in the model: rendered as the model says", c.Name)
		}
	}
	b.line(0, "", "policy-map type queuing %s", policyQueuingOut)
	for _, q := range queueOrder() {
		b.line(1, "", "class type queuing %s", outClass(q))
		qu := b.queues[q]
		switch {
		case qu == nil:
			b.line(2, ir.ElementETS, "bandwidth remaining percent 0")
		case qu.Strict:
			b.line(2, ir.ElementStrict, "priority level %d", levels[q])
		default:
			b.line(2, ir.ElementETS, "bandwidth remaining percent %d", qu.Weight)
		}
		if qu != nil && qu.ECN != nil {
			e := qu.ECN
			lo, hi, _ := b.ecnKbytes(qu) // checked in check
			b.line(2, ir.ElementECN, "random-detect minimum-threshold %d kbytes maximum-threshold %d kbytes drop-probability %d weight 0 ecn",
				lo, hi, e.Probability)
		}
	}
}

func (b *builder) systemQoS() {
	b.section("System QoS: attach the system-wide policies", "traffic-pause (network-qos re-carves buffers)")
	b.line(0, "", "system qos")
	b.line(1, ir.ElementPFC, "service-policy type network-qos %s", policyNetworkQoS)
	b.line(1, ir.ElementETS, "service-policy type queuing output %s", policyQueuingOut)
}

// buffers writes what the model says about buffers and headroom and why
// NX-OS gets none of it as configuration.
func (b *builder) buffers() {
	b.section("Buffers and PFC headroom (not rendered: see GAP lines)", "traffic-pause (if set by hand)")
	if bp := b.sw.Buffers; bp != nil {
		b.comment("model buffer plan: %s (ASIC %s), %d B total, %d B cells, %d lossless ports",
			orDash(bp.Model), orDash(bp.ASIC), bp.TotalBytes, bp.CellBytes, bp.Ports)
		if bp.UnheldPercent > 0 {
			b.comment("GAP: %d %% of the shared buffer (%d B) reserved for %q is not rendered: NX-OS has no",
				bp.UnheldPercent, bp.UnheldBytes, bp.UnheldName)
			b.comment("  pool-percent knob: it carves buffers itself when the network-qos policy (class MTU,")
			b.comment("  no-drop) is attached.")
		}
		b.comment("model PFC XOFF point (dynamic threshold): %d B (ECN must mark below it)", bp.XoffPoint)
		if bp.Shared {
			b.comment("model headroom over all ports and lossless priorities: %d B, shared pool %d B", bp.HeadroomBytes, bp.PoolBytes)
		} else {
			b.comment("model headroom over all ports and lossless priorities: %d B, lossy remainder %d B", bp.HeadroomBytes, bp.LossyBytes)
		}
	} else {
		b.comment("the model carries no buffer plan for this switch")
	}
	hrs := b.headroomClasses()
	if len(hrs) == 0 || len(b.qos.PFC) == 0 {
		b.comment("no lossless port class: no headroom to reserve")
		return
	}
	b.comment("GAP: per-port-class PFC headroom, xoff and xon are not rendered: NX-OS computes headroom itself.")
	b.comment("  Its pause buffer-size/pause-threshold/resume-threshold are static per-port occupancy")
	b.comment("  thresholds: mapping the model's headroom onto them would make each port send XOFF after")
	b.comment("  (size - xoff) bytes, far below the model's dynamic XOFF point, and NX-OS has no cable-length")
	b.comment("  knob. The model's values, per lossless priority, for setting them by hand if needed:")
	for _, h := range hrs {
		b.comment("  %s (%d Gbit/s, %s m cable, ports %s): size %d B, xoff %d B, xon %d B, required %d B",
			h.Name, h.SpeedGbps, strconv.FormatFloat(h.CableM, 'f', -1, 64), strings.Join(b.portsOf(h), ","),
			h.Size, h.Xoff, h.Xon, h.Required)
	}
	for _, h := range hrs {
		if h.CableM > 100 {
			b.comment("WARNING: port class %s has %s m of cable, Cisco's PFC guidelines require pause buffer",
				h.Name, strconv.FormatFloat(h.CableM, 'f', -1, 64))
			b.comment("  thresholds beyond 100 m: size them for this platform by hand.")
		}
	}
}

// headroomClasses returns the distinct headroom classes of the switch and
// its ports, by speed then cable length as the model orders them.
func (b *builder) headroomClasses() []*ir.Headroom {
	hrs := renderers.HeadroomClasses(b.sw.Headrooms, b.ports)
	slices.SortStableFunc(hrs, renderers.ComparePortClasses)
	return hrs
}

func (b *builder) portsOf(h *ir.Headroom) []string {
	var names []string
	for _, p := range b.ports {
		if p.Headroom == h {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (b *builder) watchdog() {
	wd := b.qos.Watchdog
	b.section("PFC watchdog (global)", "hitless")
	if len(b.qos.PFC) == 0 {
		b.comment("no lossless priority: the watchdog has nothing to watch and stays off")
		b.line(0, ir.ElementPFCWatchdog, "priority-flow-control watch-dog-interval off")
		return
	}
	if !wd.Enabled {
		b.comment("the model turns the watchdog off (lint RF108 warns about it)")
		b.line(0, ir.ElementPFCWatchdog, "priority-flow-control watch-dog-interval off")
		return
	}
	t := watchdogTimers(wd.DetectMs, wd.RestoreMs)
	b.comment("NX-OS counts both times in watchdog intervals (N9K QoS guide 10.5(x), PFC watchdog workflow):")
	b.comment("  detect  %d ms -> interval %d ms x shutdown-multiplier %d = %d ms before the stuck no-drop queue drops",
		wd.DetectMs, t.IntervalMs, t.ShutdownMult, t.IntervalMs*t.ShutdownMult)
	b.comment("  restore %d ms -> interval %d ms x auto-restore multiplier %d = %d ms before it is restored",
		wd.RestoreMs, t.IntervalMs, t.RestoreMult, t.IntervalMs*t.RestoreMult)
	if t.IntervalMs*t.ShutdownMult != wd.DetectMs || t.IntervalMs*t.RestoreMult != wd.RestoreMs {
		b.comment("GAP: the model's times are not exactly expressible (interval %d..%d ms, shutdown-multiplier",
			wdMinInterval, wdMaxInterval)
		b.comment("  %d..%d, auto-restore multiplier %d..%d): the closest values are rendered",
			wdMinShutdown, wdMaxShutdown, wdMinRestore, wdMaxRestore)
	}
	b.comment("  fixed-restore multiplier left at its default. Interval and multiplier ranges from Cisco NDFC")
	b.comment("  and UCS docs, verify on the target release.")
	switch wd.Action {
	case "drop", "":
		b.comment("action drop: NX-OS drops the stuck queue's packets, its only action")
	default:
		b.comment("GAP: watchdog action %q is not expressible: NX-OS always drops the stuck no-drop queue's", wd.Action)
		b.comment("  packets, rendered with that (drop) behaviour")
	}
	b.line(0, ir.ElementPFCWatchdog, "priority-flow-control watch-dog-interval on")
	b.line(0, ir.ElementPFCWatchdog, "priority-flow-control watch-dog interval %d", t.IntervalMs)
	b.line(0, ir.ElementPFCWatchdog, "priority-flow-control watch-dog shutdown-multiplier %d", t.ShutdownMult)
	b.line(0, ir.ElementPFCWatchdog, "priority-flow-control auto-restore multiplier %d", t.RestoreMult)
}

func (b *builder) interfaces() {
	b.section("Interfaces: every port of the switch", "port-flap for speed, hitless for the rest (enabling PFC does not flap the port)")
	lossless := len(b.qos.PFC) > 0
	if !lossless {
		b.comment("no lossless priority: PFC off on every port")
	}
	for _, p := range b.ports {
		info := fmt.Sprintf("%s: %d Gbit/s, %s m", p.Name, p.SpeedGbps, strconv.FormatFloat(p.CableM, 'f', -1, 64))
		if p.Facing != "" {
			info += ", facing " + string(p.Facing)
		}
		if p.Headroom != nil {
			info += ", headroom class " + p.Headroom.Name
		}
		b.comment("%s", info)
		if p.Peer == "" {
			b.comment("%s has no peer in the model: no description", p.Name)
		}
		b.line(0, "", "interface %s", p.Name)
		if p.Peer != "" {
			desc := "to " + p.Peer
			if p.PeerPort != "" {
				desc += ":" + p.PeerPort
			}
			b.line(1, "", "description %s", desc)
		}
		if p.SpeedGbps > 0 {
			b.line(1, renderers.KindPortSpeed, "speed %d", p.SpeedGbps*1000) // NX-OS takes Mbit/s
		}
		b.line(1, ir.ElementMTU, "mtu %d", b.sw.MTU)
		if lossless {
			b.line(1, ir.ElementPFC, "priority-flow-control mode on")
			if b.qos.Watchdog.Enabled {
				b.line(1, ir.ElementPFCWatchdog, "priority-flow-control watch-dog-interval on")
			} else {
				b.line(1, ir.ElementPFCWatchdog, "priority-flow-control watch-dog-interval off")
			}
		} else {
			b.line(1, ir.ElementPFC, "priority-flow-control mode off")
		}
		b.line(1, ir.ElementDSCPMap, "service-policy type qos input %s", policyQoSIn)
		b.line(1, kindAdmin, "no shutdown")
	}
}

func (b *builder) loadBalancing() {
	lb := b.sw.LoadBalancing
	if lb != "adaptive" && lb != "spray" {
		b.section("Load balancing", "hitless")
		b.comment("ECMP with the platform's default hash: no dynamic load-balancing profile")
		return
	}
	b.section("Load balancing: dynamic load balancing (DLB)", "reboot")
	b.comment("hardware profile dlb takes effect only after copy running-config startup-config and a")
	b.comment("reload (show system config reload-pending lists it): plan classes the change as reboot.")
	b.comment("DLB is reported to bypass egress QoS for the traffic it steers: check ECN and ETS on")
	b.comment("the target release. Cloud Scale examples also set a DLB mac-address, which the model")
	b.comment("does not carry: set it by hand where the platform requires it.")
	var fabric []string
	for _, p := range b.ports {
		if p.Facing != "" && p.Facing != ir.RoleHost {
			fabric = append(fabric, p.Name)
		}
	}
	if len(fabric) == 0 {
		b.comment("GAP: no switch-facing port, so no ECMP group for DLB to act on: not rendered")
		return
	}
	mode := "flowlet"
	if lb == "spray" {
		mode = "per-packet"
	}
	b.comment("%s: %s DLB on the switch-facing ports, where ECMP groups form", lb, mode)
	b.line(0, ir.ElementAdaptiveRouting, "hardware profile dlb")
	b.line(1, ir.ElementAdaptiveRouting, "mode %s", mode)
	b.line(1, ir.ElementAdaptiveRouting, "dlb-interface %s", strings.Join(fabric, ", "))
}

// The ranges the watchdog timers are mapped into. The interval range is the
// one Cisco NDFC offers (default 100 ms); the shutdown multiplier's is the
// one Cisco documents for its NX-OS fabric interconnects; the auto-restore
// range is kept small and safe. NX-OS may accept more.
const (
	wdMinInterval = 100
	wdMaxInterval = 1000
	wdMinShutdown = 1
	wdMaxShutdown = 10
	wdMinRestore  = 1
	wdMaxRestore  = 100
)

// wdTimers is the NX-OS form of the watchdog's detect and restore times.
type wdTimers struct {
	IntervalMs, ShutdownMult, RestoreMult int
}

// watchdogTimers finds the interval and multipliers whose products come
// closest to the detect and restore times, detect first (it bounds how
// long a storm spreads), then restore, then the shortest interval (finer
// polling).
func watchdogTimers(detectMs, restoreMs int) wdTimers {
	best := wdTimers{}
	bestDet, bestRes := -1, -1
	for i := wdMinInterval; i <= wdMaxInterval; i++ {
		sm := clamp(roundDiv(detectMs, i), wdMinShutdown, wdMaxShutdown)
		ar := clamp(roundDiv(restoreMs, i), wdMinRestore, wdMaxRestore)
		det, res := absInt(i*sm-detectMs), absInt(i*ar-restoreMs)
		if bestDet < 0 || det < bestDet || det == bestDet && res < bestRes {
			best, bestDet, bestRes = wdTimers{i, sm, ar}, det, res
		}
	}
	return best
}

func roundDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b/2) / b
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sortedKeys(m map[int][]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// naturalCompare orders interface names the way NX-OS lists them:
// Ethernet1/2 before Ethernet1/10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := isDigit(a[0]), isDigit(b[0])
		if da && db {
			na, ra := leadingDigits(a)
			nb, rb := leadingDigits(b)
			ta, tb := strings.TrimLeft(na, "0"), strings.TrimLeft(nb, "0")
			if c := cmp.Or(cmp.Compare(len(ta), len(tb)), cmp.Compare(ta, tb)); c != 0 {
				return c
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}
