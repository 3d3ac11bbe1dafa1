package physics

import (
	"math"
	"time"
)

// Sources cited by the headroom derivations.
const (
	srcSONiCHeadroom = "sonic-swss cfgmgr/buffer_headroom_mellanox.lua; sonic-buildimage platform/mellanox/asic_table.j2; physics.md §1.2"
	srcFirstPrinc    = "IEEE 802.1Qbb, 802.3 Annex 31B; Cisco white paper c11-542809; physics.md §1.1"
	srcMLX5Headroom  = "linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c calculate_xoff; hosts.md §1.6; physics.md §1.2"
)

// Constants of the switch headroom model.
const (
	// DefaultPipelineLatencyBytes is the ingress pipeline latency ("xon") the
	// SONiC Mellanox ASIC_TABLE sets for Spectrum-1 to Spectrum-5: 19 KiB
	// (sonic-buildimage platform/mellanox/asic_table.j2). Older images, and the
	// worked table of physics.md §1.3, use 18 KiB; Spectrum-6 uses 42 KiB.
	DefaultPipelineLatencyBytes = 19 * KiB

	// DefaultMACPHYDelayBytes is the bytes held in the MAC/PHY when XOFF is
	// decided: 0.8 KiB in the same ASIC_TABLE, for every Spectrum generation.
	DefaultMACPHYDelayBytes = 0.8 * KiB

	// SpeedOfLightCable is the signal velocity in cable the SONiC plugin uses,
	// in m/s (≈ 0.66 c; 5.05 ns/m).
	SpeedOfLightCable = 1.98e8

	// FibreDelayPerMetre is the one-way propagation delay the first-principles
	// model uses: ≈ 5 ns/m in fibre (Cisco c11-542809: 513 ns per 100 m of
	// SMF at 0.65 c, 476 ns per 100 m of twinax at 0.7 c).
	FibreDelayPerMetre = 5 * time.Nanosecond

	// PFCFrameWireBytes is a PFC frame on the wire: 64 B frame + 12 B
	// inter-frame gap + 8 B preamble/SFD (IEEE 802.1Qbb).
	PFCFrameWireBytes = 84
)

// pauseQuanta is the sender's response time (D-Resp) in pause quanta of 512
// bit times per port speed: IEEE 802.3 Annex 31B.3.7 (Table 31B-1, PAUSE
// reaction timing) as tabulated in sonic-swss cfgmgr/buffer_headroom_mellanox.lua
// (pause_quanta_per_speed). The figure is a count of bit times, so the same
// count is a shorter time at a higher speed: 394 quanta at 100G are 2.02 µs,
// 453 at 200G and 905 at 400G both 1.16 µs.
//
// 800G: the lua gives 905, and its author answered the review question "how
// is this the same as for 400G?" with "this is defined by the IEEE. 400G
// and 800G share the same value" (sonic-net/sonic-swss PR #2860, 2023,
// NVIDIA). That is 0.58 µs, half the 400G time; the 802.3df-2024 table was
// not read directly here [verify]. Arista's Tomahawk 5 SKU files size 800G
// xoff with a reaction time that does not halve (MinFrameCellHeadroom), so
// the Tomahawk family does not depend on this figure. 1.6T is in no table
// yet (802.3dj) and takes the 800G figure.
//
// The worked table of physics.md §1.3 charges 905 quanta at every speed;
// that is right only at 400G and 800G: at 100G the standard's 394 quanta
// are 25 216 B, not 57 920 B (TestPauseQuanta100G).
var pauseQuanta = []struct{ gbps, quanta int }{
	{1, 2}, {10, 67}, {25, 80}, {40, 118}, {50, 147},
	{100, 394}, {200, 453}, {400, 905}, {800, 905}, {1600, 905},
}

// PauseQuanta returns the peer response time in pause quanta for a port
// speed. A speed between two tabulated speeds takes the faster one's figure
// (more quanta, so more headroom); speeds above 1.6T take the 1.6T figure;
// speeds of zero or less return 0.
func PauseQuanta(speedGbps int) int {
	if speedGbps <= 0 {
		return 0
	}
	for _, q := range pauseQuanta {
		if speedGbps <= q.gbps {
			return q.quanta
		}
	}
	return pauseQuanta[len(pauseQuanta)-1].quanta
}

