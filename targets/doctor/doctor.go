// Package doctor diagnoses a running fabric from its counters: it joins
// the rates of a telemetry window to the compiled model's ports, cables
// and queue plan, traces a pause storm upstream to the port that sends
// pauses without receiving any, and reports link errors on either end of a
// cable, NICs that ignore CNPs, drops on lossless queues and the storms a
// switch's PFC watchdog detected, each with
// the servers, tenants and scheduler blocks it touches. The diagnosis is
// a pure function of the model and the rates.
package doctor

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/telemetry"
)

// Options are the thresholds of a diagnosis.
type Options struct {
	// PauseRate is the rate of pause frames per second above which a port
	// counts as sending or receiving pauses. A pause frame with the
	// largest quanta (65535 x 512 bit times) holds a 400 Gbit/s link for
	// about 84 us, and a receiver that stays over XOFF refreshes it before
	// it expires, so a port held off continuously sends thousands per
	// second; an incast burst that the ECN loop absorbs sends a few.
	PauseRate float64
	// DrainShare is the share of its line rate below which a port that
	// sends pauses is not draining what it receives (a gray failure)
	// rather than congested.
	DrainShare float64
	// CNPRate is the rate of CNPs a NIC ignores, per second, above which
	// its DCQCN counts as off. A NIC with DCQCN on ignores none.
	CNPRate float64
}

// DefaultOptions are the thresholds rocefab doctor uses unless told.
func DefaultOptions() Options { return Options{PauseRate: 1000, DrainShare: 0.1, CNPRate: 1} }

// Kinds of finding.
const (
	KindPauseStorm    = "pause-storm"
	KindLinkErrors    = "link-errors"
	KindCNPIgnored    = "cnp-ignored"
	KindLosslessDrops = "lossless-drops"
	KindPFCWatchdog   = "pfc-watchdog"
)

// Causes of a pause storm's origin and of link errors.
const (
	// CauseNotDraining: the origin sends pauses while it carries almost
	// nothing (pauses without throughput, the gray failure).
	CauseNotDraining = "not-draining"
	// CauseNoECN: the origin's lossless queues fire PFC while marking no
	// ECN, so DCQCN never slows the senders (ECN above the XOFF point).
	CauseNoECN = "pfc-without-ecn"
	// CauseCongestion: the origin drains at line rate and still pauses.
	CauseCongestion = "congestion"
	CauseFlaps      = "carrier-flaps"
	CauseFCS        = "fcs-errors"
	CauseSymbol     = "symbol-errors"
	// CauseDCQCNOff: a NIC's reaction point ignores the CNPs it receives.
	CauseDCQCNOff = "dcqcn-off"
	// CauseQueueDrops: a switch's lossless egress queue drops packets.
	CauseQueueDrops = "queue-drops"
	// CauseNICDiscards: a NIC discards packets of a lossless priority for
	// lack of receive buffer.
	CauseNICDiscards = "nic-discards"
	// CauseStormDetected: a switch's PFC watchdog found a lossless queue
	// paused by its peer for longer than its detection time.
	CauseStormDetected = "storm-detected"
)

// Endpoint is one port of the fabric.
type Endpoint struct {
	Device string `json:"device"`
	Port   string `json:"port,omitempty"`
}

func (e Endpoint) String() string {
	if e.Port == "" {
		return e.Device
	}
	return e.Device + ":" + e.Port
}

// Evidence is one counter's rate that a finding rests on.
type Evidence struct {
	Series    string            `json:"series"`
	Counter   telemetry.Counter `json:"counter"`
	PerSecond float64           `json:"perSecond"`
	Seconds   float64           `json:"windowSeconds"`
}

// Victim is a port that receives pauses because of an origin, with the
// path the storm took from the origin to it.
type Victim struct {
	Endpoint
	// Path runs from the origin's port to this one, port by port across
	// cables and devices.
	Path []string `json:"path"`
	// Propagates is set when the victim's device sends pauses itself,
	// passing the storm further upstream.
	Propagates bool `json:"propagates"`
}

