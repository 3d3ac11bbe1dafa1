package physics

import (
	"math"
	"testing"
	"time"
)

// physicsTable is the worked table of physics.md §1.3, in KiB: the SONiC
// Spectrum model (port MTU 9100, lossless MTU 1024, cell 144, pipeline
// 18 KiB, mac_phy 0.8 KiB, 800G as 8-lane) at 100 % and 0 % small packets,
// the first-principles floor (port MTU 9216, lossless MTU 4200) and the mlx5
// NIC xoff at MTU 4200 and 9000.
var physicsTable = []struct {
	speed            int
	cable            float64
	xoff100, size100 int64
	xoff0, size0     int64
	floor            int64
	nic4200, nic9000 int64
}{
	{speed: 400, cable: 5, xoff100: 156, size100: 174, xoff0: 70, size0: 88, floor: 72, nic4200: 133, nic9000: 145},
	{speed: 400, cable: 30, xoff100: 183, size100: 201, xoff0: 82, size0: 100, floor: 84, nic4200: 154, nic9000: 167},
	{speed: 400, cable: 100, xoff100: 259, size100: 277, xoff0: 116, size0: 134, floor: 119, nic4200: 213, nic9000: 226},
	{speed: 400, cable: 500, xoff100: 692, size100: 710, xoff0: 309, size0: 327, floor: 314, nic4200: 551, nic9000: 563},
	{speed: 800, cable: 5, xoff100: 161, size100: 205, xoff0: 73, size0: 117, floor: 75, nic4200: 254, nic9000: 267},
	{speed: 800, cable: 30, xoff100: 216, size100: 260, xoff0: 97, size0: 141, floor: 99, nic4200: 296, nic9000: 309},
	{speed: 800, cable: 100, xoff100: 367, size100: 411, xoff0: 164, size0: 208, floor: 167, nic4200: 415, nic9000: 428},
	{speed: 800, cable: 500, xoff100: 1234, size100: 1278, xoff0: 549, size0: 593, floor: 558, nic4200: 1090, nic9000: 1103},
}

func spectrumInput(speed int, cable float64, smallPct int) HeadroomInput {
	return HeadroomInput{
		SpeedGbps: speed, CableM: cable,
		PortMTU: 9100, LosslessMTU: 1024, CellBytes: 144, SmallPacketPercent: smallPct,
	}
}

// kib rounds bytes to the nearest KiB, as the table prints them.
func kib(b int64) int64 { return int64(math.Round(float64(b) / KiB)) }

func TestPortHeadroomMatchesPhysicsTable(t *testing.T) {
	for _, r := range physicsTable {
		for _, c := range []struct {
			pct        int
			xoff, size int64
		}{{100, r.xoff100, r.size100}, {0, r.xoff0, r.size0}} {
			in := spectrumInput(r.speed, r.cable, c.pct)
			in.PipelineLatencyBytes = 18 * KiB // the table's assumption
			got := PortHeadroom(in)
			if got.Xoff.Value != c.xoff*KiB || got.Size.Value != c.size*KiB {
				t.Errorf("%dG %gm p=%d%%: xoff/size = %d/%d KiB, physics.md says %d/%d KiB",
					r.speed, r.cable, c.pct, kib(got.Xoff.Value), kib(got.Size.Value), c.xoff, c.size)
			}
			wantXon := int64(18)
			if r.speed >= 800 {
				wantXon = 35 // 2·18 − 1 for 8-lane ports
			}
			if got.Xon.Value != wantXon*KiB {
				t.Errorf("%dG %gm: xon = %d B, want %d KiB", r.speed, r.cable, got.Xon.Value, wantXon)
			}

			// With the current ASIC_TABLE default (19 KiB) only xon moves: within 3 %.
			def := PortHeadroom(spectrumInput(r.speed, r.cable, c.pct))
			if def.Xoff.Value != got.Xoff.Value {
				t.Errorf("%dG %gm: default pipeline changed xoff", r.speed, r.cable)
			}
			if d := math.Abs(float64(def.Size.Value-c.size*KiB)) / float64(c.size*KiB); d > 0.03 {
				t.Errorf("%dG %gm p=%d%%: default size %d KiB is %.1f %% off physics.md %d KiB",
					r.speed, r.cable, c.pct, kib(def.Size.Value), 100*d, c.size)
			}
		}
	}
}

