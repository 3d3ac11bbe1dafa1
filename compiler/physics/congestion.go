package physics

import (
	"math/bits"
	"strconv"
)

const srcCongestedXoff = "Choudhury & Hahne, \"Dynamic queue length thresholds for shared-memory packet switches\", " +
	"IEEE/ACM ToN 6(2) 1998 (steady state of N active queues: T = α·B/(1+N·α)); " +
	"SONiC BUFFER_PROFILE dynamic_th (α = 2^dynamic_th, sonic-buffer-profile.yang); physics.md §2"

// MaxCongestedQueues bounds the number of simultaneously congested queues
// [CongestedXoffPoint] accepts; larger counts are clamped. No switch has a
// million lossless priority groups.
const MaxCongestedQueues = 1 << 20

// CongestedXoffPoint returns the ingress priority-group occupancy at which a
// lossless priority sends PFC XOFF when n lossless priority groups draw on
// the same dynamic-threshold pool at once.
//
// Under dynamic thresholds a priority group may take from the shared pool at
// most α·(pool − used), where used is what every group together holds. With
// n groups congested alike, each holding x, used = n·x and each stops at
// x = α·(pool − n·x):
//
//	xoff_point = α·pool / (1 + n·α),  α = 2^alphaLog2
//
// (Choudhury & Hahne 1998, the steady state of n active queues). n = 1 is
// [XoffPoint], the most lenient case; all-to-all collectives congest every
// downlink at once, so a switch's XOFF point under real congestion is this
// value with n = its lossless ports × lossless priorities, of the order of
// the pool divided by its ports.
//
// Symmetric all-to-all traffic spreads what the ingress groups hold evenly
// over as many egress queues, so an egress queue holds about what one
// ingress group holds: ECN thresholds on the egress queue compare directly
// with this point. With 30 % of an SN5600's 160 MB reserved, α = 1 and 64
// congested ports the point is 738 461 B, below an ECN maximum of 1.5 MB.
//
// A pool of zero or less yields a Value of 0; n below 1 counts as 1, above
// [MaxCongestedQueues] as that; alphaLog2 is clamped as in [XoffPoint]. The
// result is rounded down to whole bytes.
func CongestedXoffPoint(poolBytes int64, alphaLog2 int, n int) Derivation {
	p := dynamicThreshold(poolBytes, alphaLog2, n)
	return Derivation{
		Field: "xoff-point",
		Value: p.point,
		Unit:  "B",
		Formula: "xoff_point = α·pool/(1 + N·α), α = 2^k   (N lossless priority groups congested at once, " +
			"each held to α·(pool − Σ held); ECN must mark below it)",
		Inputs: []Input{
			intIn("pool", p.pool, "B"),
			intIn("k", int64(p.k), ""),
			{"α", p.alpha},
			intIn("N", p.n, ""),
		},
		Source: srcCongestedXoff,
	}
}

// thresholdPoint is where n priority groups congested alike stop under a
// dynamic threshold, with its inputs as clamped.
type thresholdPoint struct {
	pool  int64  // the pool, 0 for a negative one
	k     int    // alphaLog2 clamped to MinAlphaLog2..MaxAlphaLog2
	alpha string // α = 2^k as explain prints it: "2", "1/128"
	n     int64  // n clamped to 1..MaxCongestedQueues
	point int64  // α·pool/(1 + n·α), rounded down
}

// dynamicThreshold computes the point [CongestedXoffPoint] and, with n = 1,
// [XoffPoint] return, exactly and without overflow for every input.
func dynamicThreshold(poolBytes int64, alphaLog2, n int) thresholdPoint {
	pool := nonNeg(poolBytes)
	k := max(MinAlphaLog2, min(alphaLog2, MaxAlphaLog2))
	q := uint64(max(1, min(n, MaxCongestedQueues)))
	var x uint64
	var alpha string
	if k >= 0 {
		// α·pool/(1+n·α) with α = 2^k: a 128-bit product keeps it exact.
		a := uint64(1) << k
		hi, lo := bits.Mul64(uint64(pool), a)
		d := 1 + q*a                 // ≤ 1 + 2^20·2^16, no overflow
		x, _ = bits.Div64(hi, lo, d) // hi < 2^16 < d, so Div64 cannot panic
		alpha = strconv.FormatUint(a, 10)
	} else {
		// α = 1/2^m: α·pool/(1+n·α) = pool/(2^m + n).
		d := uint64(1) << -k
		x = uint64(pool) / (d + q)
		alpha = "1/" + strconv.FormatUint(d, 10)
	}
	return thresholdPoint{pool: pool, k: k, alpha: alpha, n: int64(q), point: int64(x)}
}

// CongestedQueues returns the number of lossless priority groups a switch
// can have congested at once, the N of [CongestedXoffPoint]: every lossless
// port with every lossless priority,
//
//	N = lossless_ports · lossless_priorities
//
// or stated when the intent gives a smaller number (a fabric whose traffic
// never congests every port). A stated number above the switch's own count
// is capped at it: a switch cannot congest queues it does not have. Counts
// below 1 give 1.
func CongestedQueues(ports, losslessPriorities, stated int) Derivation {
	p := max(0, ports)
	k := max(0, losslessPriorities)
	all := max(1, satMul(int64(p), int64(k)))
	n := all
	formula := "N = lossless_ports·lossless_priorities"
	inputs := []Input{intIn("lossless_ports", int64(p), ""), intIn("lossless_priorities", int64(k), "")}
	if stated > 0 {
		n = min(all, int64(stated))
		formula = "N = min(stated, lossless_ports·lossless_priorities)"
		inputs = append(inputs, intIn("stated", int64(stated), ""))
	}
	return Derivation{
		Field:   "congested-queues",
		Value:   n,
		Formula: formula,
		Inputs:  inputs,
		Source:  "all-to-all collectives congest every downlink at once (physics.md §2); buffers.congestion.queues",
	}
}

// MarkProbability returns the probability, in percent, with which a
// RED/ECN profile marks a packet when its queue holds at bytes: 0 below
// min, rising linearly to pmax at max, and pmax at and above max (the
// three-stage model of physics.md §2; platforms mark every packet beyond
// max, which only matters above the ramp). min ≥ max gives pmax from min
// on. Probabilities are clamped to 0..100.
func MarkProbability(minBytes, maxBytes int64, pmax int, at int64) float64 {
	p := float64(clampPercent(pmax))
	switch {
	case at < minBytes:
		return 0
	case at >= maxBytes || maxBytes <= minBytes:
		return p
	}
	return p * float64(at-minBytes) / float64(maxBytes-minBytes)
}