// Finding is one diagnosis.
type Finding struct {
	Kind  string `json:"kind"`
	Cause string `json:"cause"`
	// Origin is the device (and, where one port is at fault, the port)
	// the finding names as the cause; for link errors, the end that
	// counts them.
	Origin Endpoint `json:"origin"`
	// Ports are the origin's ports that send pauses.
	Ports []string `json:"ports,omitempty"`
	// Peer is the other end of a faulty cable.
	Peer     *Endpoint  `json:"peer,omitempty"`
	Message  string     `json:"message"`
	Evidence []Evidence `json:"evidence"`
	Victims  []Victim   `json:"victims,omitempty"`
	// Touches are the servers, tenants and scheduler blocks the finding
	// reaches.
	Touches Touches `json:"touches"`
	// Drain are the servers a quarantine drains: the server whose NIC is
	// at fault or sits behind a faulty cable, sorted.
	Drain []string `json:"drain,omitempty"`
	// Shut is the switch port a quarantine shuts: a faulty cable's
	// switch end.
	Shut *Endpoint `json:"shut,omitempty"`
}

// Report is the outcome of a diagnosis.
type Report struct {
	Fabric string `json:"fabric"`
	// Seconds is the longest window a rate was taken over.
	Seconds float64 `json:"windowSeconds"`
	// Rates counts the counters with a rate that name a port of the
	// fabric; Unmatched those naming a device or port the fabric lacks.
	Rates     int       `json:"rates"`
	Unmatched int       `json:"unmatched"`
	Findings  []Finding `json:"findings"`
}

// port is what doctor knows of one port from the model. A 100,000-GPU
// fabric has 600,000 of them, all alive while the window is: its fields
// are ordered so that none is padded, and rate holds only the counters
// summed per second.
type port struct {
	ep    Endpoint
	peer  Endpoint
	peerP *port // the port at the other end of the cable, nil if the fabric lacks it
	dev   *device
	// rate sums the port's counters per second, by rateSlot of the
	// counter: pauses, bytes, the NIC's CNPs (rateOf reads it).
	rate [rated]float64
	errs [3]float64 // increases over the window: FCS, symbol, carrier
	// drops is the increase of lossless drops over the window.
	drops float64
	// storms is the increase of the storms the port's PFC watchdog
	// detected on its lossless queues over the window.
	storms float64
	// mac holds the pause frames per second the port counts without a
	// priority (OpenConfig's MAC PAUSE counters), received and sent, and
	// prio whether it counts them per priority too: a port with
	// per-priority PFC counters is read from those alone, since whether
	// a NOS's MAC PAUSE counter also counts PFC frames is the NOS's
	// choice, and adding both would count a frame twice.
	mac     [2]float64
	gbps    int32
	nic     bool
	hasPeer bool
	prio    [2]bool
	// cited is set when a finding cites this port's series, so the
	// second walk of the rates keeps them.
	cited bool
	// cable is set once linkErrors has looked at the port's cable (a
	// flag rather than a set of half a million ports).
	cable bool
}

// ratedCounters are the counters a port sums per second, in port.rate;
// it sums the others otherwise (errors, drops, storms) or on its device
// (ECN marks).
var ratedCounters = [...]telemetry.Counter{telemetry.RxPause, telemetry.TxPause, telemetry.RxBytes, telemetry.TxBytes,
	telemetry.CNPSent, telemetry.CNPHandled, telemetry.CNPIgnored}

// rated is the number of counters in port.rate.
const rated = len(ratedCounters)

// rateSlot places each counter in port.rate, -1 for those not there.
var rateSlot = func() (s [telemetry.Counters]int8) {
	for c := range s {
		s[c] = -1
	}
	for i, c := range ratedCounters {
		s[c] = int8(i)
	}
	return s
}()

// rateOf is the port's rate of counter c per second.
func (p *port) rateOf(c telemetry.Counter) float64 {
	if s := rateSlot[c]; s >= 0 {
		return p.rate[s]
	}
	return 0
}

// device gathers a device's ports and queue plan.
type device struct {
	name     string
	ports    []*port
	byName   map[string]*port
	lossless [8]bool
	// queuePrio maps an egress queue's name (its number or its class) to
	// the priority it carries.
	queuePrio map[string]int
	// hca maps a server's RDMA devices to their netdevs.
	hca map[string]string
	// counted caches, by the window's queue number, whether the
	// device's counters of that queue count (countsQueue).
	counted []uint8
	ecn     float64
	ecnSeen bool
	cited   bool
}

// cite names the series a finding rests on: a port's counter, or (port
// nil) the ECN marks of a device's lossless queues. positive keeps only
// the series that counted in the window.
type cite struct {
	p        *port
	dev      *device
	counter  telemetry.Counter
	positive bool
}

