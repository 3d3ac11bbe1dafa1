package compiler

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/schema"
)

// SmallPacketPercent is the share of minimum-size packets assumed in
// lossless traffic when sizing headroom for cell waste on a switch whose
// ASIC family is unknown. The catalog's ASIC families give their own
// (compiler/platforms asic_families.json): SONiC documents 100 (every
// packet minimum size, the worst case) and its dynamic-buffer template
// emits 50 (physics.md §1.2); RoCE collectives are dominated by full-MTU
// packets, so 50 keeps a wide margin without reserving headroom for
// traffic that does not exist.
const SmallPacketPercent = 50

// qos builds the one QoS policy every switch applies.
func (c *compilation) qos() *ir.QoS {
	q := &ir.QoS{}
	for tc := range 8 {
		q.TCToQueue[tc] = tc
	}
	for _, cl := range c.fab.Classes {
		if cl.Default && q.DefaultClass == nil {
			q.DefaultClass = cl
			for d := range q.DSCPToTC {
				q.DSCPToTC[d] = cl.Priority
			}
		}
	}
	seen := map[int]bool{}
	for _, cl := range c.fab.Classes {
		for _, d := range cl.DSCP {
			if d >= 0 && d < 64 {
				q.DSCPToTC[d] = cl.Priority
			}
		}
		if cl.CNP && q.CNP == nil {
			q.CNP = cl
		}
		if seen[cl.Priority] {
			continue // two classes on one priority: lint reports it, the first one owns the queue
		}
		seen[cl.Priority] = true
		qu := ir.Queue{ID: cl.Priority, Class: cl, Strict: cl.Strict, Weight: cl.Bandwidth, Lossless: cl.Lossless}
		if cl.ECN != nil {
			e := *cl.ECN
			qu.ECN = &e
		}
		q.Queues = append(q.Queues, qu)
		if cl.Lossless {
			q.PFC = append(q.PFC, cl.Priority)
			q.TCToPG[cl.Priority] = cl.Priority
		}
	}
	slices.Sort(q.PFC)
	w := c.f.PFC.Watchdog
	q.Watchdog = ir.Watchdog{Enabled: w.Enabled, DetectMs: w.Detect.Ms(), RestoreMs: w.Restore.Ms(), Action: w.Action,
		Pos: c.pos("pfc.watchdog")}
	return q
}

// qosForCell returns the QoS policy with ECN thresholds given in cells
// converted to bytes for one switch model's cell size: one policy per cell
// size, shared like the rest. Without thresholds in cells it is qos itself.
func (c *compilation) qosForCell(qos *ir.QoS, sw platforms.Switch, d *ir.Device) *ir.QoS {
	inCells := false
	for _, k := range c.f.Classes {
		if k.ECN != nil && k.ECN.Enabled && (k.ECN.Min.Cells > 0 || k.ECN.Max.Cells > 0) {
			inCells = true
		}
	}
	if !inCells {
		return qos
	}
	if sw.CellBytes == 0 {
		if !c.cellErr[sw.Model] {
			c.cellErr[sw.Model] = true
			c.errorf(c.pos("classes"), "classes: ECN thresholds are given in cells, but the cell size of %s (%s) is not known: give them in bytes", sw.Model, d.Name)
		}
		return qos
	}
	if q, ok := c.qosByCell[sw.CellBytes]; ok {
		return q
	}
	q := *qos
	q.Queues = slices.Clone(qos.Queues)
	for i := range q.Queues {
		qu := &q.Queues[i]
		k, ok := c.f.Classes[qu.Class.Name]
		if !ok || qu.ECN == nil || k.ECN == nil {
			continue
		}
		e := *qu.ECN
		e.MinBytes = physics.ECNBytes(e.MinBytes, k.ECN.Min.Cells, sw.CellBytes)
		e.MaxBytes = physics.ECNBytes(e.MaxBytes, k.ECN.Max.Cells, sw.CellBytes)
		qu.ECN = &e
	}
	c.qosByCell[sw.CellBytes] = &q
	return &q
}

func toIR(d physics.Derivation) ir.Derivation {
	out := ir.Derivation{Field: d.Field, Value: d.Value, Unit: d.Unit, Formula: d.Formula, Source: d.Source}
	for _, in := range d.Inputs {
		out.Inputs = append(out.Inputs, ir.Input{Name: in.Name, Value: in.Value})
	}
	return out
}

// headroomName names a port class the same way on every platform.
func headroomName(speed int, cable float64) string {
	return schema.FormatSpeed(speed) + "-" + schema.FormatLength(cable)
}

type headroomKey struct {
	family      string
	convention  string // the SONiC buffer convention, "" off SONiC
	cell, speed int
	cable       float64
}

