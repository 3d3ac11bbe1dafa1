package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/targets/telemetry"
)

// storms finds the origins of pause storms and the victims each reaches.
//
// A port sends pauses when its device cannot take in more for a lossless
// priority; its peer stops sending, its own queues fill, and it pauses the
// ports that feed it in turn: the storm travels upstream, against the
// traffic. The origin is therefore a device that sends pauses and
// receives none, and every device on the way back from it both receives
// and sends them (or only receives them, at the edge).
func (m *model) storms(opt Options) []finding {
	var out []finding
	names := m.names
	for _, name := range names {
		dv := m.devices[name]
		var pausing []*port
		paused := false
		for _, p := range dv.ports {
			if p.nic {
				// A server's NICs hold a buffer each: one that pauses
				// without being paused is an origin whatever the
				// others receive.
				if p.rateOf(telemetry.TxPause) > opt.PauseRate && p.rateOf(telemetry.RxPause) <= opt.PauseRate {
					out = append(out, m.origin(dv, []*port{p}, opt))
				}
				continue
			}
			if p.rateOf(telemetry.TxPause) > opt.PauseRate {
				pausing = append(pausing, p)
			}
			if p.rateOf(telemetry.RxPause) > opt.PauseRate {
				paused = true
			}
		}
		// A switch's ports share its buffer: it is an origin when it
		// pauses and nothing pauses it.
		if len(pausing) == 0 || paused {
			continue
		}
		out = append(out, m.origin(dv, pausing, opt))
	}
	return out
}

// origin describes one storm's origin and walks it upstream.
func (m *model) origin(dv *device, pausing []*port, opt Options) finding {
	f := finding{Finding: Finding{Kind: KindPauseStorm, Origin: Endpoint{Device: dv.name}}}
	if len(pausing) == 1 {
		f.Origin.Port = pausing[0].ep.Port
	}
	var sent float64
	for _, p := range pausing {
		f.Ports = append(f.Ports, p.ep.Port)
		sent += p.rateOf(telemetry.TxPause)
		f.cites = append(f.cites, cite{p: p, counter: telemetry.TxPause})
	}
	// What the origin drains: a NIC takes in what its peer sends it; a
	// switch passes it on, so its busiest egress port shows whether it
	// is congested (full) or failing (empty).
	share, drainCite := drained(dv, pausing)
	if drainCite.p != nil {
		f.cites = append(f.cites, drainCite)
	}
	ecn := cite{dev: dv, counter: telemetry.ECNMarks}
	switch {
	case share < opt.DrainShare:
		f.Cause = CauseNotDraining
		if len(pausing) == 1 && pausing[0].nic {
			f.drain = []*device{dv}
		}
		f.Message = fmt.Sprintf("sends %.0f pause frames/s on %s while carrying %.1f%% of its line rate: it does not drain what it receives (a gray failure)",
			sent, plural(len(pausing), "port"), 100*share)
	case dv.ecnSeen && dv.ecn == 0:
		f.Cause = CauseNoECN
		f.cites = append(f.cites, ecn)
		f.Message = fmt.Sprintf("sends %.0f pause frames/s on %s while its lossless queues mark no ECN: PFC fires before ECN, so the senders are never slowed (ECN thresholds above the XOFF point?)",
			sent, plural(len(pausing), "port"))
	default:
		f.Cause = CauseCongestion
		f.cites = append(f.cites, ecn)
		f.Message = fmt.Sprintf("sends %.0f pause frames/s on %s at %.0f%% of its line rate: sustained congestion (sustained PFC is never normal)",
			sent, plural(len(pausing), "port"), 100*share)
	}
	f.Victims = m.upstream(dv, pausing, opt)
	return f
}

