package physics

import "strconv"

// Buffer conventions: how an ASIC family's SAI reads the size, xoff and xon
// of a lossless priority group's SONiC BUFFER_PROFILE. Both are written
// with the same table and field names, so the same numbers reserve very
// different amounts of buffer.
const (
	// ConventionSpectrum: size is the PG's headroom, xoff + xon, reserved
	// per port and lossless PG (sonic-swss cfgmgr/buffer_headroom_mellanox.lua
	// returns size = xoff + xon; every Mellanox SKU's pg_profile_lookup.ini
	// has size = xoff + xon).
	ConventionSpectrum = "spectrum"
	// ConventionBroadcomXGS: size is the PG's reserved minimum (SAI
	// RESERVED_BUFFER_SIZE) and xoff its headroom, drawn from the shared
	// headroom pool the ingress pool's xoff sizes; xon_offset is the
	// hysteresis below the XOFF point. Tomahawk SKU files reserve a
	// frame or two and carry headroom in xoff alone: sonic-buildimage@086b03bd
	// device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE-O128S2
	// (TH5: size 18796 = 2 × 37 cells, xoff 612140, xon_offset 3556, pool
	// xoff 29423360), device/common/profiles/th4/gen/BALANCED (size 1248,
	// xoff 35776..268736, pool xoff 24000000), and the Celestica DS5000
	// (sonic-buildimage pull request 28275 @ fe6e3415: size 9144 = 36
	// cells, xoff 700160, pool xoff 10485760).
	ConventionBroadcomXGS = "broadcom-xgs"
)

const srcConvention = "SONiC BUFFER_PROFILE on Spectrum (size = xoff + xon, buffer_headroom_mellanox.lua) vs Broadcom XGS (size = reserved minimum, xoff = headroom from the ingress pool's shared headroom xoff; Arista-7060X6-64PE-O128S2, th4/gen/BALANCED, DS5000 SKU files)"

// PGMinimum returns the reserved minimum of a lossless priority group under
// the Broadcom XGS convention: one frame of the port MTU, in whole cells,
// so that a PG can always take a frame whatever the shared pool holds
// (DS5000: 9144 B = 36 cells of 254 B for a 9100-B MTU; Arista's TH5 SKU
// reserves two such frames, 18796 B = 2 × 37 cells for 9216 B):
//
//	min = ceil(MTU/cell)·cell   B
func PGMinimum(mtu int, cellBytes int) Derivation {
	m := nonNeg(int64(mtu))
	return Derivation{
		Field:   "pg-minimum",
		Value:   QuantizeToCells(m, cellBytes),
		Unit:    "B",
		Formula: "min = ceil(MTU/cell)·cell",
		Inputs:  []Input{intIn("MTU", m, "B"), intIn("cell", int64(max(cellBytes, 0)), "B")},
		Source:  srcConvention,
	}
}

// A PortClassProfile is one port class's lossless profile and how many
// ports use it.
type PortClassProfile struct {
	Name       string
	Xoff, Size int64 // the model's xoff and size (size = xoff + xon)
	Ports      int
}

// ConventionBudgetInput is what ConventionBudget charges.
type ConventionBudgetInput struct {
	Convention         string
	BufferBytes        int64
	ReservedBytes      int64 // pools reserved for classes
	Classes            []PortClassProfile
	LosslessPriorities int
	PGMinBytes         int64 // reserved minimum per PG (Broadcom XGS)
}

// ConventionBudget adds up what a switch's buffer must hold under the
// buffer convention its ASIC really uses:
//
//	spectrum:     headroom = Σ size·ports·k,  minimum = 0
//	broadcom-xgs: headroom = Σ xoff·ports·k (the shared headroom pool),
//	              minimum = min·ports·k (each PG's reserved size)
//	demand = reserved + minimum + headroom ≤ buffer
//
// k is the lossless priorities per port. Counting size as headroom on a
// Broadcom switch (size = xoff + xon reserved per PG and xoff again from the
// headroom) charges almost twice the headroom the physics needs. It returns
// the demand derivation, the minimum and headroom parts, and whether the
// demand fits. An unknown convention is charged as spectrum, the larger.
func ConventionBudget(in ConventionBudgetInput) (d Derivation, minimum, headroom int64, fits bool) {
	k := int64(max(0, in.LosslessPriorities))
	var ports int64
	for _, c := range in.Classes {
		n := int64(max(0, c.Ports))
		ports = satAdd(ports, n)
		per := nonNeg(c.Size)
		if in.Convention == ConventionBroadcomXGS {
			per = nonNeg(c.Xoff)
		}
		headroom = satAdd(headroom, satMul(satMul(per, n), k))
	}
	formula := "demand = reserved + Σ size·ports·k ≤ buffer   (spectrum: size = xoff + xon is the PG's headroom)"
	if in.Convention == ConventionBroadcomXGS {
		minimum = satMul(satMul(nonNeg(in.PGMinBytes), ports), k)
		formula = "demand = reserved + min·ports·k + Σ xoff·ports·k ≤ buffer   (broadcom-xgs: size = reserved minimum, xoff = headroom from the shared headroom pool)"
	}
	buf := nonNeg(in.BufferBytes)
	demand := satAdd(satAdd(nonNeg(in.ReservedBytes), minimum), headroom)
	conv := in.Convention
	if conv == "" {
		conv = ConventionSpectrum
	}
	return Derivation{
		Field:   "buffer-demand",
		Value:   demand,
		Unit:    "B",
		Formula: formula,
		Inputs: []Input{
			{"convention", conv},
			intIn("buffer", buf, "B"),
			intIn("reserved", nonNeg(in.ReservedBytes), "B"),
			intIn("ports", ports, ""),
			intIn("lossless_priorities", k, ""),
			intIn("min", nonNeg(in.PGMinBytes), "B"),
			intIn("minimum", minimum, "B"),
			intIn("headroom", headroom, "B"),
			{"fits", strconv.FormatBool(demand <= buf)},
		},
		Source: srcConvention,
	}, minimum, headroom, demand <= buf
}

