// Package doctor diagnoses a running fabric from its counters: it joins
// the rates of a telemetry window to the compiled model's ports, cables
// and queue plan, traces a pause storm upstream to the port that sends
// pauses without receiving any, and reports link errors on either end of a
// cable. The diagnosis is a pure function of the model and the rates.
package doctor

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

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
}

// DefaultOptions are the thresholds rocefab doctor uses unless told.
func DefaultOptions() Options { return Options{PauseRate: 1000, DrainShare: 0.1} }

// Kinds of finding.
const (
	KindPauseStorm = "pause-storm"
	KindLinkErrors = "link-errors"
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

// port is what doctor knows of one port from the model.
type port struct {
	ep       Endpoint
	peer     Endpoint
	gbps     int
	nic      bool
	hasPeer  bool
	txPause  float64
	rxPause  float64
	rxBytes  float64
	txBytes  float64
	evidence map[telemetry.Counter][]Evidence
	errs     [3]float64 // increases over the window: FCS, symbol, carrier
}

// device gathers a device's ports and queue plan.
type device struct {
	name     string
	ports    []*port
	lossless [8]bool
	// queuePrio maps an egress queue's name (its number or its class) to
	// the priority it carries.
	queuePrio map[string]int
	ecn       float64
	ecnSeen   bool
	ecnEv     []Evidence
}

// Diagnose joins the rates to fab and returns the findings, sorted by
// kind and origin. It never fails: counters it cannot place are counted in
// Report.Unmatched.
func Diagnose(fab *ir.Fabric, rates map[telemetry.Key]telemetry.Rate, opt Options) Report {
	if opt.PauseRate <= 0 {
		opt.PauseRate = DefaultOptions().PauseRate
	}
	if opt.DrainShare <= 0 {
		opt.DrainShare = DefaultOptions().DrainShare
	}
	m := newModel(fab)
	rep := Report{Fabric: fab.Name, Findings: []Finding{}}
	for k, r := range rates {
		if m.add(k, r) {
			rep.Rates++
			rep.Seconds = max(rep.Seconds, r.Seconds)
		} else {
			rep.Unmatched++
		}
	}
	rep.Findings = append(rep.Findings, m.storms(opt)...)
	rep.Findings = append(rep.Findings, m.linkErrors()...)
	// Rates come from a map: order what came from it.
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

type model struct {
	devices map[string]*device
	ports   map[Endpoint]*port
	// hca maps a server's RDMA device to its netdev.
	hca map[Endpoint]string
}

func newModel(fab *ir.Fabric) *model {
	m := &model{devices: map[string]*device{}, ports: map[Endpoint]*port{}, hca: map[Endpoint]string{}}
	for _, d := range fab.Devices {
		dv := &device{name: d.Name, queuePrio: map[string]int{}}
		m.devices[d.Name] = dv
		addPort := func(name, peer, peerPort string, gbps int, nic bool) {
			p := &port{ep: Endpoint{d.Name, name}, peer: Endpoint{peer, peerPort}, gbps: gbps, nic: nic,
				hasPeer: peer != "", evidence: map[telemetry.Counter][]Evidence{}}
			dv.ports = append(dv.ports, p)
			m.ports[p.ep] = p
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
					m.hca[Endpoint{d.Name, n.HCA}] = n.Port
				}
			}
			if pr := d.Host.Profile; pr != nil {
				dv.lossless = pr.PFC
			}
		}
	}
	return m
}

// add places one rate on its port; false when the fabric has no such port.
func (m *model) add(k telemetry.Key, r telemetry.Rate) bool {
	dv := m.devices[k.Device]
	if dv == nil {
		return false
	}
	name := k.Port
	if k.HCA {
		if name = m.hca[Endpoint{k.Device, k.Port}]; name == "" {
			return false
		}
	}
	p := m.ports[Endpoint{k.Device, name}]
	if p == nil {
		return false
	}
	ev := Evidence{Series: r.Series.String(), Counter: k.Counter, PerSecond: r.PerSecond, Seconds: r.Seconds}
	// Per-priority counters count only on lossless priorities: pauses
	// and marks elsewhere are not PFC's.
	lossless := k.Priority == telemetry.AnyPriority || dv.lossless[k.Priority]
	switch k.Counter {
	case telemetry.TxPause:
		if lossless {
			p.txPause += r.PerSecond
			p.evidence[k.Counter] = append(p.evidence[k.Counter], ev)
		}
	case telemetry.RxPause:
		if lossless {
			p.rxPause += r.PerSecond
			p.evidence[k.Counter] = append(p.evidence[k.Counter], ev)
		}
	case telemetry.RxBytes:
		p.rxBytes += r.PerSecond
		p.evidence[k.Counter] = append(p.evidence[k.Counter], ev)
	case telemetry.TxBytes:
		p.txBytes += r.PerSecond
		p.evidence[k.Counter] = append(p.evidence[k.Counter], ev)
	case telemetry.RxErrors, telemetry.Symbol, telemetry.Carrier:
		p.errs[k.Counter-telemetry.RxErrors] += r.PerSecond * r.Seconds
		p.evidence[k.Counter] = append(p.evidence[k.Counter], ev)
	case telemetry.ECNMarks:
		if k.Queue != "" {
			pr, ok := dv.queuePrio[strings.ToLower(k.Queue)]
			if !ok || pr < 0 || pr > 7 || !dv.lossless[pr] {
				return true
			}
		}
		dv.ecnSeen = true
		dv.ecn += r.PerSecond
		dv.ecnEv = append(dv.ecnEv, ev)
	}
	return true
}