// Diagnose joins the window's rates to fab and returns the findings,
// sorted by kind and origin. It never fails: counters it cannot place are
// counted in Report.Unmatched.
//
// It walks the rates twice: once summing them per port, which is all the
// diagnosis needs, and once more for the series the findings cite, so
// that a window of millions of series is never copied into evidence.
func Diagnose(fab *ir.Fabric, w *telemetry.Window, opt Options) Report {
	return NewModel(fab).Diagnose(w, opt)
}

// Model is a fabric prepared for diagnosis: its ports, cables and queue
// plan indexed once. Preparing it needs no counter, so a caller may
// prepare it while it reads them (a 100,000-GPU fabric takes half a
// second).
type Model struct {
	fab  *ir.Fabric
	m    *model
	used bool
}

// NewModel prepares fab for diagnosis.
func NewModel(fab *ir.Fabric) *Model { return &Model{fab: fab, m: newModel(fab)} }

// Diagnose is Diagnose on the model's fabric. A model diagnoses one
// window at a time; each call starts afresh.
func (md *Model) Diagnose(w *telemetry.Window, opt Options) Report {
	fab, m := md.fab, md.m
	if md.used {
		m.reset()
	}
	md.used = true
	m.w, m.byRef, m.byDev = w, make([]*port, w.Ports()), make([]*device, w.Devices())
	if opt.PauseRate <= 0 {
		opt.PauseRate = DefaultOptions().PauseRate
	}
	if opt.DrainShare <= 0 {
		opt.DrainShare = DefaultOptions().DrainShare
	}
	if opt.CNPRate <= 0 {
		opt.CNPRate = DefaultOptions().CNPRate
	}
	rep := Report{Fabric: fab.Name, Findings: []Finding{}}
	// Sum the rates on two cores, each taking the window's devices of
	// one parity: what a rate adds to (its port, its device, its entry
	// of byRef) belongs to one device, so the halves share nothing, and
	// each port sums its rates in the window's order as one walk would.
	var halves [2]Report
	inHalves(w, func(h int, mine []bool) {
		for r := range w.RatesAt(mine) {
			if m.add(r) {
				halves[h].Rates++
				halves[h].Seconds = max(halves[h].Seconds, r.Seconds)
			} else {
				halves[h].Unmatched++
			}
		}
	})
	m.settlePauses()
	for _, h := range halves {
		rep.Rates += h.Rates
		rep.Unmatched += h.Unmatched
		rep.Seconds = max(rep.Seconds, h.Seconds)
	}
	var cites [][]cite
	// The rules read the sums and share nothing they write (linkErrors
	// alone marks the cables it has seen): two cores walk the ports at
	// once, and the findings come in the order of one walk.
	var found, atPort []finding
	var wg sync.WaitGroup
	wg.Go(func() { found = slices.Concat(m.storms(opt), m.linkErrors()) })
	atPort = slices.Concat(m.cnpIgnored(opt, fab.HostProfile != nil && fab.HostProfile.DCQCN.Enabled), m.losslessDrops(), m.pfcWatchdog())
	wg.Wait()
	found = append(found, atPort...)
	var rc *reach
	for _, f := range found {
		if rc == nil {
			rc = newReach(fab)
		}
		f.Touches = rc.touches(m, &f.Finding)
		for _, d := range f.drain {
			f.Drain = append(f.Drain, d.name)
		}
		slices.Sort(f.Drain)
		f.Drain = slices.Compact(f.Drain)
		rep.Findings = append(rep.Findings, f.Finding)
		cites = append(cites, f.cites)
	}
	m.evidence(w, rep.Findings, cites)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		slices.SortStableFunc(f.Evidence, func(a, b Evidence) int {
			return cmp.Or(cmp.Compare(a.Counter, b.Counter), cmp.Compare(a.Series, b.Series))
		})
	}
	slices.SortFunc(rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Origin.String(), b.Origin.String()))
	})
	return rep
}

// finding is a finding with the series it cites, before their evidence is
// gathered.
type finding struct {
	Finding
	cites []cite
	// drain are the servers a quarantine drains.
	drain []*device
}

