package physics

import (
	"math"
	"strconv"
	"sync"
)

const srcDCQCNFluid = "Zhu et al., \"Congestion Control for Large-Scale RDMA Deployments\", SIGCOMM 2015, §5 fluid model " +
	"(rate decrease on CNPs, fast recovery and additive increase by timer and byte counter); the target-rate terms " +
	"as refined in Zhu, Ghobadi, Misra, Padhye, \"ECN or Delay\", CoNEXT 2016, §3 (F stages of fast recovery); physics.md §3"

// DCQCNParams are the reaction point's (the sender NIC's) DCQCN parameters,
// in the units of the fluid model: seconds, bytes and bit/s.
type DCQCNParams struct {
	// G is the gain of the congestion estimate α: α ← (1−g)·α + g on a
	// CNP, α ← (1−g)·α each AlphaPeriod without one.
	G float64
	// AlphaPeriod is τ′, the α update period.
	AlphaPeriod float64
	// CNPInterval is τ, the shortest time between two rate cuts (and two
	// CNPs of one flow).
	CNPInterval float64
	// Timer is T, the rate-increase timer.
	Timer float64
	// ByteCounter is B, the bytes sent between byte-counter increases.
	ByteCounter float64
	// AIRate is R_AI, the additive increase step in bit/s.
	AIRate float64
	// FastRecovery is F, the increase events of fast recovery before the
	// target rate grows.
	FastRecovery int
}

// PaperDCQCN returns the parameters of the DCQCN paper's 40 Gbit/s
// evaluation: g = 1/256, τ′ = 55 µs, τ = 50 µs, T = 55 µs, B = 10 MB,
// R_AI = 40 Mbit/s, F = 5 (Zhu et al. 2015, §3 and §5; physics.md §3.1).
func PaperDCQCN() DCQCNParams {
	return DCQCNParams{G: 1.0 / 256, AlphaPeriod: 55e-6, CNPInterval: 50e-6, Timer: 55e-6,
		ByteCounter: 10e6, AIRate: 40e6, FastRecovery: 5}
}

// ConnectXDCQCN returns the firmware defaults of NVIDIA ConnectX NICs
// (mlxconfig dump, NVIDIA DOCA "DCQCN CC Parameters"; physics.md §3.2):
// dce_tcp_g 1019 (g = (1024−1019)/1024), dce_tcp_rtt 1 µs,
// rate_reduce_monitor_period 4 µs, rpg_time_reset 300 µs, rpg_byte_reset
// 32767 B, rpg_ai_rate 5 Mbit/s, rpg_threshold 1. params overrides them
// with the intent's hosts.dcqcn.parameters by the same names.
func ConnectXDCQCN(params map[string]int64) DCQCNParams {
	p := DCQCNParams{G: 5.0 / 1024, AlphaPeriod: 1e-6, CNPInterval: 4e-6, Timer: 300e-6,
		ByteCounter: 32767, AIRate: 5e6, FastRecovery: 1}
	us := func(v int64) float64 { return float64(max(1, v)) / 1e6 }
	cnp := 0.0
	for name, v := range params {
		switch name {
		case "dce_tcp_g":
			p.G = float64(1024-max(0, min(v, 1023))) / 1024
		case "dce_tcp_rtt":
			p.AlphaPeriod = us(v)
		case "rate_reduce_monitor_period", "min_time_between_cnps":
			// A flow's rate is cut at most once per the longer of the two.
			cnp = max(cnp, us(v))
		case "rpg_time_reset":
			p.Timer = us(v)
		case "rpg_byte_reset":
			p.ByteCounter = float64(max(1, v))
		case "rpg_ai_rate":
			p.AIRate = float64(max(1, v)) * 1e6
		case "rpg_threshold":
			p.FastRecovery = int(max(1, min(v, 31)))
		}
	}
	if cnp > 0 {
		p.CNPInterval = cnp
	}
	return p
}

// FluidInput is one bottleneck of the DCQCN fluid model: Flows senders, each
// able to send at the link's rate, share one egress queue of LinkGbps whose
// ECN profile marks between KminBytes and KmaxBytes up to PmaxPercent.
type FluidInput struct {
	LinkGbps    int
	Flows       int
	RTT         float64 // the control loop delay τ*, seconds
	KminBytes   int64
	KmaxBytes   int64
	PmaxPercent int
	PacketBytes int // the packet size the NICs send (marking is per packet)
	NIC         DCQCNParams
}

