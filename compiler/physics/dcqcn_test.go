package physics

import (
	"math"
	"testing"
)

// The fluid model at the DCQCN paper's 40 Gbit/s settings (Kmin 5 KB, Kmax
// 200 KB, Pmax 1 %, g = 1/256, τ′ = 55 µs, τ = 50 µs, T = 55 µs, B = 10 MB,
// R_AI = 40 Mbit/s, F = 5, 1 KB packets) settles where the paper's analysis
// puts it: every flow at C/N (the link fully used) and the queue at the
// fixed point q* = Kmin + p*/Pmax·(Kmax − Kmin), p* from the closed form of
// "ECN or Delay" §3.2. Tolerance: the mean queue within 8 % of q* and
// utilisation at least 99.9 % for 2 to 5 flows, where the fixed point is
// stable. "ECN or Delay" (§3.2, figure 6) reports that at 85 µs of loop
// delay DCQCN is unstable with 10 flows and stable with 2 and 64: the exact
// linearisation says so for 10 and 2 (64 flows need p* above Pmax, where
// the queue sits at Kmax and the analysis does not apply).
func TestFluidModelPaperFixedPoint(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5} {
		for _, rtt := range []float64{4e-6, 40e-6} {
			r := SimulateDCQCN(FluidInput{LinkGbps: 40, Flows: n, RTT: rtt, KminBytes: 5000, KmaxBytes: 200000,
				PmaxPercent: 1, PacketBytes: 1000, NIC: PaperDCQCN()})
			p := MarkingNeeded(40, n, 1000, PaperDCQCN())
			want := 5000 + p/0.01*195000
			if math.Abs(r.QueueBytes-want) > 0.08*want {
				t.Errorf("N = %d, τ* = %v: mean queue %.0f B, want the fixed point %.0f B ± 8 %%", n, rtt, r.QueueBytes, want)
			}
			if r.Utilisation < 0.999 {
				t.Errorf("N = %d, τ* = %v: utilisation %.4f, want ≥ 0.999 (every flow at C/N)", n, rtt, r.Utilisation)
			}
		}
	}
	for n, stable := range map[int]bool{2: true, 10: false} {
		st := StabilityDCQCN(FluidInput{LinkGbps: 40, Flows: n, RTT: 85e-6, KminBytes: 5000, KmaxBytes: 200000,
			PmaxPercent: 1, PacketBytes: 1000, NIC: PaperDCQCN()})
		if !st.Applies || (st.PhaseMargin > 0) != stable {
			t.Errorf("N = %d at 85 µs: %+v, want stable = %v", n, st, stable)
		}
	}
	if st := StabilityDCQCN(FluidInput{LinkGbps: 40, Flows: 64, RTT: 85e-6, KminBytes: 5000, KmaxBytes: 200000,
		PmaxPercent: 1, PacketBytes: 1000, NIC: PaperDCQCN()}); st.Applies {
		t.Errorf("N = 64 at 85 µs: %+v, want p* above Pmax", st)
	}
}

// p* at the paper's settings for 2 and 10 flows, by hand from the closed
// form: R* = 40 Gbit/s / N in 1 KB packets, R_AI = 5000 packets/s,
// B = 10 000 packets, T·R* = 137.5 and 27.5 packets.
func TestMarkingNeededByHand(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{2, 9.24e-4}, {10, 7.85e-3}} {
		got := MarkingNeeded(40, c.n, 1000, PaperDCQCN())
		if math.Abs(got-c.want) > 0.01*c.want {
			t.Errorf("N = %d: p* = %.6f, want %.6f ± 1 %%", c.n, got, c.want)
		}
	}
	if a, b := MarkingNeeded(400, 8, 4096, ConnectXDCQCN(nil)), MarkingNeeded(400, 64, 4096, ConnectXDCQCN(nil)); !(a < b) {
		t.Errorf("p* with 8 flows %.6f, with 64 %.6f: more flows need more marking", a, b)
	}
}