// HeadroomInput describes one lossless priority group of one switch port.
type HeadroomInput struct {
	SpeedGbps          int     // port speed, Gbit/s
	CableM             float64 // cable length to the peer, m
	PortMTU            int     // largest frame of any class on the port, B (the frame that may be on the wire when XOFF is decided)
	LosslessMTU        int     // largest lossless frame, B (SONiC LOSSLESS_TRAFFIC_PATTERN.mtu)
	CellBytes          int     // buffer cell size, B; 0 = no cell model (occupancy 1)
	SmallPacketPercent int     // share of minimum-size packets in lossless traffic, 0..100 (SONiC small_packet_percentage)

	// Optional ASIC constants; zero selects the default.
	PipelineLatencyBytes int64   // ingress pipeline latency, B (default DefaultPipelineLatencyBytes)
	MACPHYDelayBytes     float64 // MAC/PHY delay, B (default DefaultMACPHYDelayBytes)
	Lanes                int     // SerDes lanes of the port (default 8 for 800G and faster, else 4)

	// Model selects the vendor formula; the zero value is ModelSpectrum.
	Model HeadroomModel
	// ResponseTime is the fixed reaction time of ModelMinFrameCell (the
	// time-proportional part of xoff); ignored by ModelSpectrum.
	ResponseTime time.Duration
	// XonBytes is the XON hysteresis of ModelMinFrameCell, B; ignored by
	// ModelSpectrum, whose xon is the pipeline latency.
	XonBytes int64
}

// HeadroomModel names the vendor formula [PortHeadroom] applies. Switch
// ASIC families size headroom differently; the catalog says which family
// uses which (compiler/platforms asic_families.json).
type HeadroomModel string

// Headroom models.
const (
	// ModelSpectrum is the SONiC/NVIDIA Spectrum dynamic-buffer formula
	// (sonic-swss cfgmgr/buffer_headroom_mellanox.lua).
	ModelSpectrum HeadroomModel = ""
	// ModelMinFrameCell charges every byte that can still arrive as if it
	// came in minimum-size frames, each taking a whole cell; it reproduces
	// the xoff values of Arista's SONiC SKU files for Tomahawk 5
	// (see [MinFrameCellHeadroom]).
	ModelMinFrameCell HeadroomModel = "min-frame-cell"
)

// Thresholds are the PFC thresholds of one lossless priority group of one
// port: the bytes that must still fit after XOFF is decided (Xoff), the
// pipeline allowance (Xon), and the headroom to reserve (Size).
type Thresholds struct {
	Xoff, Xon, Size Derivation
}