// FluidResult is what the fluid model predicts once the flows have settled.
type FluidResult struct {
	// Utilisation is the share of the link's capacity used, 0..1.
	Utilisation float64
	// QueueBytes is the mean egress queue, MaxQueueBytes its peak.
	QueueBytes, MaxQueueBytes float64
	// Marking is the mean marking probability, 0..1.
	Marking float64
}

// Fluid model limits: inputs beyond them are clamped so that a run stays
// bounded in time and memory.
const (
	maxFluidFlows = 4096
	maxFluidRTT   = 1e-3
	fluidSettle   = 6e-3 // seconds simulated before averaging
	fluidAverage  = 6e-3 // seconds averaged over
)

// SimulateDCQCN integrates the DCQCN fluid model (Zhu et al. 2015, §5) for
// in.Flows identical flows through one bottleneck and returns utilisation,
// queue and marking averaged after they settle. With p = p(t−τ*) and
// R′ = R_C(t−τ*), the marking delayed by the control loop:
//
//	p(q)     = 0 below Kmin, Pmax·(q−Kmin)/(Kmax−Kmin) up to Kmax, 1 above
//	dq/dt    = N·R_C − C                              (q ≥ 0)
//	dα/dt    = g/τ′·((1 − (1−p)^(τ′R′)) − α)
//	dR_T/dt  = −(R_T−R_C)/τ·(1 − (1−p)^(τR′))
//	           + R_AI·R′·p/((1−p)^(−B) − 1)·(1−p)^(F·B)
//	           + R_AI·R′·p/((1−p)^(−T·R′) − 1)·(1−p)^(F·T·R′)
//	dR_C/dt  = −R_C·α/(2τ)·(1 − (1−p)^(τR′))
//	           + (R_T−R_C)/2·R′·p/((1−p)^(−B) − 1)
//	           + (R_T−R_C)/2·R′·p/((1−p)^(−T·R′) − 1)
//
// Rates are in packets per second and R_C, R_T at most the line rate C.
// The delay system is integrated with a fixed Euler step (an eighth of the
// shortest of τ′, τ, τ* and 1 µs; a step eight times finer changes the
// results by less than 0.05 %) and a history of τ* for both delayed
// inputs; flows start at their fair share C/N with α = 0 and an empty
// queue. The result is deterministic. Inputs that cannot describe a link (speed or flows below
// 1) give the zero FluidResult; the RTT is clamped to 0..1 ms and flows to
// 4096.
func SimulateDCQCN(in FluidInput) FluidResult {
	if in.LinkGbps <= 0 || in.Flows <= 0 {
		return FluidResult{}
	}
	// A compilation asks for the same port and profile once per buffer
	// plan: the result of a pure function is kept.
	return fluidMemo.get(in, func() FluidResult { return simulateDCQCN(in, nil) })
}

// fluidMemo holds results of [SimulateDCQCN] by input.
var fluidMemo = newMemo[FluidResult]()

// memo keeps the results of a pure function of a [FluidInput], at most
// maxFluidMemo of them (it starts over when full).
type memo[V any] struct {
	sync.Mutex
	m map[FluidInput]V
}

const maxFluidMemo = 1024

func newMemo[V any]() *memo[V] { return &memo[V]{m: map[FluidInput]V{}} }

// get returns the value kept for in, or computes it with f and keeps it.
func (m *memo[V]) get(in FluidInput, f func() V) V {
	m.Lock()
	v, ok := m.m[in]
	m.Unlock()
	if ok {
		return v
	}
	v = f()
	m.Lock()
	if len(m.m) >= maxFluidMemo {
		clear(m.m)
	}
	m.m[in] = v
	m.Unlock()
	return v
}

// fluidUnits are a [FluidInput] in the fluid model's units (packets,
// packets/s, seconds), clamped to the documented ranges.
type fluidUnits struct {
	pkt, c, n, rtt, kmin, kmax, pmax float64
	g, tauA, tau, timer, bc, rai, f  float64
}

func toFluidUnits(in FluidInput) fluidUnits {
	pkt := float64(max(64, min(in.PacketBytes, MaxMTU)))
	u := fluidUnits{pkt: pkt, c: float64(clampSpeed(in.LinkGbps)) * 1e9 / 8 / pkt,
		n: float64(min(in.Flows, maxFluidFlows))}
	if in.RTT > 0 { // also rejects NaN
		u.rtt = min(in.RTT, maxFluidRTT)
	}
	u.kmin, u.kmax = float64(nonNeg(in.KminBytes))/pkt, float64(nonNeg(in.KmaxBytes))/pkt
	u.pmax = float64(clampPercent(in.PmaxPercent)) / 100
	nic := in.NIC
	u.g = max(1e-9, min(nic.G, 1))
	u.tauA = max(1e-7, nic.AlphaPeriod)
	u.tau = max(1e-7, nic.CNPInterval)
	u.timer = max(1e-7, nic.Timer)
	u.bc = max(1, nic.ByteCounter/pkt)
	u.rai = max(0, nic.AIRate) / 8 / pkt
	u.f = float64(max(1, nic.FastRecovery))
	return u
}