// The intent's defaults (50 KB / 100 KB at 100 %) with ConnectX firmware
// defaults keep 16 flows at 90 % or more of 100 to 800 Gbit/s at round
// trips from 2 to 20 µs, and so do NVIDIA's 150 KB / 1.5 MB.
func TestFluidModelDefaultsKeepLinksBusy(t *testing.T) {
	for _, speed := range []int{100, 200, 400, 800} {
		for _, rtt := range []float64{2e-6, 10e-6, 20e-6} {
			for _, k := range [][2]int64{{50_000, 100_000}, {150_000, 1_500_000}} {
				r := SimulateDCQCN(FluidInput{LinkGbps: speed, Flows: FluidFlows, RTT: rtt, KminBytes: k[0], KmaxBytes: k[1],
					PmaxPercent: 100, PacketBytes: 4096, NIC: ConnectXDCQCN(nil)})
				if r.Utilisation < 0.9 {
					t.Errorf("%dG, τ* %v, ECN %d/%d: utilisation %.3f, want ≥ 0.9", speed, rtt, k[0], k[1], r.Utilisation)
				}
			}
		}
	}
}

func TestFluidModelOutOfRange(t *testing.T) {
	for _, in := range []FluidInput{
		{}, {LinkGbps: -1, Flows: 4}, {LinkGbps: 400, Flows: 0},
	} {
		if r := SimulateDCQCN(in); r != (FluidResult{}) {
			t.Errorf("%+v: %+v, want the zero result", in, r)
		}
	}
	// Absurd but describable inputs are clamped and still give a result in range.
	for _, in := range []FluidInput{
		{LinkGbps: 400, Flows: 1 << 30, RTT: math.NaN(), KminBytes: -5, KmaxBytes: -1, PmaxPercent: 500, PacketBytes: -3},
		{LinkGbps: 1 << 40, Flows: 2, RTT: math.Inf(1), KminBytes: 1 << 60, KmaxBytes: 1, PmaxPercent: -3, PacketBytes: 1 << 20},
	} {
		r := SimulateDCQCN(in)
		if !(r.Utilisation >= 0 && r.Utilisation <= 1) || math.IsNaN(r.QueueBytes) || r.QueueBytes < 0 {
			t.Errorf("%+v: %+v, want utilisation in 0..1 and a queue ≥ 0", in, r)
		}
	}
	if a, b := SimulateDCQCN(FluidInput{LinkGbps: 400, Flows: 16, RTT: 8e-6, KminBytes: 50_000, KmaxBytes: 100_000,
		PmaxPercent: 100, PacketBytes: 4096, NIC: ConnectXDCQCN(nil)}), SimulateDCQCN(FluidInput{LinkGbps: 400, Flows: 16,
		RTT: 8e-6, KminBytes: 50_000, KmaxBytes: 100_000, PmaxPercent: 100, PacketBytes: 4096, NIC: ConnectXDCQCN(nil)}); a != b {
		t.Errorf("two runs differ: %+v, %+v", a, b)
	}
}

func TestConnectXDCQCNOverrides(t *testing.T) {
	p := ConnectXDCQCN(map[string]int64{"dce_tcp_g": 1020, "rpg_time_reset": 100, "rpg_ai_rate": 10,
		"min_time_between_cnps": 8, "rpg_threshold": 5, "rpg_byte_reset": 1 << 20})
	if p.G != 4.0/1024 || p.Timer != 100e-6 || p.AIRate != 10e6 || p.CNPInterval != 8e-6 || p.FastRecovery != 5 || p.ByteCounter != 1<<20 {
		t.Errorf("overrides: %+v", p)
	}
	if d := ConnectXDCQCN(nil); d.G != 5.0/1024 || d.AlphaPeriod != 1e-6 || d.CNPInterval != 4e-6 {
		t.Errorf("defaults: %+v", d)
	}
}

func TestFabricRTT(t *testing.T) {
	// Two tiers at 400G: host links 3 m, uplinks 30 m, MTU 4200 B.
	d := FabricRTT([]RTTHop{{"host", 400, 3}, {"leaf-spine", 400, 30}}, 4200)
	want := 4*(3*5+4200*8/400.0) + 4*(30*5+4200*8/400.0)
	if float64(d.Value) != math.Ceil(want) {
		t.Errorf("RTT %d ns, want %.0f", d.Value, math.Ceil(want))
	}
}