// switches attaches QoS, headroom per port class and the buffer plan to
// every switch. Headroom is computed once per (ASIC family, SONiC buffer
// convention, cell size, speed, cable) and the buffer plan once per (model,
// port-class mix).
func (c *compilation) switches(qos *ir.QoS) {
	lossless := len(qos.PFC)
	headrooms := map[headroomKey]*ir.Headroom{}
	plans := map[string]*ir.BufferPlan{}
	var fixed int64 = -1
	if !c.f.Buffers.HeadroomAuto() {
		fixed = c.f.Buffers.Headroom.Bytes
	}
	lb := c.f.Routing.LoadBalancing
	derived := map[derivedKey][]ir.Derivation{}
	c.rtt = c.loopRTT()
	for _, d := range c.fab.Devices {
		s := d.Switch
		if s == nil {
			continue
		}
		sw, _ := platforms.LookupSwitch(d.Model)
		s.QoS, s.LoadBalancing = c.qosForCell(qos, sw, d), lb
		dk := derivedKey{d.Platform, s.QoS, sw.CellBytes}
		if derived[dk] == nil {
			derived[dk] = c.switchDerived(d.Platform, s.QoS, sw)
		}
		// MTU stays the intent's: a renderer whose platform takes less
		// says so where it writes the port (Derived[0] holds the value).
		s.MTU, s.Derived = c.f.MTU.Switch, derived[dk]
		var mix []string
		counts := map[*ir.Headroom]int{}
		// The family is the switch's: looked up once, not per port (it
		// copies the family's tables).
		fam, _ := platforms.FamilyOf(sw)
		convention := sonicConvention(d, fam)
		for i := range s.Ports {
			p := &s.Ports[i]
			k := headroomKey{fam.Family, convention, sw.CellBytes, p.SpeedGbps, p.CableM}
			h := headrooms[k]
			if h == nil {
				h = c.headroom(sw, p.SpeedGbps, p.CableM, fixed)
				conventionHeadroom(h, k.convention, fixed)
				c.sourceInputs(h, d, p)
				headrooms[k] = h
			}
			p.Headroom = h
			if counts[h] == 0 {
				s.Headrooms = append(s.Headrooms, h)
			}
			counts[h]++
		}
		slices.SortFunc(s.Headrooms, func(a, b *ir.Headroom) int {
			if a.SpeedGbps != b.SpeedGbps {
				return a.SpeedGbps - b.SpeedGbps
			}
			return cmp.Compare(a.CableM, b.CableM)
		})
		for _, h := range s.Headrooms {
			mix = append(mix, h.Name+"x"+strconv.Itoa(counts[h]))
		}
		key := d.Model + "|" + d.Platform + "|" + strings.Join(mix, ",")
		plan := plans[key]
		if plan == nil {
			plan = c.bufferPlan(sw, s, counts, lossless, d.Platform)
			c.bufferConvention(plan, d, sw, s, counts, lossless)
			plans[key] = plan
		}
		s.Buffers = plan
	}
}

// derivedKey selects the switch values one platform programs from one QoS
// policy on one cell size.
type derivedKey struct {
	platform string
	qos      *ir.QoS
	cell     int
}

// switchDerived returns the values a switch of platform is configured with
// beyond its port classes and buffer plan, first the port MTU (the intent's,
// at most the platform's largest), then the PFC watchdog's times and each
// marking class's ECN thresholds in bytes as programmed: what explain shows
// and the artifacts hold.
func (c *compilation) switchDerived(platform string, q *ir.QoS, sw platforms.Switch) []ir.Derivation {
	src := "mtu.switch"
	maxMTU := 0
	if caps, ok := platforms.PlatformCapabilities(platform); ok {
		maxMTU = caps.MaxMTU
		src += "; compiler/platforms catalog.json " + platform + " mtu: " + caps.Elements[platforms.ElementMTU].Note
	}
	mtu := toIR(physics.PortMTU(c.f.MTU.Switch, maxMTU, src))
	for i := range mtu.Inputs {
		if mtu.Inputs[i].Name == "mtu_switch" {
			mtu.Inputs[i].Pos = c.pos("mtu.switch")
		}
	}
	out := []ir.Derivation{mtu}
	if w := q.Watchdog; w.Enabled && len(q.PFC) > 0 {
		det, res := physics.WatchdogTimes(platform, w.DetectMs, w.RestoreMs)
		out = append(out, toIR(det), toIR(res))
	}
	for _, qu := range q.Queues {
		if qu.ECN == nil || qu.Class == nil {
			continue
		}
		var minCells, maxCells int64
		if k, ok := c.f.Classes[qu.Class.Name]; ok && k.ECN != nil {
			minCells, maxCells = k.ECN.Min.Cells, k.ECN.Max.Cells
		}
		lo := physics.ECNThreshold(ir.ECNField("min", qu.Class.Name), qu.ECN.MinBytes, minCells, sw.CellBytes)
		hi := physics.ECNThreshold(ir.ECNField("max", qu.Class.Name), qu.ECN.MaxBytes, maxCells, sw.CellBytes)
		if platform == ir.PlatformNXOS {
			lo, hi = physics.InWholeKbytes(lo, hi)
		}
		for _, t := range []struct {
			what string
			th   physics.Derivation
		}{{"min", lo}, {"max", hi}} {
			e := toIR(t.th)
			for i := range e.Inputs {
				e.Inputs[i].Pos = c.pos("classes." + qu.Class.Name + ".ecn." + t.what)
			}
			out = append(out, e)
		}
	}
	return out
}