type model struct {
	devices map[string]*device
	// all and devs hold every port and device; names are the devices'
	// names, sorted, the order the rules walk them in.
	all   []port
	devs  []device
	names []string
	// w is the window being diagnosed.
	w *telemetry.Window
	// byRef resolves the window's port numbers: nil until resolved,
	// unknown when the fabric lacks the port.
	byRef []*port
	// byDev resolves the window's device numbers (Window.PortDevice):
	// nil until resolved, unknownDev when the fabric lacks the device.
	// A device is looked up by name once rather than once per port.
	byDev []*device
}

// unknown marks a window port the fabric lacks in model.byRef.
var unknown = &port{}

// unknownDev marks a window device the fabric lacks in model.byDev.
var unknownDev = &device{}

func newModel(fab *ir.Fabric) *model {
	nports := 0
	for _, d := range fab.Devices {
		if d.Switch != nil {
			nports += len(d.Switch.Ports)
		} else if d.Host != nil {
			nports += len(d.Host.NICs)
		}
	}
	m := &model{devices: make(map[string]*device, len(fab.Devices))}
	// One allocation for every port and every device of the fabric,
	// rather than one per port.
	all := make([]port, 0, nports)
	devs := make([]device, len(fab.Devices))
	for i, d := range fab.Devices {
		dv := &devs[i]
		dv.name, dv.queuePrio = d.Name, map[string]int{}
		m.devices[d.Name] = dv
		addPort := func(name, peer, peerPort string, gbps int, nic bool) {
			all = append(all, port{ep: Endpoint{d.Name, name}, peer: Endpoint{peer, peerPort}, dev: dv, gbps: int32(gbps), nic: nic, hasPeer: peer != ""})
			p := &all[len(all)-1]
			dv.ports = append(dv.ports, p)
		}
		switch {
		case d.Switch != nil:
			for _, p := range d.Switch.Ports {
				addPort(p.Name, p.Peer, p.PeerPort, p.SpeedGbps, false)
			}
			if q := d.Switch.QoS; q != nil {
				for _, pr := range q.PFC {
					if pr >= 0 && pr < 8 {
						dv.lossless[pr] = true
					}
				}
				for _, qu := range q.Queues {
					if qu.Class == nil {
						continue
					}
					dv.queuePrio[strconv.Itoa(qu.ID)] = qu.Class.Priority
					dv.queuePrio[strings.ToLower(qu.Class.Name)] = qu.Class.Priority
				}
			}
		case d.Host != nil:
			for _, n := range d.Host.NICs {
				addPort(n.Port, n.Peer, n.PeerPort, n.SpeedGbps, true)
				if n.HCA != "" {
					if dv.hca == nil {
						dv.hca = map[string]string{}
					}
					dv.hca[n.HCA] = n.Port
				}
			}
			if pr := d.Host.Profile; pr != nil {
				dv.lossless = pr.PFC
			}
		}
	}
	for i := range devs {
		dv := &devs[i]
		dv.byName = make(map[string]*port, len(dv.ports))
		for _, p := range dv.ports {
			dv.byName[p.ep.Port] = p
		}
	}
	for i := range all {
		if p := &all[i]; p.hasPeer {
			p.peerP = m.port(p.peer)
		}
	}
	m.all, m.devs, m.names = all, devs, slices.Sorted(maps.Keys(m.devices))
	return m
}

// reset clears what a diagnosis summed and marked.
func (m *model) reset() {
	for i := range m.all {
		p := &m.all[i]
		p.rate, p.errs, p.drops, p.cited, p.cable = [rated]float64{}, [3]float64{}, 0, false, false
		p.storms, p.mac, p.prio = 0, [2]float64{}, [2]bool{}
	}
	for i := range m.devs {
		d := &m.devs[i]
		d.ecn, d.ecnSeen, d.cited, d.counted = 0, false, false, nil
	}
}

// port returns the fabric's port e, nil if it lacks it. A map per
// device stays in the cache where one map of every port of a
// 100,000-GPU fabric (half a million) would not.
func (m *model) port(e Endpoint) *port {
	dv := m.devices[e.Device]
	if dv == nil {
		return nil
	}
	return dv.byName[e.Port]
}

// resolve finds the port a rate names, once per port of the window.
func (m *model) resolve(r telemetry.Rate) *port {
	ref := r.Port
	if ref >= 0 && ref < len(m.byRef) {
		if p := m.byRef[ref]; p != nil {
			if p == unknown {
				return nil
			}
			return p
		}
	}
	p := m.lookup(r.Key(), ref)
	if ref >= 0 && ref < len(m.byRef) {
		m.byRef[ref] = cmp.Or(p, unknown)
	}
	return p
}

