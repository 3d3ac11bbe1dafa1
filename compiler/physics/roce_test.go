package physics

import (
	"math"
	"testing"
)

func TestValidRoCEMTU(t *testing.T) {
	for _, n := range []int{256, 512, 1024, 2048, 4096} {
		if !ValidRoCEMTU(n) {
			t.Errorf("ValidRoCEMTU(%d) = false", n)
		}
	}
	for _, n := range []int{math.MinInt, -4096, 0, 128, 1500, 4095, 4200, 8192, 9000, math.MaxInt} {
		if ValidRoCEMTU(n) {
			t.Errorf("ValidRoCEMTU(%d) = true", n)
		}
	}
}

func TestMinHostMTU(t *testing.T) {
	tests := []struct {
		roce int
		want int64
	}{{256, 352}, {512, 608}, {1024, 1120}, {2048, 2144}, {4096, 4192}}
	for _, tt := range tests {
		d := MinHostMTU(tt.roce)
		if d.Value != tt.want || d.Unit != "B" || !d.Valid() {
			t.Errorf("MinHostMTU(%d) = %+v, want %d B", tt.roce, d, tt.want)
		}
	}
	if MinHostMTU(4096).Value > 4200 {
		t.Error("a host MTU of 4200 must carry RoCE MTU 4096")
	}
	for _, n := range []int{0, -1, 4000, 9000} {
		if MinHostMTU(n).Valid() {
			t.Errorf("MinHostMTU(%d) should be the zero derivation", n)
		}
	}
}

func TestMaxRoCEMTU(t *testing.T) {
	tests := []struct{ host, want int }{
		{9000, 4096}, {4200, 4096}, {4192, 4096}, {4191, 2048}, {1500, 1024},
		{1120, 1024}, {1119, 512}, {352, 256}, {351, 0}, {0, 0}, {-1, 0}, {math.MinInt, 0},
	}
	for _, tt := range tests {
		if got := MaxRoCEMTU(tt.host); got != tt.want {
			t.Errorf("MaxRoCEMTU(%d) = %d, want %d", tt.host, got, tt.want)
		}
	}
	// MinHostMTU and MaxRoCEMTU are inverses at the thresholds.
	for _, r := range []int{256, 512, 1024, 2048, 4096} {
		if got := MaxRoCEMTU(int(MinHostMTU(r).Value)); got != r {
			t.Errorf("MaxRoCEMTU(MinHostMTU(%d)) = %d", r, got)
		}
	}
}

func TestNCCLTrafficClass(t *testing.T) {
	// hosts.md §4.2.
	tests := []struct {
		dscp int
		want int64
	}{{0, 0}, {24, 96}, {26, 104}, {46, 184}, {48, 192}, {63, 252}}
	for _, tt := range tests {
		for _, d := range []Derivation{NCCLTrafficClass(tt.dscp), RoCETOS(tt.dscp)} {
			if d.Value != tt.want || d.Unit != "" || !d.Valid() || d.Source == "" {
				t.Errorf("DSCP %d: %+v, want %d", tt.dscp, d, tt.want)
			}
			if d.Value>>2 != int64(tt.dscp) {
				t.Errorf("DSCP %d does not round-trip: %d", tt.dscp, d.Value>>2)
			}
		}
	}
	if f := NCCLTrafficClass(26).Field; f != "nccl-traffic-class" {
		t.Errorf("field = %q", f)
	}
	if f := RoCETOS(26).Field; f != "roce-tos" {
		t.Errorf("field = %q", f)
	}
	for _, d := range []int{-1, 64, 104, math.MaxInt, math.MinInt} {
		if NCCLTrafficClass(d).Valid() || RoCETOS(d).Valid() {
			t.Errorf("DSCP %d should give the zero derivation", d)
		}
	}
}

func TestDerivationString(t *testing.T) {
	if got := NCCLTrafficClass(26).String(); got != "nccl-traffic-class = 104" {
		t.Errorf("String() = %q", got)
	}
	if got := MinHostMTU(4096).String(); got != "min-host-mtu = 4192 B" {
		t.Errorf("String() = %q", got)
	}
}