// headroom derives one port class's PFC headroom.
func (c *compilation) headroom(sw platforms.Switch, speed int, cable float64, fixed int64) *ir.Headroom {
	in := physics.HeadroomInput{SpeedGbps: speed, CableM: cable, PortMTU: c.f.MTU.Switch, LosslessMTU: c.f.MTU.Host,
		CellBytes: sw.CellBytes, SmallPacketPercent: SmallPacketPercent}
	if fam, ok := platforms.FamilyOf(sw); ok {
		// The family's formula and constants, not Spectrum's for every ASIC.
		in.SmallPacketPercent = fam.SmallPacketPercent
		in.PipelineLatencyBytes = int64(math.Round(fam.PipelineLatencyKiB * physics.KiB))
		in.MACPHYDelayBytes = fam.MACPHYDelayKiB * physics.KiB
		if fam.HeadroomModel == platforms.HeadroomMinFrameCell {
			in.Model = physics.ModelMinFrameCell
			in.ResponseTime = time.Duration(fam.ResponseTimeNs)
			in.XonBytes = fam.XonBytes
		}
	}
	t := physics.PortHeadroom(in)
	// What the port needs by the physics; the vendor's table below may
	// program more (NVIDIA sizes for every frame small), never less.
	required := t.Size.Value
	if len(sw.HeadroomTable) > 0 {
		// The vendor's own table where the catalog has one for the model.
		rows := make([]physics.TableRow, len(sw.HeadroomTable))
		for i, r := range sw.HeadroomTable {
			rows[i] = physics.TableRow{SpeedGbps: r.SpeedGbps, CableM: r.CableM, Size: r.Size, Xon: r.Xon, Xoff: r.Xoff}
		}
		if vt := physics.TableHeadroom(rows, speed, cable, sw.Sources["headroomTable"]); vt.Size.Valid() {
			t = vt
		}
	}
	h := &ir.Headroom{Name: headroomName(speed, cable), SpeedGbps: speed, CableM: cable,
		Xoff: t.Xoff.Value, Xon: t.Xon.Value, Size: t.Size.Value, Required: min(required, t.Size.Value),
		Derived: []ir.Derivation{toIR(t.Xoff), toIR(t.Xon), toIR(t.Size), toIR(physics.MinHeadroom(in))},
		Pos:     c.pos("buffers.headroom")}
	if fixed >= 0 {
		size := fixed
		if cells := c.f.Buffers.Headroom.Cells; cells > 0 {
			size = cells * int64(sw.CellBytes)
		}
		// A fixed headroom keeps xon and gives the rest to xoff, as the
		// platforms that take a size do.
		h.Size = size
		h.Xoff = max(size-h.Xon, 0)
	}
	return h
}

// sourceInputs records which intent fields fed a port class's headroom:
// the speed and cable of the tier the port's link belongs to, the MTUs, and
// the model (for the cell size). A port class shared by links of several
// tiers names the first one met.
func (c *compilation) sourceInputs(h *ir.Headroom, d *ir.Device, p *ir.Port) {
	tier := "topology.nic"
	lower, upper := d.Role, p.Facing
	if lower.Rank() < upper.Rank() {
		lower, upper = upper, lower
	}
	switch {
	case c.f.Topology.Style == "explicit":
		tier = "topology.inventory"
	case upper == ir.RoleSpine:
		tier = "topology.spine"
	case upper == ir.RoleSuperspine:
		tier = "topology.superspine"
	}
	model := "topology.leaf.model"
	switch d.Role {
	case ir.RoleSpine:
		model = "topology.spine"
	case ir.RoleSuperspine:
		model = "topology.superspine"
	}
	at := map[string]diag.Pos{
		"L": c.pos(tier + ".cable"), "S": c.pos(tier + ".speed"), "S_Mbps": c.pos(tier + ".speed"),
		"MTU_port": c.pos("mtu.switch"), "MTU_lossless": c.pos("mtu.host"), "cell": c.pos(model),
	}
	if tier == "topology.inventory" {
		for k := range at {
			if k == "L" || k == "S" || k == "S_Mbps" {
				at[k] = c.pos(tier)
			}
		}
	}
	for i := range h.Derived {
		for j := range h.Derived[i].Inputs {
			in := &h.Derived[i].Inputs[j]
			if pos, ok := at[in.Name]; ok {
				in.Pos = pos
			}
		}
	}
}

