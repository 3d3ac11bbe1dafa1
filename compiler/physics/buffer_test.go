package physics

import (
	"math"
	"strconv"
	"testing"
)

// TestECNBeforePFC is the sanity rule of physics.md §2 with the numbers of
// the package documentation: 30 % of a 160 MB buffer, α = 1.
func TestECNBeforePFC(t *testing.T) {
	pool := ReservedPool(160_000_000, 30)
	if pool.Value != 48_000_000 {
		t.Fatalf("reserved pool = %d", pool.Value)
	}
	xoff := XoffPoint(pool.Value, 0)
	if xoff.Value != 24_000_000 {
		t.Fatalf("xoff point = %d", xoff.Value)
	}
	if kmax := int64(1_500_000); kmax >= xoff.Value {
		t.Errorf("ECN max 1.5 MB should be below the XOFF point %d", xoff.Value)
	}
	if kmax := int64(60_000_000); kmax < xoff.Value {
		t.Errorf("ECN max 60 MB should be above the XOFF point %d", xoff.Value)
	}
	if xoff.Formula == "" || xoff.Source == "" || len(xoff.Inputs) != 3 || xoff.Inputs[2].Value != "1" {
		t.Errorf("xoff point not explained: %+v", xoff)
	}
	if got := XoffPoint(1000, -2).Inputs[2].Value; got != "1/4" {
		t.Errorf("α input = %q, want 1/4", got)
	}
}

func TestReservedPool(t *testing.T) {
	tests := []struct {
		buf     int64
		percent int
		want    int64
	}{
		{160_000_000, 30, 48_000_000},
		{173_268_640, 30, 51_980_592},
		{999, 30, 299},
		{1000, 0, 0},
		{1000, 100, 1000},
		{1000, 150, 1000},
		{1000, -10, 0},
		{-1000, 30, 0},
		{math.MaxInt64, 100, math.MaxInt64},
		{math.MaxInt64, 50, math.MaxInt64 / 2},
	}
	for _, tt := range tests {
		if got := ReservedPool(tt.buf, tt.percent).Value; got != tt.want {
			t.Errorf("ReservedPool(%d, %d) = %d, want %d", tt.buf, tt.percent, got, tt.want)
		}
	}
}