func TestMinHeadroomMatchesPhysicsTable(t *testing.T) {
	for _, r := range physicsTable {
		got := MinHeadroom(HeadroomInput{SpeedGbps: r.speed, CableM: r.cable, PortMTU: 9216, LosslessMTU: 4200})
		if kib(got.Value) != r.floor {
			t.Errorf("%dG %gm: floor = %d B (%d KiB), physics.md says %d KiB", r.speed, r.cable, got.Value, kib(got.Value), r.floor)
		}
	}
	// 400G/5m exactly: 9216 + 84 + 2500 + 57920 + 4200.
	if got := MinHeadroom(HeadroomInput{SpeedGbps: 400, CableM: 5, PortMTU: 9216, LosslessMTU: 4200}).Value; got != 73920 {
		t.Errorf("400G/5m floor = %d, want 73920", got)
	}
}

func TestNICHeadroomMatchesPhysicsTable(t *testing.T) {
	for _, r := range physicsTable {
		for _, c := range []struct {
			mtu  int
			want int64
		}{{4200, r.nic4200}, {9000, r.nic9000}} {
			got := NICHeadroom(r.speed, r.cable, c.mtu)
			// The table rounds the real-valued formula; the driver truncates
			// 216·L/100, so allow one KiB.
			if d := got.Value - c.want*KiB; d < -KiB || d > KiB {
				t.Errorf("%dG %gm MTU %d: nic xoff = %d B (%.1f KiB), physics.md says %d KiB",
					r.speed, r.cable, c.mtu, got.Value, float64(got.Value)/KiB, c.want)
			}
		}
	}
}

func TestNICHeadroomDriverArithmetic(t *testing.T) {
	tests := []struct {
		speed int
		cable float64
		mtu   int
		want  int64
	}{
		{400, 5, 4200, (301+10)*400 + 11424}, // 216·5/100 truncates to 10
		{100, 7, 9000, (301+15)*100 + 24480},
		{25, 7, 1500, (301+15)*40 + 4080}, // speed floored at 40G
		{400, 2.5, 4200, (301+6)*400 + 11424},
		{400, 0, 4200, 301*400 + 11424},
		{400, -3, 4200, 301*400 + 11424},
	}
	for _, tt := range tests {
		if got := NICHeadroom(tt.speed, tt.cable, tt.mtu).Value; got != tt.want {
			t.Errorf("NICHeadroom(%d, %g, %d) = %d, want %d", tt.speed, tt.cable, tt.mtu, got, tt.want)
		}
	}
}