// mark is the RED ramp of the switch's ECN profile, q in packets.
func (u fluidUnits) mark(q float64) float64 {
	switch {
	case q <= u.kmin:
		return 0
	case q <= u.kmax:
		return u.pmax * (q - u.kmin) / (u.kmax - u.kmin)
	}
	return 1
}

// pow1m returns (1−p)^x.
func pow1m(p, x float64) float64 {
	switch {
	case p <= 0:
		// A queue below Kmin marks nothing, most of a run's steps: 1
		// without math.Exp, the model's cost (x is finite).
		return 1
	case p >= 1:
		return 0
	}
	return math.Exp(x * math.Log1p(-p))
}

// incr returns p/((1−p)^(−x) − 1), the rate of increase events per packet
// of a counter that restarts at every mark; it tends to 1/x as p → 0 and
// to 0 as p → 1.
func incr(p, x float64) float64 {
	switch {
	case p <= 0:
		return 1 / max(x, 1e-12)
	case p >= 1:
		return 0
	}
	d := math.Expm1(-x * math.Log1p(-p))
	if math.IsInf(d, 1) || d <= 0 {
		return 0
	}
	return p / d
}

// rates returns the right-hand sides dα/dt, dR_T/dt and dR_C/dt of the
// fluid model (the equations of [SimulateDCQCN]) for the flow's state
// alpha, rt, rc now and the marking p and rate rl one loop delay ago.
func (u fluidUnits) rates(alpha, rt, rc, p, rl float64) (da, drt, drc float64) {
	cut := 1 - pow1m(p, u.tau*rl)
	byteInc := incr(p, u.bc)
	timeInc := incr(p, u.timer*rl)
	da = u.g / u.tauA * ((1 - pow1m(p, u.tauA*rl)) - alpha)
	drt = -(rt-rc)/u.tau*cut + u.rai*rl*byteInc*pow1m(p, u.f*u.bc) + u.rai*rl*timeInc*pow1m(p, u.f*u.timer*rl)
	drc = -rc*alpha/(2*u.tau)*cut + (rt-rc)/2*rl*byteInc + (rt-rc)/2*rl*timeInc
	return da, drt, drc
}

// simulateDCQCN integrates the model from fair-share rates, α = 0 and an
// empty queue, or, with from, from that state (its history too).
func simulateDCQCN(in FluidInput, from *dcqcnFixed) FluidResult {
	u := toFluidUnits(in)
	c, n, rtt, tauA, tau := u.c, u.n, u.rtt, u.tauA, u.tau

	// The step resolves the fastest of the loop's times: the α period,
	// the cut interval and the loop delay. Near the fixed point the
	// queue moves by N·R_C − C, a small difference, so the step need not
	// resolve a queue filling at line rate.
	dt := min(tauA, tau, 1e-6) / 8
	if rtt > 0 {
		dt = min(dt, rtt/8)
	}
	dt = max(dt, 1e-9)
	lag := int(math.Round(rtt / dt))
	steps := int((fluidSettle + fluidAverage) / dt)
	settle := int(fluidSettle / dt)

	hist := make([]struct{ rc, q float64 }, lag+1)
	rc, rt, alpha, q := c/n, c/n, 0.0, 0.0
	if from != nil {
		rc, rt, alpha, q = from.rc, from.rt, from.alpha, from.q
	}
	for i := range hist {
		hist[i].rc, hist[i].q = rc, q
	}
	var sent, qsum, qmax, psum float64
	head := 0
	for i := range steps {
		old := hist[head] // the state τ* ago
		da, drt, drc := u.rates(alpha, rt, rc, u.mark(old.q), old.rc)
		in := n * rc
		out := c
		if q <= 0 && in < c {
			out = in
		}
		q = max(0, q+(in-c)*dt)
		rc = max(0, min(c, rc+drc*dt))
		rt = max(0, min(c, rt+drt*dt))
		alpha = max(0, min(1, alpha+da*dt))
		if i >= settle {
			sent += out * dt
			qsum += q * dt
			qmax = max(qmax, q)
			psum += u.mark(q) * dt
		}
		hist[head] = struct{ rc, q float64 }{rc, q}
		head++
		if head == len(hist) {
			head = 0
		}
	}
	span := float64(steps-settle) * dt
	if span <= 0 {
		return FluidResult{}
	}
	return FluidResult{
		Utilisation:   min(1, sent/(c*span)),
		QueueBytes:    qsum / span * u.pkt,
		MaxQueueBytes: qmax * u.pkt,
		Marking:       psum / span,
	}
}

