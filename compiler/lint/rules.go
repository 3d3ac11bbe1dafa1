package lint

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// Suite is every rule lint runs, by ID. RF001 (schema) is reported by the
// loader and documented by [SchemaRule].
var Suite = []*Analyzer{
	ECNOrder, ECNBeforePFC, Headroom, BufferBudget, DSCPUnique, CNPClass, LosslessCount, PFCWatchdog,
	ReorderSupport, Oversubscription, RailWiring, MTU, NCCLClass, Shaping, Tenant, Deadlock, PlatformGap,
	NICCable, ETSSum, ECNOff, NICSpeed,
}

func bytesStr(n int64) string {
	switch {
	case n >= 1_000_000 && n%1000 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + " MB"
	case n >= 1000 && n%1000 == 0:
		return strconv.FormatInt(n/1000, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// ECNOrder is RF101.
var ECNOrder = &Analyzer{
	ID: "RF101", Name: "ecn-order", Severity: diag.Error,
	Title: "ECN min >= max, or probability outside 1..100",
	Doc: `WRED/ECN marks packets with a probability that rises from 0 at the minimum threshold to the
given probability at the maximum threshold. A minimum at or above the maximum leaves no ramp: every
platform either rejects it or marks everything at once, which turns DCQCN into on/off control. The
probability is a percentage; 0 never marks and values above 100 are not accepted.`,
	Run: func(p *Pass) {
		for _, c := range p.Fabric.Classes {
			e := c.ECN
			if e == nil {
				continue
			}
			if lo, hi, ok := ecnCells(c); ok {
				// Both thresholds in cells: compare them as written.
				if lo >= hi {
					p.Reportf(p.At("classes", c.Name, "ecn", "min"), "class %s: ECN min %d cells is not below max %d cells", c.Name, lo, hi)
				}
			} else {
				for _, cell := range cellSizes(p, c) {
					if lo, hi := ecnBytes(c, cell); lo >= hi {
						p.Reportf(p.At("classes", c.Name, "ecn", "min"), "class %s: ECN min %s is not below max %s", c.Name, bytesStr(lo), bytesStr(hi))
						break
					}
				}
			}
			if e.Probability < 1 || e.Probability > 100 {
				p.Reportf(p.At("classes", c.Name, "ecn", "probability"), "class %s: ECN probability %d: want 1 to 100 (percent)", c.Name, e.Probability)
			}
		}
	},
}

// ecnCells returns a class's ECN thresholds when the intent gives both in
// buffer cells.
func ecnCells(c *ir.Class) (lo, hi int64, ok bool) {
	e := c.ECN
	if e == nil || e.MinCells == 0 || e.MaxCells == 0 {
		return 0, 0, false
	}
	return e.MinCells, e.MaxCells, true
}

// ecnBytes returns a class's ECN thresholds in bytes on a switch whose
// buffer cell is cell bytes. A class keeps a threshold given in cells as
// cells, since its bytes depend on the switch; it is converted here.
func ecnBytes(c *ir.Class, cell int) (lo, hi int64) {
	e := c.ECN
	return physics.ECNBytes(e.MinBytes, e.MinCells, cell), physics.ECNBytes(e.MaxBytes, e.MaxCells, cell)
}

// inCells reports whether the intent gives a threshold of the class's ECN
// profile in buffer cells.
func inCells(c *ir.Class) bool { return c.ECN.InCells() }

// cellSizes returns the cell sizes to convert a class's ECN thresholds
// with: the known ones of the fabric's switch models when the intent gives
// a threshold in cells, otherwise a single 0 (bytes need no conversion).
func cellSizes(p *Pass, c *ir.Class) []int {
	if !inCells(c) {
		return []int{0}
	}
	var out []int
	for _, d := range p.Fabric.Switches() {
		if b := d.Switch.Buffers; b != nil && b.CellBytes > 0 && !slices.Contains(out, b.CellBytes) {
			out = append(out, b.CellBytes)
		}
	}
	slices.Sort(out)
	return out
}

// plans returns the distinct buffer plans with the switches that use them.
func plans(f *ir.Fabric) ([]*ir.BufferPlan, map[*ir.BufferPlan][]*ir.Device) {
	users := map[*ir.BufferPlan][]*ir.Device{}
	var order []*ir.BufferPlan
	for _, d := range f.Devices {
		if d.Switch == nil || d.Switch.Buffers == nil {
			continue
		}
		b := d.Switch.Buffers
		if users[b] == nil {
			order = append(order, b)
		}
		users[b] = append(users[b], d)
	}
	return order, users
}

func deviceCount(ds []*ir.Device) string {
	if len(ds) == 1 {
		return ds[0].Name
	}
	return fmt.Sprintf("%s and %d more", ds[0].Name, len(ds)-1)
}

// Headroom is RF103.
var Headroom = &Analyzer{
	ID: "RF103", Name: "headroom", Severity: diag.Error,
	Title: "headroom below what speed, cable length and MTU need",
	Doc: `After a switch decides to send PFC XOFF, bytes keep arriving: the frame being sent, the PFC frame's
own time, the round trip over the cable, the PHY and the sender's reaction. The headroom reserved per
port and lossless priority must hold them or the lossless class drops. It grows with speed and cable
length; ` + "`rocefab explain DEVICE:PORT headroom`" + ` shows the formula and inputs. Use headroom: "auto"
or a size at least as large as the longest port class needs. Without a lossless class no headroom is
reserved and nothing is checked.`,
	Run: func(p *Pass) {
		if len(p.Fabric.LosslessClasses()) == 0 {
			return // no lossless priority, so no headroom is reserved
		}
		seen := map[*ir.Headroom]bool{}
		for _, d := range p.Fabric.Devices {
			if d.Switch == nil {
				continue
			}
			for _, h := range d.Switch.Headrooms {
				if seen[h] {
					continue
				}
				seen[h] = true
				if h.Size < h.Required {
					port := ""
					for _, pt := range d.Switch.Ports {
						if pt.Headroom == h {
							port = pt.Name
							break
						}
					}
					p.ReportDevice(p.Pos("buffers.headroom"), d.Name, port,
						"headroom %s is below the %s a %s port needs for %s of cable at MTU %d",
						bytesStr(h.Size), bytesStr(h.Required), speedStr(h.SpeedGbps), lengthStr(h.CableM), d.Switch.MTU)
				}
			}
		}
	},
}

func speedStr(g int) string {
	if g == 1600 {
		return "1.6T"
	}
	return strconv.Itoa(g) + "G"
}

func lengthStr(m float64) string { return strconv.FormatFloat(m, 'f', -1, 64) + " m" }

// BufferBudget is RF104.
var BufferBudget = &Analyzer{
	ID: "RF104", Name: "buffer-budget", Severity: diag.Error,
	Title: "reserves and headroom exceed the platform's buffer",
	Doc: `A switch's packet buffer must hold the pools reserved for classes (buffers.reserve, a percentage
of the buffer) plus the headroom of every port and every lossless priority. When the sum exceeds the
ASIC's buffer, the platform either rejects the configuration or silently shrinks pools, and lossless
traffic drops under load; reservations of several classes that add up to more than 100% cannot be
programmed at all. Reserve less, carry fewer lossless priorities, or shorten the cables the headroom
is sized for. A SONiC switch is charged the way its ASIC reads the lossless profiles: on Spectrum the
profile's size (xoff + xon) per port and lossless priority; on Broadcom XGS each priority group's
reserved minimum plus its xoff in the shared headroom pool. Where the platform caps the headroom
pool (EOS: 32 MiB), the headroom the pauses of RF102's N congested priority groups fill, the N
largest per-group headrooms, must fit the pool: otherwise packets arriving after XOFF drop, an error;
a pool that only a pause on every port at once would overrun, with a smaller stated N, is RF117's
warning.`,
	Run: func(p *Pass) {
		pct := 0
		for _, r := range p.Fabric.Buffers.Reserves {
			pct += r.Percent
		}
		if pct > 100 {
			// The reserved pool is clamped to the whole buffer, which hides
			// the excess when there is no headroom to add.
			p.Reportf(p.Pos("buffers.reserve"), "buffers.reserve: the reservations add up to %d%% of the buffer", pct)
			return
		}
		ps, users := plans(p.Fabric)
		for _, b := range ps {
			headroomOverrun(p, b, users[b])
			if !b.Fits() {
				ds := users[b]
				headroom := bytesStr(b.HeadroomBytes) + " of headroom"
				if b.MinimumBytes > 0 {
					headroom += " and " + bytesStr(b.MinimumBytes) + " of reserved minimums (" + b.Convention + ")"
				}
				p.ReportDevice(p.Pos("buffers.reserve"), ds[0].Name, "",
					"%s (%s): %d%% reserved (%s) plus %s exceed the %s buffer by %s",
					b.Model, deviceCount(ds), b.ReservePercent, bytesStr(b.LosslessBytes), headroom,
					bytesStr(b.TotalBytes), bytesStr(-b.LossyBytes))
			}
		}
	},
}

// headroomOverrun reports a switch whose platform caps its headroom pool
// (EOS: 32 MiB) below what the PFC pauses of RF102's N congested priority
// groups fill: lossless packets arriving after XOFF find no headroom.
func headroomOverrun(p *Pass, b *ir.BufferPlan, ds []*ir.Device) {
	if len(ds) == 0 || b.HeadroomBytes <= 0 {
		return
	}
	caps, ok := platforms.PlatformCapabilities(ds[0].Platform)
	if !ok || caps.MaxHeadroomPoolBytes == 0 {
		return
	}
	reach, largest := headroomReach(ds[0], b)
	if reach <= b.HeadroomBytes {
		return
	}
	ir.SortDevices(ds)
	p.ReportDevice(p.Pos("buffers.headroom"), ds[0].Name, "",
		"%s %s (%s): a pause on N = %d lossless priority groups at once (RF102's N) fills %s of headroom (%s each at most), but the headroom pool is %s (%s takes at most %s): lossless packets arriving after XOFF drop; shorten the longest cable, carry fewer lossless ports or state a smaller buffers.congestion.queues",
		ds[0].Platform, b.Model, deviceCount(ds), b.CongestedQueues, bytesStr(reach), bytesStr(largest), bytesStr(b.HeadroomBytes),
		ds[0].Platform, bytesStr(caps.MaxHeadroomPoolBytes))
}

// DSCPUnique is RF105.
var DSCPUnique = &Analyzer{
	ID: "RF105", Name: "dscp-unique", Severity: diag.Error,
	Title: "a DSCP value in two classes, or a DSCP outside 0..63",
	Doc: `Each DSCP value selects exactly one traffic class on every hop. A value listed in two classes maps
to whichever the platform applies last, so the same packet can be lossless on one switch and lossy on
the next. DSCP is a 6-bit field: 0 to 63. A class's priority is its queue end to end, so two classes on
one priority are one class to every switch and NIC: the second class's DSCPs get the first class's
scheduling, PFC and ECN; give each class its own priority.`,
	Run: func(p *Pass) {
		owner := map[int]string{}
		for _, c := range p.Fabric.Classes {
			for _, d := range c.DSCP {
				at := p.At("classes", c.Name, "dscp")
				switch o, ok := owner[d]; {
				case d < 0 || d > 63:
					p.Reportf(at, "class %s: DSCP %d: want 0 to 63", c.Name, d)
				case ok && o == c.Name:
					p.Reportf(at, "class %s: DSCP %d is listed twice", c.Name, d)
				case ok:
					p.Reportf(at, "class %s: DSCP %d is already in class %s", c.Name, d, o)
				default:
					owner[d] = c.Name
				}
			}
		}
		// A priority is a class's queue on every hop: a second class on it
		// gets the first one's scheduling, PFC and ECN. A CNP class on a
		// lossless priority is RF106's to report.
		first := map[int]*ir.Class{}
		for _, c := range p.Fabric.Classes {
			o, ok := first[c.Priority]
			if !ok {
				first[c.Priority] = c
				continue
			}
			if (o.CNP && c.Lossless) || (c.CNP && o.Lossless) {
				continue
			}
			p.Reportf(p.At("classes", c.Name, "priority"), "class %s: priority %d is already class %s's: its DSCPs would get %s's queue on every hop",
				c.Name, c.Priority, o.Name, o.Name)
		}
	},
}

// CNPClass is RF106.
var CNPClass = &Analyzer{
	ID: "RF106", Name: "cnp-class", Severity: diag.Error,
	Title: "no CNP class while DCQCN is on; CNP class lossless, not strict, or on the RoCE priority",
	Doc: `DCQCN's congestion notification packets (CNPs) tell senders to slow down; they must overtake the
congested data. Give them their own class (cnp: true) on a strict-priority queue that is not
lossless (a paused CNP is useless) and not the RoCE data priority. With DCQCN on and no CNP class,
NICs send CNPs in whatever class their default DSCP lands in.`,
	Run: func(p *Pass) {
		var cnp *ir.Class
		for _, c := range p.Fabric.Classes {
			if c.CNP {
				cnp = c
				break
			}
		}
		dcqcn := dcqcnOn(p.Fabric)
		if cnp == nil {
			if dcqcn {
				p.Reportf(p.Pos("hosts.dcqcn"), "DCQCN is on but no class has cnp: true: add e.g. cnp: {priority: 6, dscp: [48], cnp: true, strict: true}")
			}
			return
		}
		at := p.At("classes", cnp.Name)
		if cnp.Lossless {
			p.Reportf(at, "CNP class %s is lossless: CNPs must not be paused; make it lossy and strict", cnp.Name)
		}
		if !cnp.Strict {
			p.Reportf(at, "CNP class %s is not strict: CNPs must overtake congested data; set strict: true", cnp.Name)
		}
		for _, c := range p.Fabric.LosslessClasses() {
			if c != cnp && c.Priority == cnp.Priority {
				p.Reportf(at, "CNP class %s shares priority %d with lossless class %s", cnp.Name, c.Priority, c.Name)
			}
		}
	},
}

// LosslessCount is RF107.
var LosslessCount = &Analyzer{
	ID: "RF107", Name: "lossless-count", Severity: diag.Warning,
	Title: "more than two lossless priorities",
	Doc: `Every lossless priority needs its own headroom on every port, and ASICs size their headroom
pools for one or two (SONiC's defaults are priorities 3 and 4). More lossless priorities multiply the
headroom, shrink the shared buffer, and add PFC pause domains that can deadlock.`,
	Run: func(p *Pass) {
		// Count priorities, not classes: headroom and pause domains are
		// per priority.
		var prios []string
		var third *ir.Class
		seen := map[int]bool{}
		for _, c := range p.Fabric.LosslessClasses() {
			if seen[c.Priority] {
				continue
			}
			seen[c.Priority] = true
			prios = append(prios, fmt.Sprintf("%d (%s)", c.Priority, c.Name))
			if len(prios) == 3 {
				third = c
			}
		}
		if third != nil {
			p.Reportf(p.At("classes", third.Name, "lossless"), "%d lossless priorities: %s: keep it to two at most", len(prios), strings.Join(prios, ", "))
		}
	},
}

// PFCWatchdog is RF108.
var PFCWatchdog = &Analyzer{
	ID: "RF108", Name: "pfc-watchdog", Severity: diag.Warning,
	Title: "a lossless class with the PFC watchdog off, its times below 100 ms, or changed by the platform",
	Doc: `A NIC or switch that keeps sending PFC pause (a PFC storm) stalls every flow behind it, across the
fabric. The PFC watchdog detects a queue paused for longer than its detection time and drops or
forwards its traffic until it recovers. Keep it on wherever a class is lossless. A detection or
restoration time below 100 ms (SONiC's YANG minimum, half the 200 ms default of SONiC and Junos) is
reported: the pauses of an ordinary incast trip it and the watchdog drops traffic that is only
congested. A time a platform cannot take and programs differently (SONiC clamps both times into
100..5000 ms and 100..60000 ms) is reported with the value the switch runs with.`,
	Run: func(p *Pass) {
		w := p.Fabric.Watchdog
		if len(p.Fabric.LosslessClasses()) == 0 {
			return
		}
		if !w.Enabled {
			p.Reportf(p.Pos("pfc.watchdog.enabled"), "class %s is lossless but the PFC watchdog is off", p.Fabric.LosslessClasses()[0].Name)
			return
		}
		for _, t := range []struct {
			what string
			ms   int
		}{{"detect", w.DetectMs}, {"restore", w.RestoreMs}} {
			if t.ms < physics.WatchdogFloorMs {
				p.Reportf(p.Pos("pfc.watchdog."+t.what), "PFC watchdog %s %d ms is below %d ms (SONiC's minimum, half SONiC's and Junos' 200 ms default): the pauses of an ordinary incast trip it and it drops lossless traffic that is only congested",
					t.what, t.ms, physics.WatchdogFloorMs)
			}
		}
		// What a platform programs instead of the intent's times, once per
		// platform and value (Switch.Derived holds the programmed times).
		seen := map[string]bool{}
		for _, d := range p.Fabric.Devices {
			if d.Switch == nil {
				continue
			}
			for _, x := range d.Switch.Derived {
				what, ok := strings.CutPrefix(x.Field, "pfc-watchdog-")
				if !ok || !strings.Contains(x.Formula, "clamped") {
					continue
				}
				k := d.Platform + "|" + x.Field
				if seen[k] {
					continue
				}
				seen[k] = true
				given := w.DetectMs
				if what == "restore" {
					given = w.RestoreMs
				}
				p.ReportDevice(p.Pos("pfc.watchdog."+what), d.Name, "", "PFC watchdog %s %d ms: %s programs %d ms (%s)", what, given, d.Platform, x.Value, x.Formula)
			}
		}
	},
}

// Oversubscription is RF110.
var Oversubscription = &Analyzer{
	ID: "RF110", Name: "oversubscription", Severity: diag.Warning,
	Title: "fabric not 1:1 between tiers",
	Doc: `Collective traffic (all-reduce, all-to-all) runs every link at line rate at the same time. A tier
with more capacity facing down than up congests by design: PFC pauses spread and job time grows with
the ratio. The ratio is computed from the real port counts and speeds of the expanded fabric.`,
	Run: func(p *Pass) {
		for _, tier := range slices.Sorted(maps.Keys(p.Fabric.Topology.Oversubscription)) {
			r := p.Fabric.Topology.Oversubscription[tier]
			if r > 1.0001 {
				p.Reportf(p.Pos("topology."+tier), "%s tier is %s:1 oversubscribed (down/up capacity)", tier, strconv.FormatFloat(r, 'f', 2, 64))
			}
		}
	},
}

// RailWiring is RF111.
var RailWiring = &Analyzer{
	ID: "RF111", Name: "rail-wiring", Severity: diag.Error,
	Title: "in an explicit topology, NIC i of a server not on rail i",
	Doc: `In a rail-optimized fabric GPU i of every server talks to GPU i of the others through rail i's
leaves, one switch hop away. A NIC cabled to another rail's leaf sends that GPU's traffic through the
spines, and NCCL's rail-aligned rings lose their single-hop paths. NIC i is the i-th port of
hosts.nic.ports.`,
	Run: func(p *Pass) {
		for _, d := range p.Fabric.Devices {
			if d.Host == nil {
				continue
			}
			for _, n := range d.Host.NICs {
				leaf := p.Fabric.Device(n.Peer)
				if leaf == nil || leaf.Role != ir.RoleLeaf || leaf.Rail < 0 || n.Rail < 0 {
					continue
				}
				if leaf.Rail != n.Rail {
					pos := d.Pos
					if !pos.IsValid() {
						pos = p.Pos("topology")
					}
					p.ReportDevice(pos, d.Name, n.Port, "NIC %d (%s) is cabled to %s:%s on rail %d, not rail %d",
						n.Rail, n.Port, leaf.Name, n.PeerPort, leaf.Rail, n.Rail)
				}
			}
		}
	},
}

// MTU is RF112.
var MTU = &Analyzer{
	ID: "RF112", Name: "mtu", Severity: diag.Error,
	Title: "host MTU below RoCE path MTU + headers, or switch MTU below host MTU",
	Doc: `RoCE v2 carries its path MTU (typically 4096) of payload in each packet, plus IP, UDP, BTH and ICRC
headers. A host MTU smaller than that makes the NIC fall back to a smaller path MTU (halving message
efficiency) or drop; a switch MTU below the host MTU drops the largest frames on the wire. Every hop
is checked with the MTU its platform is programmed with, which can be below the intent's (EOS takes
at most 9214): ` + "`rocefab explain DEVICE mtu`" + ` shows it. With every programmed MTU at least the host MTU
and that at least the RoCE path MTU with its headers, the smaller end of every switch-to-switch link
carries RoCE too; the two ends of a link programmed differently (an EOS 9214 against an NVUE or SONiC
9216) are RF117's.`,
	Run: func(p *Pass) {
		m := p.Fabric.MTU
		need := physics.MinHostMTU(m.RoCE)
		if int64(m.Host) < need.Value {
			p.Reportf(p.Pos("mtu.host"), "host MTU %d cannot carry RoCE path MTU %d: want at least %d", m.Host, m.RoCE, need.Value)
		}
		if m.Switch < m.Host {
			p.Reportf(p.Pos("mtu.switch"), "switch MTU %d is below the host MTU %d", m.Switch, m.Host)
			return
		}
		// The intent's switch MTU carries the hosts' frames; what a
		// platform programs may not (Derived[0] is the port MTU as
		// programmed). One finding per platform and value, with its
		// switches.
		type key struct {
			platform string
			mtu      int64
		}
		var keys []key
		by := map[key][]*ir.Device{}
		for _, d := range p.Fabric.Devices {
			s := d.Switch
			if s == nil || len(s.Derived) == 0 || s.Derived[0].Field != "mtu" {
				continue
			}
			k := key{d.Platform, s.Derived[0].Value}
			if k.mtu >= int64(m.Host) {
				continue
			}
			if by[k] == nil {
				keys = append(keys, k)
			}
			by[k] = append(by[k], d)
		}
		for _, k := range keys {
			ds := by[k]
			p.ReportDevice(p.Pos("mtu.host"), ds[0].Name, "",
				"host MTU %d is above the MTU %d that %s programs on %s (the switch MTU %d is at most %d there): the hops drop the hosts' largest frames",
				m.Host, k.mtu, k.platform, deviceCount(ds), m.Switch, k.mtu)
		}
	},
}

// NCCLClass is RF113.
var NCCLClass = &Analyzer{
	ID: "RF113", Name: "nccl-class", Severity: diag.Error,
	Title: "a tenant's NCCL traffic class (DSCP << 2) not on a lossless class",
	Doc: `NCCL marks its RDMA traffic with NCCL_IB_TC, the IP ToS byte: DSCP << 2. If that DSCP does not map
to a lossless class on the switches, collective traffic runs lossy and every drop costs a RoCE
retransmit timeout. The traffic class of a tenant on a lossless class, or of one whose own
nccl.trafficClass the intent sets, must map to a lossless priority. A tenant on a lossy class is kept
off RDMA (NCCL_IB_DISABLE=1 in its environment), so an NCCL_IB_* setting of its own is an error too.`,
	Run: func(p *Pass) {
		lossyTenantNCCL(p)
		qos := p.Fabric.FirstSwitchQoS()
		if qos == nil {
			return
		}
		lossless := map[int]bool{}
		for _, pr := range qos.PFC {
			lossless[pr] = true
		}
		for _, t := range p.Fabric.Tenants {
			// A tenant on a lossless class runs NCCL; so does one that sets
			// its own traffic class. NCCL environment variables alone, or
			// the fabric-wide traffic class, say nothing about a tenant on
			// a lossy class (a checkpoint writer).
			own := t.TrafficClassFrom == ir.StatedByTenant
			if t.Class == nil || (!t.Class.Lossless && !own) {
				continue
			}
			at := p.At("tenants", t.Name)
			switch t.TrafficClassFrom {
			case ir.StatedByTenant:
				at = p.At("tenants", t.Name, "nccl", "trafficClass")
			case ir.StatedByHosts:
				at = p.Pos("hosts.nccl.trafficClass")
			}
			dscp := t.TrafficClass >> 2
			if t.TrafficClass < 0 || t.TrafficClass > 255 || !lossless[qos.DSCPToTC[dscp&63]] {
				p.Reportf(at, "tenant %s: NCCL_IB_TC %d is DSCP %d, which maps to priority %d: not lossless",
					t.Name, t.TrafficClass, dscp, qos.DSCPToTC[dscp&63])
			}
		}
	},
}

// Shaping is RF114.
var Shaping = &Analyzer{
	ID: "RF114", Name: "shaping", Severity: diag.Error,
	Title: "a shaping rate at or above the link speed, or shaping a lossless class",
	Doc: `Host egress shaping limits bulk traffic such as checkpoints so it cannot crowd out collective
traffic. A rate at or above the link speed shapes nothing. Shaping a lossless class is wrong twice:
throttling the class PFC protects only adds pauses, and its RDMA bypasses the kernel's qdiscs. Each
shape says how the class's traffic leaves the servers: "tcp" traffic is shaped with tc on one
interface, which must be one the model has (hosts.frontend.interface or an RDMA netdev), or nothing
says the traffic leaves by it; "rdma" traffic bypasses tc and is limited in the NICs per traffic class
(mlnx_qos -r, dcb maxrate), on RDMA netdevs of the servers.`,
	Run: shapingChecks,
}

// Tenant is RF115.
var Tenant = &Analyzer{
	ID: "RF115", Name: "tenant", Severity: diag.Error,
	Title: "a tenant on an unknown class, or storage traffic on a lossless priority",
	Doc: `Each tenant names the class its traffic runs in, and the servers it runs on. A class no one
defined, or servers the fabric does not have, means the tenant's environment is rendered for nothing.
Storage and checkpoint traffic (a tenant or class whose name says storage or checkpoint, or a class
the hosts shape) on a lossless priority fills the buffer RoCE needs: the checkpoint stall. PFC pauses
priorities, not classes, so a lossy class on the priority of a lossless one counts as lossless.
rdma_cm QPs (NVMe-oF, iSER) carry the storage the hosts shape over RDMA: the class that marks them
(hosts.rdmaCM.class, cma_roce_tos) must not be lossless then.`,
	Run: func(p *Pass) {
		rdmaCMStorage(p)
		shaped := map[string]bool{}
		if prof := p.Fabric.HostProfile; prof != nil {
			for _, name := range prof.ShapedClasses {
				shaped[name] = true
			}
		}
		// PFC pauses priorities, not classes: a lossy class on the priority
		// of a lossless one is paused all the same.
		lossless := map[int]*ir.Class{}
		for _, c := range p.Fabric.LosslessClasses() {
			if lossless[c.Priority] == nil {
				lossless[c.Priority] = c
			}
		}
		storage := func(s string) bool {
			s = strings.ToLower(s)
			return strings.Contains(s, "storage") || strings.Contains(s, "checkpoint")
		}
		for _, t := range p.Fabric.Tenants {
			at := p.At("tenants", t.Name)
			if t.Class == nil {
				var names []string
				for _, c := range p.Fabric.Classes {
					names = append(names, c.Name)
				}
				p.Reportf(p.At("tenants", t.Name, "class"), "tenant %s: no class named %q (classes are %s)", t.Name, t.ClassName, strings.Join(names, ", "))
				continue
			}
			if n := len(t.UnknownServers); n > 0 {
				p.Reportf(p.At("tenants", t.Name, "servers"), "tenant %s: %s not in the fabric, e.g. %s", t.Name, plural(n, "server", "servers"), t.UnknownServers[0])
			}
			l := lossless[t.Class.Priority]
			if l == nil || !(storage(t.Name) || storage(t.Class.Name) || shaped[t.Class.Name]) {
				continue
			}
			if t.Class.Lossless {
				p.Reportf(at, "tenant %s: storage traffic on lossless class %s: give it a lossy class", t.Name, t.Class.Name)
			} else {
				p.Reportf(at, "tenant %s: storage traffic of class %s on priority %d, which is lossless for class %s: give it a lossy priority",
					t.Name, t.Class.Name, t.Class.Priority, l.Name)
			}
		}
	},
}

// Deadlock is RF116.
var Deadlock = &Analyzer{
	ID: "RF116", Name: "deadlock", Severity: diag.Error,
	Title: "links that allow a cyclic buffer dependency for a lossless class",
	Doc: `PFC can deadlock when paused queues wait on each other in a cycle. A Clos fabric whose packets only
go up, then down, has no such cycle. A link between two switches of the same tier (leaf to leaf,
spine to spine), a link that skips a tier, or a server cabled above the leaves lets routes go down
and back up: a down-up path through which lossless traffic can form a cyclic buffer dependency.`,
	Run: func(p *Pass) {
		type key struct{ a, b ir.Role }
		count := map[key]int{}
		first := map[key]*ir.Link{}
		for _, l := range p.Fabric.Links {
			a, b := p.Fabric.Device(l.A.Device), p.Fabric.Device(l.B.Device)
			if a == nil || b == nil {
				continue
			}
			if a.Role.Rank() > b.Role.Rank() {
				a, b = b, a
			}
			gap := b.Role.Rank() - a.Role.Rank()
			bad := gap == 0 || gap > 1 || (b.Role == ir.RoleHost && a.Role != ir.RoleLeaf)
			if !bad {
				continue
			}
			k := key{a.Role, b.Role}
			if count[k] == 0 {
				first[k] = l
			}
			count[k]++
		}
		keys := slices.SortedFunc(maps.Keys(count), func(x, y key) int {
			return cmp.Or(strings.Compare(string(x.a), string(y.a)), strings.Compare(string(x.b), string(y.b)))
		})
		lossless := p.Fabric.LosslessClasses()
		if len(lossless) == 0 {
			return
		}
		for _, k := range keys {
			l := first[k]
			pos := l.Pos
			if !pos.IsValid() {
				pos = p.Fabric.Device(l.A.Device).Pos
			}
			if !pos.IsValid() {
				pos = p.Pos("topology")
			}
			p.ReportDevice(pos, l.A.Device, l.A.Port, "%d %s-%s link(s), e.g. %s - %s, allow down-up paths for lossless class %s",
				count[k], k.a, k.b, l.A, l.B, lossless[0].Name)
		}
	},
}

// usedElements says which catalog elements the fabric uses, each with the
// labels of the intent field it comes from.
func usedElements(p *Pass) map[string][]string {
	f := p.Fabric
	classes := []string{"classes"}
	used := map[string][]string{
		"dscp-map": classes, "ets": classes, "mtu": {"mtu"},
	}
	// Each class's priority is its queue: a platform whose traffic-class
	// to queue mapping is fixed to the identity (NX-OS) lacks nothing
	// unless some switch maps otherwise.
	for _, d := range p.Fabric.Switches() {
		if q := d.Switch.QoS; q != nil && !identity(q.TCToQueue) {
			used["tc-queue"] = classes
			break
		}
	}
	if len(p.Fabric.LosslessClasses()) > 0 {
		used["pfc"] = classes
		used["headroom-cable"] = []string{"buffers", "headroom"}
		used["xoff-xon"] = []string{"buffers", "headroom"}
	}
	for _, c := range p.Fabric.Classes {
		if c.Strict {
			used["strict"] = []string{"classes", c.Name, "strict"}
		}
		if c.ECN != nil {
			used["ecn"] = []string{"classes", c.Name, "ecn"}
		}
	}
	if len(f.Buffers.Reserves) > 0 {
		used["pool-percent"] = []string{"buffers", "reserve"}
	}
	if f.Watchdog.Enabled {
		used["pfc-watchdog"] = []string{"pfc", "watchdog"}
		if f.Watchdog.Action == "alert" {
			used["watchdog-action-alert"] = []string{"pfc", "watchdog", "action"}
		}
	}
	switch f.LoadBalancing {
	case "adaptive":
		used["adaptive-routing"] = []string{"routing", "loadBalancing"}
	case "spray":
		used["spray"] = []string{"routing", "loadBalancing"}
	}
	return used
}

// dcqcnOn reports whether the servers run DCQCN.
func dcqcnOn(f *ir.Fabric) bool { return f.HostProfile != nil && f.HostProfile.DCQCN.Enabled }

// carriesRDMA reports whether the servers send RDMA in class c: rdma_cm
// QPs are marked with it, or a shape limits its RDMA traffic.
func carriesRDMA(h *ir.HostProfile, c *ir.Class) bool { return rdmaUse(h, c) != "" }

// rdmaUse says how the servers send RDMA in class c, "" when they do not.
func rdmaUse(h *ir.HostProfile, c *ir.Class) string {
	if h == nil {
		return ""
	}
	var use []string
	if h.RDMACMClass == c {
		use = append(use, "rdma_cm QPs, ToS "+strconv.Itoa(h.RoCETOS))
	}
	for _, s := range h.Shaping {
		if s.Class == c && s.Transport == ir.TransportRDMA {
			use = append(use, "shaped over rdma")
			break
		}
	}
	return strings.Join(use, ", ")
}

func identity(m [8]int) bool {
	for i, v := range m {
		if v != i {
			return false
		}
	}
	return true
}

// PlatformGap is RF117.
var PlatformGap = &Analyzer{
	ID: "RF117", Name: "platform-gap", Severity: diag.Warning,
	Title: "the platform cannot express an element; says what is rendered instead",
	Doc: `Platforms differ in what they can configure: EOS computes xoff/xon itself and has no pool
percentage, community SONiC has no adaptive routing, OpenConfig has no PFC at all. rocefab renders what
each platform can express and reports each element it cannot, with what was rendered instead, so that
nothing is left out silently. Two buffer gaps are errors unless buffers.acceptGaps names them, since
the buffer plan, RF102 and SUMMARY would otherwise describe a buffer the switch does not have: a
buffers.reserve the intent writes on EOS or NX-OS, which hold no share of the buffer for one class
("reserve"; a default reserve is a warning), or on SONiC for more than one class or for a lossy
class, since SONiC holds the reserve as one ingress lossless pool that every lossless priority group
shares, kept from lossy traffic only ("reserve"), and two lossless priorities on NVUE, which keeps them
in one priority group and pool so that a pause for one stops the other ("priority-group"). The
openconfig.json of every switch carries only what OpenConfig
models; the rest is in the native artifact, which is reported once as information. A fixed
traffic-class to queue mapping (NX-OS) is no gap: every class's priority is its queue anyway.
A SONiC port whose link speed no breakout mode of its cage runs (the SKU's platform.json modes and
their bracketed speeds) is an error naming the modes: rendered, the port would not come up. OpenConfig
split ports carry their port-speed but no breakout-mode of their cage (information, with OpenConfig's
other gaps). An NX-OS cage split into ports of speeds no Cisco breakout map makes, or an NX-OS port below
the speed of the whole cage it uses, is an error naming the speeds and maps; so is an EOS port on a whole
cage at a speed no whole number of the cage's lanes carries (EOS takes speed <G>g-<lanes>). A switch-to-switch link whose two ends program different MTUs, because one platform
takes less than mtu.switch (EOS at most 9214), is a warning with both values: frames between the two
sizes cross one way and not the other. ECN thresholds narrower than the whole kbytes NX-OS takes
(max below 2 KiB, or min and max within one kbyte) are a warning with the kbytes written instead. On the servers, each host setting the NIC model's driver cannot
take is a warning naming what is done instead (the catalog's NIC gaps: the cable length, the mlx5 DCQCN
parameter names, ECN per priority, CNP marking, traffic classes, a second RoCE DSCP), and so are more
lossless priorities than the NIC pauses, NICs of one fabric running different congestion control on
the same rails, and an RCCL tenant (hosts.gpu "amd") setting an NCCL variable RCCL does not read.`,
	Run: func(p *Pass) {
		used := usedElements(p)
		byPlatform := map[string][]*ir.Device{}
		for _, d := range p.Fabric.Devices {
			if d.Switch != nil {
				byPlatform[d.Platform] = append(byPlatform[d.Platform], d)
				byPlatform["openconfig"] = append(byPlatform["openconfig"], d)
			}
		}
		reported := bufferGaps(p, byPlatform)
		for _, plat := range slices.Sorted(maps.Keys(byPlatform)) {
			caps, ok := platforms.PlatformCapabilities(plat)
			if !ok {
				continue
			}
			ds := byPlatform[plat]
			var ocGaps []string
			for _, el := range slices.Sorted(maps.Keys(used)) {
				s, ok := caps.Elements[el]
				if !ok || s.Level == "yes" || (el == platforms.ElementPoolPercent && reported[plat]) {
					continue
				}
				what := s.Rendered
				if what == "" {
					what = "nothing"
				}
				if plat == "openconfig" {
					ocGaps = append(ocGaps, el)
					continue
				}
				p.ReportDevice(p.At(used[el]...), ds[0].Name, "", "%s (%s): %s is %s there; rendered instead: %s",
					plat, plural(len(ds), "switch", "switches"), el, map[string]string{"no": "not supported", "partial": "partly supported"}[s.Level], what)
			}
			split := plat == "openconfig" && slices.ContainsFunc(ds, splitCages)
			if len(ocGaps) > 0 || split {
				// OpenConfig never models PFC: that is by design, not a
				// choice the user can change, so it is reported once and
				// as information.
				msg := fmt.Sprintf("openconfig.json (%s) cannot carry %s: they are in each switch's native artifact",
					plural(len(ds), "switch", "switches"), strings.Join(ocGaps, ", "))
				if len(ocGaps) == 0 {
					msg = fmt.Sprintf("openconfig.json (%s)", plural(len(ds), "switch", "switches"))
				}
				if split {
					msg += "; split ports get their port-speed, but no cage is broken out there (no /components/component/port/breakout-mode, openconfig-platform-port): the breakouts are in the native artifact"
				}
				p.Report(diag.Diagnostic{Pos: p.Pos("classes"), Severity: diag.Info, Rule: p.Analyzer.ID, Name: p.Analyzer.Name,
					Device: ds[0].Name, Message: msg})
			}
		}
		hostGaps(p)
		nicGaps(p)
		rcclEnv(p)
		verifyForms(p)
		sonicPortGaps(p)
		platformRefusals(p)
		linkMTUGaps(p)
		nxosECNGrid(p)
	},
}

// hostGaps reports what host.sh cannot set on the servers. The switch-only
// elements of the catalog's linux entry (watchdog, adaptive routing) are
// not gaps there: they are not host functions.
func hostGaps(p *Pass) {
	hosts := p.Fabric.Hosts()
	if len(hosts) == 0 || hosts[0].Host.Profile == nil {
		return
	}
	prof := hosts[0].Host.Profile
	n := plural(len(hosts), "server", "servers")
	nic, known := platforms.LookupNIC(prof.NICModel)
	if prof.Tool == "dcb" && len(prof.ECNPriorities) > 0 && (!known || nic.MLX5()) {
		p.ReportDevice(p.Pos("hosts.nic.tool"), hosts[0].Name, "",
			"linux (%s, tool dcb): the inbox mlx5 driver cannot enable ECN per priority at run time; host.sh sets the DCQCN parameters in debugfs and prints the mlxconfig ROCE_CC_PRIO_MASK_P1 command, which needs a firmware reset", n)
	}
	for _, fw := range prof.NICFirmware {
		// Firmware (NV config) settings take effect only after a firmware
		// reset or reboot, so a run-time script cannot own them.
		p.Report(diag.Diagnostic{Pos: p.Pos("routing.loadBalancing"), Severity: diag.Info, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: hosts[0].Name,
			Message: fmt.Sprintf("linux (%s): the NICs need firmware setting %s=%d (mlxconfig -d <device> set %s=%d, then a firmware reset); the host script does not change firmware",
				n, fw.Name, fw.Value, fw.Name, fw.Value)})
	}
	for _, sh := range prof.Shaping {
		if sh.Transport == ir.TransportRDMA {
			continue // limited in the NICs, which RDMA does not bypass
		}
		p.Report(diag.Diagnostic{Pos: sh.Pos, Severity: diag.Info, Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Device: hosts[0].Name,
			Message: fmt.Sprintf("linux (%s): tc on %s shapes kernel-stack traffic of class %s only; RDMA traffic bypasses qdiscs and is not shaped",
				n, sh.Interface, sh.Class.Name)})
	}
}

func plural(n int, one, many string) string { return diag.Plural(n, one, many) }

// NICCable is RF118.
var NICCable = &Analyzer{
	ID: "RF118", Name: "nic-cable", Severity: diag.Warning,
	Title: "host cable longer than the NIC's headroom assumes (mlx5 default 7 m)",
	Doc: `The NIC sizes its own receive headroom for PFC from a cable length (mlx5 assumes 7 m unless told
otherwise with mlnx_qos --cable_len or dcb pfc delay). A longer cable than the NIC assumes overruns
that headroom when the NIC pauses the switch, and the NIC drops lossless packets. hosts.nic.cable must
be at least the real host cable length. A NIC whose driver takes no cable length (Broadcom, Intel)
sizes its headroom in firmware: RF117 reports that instead.`,
	Run: func(p *Pass) {
		for _, d := range p.Fabric.Devices {
			if d.Host == nil || d.Host.Profile == nil {
				continue
			}
			if nic, ok := p.lookupNIC(d.Host.Profile.NICModel); ok {
				if _, none := nic.Gap("cable-length"); none {
					continue // no cable length to set: RF117 says so
				}
			}
			for _, n := range d.Host.NICs {
				if n.CableM > d.Host.Profile.CableM {
					p.ReportDevice(p.Pos("hosts.nic.cable"), d.Name, n.Port,
						"the host cable is %s but the NIC sizes its headroom for %s", lengthStr(n.CableM), lengthStr(d.Host.Profile.CableM))
					return
				}
			}
		}
	},
}

// minLosslessShare is the smallest ETS share, in percent, RF119 accepts
// for a lossless class without a warning: a fifth of the 50 % NVIDIA's
// `nv set qos roce` gives RoCE (switches.md §2).
const minLosslessShare = 10

// ETSSum is RF119.
var ETSSum = &Analyzer{
	ID: "RF119", Name: "ets-sum", Severity: diag.Error,
	Title: "bandwidth shares of non-strict classes not summing to 100, or a lossless class's share below 10 %",
	Doc: `ETS (DWRR) shares the link among the non-strict classes by percentage. Every platform and NIC tool
requires the shares to add up to 100; otherwise the configuration is rejected or normalised
differently on each hop. A lossless class whose share is below 10 % (NVIDIA's RoCE profile gives it
50 %) is a warning: when other classes load the link it drains at that share, its queue holds PFC
against every sender for as long, and pauses spread upstream.`,
	Run: func(p *Pass) {
		for _, c := range p.Fabric.LosslessClasses() {
			if !c.Strict && c.Bandwidth < minLosslessShare {
				p.Report(diag.Diagnostic{Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Severity: diag.Warning,
					Pos: p.At("classes", c.Name, "bandwidth"),
					Message: fmt.Sprintf("class %s is lossless with an ETS share of %d %%: under load from other classes it drains at %d %% of the link while PFC holds its senders (want %d %% at least; NVIDIA's RoCE profile gives 50 %%)",
						c.Name, c.Bandwidth, c.Bandwidth, minLosslessShare)})
			}
		}
		sum := 0
		var parts []string
		for _, c := range p.Fabric.Classes {
			if c.Strict {
				continue
			}
			sum += c.Bandwidth
			parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Bandwidth))
		}
		if len(parts) > 0 && sum != 100 {
			p.Reportf(p.Pos("classes"), "ETS shares add up to %d, not 100 (%s)", sum, strings.Join(parts, ", "))
		}
	},
}

// ECNOff is RF120.
var ECNOff = &Analyzer{
	ID: "RF120", Name: "ecn-off", Severity: diag.Warning,
	Title: "a lossless class, or a lossy class carrying RDMA, without ECN while DCQCN is on",
	Doc: `DCQCN slows senders down only when switches mark ECN. A lossless class without ECN marking leaves
PFC as the only brake: pauses spread upstream and throughput collapses under incast. A lossy class
that carries RDMA (the rdma_cm class, or one shaped over "rdma") without ECN leaves loss as its only
congestion signal, and every lost packet costs a RoCE retransmission: give it
ECN, which rocefab then marks on its queue and lets DCQCN react to on its priority. Either mark ECN on
the class or turn DCQCN off deliberately (a PFC-only fabric).`,
	Run: func(p *Pass) {
		if !dcqcnOn(p.Fabric) {
			return
		}
		for _, c := range p.Fabric.LosslessClasses() {
			if c.ECN == nil {
				p.Reportf(p.At("classes", c.Name, "ecn"), "class %s is lossless without ECN while DCQCN is on", c.Name)
			}
		}
		for _, c := range p.Fabric.Classes {
			if c.Lossless || c.ECN != nil || !carriesRDMA(p.Fabric.HostProfile, c) {
				continue
			}
			p.Reportf(p.At("classes", c.Name, "ecn"), "class %s is lossy and carries RDMA (%s) without ECN while DCQCN is on: loss is its only congestion signal; give it ECN so DCQCN slows its senders",
				c.Name, rdmaUse(p.Fabric.HostProfile, c))
		}
	},
}