// ConventionHeadroom returns the headroom a lossless priority group holds
// under convention, the figure the profile programs and the headroom pool
// adds up:
//
//	spectrum:     headroom = xoff + xon   (the profile's size)
//	broadcom-xgs: headroom = xoff         (drawn from the shared headroom
//	                                       pool; xon_offset is hysteresis
//	                                       below the XOFF point and holds no
//	                                       buffer of its own)
//
// Negative inputs count as 0; the sum saturates. An unknown convention is
// treated as spectrum, the larger.
func ConventionHeadroom(convention string, xoff, xon int64) Derivation {
	x, n := nonNeg(xoff), nonNeg(xon)
	headroom, xonName := satAdd(x, n), "xon"
	formula := "headroom = xoff + xon   (spectrum: the profile's size)"
	if convention == ConventionBroadcomXGS {
		headroom, xonName = x, "xon_offset"
		formula = "headroom = xoff   (broadcom-xgs: xoff is drawn from the shared headroom pool; xon_offset lies below the XOFF point and reserves nothing)"
	}
	return Derivation{
		Field:   "headroom",
		Value:   headroom,
		Unit:    "B",
		Formula: formula,
		Inputs:  []Input{intIn("xoff", x, "B"), intIn(xonName, n, "B")},
		Source:  srcConvention,
	}
}

const srcBroadcomPool = "SAI saibuffer.h SAI_BUFFER_POOL_ATTR_XOFF_SIZE, the shared headroom pool, is part of SAI_BUFFER_POOL_ATTR_SIZE " +
	"(opencomputeproject/SAI pull request 980); SAI_BUFFER_PROFILE_ATTR_SHARED_DYNAMIC_TH: 2^n of the pool's available buffer; " +
	"Tomahawk SKU files put lossy and lossless priority groups in ingress_lossless_pool (sonic-buildimage@086b03bd " +
	"device/arista/x86_64-arista_7060x6_64pe/Arista-7060X6-64PE-O128S2/buffers_defaults_t1.j2); physics.md §2"

// BroadcomLosslessPool returns the pool a lossless priority group's
// dynamic threshold draws on, at worst, in the one ingress pool a
// Broadcom XGS SONiC switch is rendered with, lossy and lossless priority
// groups alike:
//
//	pool = (size − xoff) − lossy_max
//
// size is ingress_lossless_pool's size, which holds the shared headroom
// pool xoff (SAI: XOFF_SIZE is part of SIZE), so size − xoff is what the
// priority groups share; lossy_max is what lossy traffic can hold of that
// at worst. Every cell a lossy packet holds at ingress it also holds in a
// lossy egress queue, and the lossy egress queues draw on egress_lossy_pool
// alone, so lossy traffic holds at most that pool's size. The lossless
// groups' α·(pool − used) then sees this pool when lossy traffic is at its
// worst, which is the case the PFC XOFF point must be checked for. Rendered
// with size = buffer − minimums and the egress lossy pool = buffer −
// reserve − minimums − xoff, the pool is the reserve: the reserve is held
// against lossy traffic, for the lossless classes together.
//
// Negative inputs count as 0; a result below 0 gives 0.
func BroadcomLosslessPool(ingressSize, xoff, lossyMax int64) Derivation {
	s, x, l := nonNeg(ingressSize), nonNeg(xoff), nonNeg(lossyMax)
	return Derivation{
		Field:   "lossless-pool",
		Value:   max(s-x-l, 0),
		Unit:    "B",
		Formula: "pool = (size − xoff) − lossy_max   (broadcom-xgs: one ingress pool for lossy and lossless priority groups; size holds the shared headroom pool xoff; lossy traffic holds at most egress_lossy_pool)",
		Inputs: []Input{
			intIn("size", s, "B"),
			intIn("xoff", x, "B"),
			intIn("lossy_max", l, "B"),
		},
		Source: srcBroadcomPool,
	}
}
