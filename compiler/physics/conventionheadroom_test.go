package physics

import "testing"

func TestConventionHeadroom(t *testing.T) {
	for _, c := range []struct {
		conv            string
		xoff, xon, want int64
	}{
		{ConventionBroadcomXGS, 389890, 3556, 389890},
		{ConventionSpectrum, 169984, 19456, 189440},
		{"", 169984, 19456, 189440},
		{ConventionBroadcomXGS, -5, 3556, 0},
	} {
		d := ConventionHeadroom(c.conv, c.xoff, c.xon)
		if d.Value != c.want || d.Field != "headroom" || !d.Valid() {
			t.Errorf("ConventionHeadroom(%q, %d, %d) = %+v, want %d", c.conv, c.xoff, c.xon, d, c.want)
		}
	}
}