// bufferPlan splits one switch model's buffer for one port mix. Where the
// platform holds no share of the buffer for one class (EOS, NX-OS), the
// plan is that of the switch as it runs: nothing reserved, the lossless
// priority groups on the shared pool with the platform's default dynamic
// threshold (the catalog's native defaults), and the intent's reserve kept
// aside as unheld, so that explain, SUMMARY and RF102 describe the buffer
// the switch has.
func (c *compilation) bufferPlan(sw platforms.Switch, s *ir.Switch, counts map[*ir.Headroom]int, lossless int, platform string) *ir.BufferPlan {
	names := slices.Sorted(maps.Keys(c.f.Buffers.Reserve))
	pct := 0
	for _, n := range names {
		pct += c.f.Buffers.Reserve[n]
	}
	var reserves []ir.Reserve
	for _, n := range names {
		k, ok := c.f.Classes[n]
		reserves = append(reserves, ir.Reserve{Class: n, Percent: c.f.Buffers.Reserve[n], Lossless: ok && k.Lossless})
	}
	plan := &ir.BufferPlan{Model: sw.Model, ASIC: sw.ASIC, TotalBytes: sw.BufferBytes, CellBytes: sw.CellBytes,
		Ports: len(s.Ports), AlphaLog2: sw.AlphaLog2, Pos: c.pos("buffers")}
	reserved := physics.ReservedPool(sw.BufferBytes, pct)
	held := c.f.Buffers.Reserve
	native, shared := sw.NativeFor(platform)
	shared = shared || (platform != "" && !platforms.HoldsReserve(platform))
	if shared {
		plan.Shared, plan.AlphaLog2 = true, native.AlphaLog2
		if pct > 0 {
			plan.Unheld, plan.UnheldName, plan.UnheldPercent, plan.UnheldBytes = reserves, strings.Join(names, ", "), pct, reserved.Value
		}
		held = nil
	} else {
		plan.Reserves, plan.ReserveName, plan.ReservePercent, plan.LosslessBytes = reserves, strings.Join(names, ", "), pct, reserved.Value
	}
	var per []int64
	for _, p := range s.Ports {
		per = append(per, p.Headroom.Size)
	}
	// One formula sizes the pool: explain shows it, the budget charges it
	// and renderers write it (EOS headroom-pool limit).
	var classes []physics.PortClassHeadroom
	for _, h := range s.Headrooms {
		if n := counts[h]; n > 0 {
			classes = append(classes, physics.PortClassHeadroom{Name: h.Name, Bytes: h.Size, Ports: n})
		}
	}
	pool := physics.HeadroomPool(classes, lossless)
	plan.HeadroomNeeded = pool.Value
	if caps, ok := platforms.PlatformCapabilities(platform); ok && caps.MaxHeadroomPoolBytes > 0 && pool.Value > caps.MaxHeadroomPoolBytes {
		// The platform configures at most its largest pool: the rest of
		// the need is not held (RF117).
		pool.Formula += "; at most headroom_pool_max"
		pool.Inputs = append(pool.Inputs, physics.Input{Name: "needed", Value: strconv.FormatInt(pool.Value, 10) + " B"},
			physics.Input{Name: "headroom_pool_max", Value: strconv.FormatInt(caps.MaxHeadroomPoolBytes, 10) + " B"})
		pool.Source += "; " + platform + ": " + caps.Elements[platforms.ElementHeadroomCable].Note
		pool.Value = caps.MaxHeadroomPoolBytes
	}
	hp := pool.Value
	plan.HeadroomBytes = hp
	budget, _ := physics.BufferBudget(physics.BudgetInput{BufferBytes: sw.BufferBytes, HeadroomPoolBytes: sw.HeadroomPoolBytes,
		Reserves: held, PortHeadroom: per, LosslessPriorities: lossless})
	fromShared := hp
	if sw.HeadroomPoolBytes > 0 {
		fromShared = 0
	}
	plan.LossyBytes = sw.BufferBytes - plan.LosslessBytes - fromShared
	first := reserved
	plan.PoolBytes = plan.LosslessBytes
	if shared {
		first = physics.SharedPool(sw.BufferBytes, fromShared)
		plan.PoolBytes = first.Value
	}
	// Every port of a switch carries the lossless classes, so all of them
	// can congest at once (all-to-all collectives do): the XOFF point ECN
	// must stay below is that of N congested groups, not of one.
	n := physics.CongestedQueues(len(s.Ports), lossless, c.f.Buffers.CongestedQueues())
	xo := physics.CongestedXoffPoint(plan.PoolBytes, plan.AlphaLog2, int(n.Value))
	if native.Source != "" {
		xo.Source += "; k is the " + platform + " default: " + native.Source
	}
	plan.XoffPoint, plan.CongestedQueues = xo.Value, int(n.Value)
	nd := toIR(n)
	if c.f.Buffers.CongestedQueues() > 0 {
		for i := range nd.Inputs {
			if nd.Inputs[i].Name == "stated" {
				nd.Inputs[i].Pos = c.pos("buffers.congestion.queues")
			}
		}
	}
	plan.Derived = []ir.Derivation{toIR(first), toIR(pool),
		toIR(budget), nd, toIR(xo)}
	if pr := c.ecnPredictions(plan, s, sw.CellBytes, c.rtt); len(pr) > 0 {
		plan.Derived = append(plan.Derived, toIR(c.rtt))
		plan.Derived = append(plan.Derived, pr...)
	}
	return plan
}