// drained returns the share of line rate a device carries where it should
// drain, and the counter that shows it.
func drained(dv *device, pausing []*port) (float64, cite) {
	best, bestEv := 0.0, cite{}
	for _, p := range dv.ports {
		if p.gbps <= 0 {
			continue
		}
		bytes, c := p.rateOf(telemetry.TxBytes), telemetry.TxBytes
		if p.nic {
			if !slices.Contains(pausing, p) {
				continue
			}
			bytes, c = p.rateOf(telemetry.RxBytes), telemetry.RxBytes
		}
		share := bytes * 8 / (float64(p.gbps) * 1e9)
		if bestEv.p == nil || share > best {
			best, bestEv = share, cite{p: p, counter: c}
		}
	}
	return best, bestEv
}

// upstream walks the storm from the origin's pausing ports across their
// cables, breadth first, and returns the ports that receive the pauses.
func (m *model) upstream(origin *device, pausing []*port, opt Options) []Victim {
	type step struct {
		p    *port
		path []string
	}
	seen := map[string]bool{origin.name: true}
	var victims []Victim
	var queue []step
	for _, p := range pausing {
		queue = append(queue, step{p, []string{p.ep.String()}})
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if !s.p.hasPeer {
			continue
		}
		peer := s.p.peerP
		if peer == nil || peer.rateOf(telemetry.RxPause) <= opt.PauseRate || seen[peer.ep.Device] {
			continue
		}
		seen[peer.ep.Device] = true
		path := append(slices.Clip(s.path), peer.ep.String())
		v := Victim{Endpoint: peer.ep, Path: path}
		for _, q := range m.devices[peer.ep.Device].ports {
			if q.rateOf(telemetry.TxPause) > opt.PauseRate {
				v.Propagates = true
				queue = append(queue, step{q, append(slices.Clip(path), q.ep.String())})
			}
		}
		victims = append(victims, v)
	}
	slices.SortFunc(victims, func(a, b Victim) int {
		if len(a.Path) != len(b.Path) {
			return len(a.Path) - len(b.Path)
		}
		return strings.Compare(a.String(), b.String())
	})
	return victims
}

// linkErrors reports each cable with FCS or symbol errors or carrier
// transitions on either end, once, at the end that counts the most.
func (m *model) linkErrors() []finding {
	var out []finding
	for _, name := range m.names {
		for _, p := range m.devices[name].ports {
			if p.cable {
				continue
			}
			peer := p.peerP
			p.cable = true
			if peer != nil {
				peer.cable = true
			}
			ends := []*port{p}
			if peer != nil {
				ends = append(ends, peer)
			}
			var total [3]float64
			at := p
			for _, e := range ends {
				for i := range total {
					total[i] += e.errs[i]
				}
				if sum(e.errs) > sum(at.errs) {
					at = e
				}
			}
			if sum(total) < 1 {
				continue
			}
			f := finding{Finding: Finding{Kind: KindLinkErrors, Origin: at.ep}}
			for _, e := range ends {
				if e != at {
					pe := e.ep
					f.Peer = &pe
				}
				for _, c := range []telemetry.Counter{telemetry.Carrier, telemetry.RxErrors, telemetry.Symbol} {
					f.cites = append(f.cites, cite{p: e, counter: c, positive: true})
				}
			}
			if f.Peer == nil && p.hasPeer {
				pe := p.peer
				f.Peer = &pe
			}
			// Quarantine: drain a server on the cable, and shut the
			// cable at a switch end (the end that counts the most, if
			// both are switches).
			for _, e := range ends {
				if e.nic {
					f.drain = append(f.drain, e.dev)
				}
			}
			for _, e := range append([]*port{at}, ends...) {
				if !e.nic {
					se := e.ep
					f.Shut = &se
					break
				}
			}
			switch {
			case total[2] >= 1:
				f.Cause = CauseFlaps
			case total[0] >= total[1]:
				f.Cause = CauseFCS
			default:
				f.Cause = CauseSymbol
			}
			f.Message = fmt.Sprintf("the cable %s <-> %s counted %.0f carrier transitions, %.0f FCS errors and %.0f symbol errors in the window",
				p.ep, p.peer, total[2], total[0], total[1])
			out = append(out, f)
		}
	}
	return out
}

func sum(a [3]float64) float64 { return a[0] + a[1] + a[2] }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