func (m *model) lookup(k telemetry.Key, ref int) *port {
	dv := m.device(k.Device, ref)
	if dv == nil {
		return nil
	}
	name := k.Port
	if k.HCA {
		if name = dv.hca[k.Port]; name == "" {
			return nil
		}
	}
	return dv.byName[name]
}

// device returns the fabric's device of the window's port ref, named
// name, once per device of the window.
func (m *model) device(name string, ref int) *device {
	d := -1
	if m.w != nil && ref >= 0 && ref < m.w.Ports() {
		d = m.w.PortDevice(ref)
	}
	if d >= 0 && d < len(m.byDev) {
		if dv := m.byDev[d]; dv != nil {
			if dv == unknownDev {
				return nil
			}
			return dv
		}
	}
	dv := m.devices[name]
	if d >= 0 && d < len(m.byDev) {
		m.byDev[d] = cmp.Or(dv, unknownDev)
	}
	return dv
}

// counts tells whether a rate counts toward the diagnosis: the pauses,
// ECN marks and drops of a priority or queue count only where it is
// lossless (pauses elsewhere are not PFC's, and a lossy queue may drop).
func counts(p *port, k telemetry.Key) bool {
	return countsQueue(p, k.Counter, k.Priority, k.Queue, 0, 0)
}

// countsQueue is counts for a rate of the window's queue number q
// (Rate.Queue) of queues: whether a queue of a device counts is looked up
// once per device and queue rather than once per counter.
func countsQueue(p *port, c telemetry.Counter, priority int8, queue string, q, queues int) bool {
	switch c {
	case telemetry.TxPause, telemetry.RxPause, telemetry.ECNMarks, telemetry.Drops, telemetry.WatchdogStorms:
	default:
		return true
	}
	dv := p.dev
	pr := int(priority)
	if queue == "" {
		return pr == telemetry.AnyPriority || (pr >= 0 && pr < 8 && dv.lossless[pr])
	}
	cache := q > 0 && q < queues
	if cache {
		if dv.counted == nil {
			dv.counted = make([]uint8, queues)
		}
		// 0: not yet known; 1: counts; 2: does not.
		if c := dv.counted[q]; c != 0 {
			return c == 1
		}
	}
	pr, ok := dv.queuePrio[strings.ToLower(queue)]
	ok = ok && (pr == telemetry.AnyPriority || (pr >= 0 && pr < 8 && dv.lossless[pr]))
	if cache {
		dv.counted[q] = 2
		if ok {
			dv.counted[q] = 1
		}
	}
	return ok
}

// add places one rate on its port; false when the fabric has no such port.
func (m *model) add(r telemetry.Rate) bool {
	p := m.resolve(r)
	if p == nil {
		return false
	}
	if !countsQueue(p, r.Counter, r.Priority, m.w.QueueName(r.Queue), r.Queue, m.w.Queues()) {
		return true
	}
	switch r.Counter {
	case telemetry.RxErrors, telemetry.Symbol, telemetry.Carrier:
		p.errs[r.Counter-telemetry.RxErrors] += r.PerSecond * r.Seconds
	case telemetry.Drops:
		p.drops += r.PerSecond * r.Seconds
	case telemetry.WatchdogStorms:
		p.storms += r.PerSecond * r.Seconds
	case telemetry.RxPause, telemetry.TxPause:
		d := r.Counter - telemetry.RxPause
		if r.Priority == telemetry.AnyPriority {
			p.mac[d] += r.PerSecond
		} else {
			p.prio[d] = true
			p.rate[rateSlot[r.Counter]] += r.PerSecond
		}
	case telemetry.ECNMarks:
		p.dev.ecnSeen = true
		p.dev.ecn += r.PerSecond
	default:
		if int(r.Counter) < len(rateSlot) && rateSlot[r.Counter] >= 0 {
			p.rate[rateSlot[r.Counter]] += r.PerSecond
		}
	}
	return true
}

// settlePauses adds each port's pauses counted without a priority to its
// pause rates, unless the port counts them per priority (mac).
func (m *model) settlePauses() {
	for i := range m.all {
		p := &m.all[i]
		for d := range p.mac {
			if !p.prio[d] {
				p.rate[rateSlot[telemetry.RxPause+telemetry.Counter(d)]] += p.mac[d]
			}
		}
	}
}

