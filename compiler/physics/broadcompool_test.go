package physics

import "testing"

// TestBroadcomLosslessPool: the pool a lossless group sees in the one
// Broadcom ingress pool is its size less the shared headroom it holds and
// less what lossy traffic can hold; with the DS5000 plan of
// hyperscale-100k (config_db.json: size 172065696, xoff 52523136, egress
// lossy 67561968) that is the 30 % reserve of 173268640 B. Negative inputs
// count as 0 and the pool never goes below 0.
func TestBroadcomLosslessPool(t *testing.T) {
	for _, c := range []struct {
		size, xoff, lossy, want int64
	}{
		{172065696, 52523136, 67561968, 51980592},
		{100, 30, 20, 50},
		{100, 80, 50, 0},
		{100, -5, -5, 100},
		{-1, 0, 0, 0},
	} {
		d := BroadcomLosslessPool(c.size, c.xoff, c.lossy)
		if d.Value != c.want || d.Field != "lossless-pool" || d.Unit != "B" || len(d.Inputs) != 3 || d.Source == "" {
			t.Errorf("BroadcomLosslessPool(%d, %d, %d) = %+v, want %d B", c.size, c.xoff, c.lossy, d, c.want)
		}
	}
	if r := ReservedPool(173268640, 30); r.Value != 51980592 {
		t.Errorf("30 %% of the DS5000 buffer is %d B", r.Value)
	}
}