// PortHeadroom returns the per-port, per-lossless-priority PFC headroom a
// switch needs, by the SONiC/NVIDIA Spectrum dynamic-buffer formula
// (sonic-swss cfgmgr/buffer_headroom_mellanox.lua), which physics.md §1.3
// tabulates:
//
//	peer_resp = quanta(S)·512/8                              B (sender reaction, 802.3 Annex 31B)
//	cable     = 2·L·S_Mbps·1e9 / v / (8·1024)                B (round trip; the lua's units, ≈2.3 % below 2·L·S/v/8)
//	wcf       = cell/64 if cell > 128 else 2·cell/(1+cell)   (worst-case cell waste of 64-B packets)
//	occupancy = (100 − p + p·wcf) / 100
//	xoff      = ceil1K(MTU_lossless + (MTU_port + cable + mac_phy + peer_resp)·occupancy)
//	xon       = ceil1K(pipeline)          (8-lane ports: ceil1K(2·pipeline − 1024))
//	size      = ceil1K(xoff + xon)        (8-lane ports: + MTU_port)
//
// with v = 1.98e8 m/s. The gearbox term of the lua is zero here (no
// gearbox). Headroom grows with cable length and speed. A speed of zero or
// less yields zero Thresholds; other inputs are clamped (package doc).
//
// The result reproduces what a SONiC/Spectrum switch programs, not a bound:
// with few small packets (occupancy near 1) it falls below [MinHeadroom] on
// long links, because the lua's cable term divides by 8·1024 instead of 8
// and it leaves out the PFC frame (physics.md §1.3, 400G/500 m at 0 %: xoff
// 309 KiB against a 314 KiB floor). Checks compare configured headroom with
// both.
func PortHeadroom(in HeadroomInput) Thresholds {
	if in.SpeedGbps <= 0 {
		return Thresholds{}
	}
	if in.Model == ModelMinFrameCell {
		return MinFrameCellHeadroom(in)
	}
	s, l, portMTU, losslessMTU := in.link()
	cell := max(1, min(in.CellBytes, MaxCellBytes))
	p := float64(clampPercent(in.SmallPacketPercent))
	pipeline := float64(DefaultPipelineLatencyBytes)
	if in.PipelineLatencyBytes > 0 {
		pipeline = float64(min(in.PipelineLatencyBytes, 1<<30))
	}
	macPHY := float64(DefaultMACPHYDelayBytes)
	if in.MACPHYDelayBytes > 0 { // also false for NaN
		macPHY = min(in.MACPHYDelayBytes, 1<<30)
	}
	lanes := in.Lanes
	if lanes <= 0 {
		lanes = 4
		if s >= 800 {
			lanes = 8
		}
	}
	eightLane := lanes >= 8

	quanta := PauseQuanta(s)
	peer := float64(quanta) * 512 / 8
	cable := 2 * l * float64(s) * 1000 * 1e9 / SpeedOfLightCable / (8 * 1024)
	var wcf float64
	if cell > 2*64 {
		wcf = float64(cell) / 64
	} else {
		wcf = 2 * float64(cell) / (1 + float64(cell))
	}
	occ := (100 - p + p*wcf) / 100
	xoff := ceil1K(losslessMTU + (portMTU+cable+macPHY+peer)*occ)

	xonRaw, xonFormula := pipeline, "xon = ceil1K(pipeline)"
	overhead, sizeFormula := 0.0, "headroom = ceil1K(xoff + xon)"
	if eightLane {
		xonRaw, xonFormula = 2*pipeline-1024, "xon = ceil1K(2·pipeline − 1024)   (8-lane port)"
		overhead, sizeFormula = portMTU, "headroom = ceil1K(xoff + xon + MTU_port)   (8-lane port)"
	}
	xon := ceil1K(xonRaw)
	size := ceil1K(xoff + xon + overhead)
	sizeInputs := []Input{bytesIn("xoff", xoff), bytesIn("xon", xon)}
	if eightLane {
		sizeInputs = append(sizeInputs, bytesIn("MTU_port", portMTU))
	}

	return Thresholds{
		Xoff: Derivation{
			Field: "xoff",
			Value: ceilInt(xoff),
			Unit:  "B",
			Formula: "xoff = ceil1K(MTU_lossless + (MTU_port + cable + mac_phy + peer_resp)·occupancy); " +
				"cable = 2·L·S/v (lua units: S in Mb/s ·1e9, /8192); peer_resp = quanta·512/8; " +
				"occupancy = (100 − p + p·wcf)/100; wcf = cell/64 if cell > 128 else 2·cell/(1+cell)",
			Inputs: []Input{
				bytesIn("MTU_lossless", losslessMTU),
				bytesIn("MTU_port", portMTU),
				cableIn(l),
				speedIn(s),
				{"v", "1.98e8 m/s"},
				bytesIn("cable", cable),
				bytesIn("mac_phy", macPHY),
				intIn("quanta", int64(quanta), ""),
				bytesIn("peer_resp", peer),
				intIn("cell", int64(cell), "B"),
				{"wcf", num(wcf)},
				intIn("p", int64(p), "%"),
				{"occupancy", num(occ)},
			},
			Source: srcSONiCHeadroom,
		},
		Xon:  inBytes("xon", xon, xonFormula, srcSONiCHeadroom, bytesIn("pipeline", pipeline), intIn("lanes", int64(lanes), "")),
		Size: inBytes("headroom", size, sizeFormula, srcSONiCHeadroom, append(sizeInputs, intIn("lanes", int64(lanes), ""))...),
	}
}

// link returns in's speed, cable length and port and lossless MTUs
// clamped to the ranges every headroom model reads them in.
func (in HeadroomInput) link() (speed int, cable, portMTU, losslessMTU float64) {
	return clampSpeed(in.SpeedGbps), clampCable(in.CableM), float64(clampMTU(in.PortMTU)), float64(clampMTU(in.LosslessMTU))
}

