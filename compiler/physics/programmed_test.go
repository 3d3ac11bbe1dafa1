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
	// NX-OS: 100 000 B is written as 97 kbytes, which marks from 99 328 B.
	if got := InWholeKbytes(ECNThreshold("ecn-min[roce]", 100_000, 0, 0)).Value; got != 99_328 {
		t.Errorf("100000 B in whole kbytes: %d, want 99328", got)
	}
	if got := InWholeKbytes(ECNThreshold("ecn-min[roce]", 10, 0, 0)).Value; got != 1024 {
		t.Errorf("a threshold below one kbyte keeps one: %d", got)
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