// hosts attaches the shared NIC profile to every server.
func (c *compilation) hosts() {
	h := c.f.Hosts
	prof := &ir.HostProfile{NICModel: h.NIC.Model, Tool: h.NIC.Tool, Trust: "dscp", CableM: h.NIC.Cable.Metres,
		MTU: c.f.MTU.Host, CNPDSCP: -1, CNPPriority: -1, Pos: c.pos("hosts")}
	qos := c.fab.FirstSwitchQoS()
	if qos == nil {
		qos = c.qos()
	}
	prof.DSCPToPrio = qos.DSCPToTC
	prof.DefaultPriority = -1
	if qos.DefaultClass != nil {
		prof.DefaultPriority = qos.DefaultClass.Priority
	}
	for tc := range 8 {
		prof.PrioToTC[tc] = tc
		prof.TSA[tc] = "ets"
	}
	for _, cl := range c.fab.Classes {
		if cl.Priority < 0 || cl.Priority > 7 {
			continue
		}
		if cl.Strict {
			prof.TSA[cl.Priority] = "strict"
		} else {
			prof.ETS[cl.Priority] += cl.Bandwidth
		}
		if cl.Lossless {
			prof.PFC[cl.Priority] = true
		}
	}
	if cnp := qos.CNP; cnp != nil && len(cnp.DSCP) > 0 {
		prof.CNPDSCP, prof.CNPPriority = cnp.DSCP[0], cnp.Priority
	}
	prof.DCQCN = ir.DCQCN{Enabled: h.DCQCN.Enabled, Pos: c.pos("hosts.dcqcn")}
	for _, n := range slices.Sorted(maps.Keys(h.DCQCN.Parameters)) {
		prof.DCQCN.Params = append(prof.DCQCN.Params, ir.Param{Name: n, Value: h.DCQCN.Parameters[n]})
	}
	if fe := h.Frontend; fe != nil {
		prof.Frontend, prof.FrontendGbps = fe.Interface, fe.Speed.Gbps
	}
	rdmaNICs := c.rdmaNetdevs()
	for _, name := range slices.Sorted(maps.Keys(h.Shape)) {
		sh := h.Shape[name]
		at := c.pos("hosts.shape." + name)
		cl := c.fab.Class(name)
		if cl == nil {
			c.errorf(at, "hosts.shape.%s: no class named %q: shaping is by class name (classes are %s)",
				name, name, strings.Join(c.classNames(), ", "))
			continue
		}
		s := ir.Shape{Class: cl, Transport: cmp.Or(sh.Transport, ir.TransportTCP), RateBits: sh.Rate.Bits, Pos: at}
		switch s.Transport {
		case ir.TransportTCP:
			if sh.Interface == "" || len(sh.NICs) > 0 {
				c.errorf(at, "hosts.shape.%s: a tcp shape names the one interface its kernel traffic leaves by (interface: hosts.frontend.interface or an RDMA netdev, %s), not nics",
					name, strings.Join(rdmaNICs, ", "))
				continue
			}
			s.Interface, s.Unmarked = sh.Interface, sh.Unmarked == nil || *sh.Unmarked
		case ir.TransportRDMA:
			if sh.Interface != "" || sh.Unmarked != nil {
				c.errorf(at, "hosts.shape.%s: an rdma shape limits the class in the RDMA NICs (nics, default all of %s): interface and unmarked are for tcp",
					name, strings.Join(rdmaNICs, ", "))
				continue
			}
			s.NICs = slices.Clone(sh.NICs)
			if len(s.NICs) == 0 {
				s.NICs = rdmaNICs
			}
		}
		prof.Shaping = append(prof.Shaping, s)
	}
	// Without hosts.frontend, the one interface that tcp shapes name and
	// that is no RDMA NIC is the frontend: the intent says the class's
	// traffic leaves by it (INTENT.md's own example shapes eth0 so). Its
	// speed is then unknown, so RF114 cannot compare the rate with it.
	if prof.Frontend == "" {
		var others []string
		for _, s := range prof.Shaping {
			if s.Transport == ir.TransportTCP && !slices.Contains(rdmaNICs, s.Interface) && !slices.Contains(others, s.Interface) {
				others = append(others, s.Interface)
			}
		}
		if len(others) == 1 {
			prof.Frontend = others[0]
		}
	}
	c.rdmaCM(prof)
	// DCQCN reacts on the priorities whose queues mark ECN and carry RDMA:
	// the lossless classes, and a lossy class rdma_cm QPs or an rdma shape
	// put RDMA in (its only congestion signal is loss otherwise, RF120).
	for _, cl := range c.fab.Classes {
		if cl.Priority < 0 || cl.Priority > 7 || cl.ECN == nil || !h.DCQCN.Enabled {
			continue
		}
		rdma := cl.Lossless || prof.RDMACMClass == cl
		for _, s := range prof.Shaping {
			rdma = rdma || (s.Class == cl && s.Transport == ir.TransportRDMA)
		}
		if rdma && !slices.Contains(prof.ECNPriorities, cl.Priority) {
			prof.ECNPriorities = append(prof.ECNPriorities, cl.Priority)
		}
	}
	hm := toIR(physics.PortMTU(c.f.MTU.Host, 0, "mtu.host; hosts.md §1 (ip link set … mtu)"))
	hm.Inputs[0].Name, hm.Inputs[0].Pos = "mtu_host", c.pos("mtu.host")
	hm.Formula = "mtu = mtu_host"
	prof.Derived = append(prof.Derived, hm)
	speed := c.f.Topology.NIC.Speed.Gbps
	if speed > 0 {
		prof.Derived = append(prof.Derived, toIR(physics.NICHeadroom(speed, prof.CableM, prof.MTU)))
	}
	if nic, ok := platforms.LookupNIC(h.NIC.Model); ok {
		prof.NICModel = nic.Model
		c.nicTool(prof, nic, true)
	}
	c.fab.HostProfile = prof
	for _, d := range c.fab.Devices {
		if d.Host != nil {
			d.Host.Profile = prof
		}
	}
	c.mixedFleet(prof)
}