// formatFloat formats v with d decimals.
func formatFloat(v float64, d int) string { return strconv.FormatFloat(v, 'f', d, 64) }

// FluidFlows is the number of flows the fluid model shares a congested
// port among when the intent does not say: a 16:1 incast, the fan-in of
// an all-to-all step on a 16-rail or 16-GPU group.
const FluidFlows = 16

// MarkingNeeded returns the marking probability at the fluid model's fixed
// point, where every flow sends C/N and DCQCN's cuts balance its increases
// (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay", CoNEXT 2016, §3.2, the
// fixed point of the DCQCN fluid model for small p):
//
//	p* = ∛( R_AI/(τ′·R*²) · (1/B + 1/(T·R*))² ),   R* = C/N
//
// in packets, packets/s and seconds. A queue whose ECN profile marks less
// than p* where PFC pauses cannot be held by ECN alone: the senders keep
// increasing until PFC stops them. The result is in 0..1; inputs that
// cannot describe a link give 0.
func MarkingNeeded(linkGbps, flows, packetBytes int, nic DCQCNParams) float64 {
	if linkGbps <= 0 || flows <= 0 {
		return 0
	}
	pkt := float64(max(64, min(packetBytes, MaxMTU)))
	r := float64(clampSpeed(linkGbps)) * 1e9 / 8 / pkt / float64(min(flows, maxFluidFlows))
	rai := max(0, nic.AIRate) / 8 / pkt
	b := max(1, nic.ByteCounter/pkt)
	t := max(1e-7, nic.Timer)
	tauA := max(1e-7, nic.AlphaPeriod)
	s := 1/b + 1/(t*r)
	return min(1, math.Cbrt(rai/(tauA*r*r)*s*s))
}

// RTTHop is one link class on the longest path a congestion notification
// loop spans: its speed and longest cable.
type RTTHop struct {
	Name      string
	SpeedGbps int
	CableM    float64
}

// FabricRTT returns the round trip of the fabric's longest path, the
// control-loop delay τ* of the fluid model, in nanoseconds. The path goes
// up through every hop class and down again, and the round trip crosses
// each of those links twice; each crossing costs the cable's propagation
// (5 ns/m, [FibreDelayPerMetre]) and one MTU frame's serialization at the
// link's speed (store-and-forward, an upper bound for a cut-through hop):
//
//	RTT = Σ_hops 4·(L·t_prop + MTU·8/S)
//
// Switch pipeline and NIC processing times are not in it: no catalog
// source gives them per ASIC. Hops with no speed are skipped.
func FabricRTT(hops []RTTHop, mtu int) Derivation {
	m := float64(clampMTU(mtu))
	var ns float64
	var inputs []Input
	for _, h := range hops {
		if h.SpeedGbps <= 0 {
			continue
		}
		l := clampCable(h.CableM)
		ns += 4 * (l*float64(FibreDelayPerMetre.Nanoseconds()) + m*8/float64(clampSpeed(h.SpeedGbps)))
		inputs = append(inputs, Input{h.Name, strconv.Itoa(h.SpeedGbps) + " Gbit/s, " + formatFloat(l, 1) + " m"})
	}
	inputs = append(inputs, intIn("MTU", int64(m), "B"), Input{"t_prop", "5 ns/m"})
	return Derivation{
		Field:   "ecn-loop-rtt",
		Value:   int64(math.Ceil(ns)),
		Unit:    "ns",
		Formula: "RTT = Σ_hops 4·(L·t_prop + MTU·8/S)   (up and down the longest path, there and back)",
		Inputs:  inputs,
		Source:  "physics.md §3.3; propagation as in Cisco c11-542809",
	}
}

// ECNPrediction is what the fluid model predicts for one class's ECN
// profile on one port speed, as explain shows it.
type ECNPrediction struct {
	Utilisation, Queue, Needed Derivation
	// Stability is the phase margin of the fixed point at the loop delay
	// ([StabilityDCQCN]); the zero Derivation where the analysis does not
	// apply.
	Stability Derivation
}

