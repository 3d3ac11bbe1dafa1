package doctor

import (
	"fmt"
	"iter"

	"github.com/rocefab/rocefab/targets/telemetry"
)

// cnpIgnored finds the NICs whose reaction point ignores the congestion
// notifications it receives.
//
// A NIC that receives packets marked CE answers the sender with a CNP
// (np_cnp_sent); the sender's reaction point cuts its rate for each CNP
// it handles (rp_cnp_handled). One that counts CNPs received and ignored
// (rp_cnp_ignored) has DCQCN off for that priority: it keeps sending at
// line rate into a congested queue that ECN can no longer relieve, so PFC
// must (NVIDIA's "Understanding mlx5 Linux counters": the counter "should
// not raise if RoCE Congestion Control was enabled").
func (m *model) cnpIgnored(opt Options, intentDCQCN bool) []finding {
	return m.atPorts(func(p *port) (finding, bool) {
		if !p.nic || p.rateOf(telemetry.CNPIgnored) <= opt.CNPRate {
			return finding{}, false
		}
		f := finding{Finding: Finding{Kind: KindCNPIgnored, Cause: CauseDCQCNOff, Origin: p.ep}}
		if intentDCQCN {
			f.Message = fmt.Sprintf("ignores %.0f CNPs/s and handles %.0f/s: DCQCN is off on this NIC although the intent enables it (its configuration drifted), so it keeps sending at line rate into congestion",
				p.rateOf(telemetry.CNPIgnored), p.rateOf(telemetry.CNPHandled))
		} else {
			f.Message = fmt.Sprintf("ignores %.0f CNPs/s and handles %.0f/s: the intent leaves DCQCN off, so the NIC keeps sending at line rate into congestion",
				p.rateOf(telemetry.CNPIgnored), p.rateOf(telemetry.CNPHandled))
		}
		for _, c := range []telemetry.Counter{telemetry.CNPIgnored, telemetry.CNPHandled} {
			f.cites = append(f.cites, cite{p: p, counter: c})
		}
		f.drain = []*device{p.dev}
		return f, true
	})
}

// losslessDrops finds the ports that drop packets of a lossless priority:
// a switch egress queue's drops, or a NIC's receive discards for lack of
// buffer. PFC exists so that these never happen; a drop means the
// headroom is too small for the cable, or the peer does not honour the
// pauses (PFC off on that priority at the other end).
func (m *model) losslessDrops() []finding {
	return m.atPorts(func(p *port) (finding, bool) {
		if p.drops < 1 {
			return finding{}, false
		}
		f := atPort(p, KindLosslessDrops)
		if p.nic {
			f.Cause = CauseNICDiscards
			f.Message = fmt.Sprintf("discarded %.0f packets of a lossless priority for lack of receive buffer in the window: the NIC's headroom does not cover its cable, or the leaf does not honour its pauses",
				p.drops)
			f.drain = []*device{p.dev}
		} else {
			f.Cause = CauseQueueDrops
			f.Message = fmt.Sprintf("dropped %.0f packets from a lossless egress queue in the window: PFC did not hold the traffic (headroom short of the cable, or the peer ignores the pauses)",
				p.drops)
		}
		f.cites = append(f.cites, cite{p: p, counter: telemetry.Drops, positive: true})
		return f, true
	})
}

// pfcWatchdog finds the switch ports whose PFC watchdog detected a storm
// on a lossless queue in the window.
//
// A switch's PFC watchdog (SONiC's pfcwd: sonic-net/sonic-swss
// orchagent/pfcwdorch.cpp, which counts PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED
// per queue) watches each lossless egress queue; when the peer has kept
// the queue paused for longer than the detection time, it declares a
// storm and stops honouring the pauses (dropping or forwarding the
// queue's traffic) until they stop. The port is where the storm was
// caught; the peer that kept pausing it is what does not drain, and is
// drained when it is a server's NIC.
func (m *model) pfcWatchdog() []finding {
	return m.atPorts(func(p *port) (finding, bool) {
		if p.storms < 1 {
			return finding{}, false
		}
		f := atPort(p, KindPFCWatchdog)
		f.Cause = CauseStormDetected
		f.cites = append(f.cites, cite{p: p, counter: telemetry.WatchdogStorms, positive: true})
		peer := "its peer"
		if f.Peer != nil {
			peer = f.Peer.String()
		}
		if q := p.peerP; q != nil {
			f.cites = append(f.cites, cite{p: q, counter: telemetry.TxPause, positive: true})
			if q.nic {
				f.drain = []*device{q.dev}
			}
		}
		f.Message = fmt.Sprintf("its PFC watchdog detected %.0f pause storms on a lossless queue in the window: %s paused the queue for longer than the watchdog's detection time, and the switch stopped honouring the pauses (dropping or forwarding that traffic) until they stopped",
			p.storms, peer)
		return f, true
	})
}

// atPorts returns the findings find makes at the fabric's ports, in
// sortedPorts' order; find reports false for a port it finds nothing at.
// Each port rule is that one function, so that every rule walks the
// ports the same way.
func (m *model) atPorts(find func(p *port) (finding, bool)) []finding {
	var out []finding
	for p := range m.sortedPorts() {
		if f, ok := find(p); ok {
			out = append(out, f)
		}
	}
	return out
}

// sortedPorts yields every port of the fabric, its devices in name order
// and each device's ports in the model's order, so that findings come in
// the same order whatever the maps hold.
func (m *model) sortedPorts() iter.Seq[*port] {
	return func(yield func(*port) bool) {
		for _, name := range m.names {
			for _, p := range m.devices[name].ports {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// atPort starts a finding of kind at port p, naming the other end of its
// cable as the peer.
func atPort(p *port, kind string) finding {
	f := finding{Finding: Finding{Kind: kind, Origin: p.ep}}
	if p.hasPeer {
		pe := p.peer
		f.Peer = &pe
	}
	return f
}