// series is f of each of xs: a figure along a cable or a speed axis.
func series[T any](xs []T, f func(T) int64) []int64 {
	v := make([]int64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	return v
}

// fall returns the first i at which v[i] is below v[i-1], or 0 when v
// never falls: headroom that shrinks as a cable grows longer or a port
// faster is the error the growth tests look for.
func fall(v []int64) int {
	for i := 1; i < len(v); i++ {
		if v[i] < v[i-1] {
			return i
		}
	}
	return 0
}

func TestHeadroomGrowsWithCableAndSpeed(t *testing.T) {
	speeds := []int{100, 200, 400, 800, 1600}
	cables := []float64{0, 1, 3, 5, 7, 30, 100, 300, 500, 2000}
	for _, pct := range []int{0, 50, 100} {
		for _, s := range speeds {
			v := series(cables, func(l float64) int64 { return PortHeadroom(spectrumInput(s, l, pct)).Size.Value })
			if i := fall(v); i > 0 {
				t.Errorf("%dG p=%d: headroom shrank from %d to %d at %g m", s, pct, v[i-1], v[i], cables[i])
			}
		}
		for _, l := range cables {
			v := series(speeds, func(s int) int64 { return PortHeadroom(spectrumInput(s, l, pct)).Xoff.Value })
			if i := fall(v); i > 0 {
				t.Errorf("%gm p=%d: xoff shrank from %d to %d at %dG", l, pct, v[i-1], v[i], speeds[i])
			}
		}
	}
	if a, b := PortHeadroom(spectrumInput(400, 5, 100)).Size.Value, PortHeadroom(spectrumInput(400, 500, 100)).Size.Value; b <= a {
		t.Errorf("500 m headroom %d not above 5 m headroom %d", b, a)
	}
	long := spectrumInput(400, 500, 0)
	if PortHeadroom(long).Xoff.Value >= MinHeadroom(long).Value {
		t.Error("400G/500m at 0 % small packets: expected the SONiC xoff below the floor (physics.md §1.3)")
	}
	if a, b := MinHeadroom(HeadroomInput{SpeedGbps: 400, CableM: 100}).Value, MinHeadroom(HeadroomInput{SpeedGbps: 800, CableM: 100}).Value; b <= a {
		t.Errorf("800G floor %d not above 400G floor %d", b, a)
	}
}

func TestSONiCHeadroomAboveFloor(t *testing.T) {
	// With the same MTUs and SONiC's default traffic pattern (100 % small
	// packets), the vendor formula stays above the floor; with 0 % it does
	// not on long links (see PortHeadroom), which the table shows too.
	for _, s := range []int{100, 200, 400, 800, 1600} {
		for _, l := range []float64{0, 5, 30, 100, 500, 5000} {
			in := HeadroomInput{SpeedGbps: s, CableM: l, PortMTU: 9216, LosslessMTU: 4200, CellBytes: 144, SmallPacketPercent: 100}
			if hr, fl := PortHeadroom(in).Xoff.Value, MinHeadroom(in).Value; hr < fl {
				t.Errorf("%dG %gm: SONiC xoff %d below first-principles floor %d", s, l, hr, fl)
			}
		}
	}
}

func TestPortHeadroomLanes(t *testing.T) {
	in := spectrumInput(400, 30, 100)
	four := PortHeadroom(in)
	in.Lanes = 8 // e.g. 400G over 8×50G
	eight := PortHeadroom(in)
	if eight.Xoff.Value != four.Xoff.Value {
		t.Errorf("lanes changed xoff: %d vs %d", eight.Xoff.Value, four.Xoff.Value)
	}
	if want := ceilKiB(four.Xoff.Value + 37*KiB + 9100); eight.Xon.Value != 37*KiB || eight.Size.Value != want {
		t.Errorf("8-lane 400G: xon %d size %d, want xon %d size %d", eight.Xon.Value, eight.Size.Value, 37*KiB, want)
	}
	if eight.Size.Value <= four.Size.Value {
		t.Errorf("8-lane size %d not above 4-lane size %d", eight.Size.Value, four.Size.Value)
	}
}

func ceilKiB(b int64) int64 { return (b + KiB - 1) / KiB * KiB }

func TestPortHeadroomCellModel(t *testing.T) {
	base := spectrumInput(400, 30, 100)
	noCell := base
	noCell.CellBytes = 0
	small := base
	small.CellBytes = 96 // Spectrum-1: wcf = 2·96/97
	if a, b := PortHeadroom(noCell).Xoff.Value, PortHeadroom(base).Xoff.Value; a >= b {
		t.Errorf("no cell model (%d) should need less than 144-B cells (%d)", a, b)
	}
	if a, b := PortHeadroom(small).Xoff.Value, PortHeadroom(base).Xoff.Value; a >= b {
		t.Errorf("96-B cells (%d) should need less than 144-B cells (%d)", a, b)
	}
}

func TestHeadroomDerivationsAreExplained(t *testing.T) {
	th := PortHeadroom(spectrumInput(400, 30, 100))
	for _, d := range []Derivation{th.Xoff, th.Xon, th.Size, MinHeadroom(spectrumInput(400, 30, 100)), NICHeadroom(400, 30, 4200)} {
		if !d.Valid() || d.Field == "" || d.Unit != "B" || d.Source == "" || len(d.Inputs) == 0 {
			t.Errorf("derivation not fully explained: %+v", d)
		}
		for _, in := range d.Inputs {
			if in.Name == "" || in.Value == "" {
				t.Errorf("%s: empty input %+v", d.Field, in)
			}
		}
	}
	if got := th.Xoff.Inputs[2]; got != (Input{"L", "30 m"}) {
		t.Errorf("cable input = %+v", got)
	}
}

func TestHeadroomOutOfRange(t *testing.T) {
	inf := math.Inf(1)
	inputs := []HeadroomInput{
		{},
		{SpeedGbps: -400, CableM: 5},
		{SpeedGbps: 0, CableM: 5, PortMTU: 9100},
		{SpeedGbps: 400, CableM: math.NaN(), PortMTU: -1, LosslessMTU: -1, CellBytes: -5, SmallPacketPercent: -20},
		{SpeedGbps: 400, CableM: inf, PortMTU: math.MaxInt, LosslessMTU: math.MaxInt, CellBytes: math.MaxInt, SmallPacketPercent: 1000},
		{SpeedGbps: math.MaxInt, CableM: math.MaxFloat64, PortMTU: 9216, LosslessMTU: 4200, CellBytes: 144, SmallPacketPercent: 100,
			PipelineLatencyBytes: math.MaxInt64, MACPHYDelayBytes: math.MaxInt64, Lanes: math.MaxInt},
		{SpeedGbps: 3, CableM: -inf, Lanes: -1},
	}
	for _, in := range inputs {
		th := PortHeadroom(in)
		fl := MinHeadroom(in)
		if in.SpeedGbps <= 0 {
			if th.Xoff.Valid() || th.Xon.Valid() || th.Size.Valid() || fl.Valid() {
				t.Errorf("speed %d: want zero derivations, got %+v %+v", in.SpeedGbps, th, fl)
			}
			continue
		}
		for _, d := range []Derivation{th.Xoff, th.Xon, th.Size, fl} {
			if d.Value < 0 || d.Value == math.MaxInt64 {
				t.Errorf("%+v: %s = %d", in, d.Field, d.Value)
			}
		}
	}
	for _, s := range []int{math.MinInt, -1, 0} {
		if NICHeadroom(s, 5, 4200).Valid() {
			t.Errorf("NICHeadroom(%d) should be the zero derivation", s)
		}
	}
	if v := NICHeadroom(math.MaxInt, math.Inf(1), math.MaxInt).Value; v <= 0 || v == math.MaxInt64 {
		t.Errorf("NICHeadroom clamps: %d", v)
	}
}

func TestPauseQuanta(t *testing.T) {
	tests := []struct{ speed, want int }{
		{-1, 0}, {0, 0}, {10, 67}, {25, 80}, {100, 394}, {150, 453}, {200, 453},
		{400, 905}, {800, 905}, {1600, 905}, {3200, 905},
	}
	for _, tt := range tests {
		if got := PauseQuanta(tt.speed); got != tt.want {
			t.Errorf("PauseQuanta(%d) = %d, want %d", tt.speed, got, tt.want)
		}
	}
}

func TestDurationBytes(t *testing.T) {
	tests := []struct {
		speed int
		d     time.Duration
		want  int64
	}{
		{400, time.Microsecond, 50000}, // 48.8 KiB
		{800, time.Microsecond, 100000},
		{100, 0, 0},
		{400, 40 * time.Microsecond, 2000000},
	}
	for _, tt := range tests {
		if got := DurationBytes(tt.speed, tt.d).Value; got != tt.want {
			t.Errorf("DurationBytes(%d, %v) = %d, want %d", tt.speed, tt.d, got, tt.want)
		}
	}
	if DurationBytes(0, time.Second).Valid() || DurationBytes(400, -time.Second).Valid() {
		t.Error("invalid input should give the zero derivation")
	}
	if v := DurationBytes(math.MaxInt, time.Duration(math.MaxInt64)).Value; v != math.MaxInt64 {
		t.Errorf("DurationBytes should saturate, got %d", v)
	}
}

func TestPropagationDelay(t *testing.T) {
	tests := []struct {
		m    float64
		want time.Duration
	}{{100, 500 * time.Nanosecond}, {0, 0}, {-5, 0}, {math.NaN(), 0}, {2.5, 13 * time.Nanosecond}}
	for _, tt := range tests {
		if got := PropagationDelay(tt.m); got != tt.want {
			t.Errorf("PropagationDelay(%g) = %v, want %v", tt.m, got, tt.want)
		}
	}
	if got := PropagationDelay(math.Inf(1)); got != 5*time.Millisecond {
		t.Errorf("PropagationDelay(+Inf) = %v, want the 1000 km cap", got)
	}
}

func FuzzPortHeadroom(f *testing.F) {
	f.Add(400, 30.0, 9100, 1024, 144, 100, int64(0), int64(0), 0)
	f.Add(800, 500.0, 9216, 4200, 192, 50, int64(19456), int64(819), 8)
	f.Add(-1, -1.0, -1, -1, -1, -1, int64(-1), int64(-1), -1)
	f.Fuzz(func(t *testing.T, speed int, cable float64, portMTU, losslessMTU, cell, pct int, pipe, macphy int64, lanes int) {
		in := HeadroomInput{SpeedGbps: speed, CableM: cable, PortMTU: portMTU, LosslessMTU: losslessMTU, CellBytes: cell,
			SmallPacketPercent: pct, PipelineLatencyBytes: pipe, MACPHYDelayBytes: float64(macphy), Lanes: lanes}
		th := PortHeadroom(in)
		if th.Size.Value < th.Xoff.Value || th.Xoff.Value < 0 {
			t.Fatalf("%+v: size %d < xoff %d", in, th.Size.Value, th.Xoff.Value)
		}
		_ = MinHeadroom(in)
		_ = NICHeadroom(speed, cable, portMTU)
	})
}