// superseded tells whether a pause rate counted without a priority was
// left out of its port's rates for the per-priority ones (mac).
func superseded(p *port, k telemetry.Key) bool {
	return (k.Counter == telemetry.RxPause || k.Counter == telemetry.TxPause) && k.Priority == telemetry.AnyPriority && p.prio[k.Counter-telemetry.RxPause]
}

// evidence walks the rates again and gives each finding the series it
// cites.
func (m *model) evidence(w *telemetry.Window, findings []Finding, cites [][]cite) {
	want := map[citeKey]bool{}
	for _, cs := range cites {
		for _, c := range cs {
			if c.p != nil {
				c.p.cited = true
			} else {
				c.dev.cited = true
			}
			want[citeKey{c.p, c.dev, c.counter}] = true
		}
	}
	if len(want) == 0 {
		return
	}
	// One more walk of the window, on two cores as the sums', rather
	// than a lookup per cited port: the cited ports are resolved already.
	// The halves' evidence is joined in no particular order, since each
	// finding's is sorted by counter and series (unique to a point).
	var got [2]map[citeKey][]Evidence
	inHalves(w, func(h int, mine []bool) {
		got[h] = map[citeKey][]Evidence{}
		cited := make([]bool, len(mine))
		for ref, p := range m.byRef {
			cited[ref] = p != nil && p != unknown && (p.cited || p.dev.cited) && mine[ref]
		}
		for r := range w.RatesAt(cited) {
			k := r.Key()
			if p := m.byRef[r.Port]; counts(p, k) && !superseded(p, k) {
				keep(got[h], want, p, k, r)
			}
		}
	})
	for i, cs := range cites {
		f := &findings[i]
		for _, c := range cs {
			for _, half := range got {
				for _, ev := range half[citeKey{c.p, c.dev, c.counter}] {
					if !c.positive || ev.PerSecond > 0 {
						f.Evidence = append(f.Evidence, ev)
					}
				}
			}
		}
		if f.Evidence == nil {
			f.Evidence = []Evidence{}
		}
	}
}

// inHalves runs f on two cores, each taking the window's devices of one
// parity (h), whose ports mine marks (numbered as Rate.Port): what a
// device's rates add to belongs to that device, so the halves share
// nothing.
func inHalves(w *telemetry.Window, f func(h int, mine []bool)) {
	var wg sync.WaitGroup
	for h := range 2 {
		wg.Go(func() {
			mine := make([]bool, w.Ports())
			for ref := range mine {
				mine[ref] = w.PortDevice(ref)%2 == h
			}
			f(h, mine)
		})
	}
	wg.Wait()
}

// citeKey names what a cite asks for: a port's counter, or a device's
// ECN marks.
type citeKey struct {
	p       *port
	dev     *device
	counter telemetry.Counter
}

// keep keeps one rate as evidence if a finding asks for it.
func keep(got map[citeKey][]Evidence, want map[citeKey]bool, p *port, k telemetry.Key, r telemetry.Rate) {
	kk := citeKey{p: p, counter: k.Counter}
	if k.Counter == telemetry.ECNMarks {
		kk = citeKey{dev: p.dev, counter: k.Counter}
	}
	if want[kk] {
		got[kk] = append(got[kk], Evidence{Series: r.Series().String(), Counter: k.Counter, PerSecond: r.PerSecond, Seconds: r.Seconds})
	}
}

// Prepare builds the model of the fabric load returns while read gathers
// the counters: neither needs the other, and reading leaves a core partly
// idle. load's error is returned before read's, since counters of a fabric
// that does not compile cannot be diagnosed.
func Prepare(load func() (*ir.Fabric, error), read func() (*telemetry.Window, error)) (*Model, *telemetry.Window, error) {
	type prepared struct {
		md  *Model
		err error
	}
	ready := make(chan prepared, 1)
	go func() {
		fab, err := load()
		if err != nil {
			ready <- prepared{err: err}
			return
		}
		ready <- prepared{md: NewModel(fab)}
	}()
	w, readErr := read()
	p := <-ready
	if p.err != nil {
		return nil, nil, p.err
	}
	if readErr != nil {
		return nil, nil, readErr
	}
	return p.md, w, nil
}
