package physics

import (
	"maps"
	"math"
	"slices"
	"strconv"
)

// Sources cited by the buffer derivations.
const (
	srcDynamicThreshold = "dynamic thresholds (Choudhury & Hahne): limit = α·(pool − used); SONiC BUFFER_PROFILE dynamic_th; DCQCN (SIGCOMM 2015) §5; physics.md §2"
	srcBuffer           = "NVUE traffic-pool memory-percent, SONiC BUFFER_POOL, switches.md §0; physics.md §1.3"
)

// MinAlphaLog2 and MaxAlphaLog2 bound the dynamic-threshold exponent
// XoffPoint accepts; values outside are clamped. SONiC's dynamic_th spans
// −8..7, Broadcom's α 1/128..8.
const (
	MinAlphaLog2 = -16
	MaxAlphaLog2 = 16
)

// XoffPoint returns the ingress priority-group occupancy at which a lossless
// priority sends PFC XOFF under dynamic thresholds, in the worst case of a
// single ingress port feeding a single egress queue.
//
// With dynamic thresholds a PG may take from the shared pool at most
// α·(pool − used). When one PG is the only user, used is its own occupancy
// x, so it stops at x = α·(pool − x):
//
//	xoff_point = α/(1+α)·pool,  α = 2^alphaLog2
//
// (α = 1 gives half the pool). Everything that PG holds sits in the one
// egress queue it feeds, so the egress queue depth at which ECN marks is
// directly comparable with this point: ECN Kmax must lie below it, or PFC
// pauses the upstream hop before ECN has marked anything and DCQCN never
// acts (the RF102 ecn-before-pfc check; physics.md §2, DCQCN §5). With 30 %
// of a 160 MB buffer reserved and α = 1 the point is 24 MB, so Kmax = 1.5 MB
// is fine and 60 MB is not. The PG's guaranteed minimum is ignored: it only
// raises the point. A pool of zero or less yields a Value of 0.
func XoffPoint(poolBytes int64, alphaLog2 int) Derivation {
	// The one group alone is the congested point with N = 1.
	p := dynamicThreshold(poolBytes, alphaLog2, 1)
	return Derivation{
		Field:   "xoff-point",
		Value:   p.point,
		Unit:    "B",
		Formula: "xoff_point = α/(1+α)·pool, α = 2^k   (single ingress PG → single egress queue; ECN Kmax must stay below it)",
		Inputs: []Input{
			intIn("pool", p.pool, "B"),
			intIn("k", int64(p.k), ""),
			{"α", p.alpha},
		},
		Source: srcDynamicThreshold,
	}
}

// ReservedPool returns the bytes of a buffer reserved for one class when the
// intent reserves percent of it (NVUE traffic-pool memory-percent, SONiC
// BUFFER_POOL percentage):
//
//	reserved = buffer·percent/100   B, rounded down
//
// A negative buffer counts as 0; percent is clamped to 0..100.
func ReservedPool(bufferBytes int64, percent int) Derivation {
	b := nonNeg(bufferBytes)
	p := int64(clampPercent(percent))
	// b/100·p + (b%100)·p/100 equals b·p/100 without overflowing.
	v := b/100*p + b%100*p/100
	return Derivation{
		Field:   "reserved-pool",
		Value:   v,
		Unit:    "B",
		Formula: "reserved = buffer·percent/100",
		Inputs:  []Input{intIn("buffer", b, "B"), intIn("percent", p, "%")},
		Source:  srcBuffer,
	}
}

// PortClassHeadroom is one port class of a switch (a speed and cable
// length): the headroom each of its ports reserves per lossless priority,
// and how many ports are of the class.
type PortClassHeadroom struct {
	Name  string // e.g. "400G-30m"
	Bytes int64  // headroom per port and lossless priority, B
	Ports int
}

// HeadroomPool returns the headroom all ports of a switch need together,
// each port reserving its own class's headroom for each lossless priority
// (physics.md §1.3: per-port-per-PG headroom × lossless PGs × ports must
// fit the headroom pool or the buffer):
//
//	headroom_pool = Σ_class headroom_class·ports_class·lossless_priorities   B
//
// It is the sum [BufferBudget] charges for headroom, so the pool a switch
// is configured with and the budget lint checks are one figure. Classes
// are listed in the order given. Negative inputs count as 0; the sum
// saturates.
func HeadroomPool(classes []PortClassHeadroom, losslessPriorities int) Derivation {
	k := int64(max(0, losslessPriorities))
	var sum int64
	inputs := make([]Input, 0, len(classes)+1)
	for _, c := range classes {
		h, n := nonNeg(c.Bytes), int64(max(0, c.Ports))
		sum = satAdd(sum, satMul(h, n))
		inputs = append(inputs, Input{"headroom[" + c.Name + "]", strconv.FormatInt(h, 10) + " B × " + strconv.FormatInt(n, 10) + " ports"})
	}
	inputs = append(inputs, intIn("lossless_priorities", k, ""))
	return Derivation{
		Field:   "headroom-pool",
		Value:   satMul(sum, k),
		Unit:    "B",
		Formula: "headroom_pool = Σ_class headroom_class·ports_class·lossless_priorities",
		Inputs:  inputs,
		Source:  srcBuffer,
	}
}

// BudgetInput is what a switch's packet buffer must hold.
type BudgetInput struct {
	BufferBytes        int64          // total packet buffer of the switch, B
	HeadroomPoolBytes  int64          // dedicated headroom pool, B; 0 = headroom is carved from the shared buffer
	Reserves           map[string]int // reserved pools by class name, percent of BufferBytes
	PortHeadroom       []int64        // headroom per lossless priority of each port, B (one entry per port)
	LosslessPriorities int            // lossless priorities per port
}