// mixedFleet gives the servers of another NIC model than the fabric's (an
// explicit inventory's model, or hosts.nic.models) a profile of their
// model: the fabric's, fitted to the model's driver (tool, cable length,
// congestion control), and, unless hosts.nccl.hca names them, the RDMA
// device names the model's driver registers.
func (c *compilation) mixedFleet(prof *ir.HostProfile) {
	byModel := map[string]*ir.HostProfile{}
	fit := func(d *ir.Device, nic platforms.NIC) {
		d.Model = nic.Model
		if nic.Model == prof.NICModel {
			return
		}
		p := byModel[nic.Model]
		if p == nil {
			cp := *prof
			cp.NICModel, cp.CableM, cp.CCKnobs = nic.Model, c.f.Hosts.NIC.Cable.Metres, nil
			c.nicTool(&cp, nic, false)
			p = &cp
			byModel[nic.Model] = p
		}
		d.Host.Profile = p
		if len(c.f.Hosts.NCCL.HCA) == 0 {
			for i := range d.Host.NICs {
				d.Host.NICs[i].HCA = rdmaDevice(nic.RDMADevice, i)
			}
		}
	}
	stated := c.f.Hosts.NIC.Model
	for _, d := range c.fab.Hosts() {
		if d.Model == "" || strings.EqualFold(d.Model, stated) {
			continue
		}
		if nic, ok := platforms.LookupNIC(d.Model); ok {
			fit(d, nic) // an explicit inventory's server; RF109 names unknown models
		}
	}
	models := c.f.Hosts.NIC.Models
	for _, pat := range slices.Sorted(maps.Keys(models)) {
		at := c.in.Pos("hosts", "nic", "models", pat)
		nic, ok := platforms.LookupNIC(models[pat])
		if !ok {
			c.errorf(at, "hosts.nic.models[%q]: %q is not a known NIC model (known: %s)", pat, models[pat], strings.Join(platforms.NICModels(), ", "))
			continue
		}
		names, err := ExpandRange(pat)
		if err != nil {
			c.errorf(at, "hosts.nic.models: %v", err)
			continue
		}
		for _, s := range names {
			d := c.fab.Device(s)
			if d == nil || d.Host == nil {
				c.errorf(at, "hosts.nic.models[%q]: %s is not a server of the fabric", pat, s)
				break
			}
			if d.Model != "" && !strings.EqualFold(d.Model, stated) && !strings.EqualFold(d.Model, nic.Model) {
				c.errorf(at, "hosts.nic.models: %s is given two NIC models, %s and %s", s, d.Model, nic.Model)
				continue
			}
			fit(d, nic)
		}
	}
}

// rdmaNetdevs returns the servers' RDMA netdevs, NIC i on rail i: the
// intent's hosts.nic.ports, or those of the first server the topology made.
func (c *compilation) rdmaNetdevs() []string {
	if ps := c.f.Hosts.NIC.Ports; len(ps) > 0 {
		return slices.Clone(ps)
	}
	for _, d := range c.fab.Devices {
		if d.Host != nil && len(d.Host.NICs) > 0 {
			var out []string
			for _, n := range d.Host.NICs {
				if !slices.Contains(out, n.Port) {
					out = append(out, n.Port)
				}
			}
			return out
		}
	}
	return nil
}

// rdmaCM picks the class rdma_cm QPs are marked with and derives their
// ToS (cma_roce_tos): the intent's hosts.rdmaCM.class; else the class the
// hosts shape over RDMA, since rdma_cm carries NVMe-oF and iSER, storage
// that RF115 keeps off lossless priorities; else the first lossless class.
func (c *compilation) rdmaCM(prof *ir.HostProfile) {
	var cl *ir.Class
	from := "the first lossless class"
	switch r := c.f.Hosts.RDMACM; {
	case r != nil:
		if cl = c.fab.Class(r.Class); cl == nil {
			c.errorf(c.pos("hosts.rdmaCM.class"), "hosts.rdmaCM.class: no class named %q (classes are %s)",
				r.Class, strings.Join(c.classNames(), ", "))
			return
		}
		from = "hosts.rdmaCM.class"
	default:
		for _, s := range prof.Shaping {
			if s.Transport == ir.TransportRDMA {
				cl, from = s.Class, "the class shaped over rdma (hosts.shape."+s.Class.Name+")"
				break
			}
		}
		if cl == nil {
			for _, k := range c.fab.LosslessClasses() {
				if len(k.DSCP) > 0 {
					cl = k
					break
				}
			}
		}
	}
	if cl == nil || len(cl.DSCP) == 0 {
		return
	}
	t := toIR(physics.RoCETOS(cl.DSCP[0]))
	t.Inputs = append(t.Inputs, ir.Input{Name: "class", Value: cl.Name + ", " + from, Pos: cl.Pos})
	prof.RDMACMClass, prof.RoCETOS = cl, int(t.Value)
	prof.Derived = append(prof.Derived, t)
}

func (c *compilation) classNames() []string {
	var out []string
	for _, cl := range c.fab.Classes {
		out = append(out, cl.Name)
	}
	return out
}