// MinHeadroom returns the first-principles floor of the headroom one
// lossless priority group of a port needs (physics.md §1.1): the bytes that
// still arrive after the receiver decides to send XOFF,
//
//	H_min = MTU_port            frame already leaving the receiver delays the PFC frame
//	      + PFC_frame           84 B on the wire
//	      + 2·L·t_prop·S/8      data in flight on the cable, both directions (t_prop = 5 ns/m)
//	      + quanta(S)·512/8     sender reaction time (802.3 Annex 31B)
//	      + MTU_lossless        lossless frame the sender has already started
//
// MAC/PCS/FEC/PHY latency (D-Intf) and cell waste are left out because they
// are vendor-specific, which makes this a floor: a configured headroom
// below it loses lossless frames on every platform, whatever the vendor
// adds. It uses in.SpeedGbps, CableM, PortMTU and LosslessMTU only. A speed
// of zero or less yields the zero Derivation.
func MinHeadroom(in HeadroomInput) Derivation {
	if in.SpeedGbps <= 0 {
		return Derivation{}
	}
	s, l, portMTU, losslessMTU := in.link()
	quanta := PauseQuanta(s)
	resp := float64(quanta) * 512 / 8
	// 2·L·t_prop·S/8 with t_prop in ns and S in Gbit/s gives bits·1e-9·1e9.
	wire := 2 * l * FibreDelayPerMetre.Seconds() * float64(s) * 1e9 / 8
	h := portMTU + PFCFrameWireBytes + wire + resp + losslessMTU
	return Derivation{
		Field:   "headroom-floor",
		Value:   ceilInt(h),
		Unit:    "B",
		Formula: "H_min = MTU_port + PFC_frame + 2·L·t_prop·S/8 + quanta·512/8 + MTU_lossless   (D-Intf = 0: a floor)",
		Inputs: []Input{
			bytesIn("MTU_port", portMTU),
			bytesIn("PFC_frame", PFCFrameWireBytes),
			cableIn(l),
			{"t_prop", "5 ns/m"},
			speedIn(s),
			bytesIn("wire", wire),
			intIn("quanta", int64(quanta), ""),
			bytesIn("D_resp", resp),
			bytesIn("MTU_lossless", losslessMTU),
		},
		Source: srcFirstPrinc,
	}
}

// NICHeadroom returns the xoff the mlx5 driver computes for a lossless
// receive buffer of a ConnectX NIC (port_buffer.c calculate_xoff), in the
// driver's integer arithmetic:
//
//	xoff = (301 + 216·L/100)·S_Mbps/1000 + 272·MTU/100    B
//
// i.e. (301 + 2.16·L)·S + 2.72·MTU with S in Gbit/s, floored at 40 Gbit/s as
// the driver does. 301 B per Gbit/s is ≈ 2.4 µs of fixed response time,
// 2.16 B per m·Gbit/s ≈ 17 ns/m of round trip with margin, and 2.72·MTU
// covers frames in flight both ways. The driver takes the cable length in
// whole metres (default 7, accepted 1..999), so cableM is rounded up; the
// driver requires a lossless buffer of at least xoff + MTU + cell. A speed of
// zero or less yields the zero Derivation.
func NICHeadroom(speedGbps int, cableM float64, mtu int) Derivation {
	if speedGbps <= 0 {
		return Derivation{}
	}
	s := max(clampSpeed(speedGbps), 40)
	l := int64(math.Ceil(clampCable(cableM)))
	m := int64(clampMTU(mtu))
	speedMbps := int64(s) * 1000
	xoff := (301+216*l/100)*speedMbps/1000 + 272*m/100
	return Derivation{
		Field:   "nic-xoff",
		Value:   xoff,
		Unit:    "B",
		Formula: "xoff = (301 + 216·L/100)·S_Mbps/1000 + 272·MTU/100   (integer arithmetic; ≈ (301 + 2.16·L)·S + 2.72·MTU; S ≥ 40 Gbit/s)",
		Inputs: []Input{
			intIn("L", l, "m"),
			intIn("S_Mbps", speedMbps, "Mbit/s"),
			intIn("MTU", m, "B"),
		},
		Source: srcMLX5Headroom,
	}
}

// PropagationDelay returns the one-way propagation delay of a cable at
// FibreDelayPerMetre (5 ns/m). Negative and absurd lengths are clamped.
func PropagationDelay(cableM float64) time.Duration {
	return time.Duration(math.Round(clampCable(cableM) * float64(FibreDelayPerMetre)))
}

// DurationBytes returns how many bytes a port of the given speed sends in d:
// bytes = S·t/8. It converts thresholds kept in time (e.g. ECN Kmin/Kmax as
// queueing delay, physics.md §3.1) into the bytes switches are configured
// in; 1 µs is 48.8 KiB at 400G. A speed of zero or less, or a negative
// duration, yields the zero Derivation.
func DurationBytes(speedGbps int, d time.Duration) Derivation {
	if speedGbps <= 0 || d < 0 {
		return Derivation{}
	}
	s := clampSpeed(speedGbps)
	// Gbit/s × ns = bits, exact in integers.
	bits := satMul(int64(s), int64(d))
	b := bits / 8
	if bits == math.MaxInt64 {
		b = math.MaxInt64 // saturated
	} else if bits%8 != 0 {
		b++
	}
	return Derivation{
		Field:   "bytes-in-time",
		Value:   b,
		Unit:    "B",
		Formula: "bytes = S·t/8",
		Inputs:  []Input{speedIn(s), {"t", d.String()}},
		Source:  "line rate; physics.md §1.3 rules of thumb, §3.1",
	}
}