// BufferBudget adds up what a switch's buffer must hold, the reserved pools
// plus the headroom of every port and lossless priority, and reports whether
// it fits:
//
//	demand = Σ_c buffer·reserve_c/100 + Σ_p headroom_p·lossless_priorities
//	fits   = demand ≤ buffer, and Σ_p headroom_p·lossless_priorities ≤ headroom_pool
//	         when the ASIC has a dedicated headroom pool
//
// Headroom that cannot be reserved turns into lossless drops (SONiC #480);
// reserves that exceed the buffer cannot be programmed at all. An unknown
// buffer (BufferBytes ≤ 0) never fits a non-zero demand, so callers check for
// a known buffer first. Negative entries count as 0; sums saturate.
func BufferBudget(in BudgetInput) (Derivation, bool) {
	buf := nonNeg(in.BufferBytes)
	prios := int64(max(0, in.LosslessPriorities))

	inputs := []Input{intIn("buffer", buf, "B")}
	var reserved int64
	for _, name := range slices.Sorted(maps.Keys(in.Reserves)) {
		r := ReservedPool(buf, in.Reserves[name])
		reserved = satAdd(reserved, r.Value)
		inputs = append(inputs, Input{"reserve[" + name + "]", strconv.Itoa(clampPercent(in.Reserves[name])) + " % = " + strconv.FormatInt(r.Value, 10) + " B"})
	}
	var perPrio int64
	for _, h := range in.PortHeadroom {
		perPrio = satAdd(perPrio, nonNeg(h))
	}
	headroom := satMul(perPrio, prios)
	demand := satAdd(reserved, headroom)
	inputs = append(inputs,
		intIn("Σ headroom_p", perPrio, "B"),
		intIn("ports", int64(len(in.PortHeadroom)), ""),
		intIn("lossless_priorities", prios, ""),
		intIn("headroom", headroom, "B"),
	)
	fits := demand <= buf && demand < math.MaxInt64
	formula := "demand = Σ_c buffer·reserve_c/100 + Σ_p headroom_p·lossless_priorities ≤ buffer"
	if pool := nonNeg(in.HeadroomPoolBytes); pool > 0 {
		inputs = append(inputs, intIn("headroom_pool", pool, "B"))
		formula += "; Σ_p headroom_p·lossless_priorities ≤ headroom_pool"
		fits = fits && headroom <= pool
	}
	return Derivation{
		Field:   "buffer-demand",
		Value:   demand,
		Unit:    "B",
		Formula: formula,
		Inputs:  inputs,
		Source:  srcBuffer,
	}, fits
}

// QuantizeToCells rounds bytes up to whole buffer cells: ceil(bytes/cell)·cell.
// It is the smallest amount an ASIC that allocates in cells can program for a
// requested size. Negative bytes count as 0; a cell of zero or less leaves
// bytes unchanged; a result beyond int64 rounds down to the largest whole
// cell count instead.
//
// Cell rounding does not explain every difference between requested and
// programmed values. NVIDIA documents Spectrum-4 programming an ECN
// threshold of 150 000 B as 159 744 B; with Spectrum-4's 192-B cell
// (sonic-buildimage platform/mellanox/asic_table.j2) 150 000 B is 781.25
// cells, which rounds to 782 cells = 150 144 B, not 159 744 B = 832 cells.
// The 9 744-B gap is 50 cells, so the thresholds are encoded more coarsely
// than one cell. A 4-bit mantissa (832 = 13·2⁶) reproduces the figure exactly
// [inference, not documented]. Plans must therefore tolerate read-back
// values above the cell-rounded request.
func QuantizeToCells(bytes int64, cellBytes int) int64 {
	b := nonNeg(bytes)
	if cellBytes <= 0 {
		return b
	}
	c := int64(cellBytes)
	q := b / c
	if b%c != 0 && q < math.MaxInt64/c {
		q++
	}
	return q * c
}

// SharedPool returns the pool lossless priority groups draw on where the
// platform holds no share of the buffer for one class (EOS, NX-OS): the
// whole buffer less the headroom carved from it, shared with every other
// class,
//
//	shared = buffer − headroom_pool   B
//
// headroom_pool is 0 when the ASIC has a dedicated headroom pool. Under
// dynamic thresholds a lossless priority group may take α·(shared − used)
// of it, and lossy traffic in the same pool lowers what is left, which is
// the cost of holding no reserve (RF117). Per-port and per-queue reserved
// minima are left out: they only lower the pool. Negative inputs count as
// 0; a headroom above the buffer gives 0.
func SharedPool(bufferBytes, headroomBytes int64) Derivation {
	b, h := nonNeg(bufferBytes), nonNeg(headroomBytes)
	return Derivation{
		Field:   "shared-pool",
		Value:   max(b-h, 0),
		Unit:    "B",
		Formula: "shared = buffer − headroom_pool   (no share held for one class: every class draws on it)",
		Inputs:  []Input{intIn("buffer", b, "B"), intIn("headroom_pool", h, "B")},
		Source:  srcSharedPool,
	}
}

const srcSharedPool = "EOS: `platform trident mmu headroom-pool limit` carves headroom, the rest is the shared service pool (switches.md §1.1); " +
	"NX-OS carves no-drop buffers itself (switches.md §4.1); compiler/platforms catalog.json native, physics.md §1.3"
