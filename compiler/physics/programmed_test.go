package physics

import (
	"strings"
	"testing"
)

func TestProgrammedValues(t *testing.T) {
	if got := PortMTU(9216, 9214, "").Value; got != 9214 {
		t.Errorf("EOS port MTU %d, want 9214", got)
	}
	if got := PortMTU(9000, 0, "").Value; got != 9000 {
		t.Errorf("port MTU without a platform maximum %d, want 9000", got)
	}
	if got := ECNThreshold("ecn-min[roce]", 150_000, 0, 192).Value; got != 150_000 {
		t.Errorf("threshold in bytes %d", got)
	}
	if got := ECNThreshold("ecn-min[roce]", 0, 100, 254).Value; got != 25_400 {
		t.Errorf("threshold of 100 cells of 254 B: %d", got)
	}
	// NVUE: detect 200 ms, restore 400 ms -> polling 200 ms, robustness 1,
	// restore after one interval, 200 ms.
	if det, res := WatchdogTimes("nvue", 200, 400); det.Value != 200 || res.Value != 200 {
		t.Errorf("nvue 200/400 ms: detect %d, restore %d, want 200 and 200", det.Value, res.Value)
	}
	if det, res := WatchdogTimes("nvue", 250, 100); det.Value != 300 || res.Value != 100 {
		t.Errorf("nvue 250/100 ms: detect %d, restore %d, want 300 and 100", det.Value, res.Value)
	}
	if det, res := WatchdogTimes("eos", 200, 400); det.Value != 200 || res.Value != 400 {
		t.Errorf("eos 200/400 ms: detect %d, restore %d", det.Value, res.Value)
	}
}

// SONiC clamps the watchdog's times into its YANG ranges, and says so.
func TestWatchdogTimesSONiCClamp(t *testing.T) {
	det, res := WatchdogTimes("sonic", 10, 90000)
	if det.Value != 100 || res.Value != 60000 || !strings.Contains(det.Formula, "clamped") || !strings.Contains(res.Formula, "clamped") {
		t.Errorf("sonic 10/90000 ms: %v (%s), %v (%s), want 100 and 60000 ms, clamped", det, det.Formula, res, res.Formula)
	}
	if det, res := WatchdogTimes("sonic", 200, 400); det.Value != 200 || res.Value != 400 || det.Formula != "detect as given" {
		t.Errorf("sonic 200/400 ms: %v, %v (%s)", det, res, det.Formula)
	}
}

// TestECNBytes: the threshold in bytes the compiler programs and lint
// checks is the value explain prints, for bytes, cells and the edges.
func TestECNBytes(t *testing.T) {
	for _, c := range []struct {
		bytes, cells int64
		cell         int
		want         int64
	}{
		{150_000, 0, 192, 150_000},
		{0, 100, 254, 25_400},
		{0, 100, 0, 0},                // cells without a known cell size keep bytes
		{-5, 0, 0, 0},                 // never negative
		{0, 1 << 62, 1024, 1<<63 - 1}, // saturates
	} {
		got := ECNBytes(c.bytes, c.cells, c.cell)
		if got != c.want {
			t.Errorf("ECNBytes(%d, %d, %d) = %d, want %d", c.bytes, c.cells, c.cell, got, c.want)
		}
		if d := ECNThreshold("ecn-min[x]", c.bytes, c.cells, c.cell); d.Value != got {
			t.Errorf("ECNThreshold(%d, %d, %d) = %d, ECNBytes %d", c.bytes, c.cells, c.cell, d.Value, got)
		}
	}
}

// TestInWholeKbytes: NX-OS thresholds never end above the intent's bytes
// under a kbyte of 1024 B (nor, then, of 1000 B), min stays below max, and
// only a range too narrow for the kbyte grid is moved.
func TestInWholeKbytes(t *testing.T) {
	for _, c := range []struct{ minB, maxB, lo, hi int64 }{
		{100_000, 1_500_000, 97, 1464}, // 100 000 B marks from 99 328 B
		{150_000, 1_500_000, 146, 1464},
		{50_000, 100_000, 48, 97},
		{1024, 2048, 1, 2},
		{2048, 2100, 1, 2},           // one kbyte apart after rounding: min lowered
		{100, 500, 1, 2},             // below the grid: raised
		{10, 1000, 1, 2},             // below one kbyte: one kept
		{300_000, 300_000, 291, 292}, // equal in bytes: kept a range
	} {
		lo, hi := InWholeKbytes(ECNThreshold("ecn-min[roce]", c.minB, 0, 0), ECNThreshold("ecn-max[roce]", c.maxB, 0, 0))
		if lo.Value != c.lo*KiB || hi.Value != c.hi*KiB {
			t.Errorf("%d..%d B -> %d..%d B, want %d..%d kbytes", c.minB, c.maxB, lo.Value, hi.Value, c.lo, c.hi)
		}
		if lo.Value < KiB || lo.Value >= hi.Value {
			t.Errorf("%d..%d B -> %d..%d B is not a range", c.minB, c.maxB, lo.Value, hi.Value)
		}
		if c.maxB >= 2048 && hi.Value > c.maxB && c.minB != c.maxB {
			t.Errorf("%d B -> %d B rounds above the intent", c.maxB, hi.Value)
		}
		if lo.Field != "ecn-min[roce]" || hi.Field != "ecn-max[roce]" || !strings.Contains(hi.Source, "kbyte") {
			t.Errorf("derivations %+v, %+v lose their field or source", lo, hi)
		}
	}
}
