package physics

import (
	"math"
	"testing"
)

// TestCongestedXoffPoint checks the rows with n of 1 or less against
// XoffPoint too: one group alone is the congested point with N = 1.
func TestCongestedXoffPoint(t *testing.T) {
	tests := []struct {
		pool  int64
		alpha int
		n     int
		want  int64
	}{
		// The numbers of issue-sized fabrics: 30 % reserved, α = 1.
		{48_000_000, 0, 64, 738_461},    // SN5600, 64 ports: 0.74 MB
		{51_980_592, 0, 128, 402_950},   // Tomahawk 5 at 128×400G: 0.40 MB
		{51_980_592, 0, 512, 101_326},   // Tomahawk 5 at 512×100G
		{48_000_000, 0, 1, 24_000_000},  // α = 1: half
		{48_000_000, 1, 1, 32_000_000},  // α = 2: 2/3
		{48_000_000, -1, 1, 16_000_000}, // α = 1/2: 1/3
		{48_000_000, 3, 1, 42_666_666},  // α = 8: 8/9, rounded down
		{48_000_000, 1, 64, 744_186},    // α = 2: 2·pool/129
		{48_000_000, -1, 64, 727_272},   // α = 1/2: pool/66
		{48_000_000, -7, 1, 372_093},    // α = 1/128, one queue
		{48_000_000, 0, 0, 24_000_000},  // n < 1 counts as 1
		{48_000_000, 0, -5, 24_000_000},
		{100, 0, 1, 50},
		{101, 0, 1, 50},
		{0, 0, 1, 0},
		{-5, 0, 1, 0},
		{0, 0, 64, 0},
		{-1, 0, 64, 0},
		{math.MaxInt64, 0, 1, math.MaxInt64 / 2},
		{math.MaxInt64, 100, 1, math.MaxInt64 - math.MaxInt64/65537 - 1}, // α clamped to 2^16
		{1000, -100, 1, 0}, // α clamped to 1/65536
		{math.MaxInt64, 16, MaxCongestedQueues * 4, 8796093022079}, // (2^63−1)·2^16/(2^36+1): N clamped, no overflow
	}
	for _, tt := range tests {
		d := CongestedXoffPoint(tt.pool, tt.alpha, tt.n)
		if d.Value != tt.want {
			t.Errorf("CongestedXoffPoint(%d, %d, %d) = %d, want %d", tt.pool, tt.alpha, tt.n, d.Value, tt.want)
		}
		if got := XoffPoint(tt.pool, tt.alpha).Value; tt.n <= 1 && got != tt.want {
			t.Errorf("XoffPoint(%d, %d) = %d, want %d", tt.pool, tt.alpha, got, tt.want)
		}
	}
	// One congested queue is the single-PG point.
	for _, k := range []int{-8, -3, -1, 0, 1, 3, 7} {
		for _, pool := range []int64{0, 1, 999, 48_000_000, 173_268_640} {
			if a, b := CongestedXoffPoint(pool, k, 1).Value, XoffPoint(pool, k).Value; a != b {
				t.Errorf("pool %d k %d: N=1 gives %d, single-PG point %d", pool, k, a, b)
			}
		}
	}
	// More congested queues never raise the point.
	prev := int64(math.MaxInt64)
	for n := 1; n <= 1024; n *= 2 {
		v := CongestedXoffPoint(48_000_000, 0, n).Value
		if v > prev {
			t.Errorf("N=%d: %d above N=%d's %d", n, v, n/2, prev)
		}
		prev = v
	}
}

func TestCongestedXoffPointIsExplained(t *testing.T) {
	d := CongestedXoffPoint(48_000_000, 0, 64)
	if d.Field != "xoff-point" || d.Unit != "B" || !d.Valid() || d.Source == "" {
		t.Fatalf("not explained: %+v", d)
	}
	want := []Input{{"pool", "48000000 B"}, {"k", "0"}, {"α", "1"}, {"N", "64"}}
	if len(d.Inputs) != len(want) {
		t.Fatalf("inputs %+v, want %+v", d.Inputs, want)
	}
	for i := range want {
		if d.Inputs[i] != want[i] {
			t.Errorf("input %d = %+v, want %+v", i, d.Inputs[i], want[i])
		}
	}
	if got := CongestedXoffPoint(1000, -2, 3).Inputs[2].Value; got != "1/4" {
		t.Errorf("α input = %q, want 1/4", got)
	}
}

func TestCongestedQueues(t *testing.T) {
	tests := []struct {
		ports, prios, stated int
		want                 int64
	}{
		{64, 1, 0, 64},
		{64, 2, 0, 128},
		{64, 2, 16, 16},
		{64, 1, 500, 64}, // capped at what the switch has
		{0, 1, 0, 1},
		{64, 0, 0, 1},
		{-3, -3, -3, 1},
		{math.MaxInt, 8, 0, math.MaxInt64},
	}
	for _, tt := range tests {
		d := CongestedQueues(tt.ports, tt.prios, tt.stated)
		if d.Value != tt.want || !d.Valid() {
			t.Errorf("CongestedQueues(%d, %d, %d) = %+v, want %d", tt.ports, tt.prios, tt.stated, d, tt.want)
		}
	}
}

func TestMarkProbability(t *testing.T) {
	tests := []struct {
		lo, hi int64
		p      int
		at     int64
		want   float64
	}{
		{150_000, 1_500_000, 20, 100_000, 0},
		{150_000, 1_500_000, 20, 150_000, 0},
		{150_000, 1_500_000, 20, 825_000, 10},
		{150_000, 1_500_000, 100, 738_461, 100 * 588_461.0 / 1_350_000},
		{150_000, 1_500_000, 20, 1_500_000, 20},
		{150_000, 1_500_000, 20, 9_000_000, 20},
		{1_000, 1_000, 50, 1_000, 50},
		{1_000, 500, 50, 999, 0},
		{0, 100, 150, 50, 50}, // probability clamped to 100
	}
	for _, tt := range tests {
		if got := MarkProbability(tt.lo, tt.hi, tt.p, tt.at); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("MarkProbability(%d, %d, %d, %d) = %g, want %g", tt.lo, tt.hi, tt.p, tt.at, got, tt.want)
		}
	}
}