// PredictECN runs [SimulateDCQCN] for class's profile and returns the
// predicted utilisation (percent, rounded down), mean queue (bytes), the
// marking probability the queue needs at the fixed point ([MarkingNeeded],
// in parts per million) and the fixed point's phase margin at the loop
// delay ([StabilityDCQCN], degrees rounded towards zero), each with its
// inputs.
func PredictECN(class string, in FluidInput) ECNPrediction {
	r := SimulateDCQCN(in)
	need := MarkingNeeded(in.LinkGbps, in.Flows, in.PacketBytes, in.NIC)
	inputs := []Input{
		{"C", strconv.Itoa(in.LinkGbps) + " Gbit/s"},
		intIn("N", int64(in.Flows), "flows"),
		{"τ*", formatFloat(in.RTT*1e6, 2) + " µs"},
		intIn("Kmin", in.KminBytes, "B"),
		intIn("Kmax", in.KmaxBytes, "B"),
		intIn("Pmax", int64(clampPercent(in.PmaxPercent)), "%"),
		intIn("packet", int64(in.PacketBytes), "B"),
		{"g", formatFloat(in.NIC.G, 5)},
		{"τ′", formatFloat(in.NIC.AlphaPeriod*1e6, 1) + " µs"},
		{"τ", formatFloat(in.NIC.CNPInterval*1e6, 1) + " µs"},
		{"T", formatFloat(in.NIC.Timer*1e6, 1) + " µs"},
		{"B", formatFloat(in.NIC.ByteCounter, 0) + " B"},
		{"R_AI", formatFloat(in.NIC.AIRate/1e6, 1) + " Mbit/s"},
		intIn("F", int64(in.NIC.FastRecovery), ""),
	}
	util := Derivation{
		Field: "ecn-utilisation[" + class + "]", Value: int64(math.Floor(r.Utilisation * 100)), Unit: "%",
		Formula: "DCQCN fluid model, N flows at C/N through one egress queue marking Kmin..Kmax up to Pmax, " +
			"averaged over " + formatFloat(fluidAverage*1e3, 0) + " ms after " + formatFloat(fluidSettle*1e3, 0) + " ms: " +
			"utilisation = " + formatFloat(r.Utilisation*100, 1) + " %",
		Inputs: inputs, Source: srcDCQCNFluid,
	}
	queue := Derivation{
		Field: "ecn-queue[" + class + "]", Value: int64(math.Round(r.QueueBytes)), Unit: "B",
		Formula: "DCQCN fluid model (as ecn-utilisation): mean egress queue; peak " +
			strconv.FormatInt(int64(math.Round(r.MaxQueueBytes)), 10) + " B",
		Inputs: inputs, Source: srcDCQCNFluid,
	}
	needed := Derivation{
		Field: "ecn-marking-needed[" + class + "]", Value: int64(math.Ceil(need * 1e6)), Unit: "ppm",
		Formula: "p* = ∛(R_AI/(τ′·R*²)·(1/B + 1/(T·R*))²), R* = C/N   (the fixed point: ECN must mark at least p* before PFC pauses)",
		Inputs:  []Input{inputs[0], inputs[1], inputs[6], inputs[8], inputs[10], inputs[11], inputs[12]},
		Source:  "Zhu, Ghobadi, Misra, Padhye, \"ECN or Delay\", CoNEXT 2016, §3.2 (DCQCN fixed point); physics.md §3.3",
	}
	pr := ECNPrediction{Utilisation: util, Queue: queue, Needed: needed}
	if st := StabilityDCQCN(in); st.Applies {
		verdict := "stable: the queue settles at q*"
		if st.MaxRTT > 0 {
			verdict += " (for a loop delay up to " + formatFloat(st.MaxRTT*1e6, 2) + " µs)"
		}
		if st.PhaseMargin <= 0 {
			verdict = "unstable: the queue and rates oscillate around q* at the loop delay"
		}
		pr.Stability = Derivation{
			Field: "ecn-phase-margin[" + class + "]", Value: int64(st.PhaseMargin), Unit: "°",
			Formula: "phase margin of the fluid model linearised at its fixed point (p* = " + formatFloat(st.Marking*100, 2) +
				" %, q* = " + strconv.FormatInt(int64(math.Round(st.QueueBytes)), 10) + " B) with the loop delay τ*: " +
				formatFloat(st.PhaseMargin, 1) + "° at " + formatFloat(st.Crossover/(2*math.Pi)/1e3, 1) + " kHz, " + verdict,
			Inputs: inputs, Source: srcDCQCNStability,
		}
	}
	return pr
}