// tenants resolves each tenant's class, servers and NCCL environment.
func (c *compilation) tenants() {
	n := c.f.Hosts.NCCL
	for _, name := range slices.Sorted(maps.Keys(c.f.Tenants)) {
		t := c.f.Tenants[name]
		tn := &ir.Tenant{Name: name, ClassName: t.Class, Class: c.fab.Class(t.Class), Library: ir.LibraryNCCL, Pos: c.pos("tenants." + name)}
		if c.f.Hosts.GPU == "amd" {
			tn.Library = ir.LibraryRCCL
		}
		for _, pat := range t.Servers {
			names, err := ExpandRange(pat)
			if err != nil {
				c.errorf(c.pos("tenants."+name+".servers"), "tenants.%s.servers: %v", name, err)
				continue
			}
			for _, s := range names {
				if d := c.fab.Device(s); d != nil && d.Host != nil {
					tn.Servers = append(tn.Servers, s)
				} else {
					tn.UnknownServers = append(tn.UnknownServers, s)
				}
			}
		}
		slices.Sort(tn.Servers)
		tn.Servers = slices.Compact(tn.Servers)
		tc := -1
		var tcd ir.Derivation
		if tn.Class != nil && len(tn.Class.DSCP) > 0 {
			tcd = toIR(physics.NCCLTrafficClass(tn.Class.DSCP[0]))
			tc = int(tcd.Value)
		} else if tn.Class != nil {
			tc = 0
		}
		if n.TrafficClass != nil {
			tc = *n.TrafficClass
			tn.NCCLOverride = true
		}
		env := map[string]string{}
		// A tenant on a lossy class that states no traffic class of its
		// own (a checkpoint writer) is kept off RDMA: NCCL would otherwise
		// send RDMA on a priority PFC does not protect. The fabric-wide
		// NCCL_IB_* settings are not its; its own are RF113's to report.
		tn.NoRDMA = tn.Class != nil && !tn.Class.Lossless && (t.NCCL == nil || t.NCCL.TrafficClass == nil)
		for k, v := range n.Env {
			if !tn.NoRDMA || !strings.HasPrefix(k, "NCCL_IB_") {
				env[k] = v
			}
		}
		if t.NCCL != nil {
			if t.NCCL.TrafficClass != nil {
				tc = *t.NCCL.TrafficClass
			}
			maps.Copy(env, t.NCCL.Env)
			tn.NCCLOverride = true
		}
		tn.TrafficClass = tc
		if tcd.Formula == "" || tcd.Value != int64(tc) {
			// The intent states the traffic class itself.
			tcd = ir.Derivation{Field: "nccl-traffic-class", Value: int64(max(tc, 0)), Formula: "NCCL_IB_TC = as stated",
				Inputs: []ir.Input{{Name: "trafficClass", Value: strconv.Itoa(tc), Pos: tn.Pos}},
				Source: "hosts.nccl.trafficClass or tenants.<name>.nccl.trafficClass"}
		}
		tcd.Field = "nccl-traffic-class[" + name + "]"
		if tn.NoRDMA {
			// NCCL_IB_DISABLE=1 makes NCCL use its socket transport
			// (NVIDIA NCCL environment variables, NCCL_IB_DISABLE).
			env["NCCL_IB_DISABLE"] = "1"
		} else {
			tn.Derived = []ir.Derivation{tcd}
			env["NCCL_IB_TC"] = strconv.Itoa(max(tc, 0))
			if n.GIDIndex != nil {
				// Only a stated index is forced: NCCL 2.21.5 and later pick
				// the RoCE v2 GID of the interface's address family
				// themselves (hosts.md §4), where a fixed 3 breaks on a
				// host whose GID table is ordered differently.
				env["NCCL_IB_GID_INDEX"] = strconv.Itoa(*n.GIDIndex)
			}
			env["NCCL_IB_TIMEOUT"] = strconv.Itoa(n.Timeout)
			hcas := n.HCA
			if len(hcas) == 0 {
				hcas = c.tenantHCAs(tn)
			}
			env["NCCL_IB_HCA"] = strings.Join(hcas, ",")
		}
		for _, k := range slices.Sorted(maps.Keys(env)) {
			tn.Env = append(tn.Env, ir.EnvVar{Name: k, Value: env[k]})
		}
		c.fab.Tenants = append(c.fab.Tenants, tn)
	}
}