func TestHeadroomPool(t *testing.T) {
	c := func(b int64, n int) PortClassHeadroom { return PortClassHeadroom{Name: "c", Bytes: b, Ports: n} }
	tests := []struct {
		classes []PortClassHeadroom
		prios   int
		want    int64
	}{
		{[]PortClassHeadroom{c(205*KiB, 64)}, 2, 205 * KiB * 128},
		{[]PortClassHeadroom{c(174*KiB, 64)}, 1, 174 * KiB * 64},
		// A leaf with 32 host ports on 3 m and 32 spine ports on 30 m
		// needs each class's headroom on its own ports, not the larger
		// on every port.
		{[]PortClassHeadroom{c(196608, 32), c(229376, 32)}, 1, 13631488},
		{[]PortClassHeadroom{c(196608, 32), c(229376, 32)}, 2, 2 * 13631488},
		{nil, 2, 0},
		{[]PortClassHeadroom{c(174*KiB, 0)}, 2, 0},
		{[]PortClassHeadroom{c(-1, 64)}, 2, 0},
		{[]PortClassHeadroom{c(1000, -64)}, 2, 0},
		{[]PortClassHeadroom{c(1000, 64)}, -2, 0},
		{[]PortClassHeadroom{c(math.MaxInt64, 64)}, 2, math.MaxInt64},
		{[]PortClassHeadroom{c(math.MaxInt64/2, 1), c(math.MaxInt64/2, 1), c(10, 1)}, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		d := HeadroomPool(tt.classes, tt.prios)
		if d.Value != tt.want {
			t.Errorf("HeadroomPool(%v, %d) = %d, want %d", tt.classes, tt.prios, d.Value, tt.want)
		}
		if len(d.Inputs) != len(tt.classes)+1 {
			t.Errorf("HeadroomPool(%v): %d inputs, want one per class and the priorities", tt.classes, len(d.Inputs))
		}
	}
	// The pool is what the budget charges for headroom.
	ports := append(uniformPorts(32, 196608), uniformPorts(32, 229376)...)
	budget, _ := BufferBudget(BudgetInput{BufferBytes: 1 << 30, PortHeadroom: ports, LosslessPriorities: 2})
	pool := HeadroomPool([]PortClassHeadroom{c(196608, 32), c(229376, 32)}, 2)
	for _, in := range budget.Inputs {
		if in.Name == "headroom" && in.Value != strconv.FormatInt(pool.Value, 10)+" B" {
			t.Errorf("budget headroom %s, pool %d B", in.Value, pool.Value)
		}
	}
}

func uniformPorts(n int, h int64) []int64 {
	p := make([]int64, n)
	for i := range p {
		p[i] = h
	}
	return p
}

func TestBufferBudget(t *testing.T) {
	tests := []struct {
		name   string
		in     BudgetInput
		demand int64
		fits   bool
	}{
		{
			name: "SN5600 64×800G 30m, 2 lossless, 30 % reserve",
			in: BudgetInput{BufferBytes: 160_000_000, Reserves: map[string]int{"roce": 30},
				PortHeadroom: uniformPorts(64, 260*KiB), LosslessPriorities: 2},
			demand: 48_000_000 + 64*260*KiB*2, fits: true,
		},
		{
			name: "reserves over 100 %",
			in: BudgetInput{BufferBytes: 1_000_000, Reserves: map[string]int{"roce": 70, "storage": 40},
				PortHeadroom: uniformPorts(4, 1000), LosslessPriorities: 1},
			demand: 700_000 + 400_000 + 4000, fits: false,
		},
		{
			name: "headroom of long links exceeds a small buffer",
			in: BudgetInput{BufferBytes: 32_000_000, Reserves: map[string]int{"roce": 30},
				PortHeadroom: uniformPorts(64, 1278*KiB), LosslessPriorities: 2},
			demand: 9_600_000 + 64*1278*KiB*2, fits: false,
		},
		{
			name: "dedicated headroom pool too small",
			in: BudgetInput{BufferBytes: 160_000_000, HeadroomPoolBytes: 10_000_000,
				PortHeadroom: uniformPorts(64, 205*KiB), LosslessPriorities: 1},
			demand: 64 * 205 * KiB, fits: false,
		},
		{
			name: "dedicated headroom pool large enough",
			in: BudgetInput{BufferBytes: 160_000_000, HeadroomPoolBytes: 20_000_000,
				PortHeadroom: uniformPorts(64, 205*KiB), LosslessPriorities: 1},
			demand: 64 * 205 * KiB, fits: true,
		},
		{
			name:   "mixed ports",
			in:     BudgetInput{BufferBytes: 1_000_000, PortHeadroom: []int64{100_000, 200_000, -5}, LosslessPriorities: 2},
			demand: 600_000, fits: true,
		},
		{name: "empty", in: BudgetInput{BufferBytes: 1000}, demand: 0, fits: true},
		{name: "unknown buffer", in: BudgetInput{PortHeadroom: []int64{1}, LosslessPriorities: 1}, demand: 1, fits: false},
		{
			name:   "saturating",
			in:     BudgetInput{BufferBytes: math.MaxInt64, PortHeadroom: []int64{math.MaxInt64, math.MaxInt64}, LosslessPriorities: 8},
			demand: math.MaxInt64, fits: false,
		},
	}
	for _, tt := range tests {
		d, fits := BufferBudget(tt.in)
		if d.Value != tt.demand || fits != tt.fits {
			t.Errorf("%s: demand %d fits %v, want %d %v", tt.name, d.Value, fits, tt.demand, tt.fits)
		}
		if !d.Valid() || d.Unit != "B" || d.Source == "" {
			t.Errorf("%s: not explained: %+v", tt.name, d)
		}
	}
}

func TestBufferBudgetInputsAreSorted(t *testing.T) {
	d, _ := BufferBudget(BudgetInput{BufferBytes: 1000, Reserves: map[string]int{"storage": 10, "roce": 30, "bulk": 5}})
	var names []string
	for _, in := range d.Inputs {
		names = append(names, in.Name)
	}
	want := []string{"buffer", "reserve[bulk]", "reserve[roce]", "reserve[storage]"}
	for i, w := range want {
		if names[i] != w {
			t.Fatalf("inputs %v, want prefix %v", names, want)
		}
	}
	if d.Inputs[2].Value != "30 % = 300 B" {
		t.Errorf("reserve input = %q", d.Inputs[2].Value)
	}
}

func TestQuantizeToCells(t *testing.T) {
	tests := []struct {
		bytes int64
		cell  int
		want  int64
	}{
		{150_000, 192, 150_144}, // Spectrum-4 cell rounding (the ASIC programs 159 744: see the doc comment)
		{150_000, 144, 150_048},
		{150_000, 254, 150_114},
		{192, 192, 192},
		{193, 192, 384},
		{0, 192, 0},
		{-5, 192, 0},
		{1000, 0, 1000},
		{1000, -1, 1000},
		{math.MaxInt64, 3, math.MaxInt64 / 3 * 3},
		{math.MaxInt64, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := QuantizeToCells(tt.bytes, tt.cell); got != tt.want {
			t.Errorf("QuantizeToCells(%d, %d) = %d, want %d", tt.bytes, tt.cell, got, tt.want)
		}
	}
	// The documented Spectrum-4 read-back is not one-cell rounding but a
	// coarser encoding: 832 cells of 192 B.
	if got := QuantizeToCells(150_000, 192); got == 159_744 || 159_744%192 != 0 || 159_744/192 != 832 {
		t.Errorf("Spectrum-4 example no longer matches the documentation")
	}
}
