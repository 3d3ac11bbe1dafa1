package physics

import (
	"math"
	"time"
)

const srcMinFrameCell = "fitted to Arista's SONiC SKU files for the 7060X6-64PE-B (Tomahawk 5): sonic-net/sonic-buildimage@086b03bd " +
	"device/arista/x86_64-arista_7060x6_64pe_b/Arista-7060X6-64PE-B-{O128,P32O64,P32V128,P64}/pg_profile_lookup.ini; physics.md §1.1"

// MinFrameWireBytes is the wire time of a minimum-size Ethernet frame: 64 B
// plus 8 B of preamble and SFD and a 12 B inter-frame gap. A receiver that
// stores every frame in whole cells holds the most per wire byte when every
// frame is this small.
const MinFrameWireBytes = 84

// MinFrameCellHeadroom returns the per-port, per-lossless-priority PFC
// headroom of an ASIC that stores each frame in whole cells and sizes
// headroom for the worst case of minimum-size frames (Broadcom Tomahawk):
//
//	occupancy = cell / 84                                  (one 254-B cell per 64-B frame of 84 B on the wire)
//	in_flight = 2·MTU_port + S·t_resp/8 + 2·L·S/(8·v)      B (a frame each way, fixed reaction time, cable round trip)
//	xoff      = ceil_cell(occupancy·in_flight)
//	xon       = ceil_cell(XonBytes)
//	size      = xoff + xon
//
// with v = 2e8 m/s (5 ns/m). Broadcom publishes no headroom formula; this
// one is inferred from Arista's own SONiC SKU files for the 7060X6-64PE-B,
// whose pg_profile_lookup.ini xoff values it reproduces within 1.5 % over
// 200G, 400G and 800G and 5 m to 500 m with t_resp = 2.18 µs and MTU_port
// 9216 (TestMinFrameCellMatchesArista). At 400G/40m that is 443 KB, where
// the Spectrum formula gives about 160 KB: a Tomahawk's 254-B cells waste
// far more per small frame than Spectrum's 144 or 192 B. The reaction time
// is a fitted constant in time, not 802.3 pause quanta: the SKU files grow
// it with speed at 800G as at 400G. A speed of zero or less yields zero
// Thresholds; a cell of zero or less counts as 84 B (occupancy 1).
func MinFrameCellHeadroom(in HeadroomInput) Thresholds {
	if in.SpeedGbps <= 0 {
		return Thresholds{}
	}
	s, l, portMTU, _ := in.link()
	cell := in.CellBytes
	if cell <= 0 {
		cell = MinFrameWireBytes
	}
	cell = min(cell, MaxCellBytes)
	resp := max(0, min(in.ResponseTime, time.Second))
	xonIn := float64(max(0, min(in.XonBytes, 1<<30)))

	occ := float64(cell) / MinFrameWireBytes
	respBytes := resp.Seconds() * float64(s) * 1e9 / 8
	wire := 2 * l * FibreDelayPerMetre.Seconds() * float64(s) * 1e9 / 8
	inFlight := 2*portMTU + respBytes + wire
	xoff := ceilCell(occ*inFlight, cell)
	xon := ceilCell(xonIn, cell)
	size := xoff + xon
	return Thresholds{
		Xoff: Derivation{
			Field: "xoff",
			Value: ceilInt(xoff),
			Unit:  "B",
			Formula: "xoff = ceil_cell(occupancy·(2·MTU_port + S·t_resp/8 + 2·L·t_prop·S/8)); " +
				"occupancy = cell/84   (every frame minimum size, 64 B + 20 B on the wire, one cell each)",
			Inputs: []Input{
				bytesIn("MTU_port", portMTU),
				cableIn(l),
				{"t_prop", "5 ns/m"},
				speedIn(s),
				bytesIn("cable", wire),
				{"t_resp", resp.String()},
				bytesIn("response", respBytes),
				intIn("cell", int64(cell), "B"),
				{"occupancy", num(occ)},
			},
			Source: srcMinFrameCell,
		},
		Xon:  inBytes("xon", xon, "xon = ceil_cell(xon_offset)", srcMinFrameCell, bytesIn("xon_offset", xonIn), intIn("cell", int64(cell), "B")),
		Size: inBytes("headroom", size, "headroom = xoff + xon", srcMinFrameCell, bytesIn("xoff", xoff), bytesIn("xon", xon)),
	}
}

// ceilCell rounds x up to whole cells of cell bytes.
func ceilCell(x float64, cell int) float64 {
	c := float64(cell)
	return math.Ceil(x/c) * c
}
