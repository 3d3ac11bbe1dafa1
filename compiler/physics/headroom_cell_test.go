package physics

import (
	"math"
	"testing"
	"time"
)

// aristaTH5 are the computed rows of Arista's pg_profile_lookup.ini files
// for the 7060X6-64PE-B (Tomahawk 5, 254-B cells), sonic-net/sonic-buildimage
// @086b03bd device/arista/x86_64-arista_7060x6_64pe_b/<HWSKU>/. Rows whose
// xoff does not change with the cable (the O128 5 m and 30 m rows repeat the
// 40 m value, its 100G rows repeat the 400G ones) are left out: they are
// floors, not the formula.
var aristaTH5 = []struct {
	hwsku string
	speed int
	cable float64
	xoff  int64
}{
	{"O128", 400, 40, 445770},
	{"O128", 400, 60, 475136},
	{"O128", 400, 150, 611328},
	{"O128", 400, 500, 1136396},
	{"P32O64", 400, 30, 425958},
	{"P32O64", 400, 300, 839216},
	{"P32O64", 800, 5, 724662},
	{"P32O64", 800, 40, 833536},
	{"P32O64", 800, 300, 1621536},
	{"P32V128", 200, 5, 224536},
	{"P32V128", 200, 300, 452374},
	{"P32V128", 800, 40, 830580},
	{"P64", 800, 5, 724662},
}

func th5Input(speed int, cable float64) HeadroomInput {
	return HeadroomInput{SpeedGbps: speed, CableM: cable, PortMTU: 9216, LosslessMTU: 4200, CellBytes: 254,
		Model: ModelMinFrameCell, ResponseTime: 2180 * time.Nanosecond, XonBytes: 3556}
}

func TestMinFrameCellMatchesArista(t *testing.T) {
	for _, r := range aristaTH5 {
		got := PortHeadroom(th5Input(r.speed, r.cable))
		if d := math.Abs(float64(got.Xoff.Value-r.xoff)) / float64(r.xoff); d > 0.015 {
			t.Errorf("%s %dG %gm: xoff %d B is %.1f %% off Arista's %d B", r.hwsku, r.speed, r.cable, got.Xoff.Value, 100*d, r.xoff)
		}
		if got.Xoff.Value%254 != 0 || got.Size.Value != got.Xoff.Value+got.Xon.Value || got.Xon.Value != 14*254 {
			t.Errorf("%dG %gm: xoff %d xon %d size %d: want whole cells, xon 14 cells, size = xoff + xon",
				r.speed, r.cable, got.Xoff.Value, got.Xon.Value, got.Size.Value)
		}
	}
}

// TestTomahawkNeedsMoreThanSpectrum is the defect the family constants
// fix: the Spectrum formula with a Tomahawk's cell gave a 400G xoff far
// below what Arista programs on its own Tomahawk 5 boxes.
func TestTomahawkNeedsMoreThanSpectrum(t *testing.T) {
	spectrum := HeadroomInput{SpeedGbps: 400, CableM: 40, PortMTU: 9216, LosslessMTU: 4200, CellBytes: 254, SmallPacketPercent: 50}
	sp := PortHeadroom(spectrum).Xoff.Value
	th := PortHeadroom(th5Input(400, 40)).Xoff.Value
	if sp*2 > 445770 || th < 445770*985/1000 {
		t.Errorf("400G/40m: Spectrum formula %d B, min-frame-cell %d B; Arista programs 445770 B", sp, th)
	}
	for _, s := range []int{100, 200, 400, 800, 1600} {
		for _, l := range []float64{0, 5, 30, 100, 500} {
			in := th5Input(s, l)
			if hr, fl := PortHeadroom(in).Xoff.Value, MinHeadroom(in).Value; hr < fl {
				t.Errorf("%dG %gm: min-frame-cell xoff %d below the first-principles floor %d", s, l, hr, fl)
			}
		}
	}
}

func TestMinFrameCellGrowsAndClamps(t *testing.T) {
	cables := []float64{0, 1, 5, 40, 300, 5000}
	size := series(cables, func(l float64) int64 { return PortHeadroom(th5Input(400, l)).Size.Value })
	if i := fall(size); i > 0 {
		t.Errorf("400G: size shrank to %d at %g m", size[i], cables[i])
	}
	speeds := []int{10, 100, 200, 400, 800, 1600}
	xoff := series(speeds, func(s int) int64 { return PortHeadroom(th5Input(s, 30)).Xoff.Value })
	if i := fall(xoff); i > 0 {
		t.Errorf("30 m: xoff shrank to %d at %dG", xoff[i], speeds[i])
	}
	for _, in := range []HeadroomInput{
		{Model: ModelMinFrameCell},
		{Model: ModelMinFrameCell, SpeedGbps: 400, CableM: math.NaN(), CellBytes: -1, ResponseTime: -time.Second, XonBytes: -1},
		{Model: ModelMinFrameCell, SpeedGbps: math.MaxInt, CableM: math.Inf(1), PortMTU: math.MaxInt, CellBytes: math.MaxInt,
			ResponseTime: time.Duration(math.MaxInt64), XonBytes: math.MaxInt64},
	} {
		th := PortHeadroom(in)
		if in.SpeedGbps <= 0 {
			if th.Xoff.Valid() {
				t.Errorf("%+v: want zero thresholds", in)
			}
			continue
		}
		for _, d := range []Derivation{th.Xoff, th.Xon, th.Size} {
			if !d.Valid() || d.Value < 0 || d.Value == math.MaxInt64 {
				t.Errorf("%+v: %s = %d", in, d.Field, d.Value)
			}
		}
	}
}

// TestPauseQuanta100G tells the 802.3 figure at 100G apart from the 905
// quanta physics.md §1.3 charges at every speed: 394 quanta (25 216 B),
// and a floor that is 32 704 B lower than 905 quanta would make it.
func TestPauseQuanta100G(t *testing.T) {
	if q := PauseQuanta(100); q != 394 {
		t.Fatalf("PauseQuanta(100) = %d, want 394 (IEEE 802.3 Table 31B-1)", q)
	}
	in := HeadroomInput{SpeedGbps: 100, CableM: 5, PortMTU: 9216, LosslessMTU: 4200}
	floor := MinHeadroom(in)
	if got := floor.Inputs[7]; got != (Input{"D_resp", "25216 B"}) {
		t.Errorf("100G D_resp input = %+v, want 25216 B", got)
	}
	// The same floor with 905 quanta: MTU_port + PFC + wire + 905·64 + MTU_lossless.
	wire := 2 * 5 * 5e-9 * 100e9 / 8
	with905 := int64(math.Ceil(9216 + 84 + wire + 905*64 + 4200))
	if d := with905 - floor.Value; d != (905-394)*64 {
		t.Errorf("100G floor %d B, with 905 quanta %d B: difference %d, want %d", floor.Value, with905, d, (905-394)*64)
	}
	// At 400G the two agree.
	if PauseQuanta(400) != 905 || PauseQuanta(800) != 905 {
		t.Errorf("400G/800G quanta %d/%d, want 905", PauseQuanta(400), PauseQuanta(800))
	}
}