// ExpandRange expands a server pattern of the intent, a hostlist
// expression such as "gpu-[0000-0191]" (ir.ExpandHostlist, which keeps the
// zero padding), and checks that every name it stands for is a device name.
func ExpandRange(p string) ([]string, error) {
	names, err := ir.ExpandHostlist(p)
	if err != nil {
		return nil, fmt.Errorf("invalid server range %q: want prefix[first-last]suffix with first <= last, e.g. gpu-[0000-0191]: %v", p, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("invalid server name %q: names are %s", p, schema.NameForms)
	}
	for _, n := range names {
		if !schema.ValidName(n) {
			return nil, fmt.Errorf("invalid server name %q: names are %s", n, schema.NameForms)
		}
	}
	return names, nil
}

var _ = diag.Error

// nicTool fits the profile to the NIC model's driver: the tool that sets
// its QoS (the model's first unless the intent names one it takes), and no
// cable length for a driver that takes none (its receive buffer is the
// firmware's; RF117 says so).
//
// strict says the intent's hosts.nic.tool is for this model, so that a
// tool the model does not take is an error; for the models of a mixed
// fleet it is kept where the model takes it and replaced otherwise.
func (c *compilation) nicTool(prof *ir.HostProfile, nic platforms.NIC, strict bool) {
	if len(nic.Tools) == 0 {
		gap, _ := nic.Gap("nic-qos")
		c.errorf(c.pos("hosts.nic.model"), "hosts.nic.model: %s: rocefab cannot configure this NIC's trust, DSCP map, ETS and PFC: %s",
			nic.Model, gap)
		return
	}
	switch {
	case !c.in.Has("hosts", "nic", "tool"), !strict && !slices.Contains(nic.Tools, prof.Tool):
		prof.Tool = nic.Tools[0]
	case !slices.Contains(nic.Tools, prof.Tool):
		c.errorf(c.pos("hosts.nic.tool"), "hosts.nic.tool: %q does not configure a %s (%s driver); allowed: %s",
			prof.Tool, nic.Model, nic.Driver, strings.Join(nic.Tools, ", "))
	}
	if _, none := nic.Gap("cable-length"); none {
		prof.CableM = 0
	}
	if nic.TCLayout == "roce-tc1-cnp-tc2" {
		c.roceCNPLayout(prof)
	}
	prof.CCKnobs = c.ccKnobs(prof, nic)
}

// roceCNPLayout maps the priorities onto the traffic classes bnxt_re
// requires (bnxt_re README, DCB Settings: TC0 L2 traffic, TC1 RoCE, TC2
// CNP and L2 traffic; ETS on TC0 and TC1, strict from TC2 as its example
// sets): the first lossless class's priority on TC1 with its share, the
// CNP class and every strict class on TC2, the other priorities on TC0
// with the rest of the shares.
func (c *compilation) roceCNPLayout(prof *ir.HostProfile) {
	roce := -1
	if cs := c.fab.LosslessClasses(); len(cs) > 0 {
		roce = cs[0].Priority
	}
	var prioTC [8]int
	var tsa [8]string
	var ets [8]int
	for tc := range 8 {
		tsa[tc] = "strict"
	}
	tsa[0], tsa[1] = "ets", "ets"
	for _, cl := range c.fab.Classes {
		switch {
		case cl.Priority < 0 || cl.Priority > 7:
		case cl.Priority == roce:
			prioTC[cl.Priority], ets[1] = 1, ets[1]+cl.Bandwidth
		case cl.Strict || cl.Priority == prof.CNPPriority:
			prioTC[cl.Priority] = 2
		default:
			ets[0] += cl.Bandwidth
		}
	}
	prof.PrioToTC, prof.TSA, prof.ETS = prioTC, tsa, ets
}

// ccKnobs are the congestion-control settings of a NIC driver with an
// interface of its own. bnxt_re (Broadcom bnxt_re README, Congestion
// Control; configfs.c): ecn_enable turns congestion control on, cc_mode 1
// is DCQCN-P, roce_dscp and cnp_dscp mark RoCE and CNP packets, all read
// back and written in hex ("%#x": 0 prints as 0) and applied with apply;
// the RoCE and CNP priorities follow from the DSCP map (dcb app), which the
// driver checks them against, so roce_prio and cnp_prio are not written.
// irdma (Intel irdma README, ECN Configuration): roce_dcqcn_enable 1 or 0.
func (c *compilation) ccKnobs(prof *ir.HostProfile, nic platforms.NIC) []ir.CCKnob {
	on := prof.DCQCN.Enabled
	switch nic.CCInterface {
	case "bnxt_re-configfs":
		hex := func(v int) string {
			if v == 0 {
				return "0"
			}
			return fmt.Sprintf("%#x", v)
		}
		ks := []ir.CCKnob{{Driver: "bnxt_re", Name: "ecn_enable", Value: hex(b2i(on))}}
		if on {
			ks = append(ks, ir.CCKnob{Driver: "bnxt_re", Name: "cc_mode", Value: hex(1)})
		}
		for _, cl := range c.fab.LosslessClasses() {
			if len(cl.DSCP) > 0 {
				ks = append(ks, ir.CCKnob{Driver: "bnxt_re", Name: "roce_dscp", Value: hex(cl.DSCP[0])})
				break
			}
		}
		if prof.CNPDSCP >= 0 {
			ks = append(ks, ir.CCKnob{Driver: "bnxt_re", Name: "cnp_dscp", Value: hex(prof.CNPDSCP)})
		}
		return ks
	case "irdma-configfs":
		return []ir.CCKnob{{Driver: "irdma", Name: "roce_dcqcn_enable", Value: strconv.Itoa(b2i(on))}}
	}
	return nil
}

// rdmaDeviceName is the RDMA device the kernel gives NIC i of the host NIC
// model (mlx5_0, bnxt_re0, irdma0, ionic_0): the default NCCL_IB_HCA.
func (c *compilation) rdmaDeviceName(i int) string {
	pattern := "mlx5_%d"
	if nic, ok := platforms.LookupNIC(c.f.Hosts.NIC.Model); ok {
		pattern = nic.RDMADevice
	}
	return rdmaDevice(pattern, i)
}

// rdmaDevice is RDMA device i of a driver's name pattern ("bnxt_re%d").
func rdmaDevice(pattern string, i int) string {
	return strings.Replace(pattern, "%d", strconv.Itoa(i), 1)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tenantHCAs are the RDMA devices of the tenant's servers (of every
// server for a tenant on any), each once, server by server and each
// server's in rail order: one list for a fleet of one NIC model, both
// drivers' names for a mixed one. NCCL_IB_HCA names devices that a server
// lacks harmlessly: it uses those it has.
func (c *compilation) tenantHCAs(tn *ir.Tenant) []string {
	var out []string
	seen := map[string]bool{}
	add := func(d *ir.Device) {
		for i, nic := range d.Host.NICs {
			h := nic.HCA
			if h == "" {
				h = c.rdmaDeviceName(i)
			}
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	if len(tn.Servers) > 0 {
		for _, s := range tn.Servers {
			add(c.fab.Device(s))
		}
	} else {
		for _, d := range c.fab.Hosts() {
			add(d)
		}
	}
	if len(out) == 0 {
		for i := range c.f.Topology.Rails {
			out = append(out, c.rdmaDeviceName(i))
		}
	}
	return out
}
