package physics

import (
	"fmt"
	"strconv"
	"strings"
)

// PortMTU returns the MTU a switch port is configured with: the intent's
// switch MTU, lowered to the platform's largest when the platform takes
// less (EOS: 9214 on most platforms, switches.md §1.1),
//
//	mtu = min(mtu_switch, mtu_platform_max)
//
// A platform maximum of 0 or less means none is known and leaves the MTU
// as the intent gives it; a negative MTU counts as 0.
func PortMTU(switchMTU, platformMax int, source string) Derivation {
	m := max(0, switchMTU)
	formula := "mtu = mtu_switch"
	inputs := []Input{intIn("mtu_switch", int64(m), "B")}
	if platformMax > 0 {
		formula = "mtu = min(mtu_switch, mtu_platform_max)"
		inputs = append(inputs, intIn("mtu_platform_max", int64(platformMax), "B"))
		m = min(m, platformMax)
	}
	return Derivation{Field: "mtu", Value: int64(m), Unit: "B", Formula: formula, Inputs: inputs, Source: source}
}

// ECNThreshold returns an ECN marking threshold of a class as the switch
// is programmed with it, in bytes: the size the intent gives, or its cells
// times the model's cell size when it is given in cells,
//
//	threshold = bytes, or cells·cell   B
//
// field names it, e.g. "ecn-min[roce]". A cell count with no known cell
// size (cellBytes ≤ 0) keeps bytes, which the compiler reports.
func ECNThreshold(field string, bytes, cells int64, cellBytes int) Derivation {
	d := Derivation{Field: field, Value: nonNeg(bytes), Unit: "B", Formula: "threshold = size as given",
		Inputs: []Input{intIn("size", nonNeg(bytes), "B")},
		Source: "classes.<name>.ecn; switches.md §0 (ECN Kmin/Kmax per queue, in bytes on every platform but Junos)"}
	if cells > 0 && cellBytes > 0 {
		d.Value = ECNBytes(bytes, cells, cellBytes)
		d.Formula = "threshold = cells·cell"
		d.Inputs = []Input{intIn("cells", cells, ""), {"cell", strconv.Itoa(cellBytes) + " B"}}
	}
	return d
}

// ECNBytes is the value of [ECNThreshold]: the threshold in bytes, given
// in bytes or in cells of cellBytes each (saturating). The compiler
// converts a class's thresholds with it per switch model, and lint checks
// them with it, so that both see the bytes explain prints.
func ECNBytes(bytes, cells int64, cellBytes int) int64 {
	if cells > 0 && cellBytes > 0 {
		return satMul(cells, int64(cellBytes))
	}
	return nonNeg(bytes)
}

// InWholeKbytes returns a class's ECN thresholds min and max (each an
// [ECNThreshold]) as a platform that takes whole kbytes is programmed with
// them: NX-OS ECN thresholds are written in kbytes (renderers/nxos; kbytes
// in every Cisco example, switches.md §4.1), rounded down so that marking
// never starts above the intent's threshold, under a kbyte of 1024 or 1000
// B alike, and kept a range, 1 kbyte ≤ min < max:
//
//	kmax = max(⌊max/1024⌋, 2)
//	kmin = max(min(⌊min/1024⌋, kmax−1), 1)
//	threshold = k·1024   B
//
// Only a range narrower than the kbyte grid (max below 2 KiB, or min and
// max in one kbyte) is moved: max raised to 2 kbytes, min lowered below
// max. Whether NX-OS counts a kbyte as 1024 or 1000 B is not documented
// (verify); with 1000 the thresholds are lower still.
func InWholeKbytes(minTh, maxTh Derivation) (lo, hi Derivation) {
	kmax := max(nonNeg(maxTh.Value)/KiB, 2)
	kmin := max(min(nonNeg(minTh.Value)/KiB, kmax-1), 1)
	src := "; NX-OS random-detect … kbytes (switches.md §4.1), kbyte = 1024 B (verify: 1000 B is not excluded)"
	lo, hi = minTh, maxTh
	lo.Value, hi.Value = kmin*KiB, kmax*KiB
	hi.Formula = "threshold = max(⌊bytes/1024⌋, 2)·1024   (whole kbytes, rounded down, at least 2)"
	hi.Inputs = []Input{intIn("bytes", nonNeg(maxTh.Value), "B"), intIn("kbytes", kmax, "")}
	lo.Formula = "threshold = max(min(⌊bytes/1024⌋, kbytes_max−1), 1)·1024   (whole kbytes, rounded down, below max)"
	lo.Inputs = []Input{intIn("bytes", nonNeg(minTh.Value), "B"), intIn("kbytes_max", kmax, ""), intIn("kbytes", kmin, "")}
	lo.Source, hi.Source = minTh.Source+src, maxTh.Source+src
	return lo, hi
}

// SONiCWatchdogMinMs is the shortest PFC watchdog detection and
// restoration time SONiC takes (sonic-pfcwd.yang detection_time and
// restoration_time, 100 ms minimum; physics.md §4).
const SONiCWatchdogMinMs = 100

// WatchdogFloorMs is the shortest PFC watchdog detection time rocefab
// accepts without a finding: the smallest SONiC's YANG takes, and half
// the 200 ms default of SONiC's `pfcwd start_default` and of Junos
// (detection after 2 polls of 100 ms; physics.md §4). Pauses of an
// ordinary incast last milliseconds; a shorter detection time drops
// lossless traffic that is merely congested.
const WatchdogFloorMs = 100

// WatchdogTimes returns the PFC watchdog's detection and restoration
// times, in ms, as a platform programs the intent's (pfc.watchdog): as given
// on EOS, SONiC and NX-OS, which take both times (NX-OS as an interval
// times a multiplier each), and on NVUE
//
//	poll = min(detect, restore), robustness = ⌈detect/poll⌉
//	detect' = poll·robustness, restore' = poll
//
// since NVUE detects a storm after robustness polling intervals of
// continuous pause and restores after one polling interval without pause
// frames (Cumulus Linux QoS guide, PFC Watchdog; renderers/nvue). NVUE's
// defaults (100 ms, 3) apply when detect is 0 or less. SONiC clamps both
// times into its YANG ranges (100..5000 ms, 100..60000 ms).
func WatchdogTimes(platform string, detectMs, restoreMs int) (detect, restore Derivation) {
	in := []Input{intIn("detect", int64(max(0, detectMs)), "ms"), intIn("restore", int64(max(0, restoreMs)), "ms")}
	src := "pfc.watchdog; physics.md §4"
	detect = Derivation{Field: "pfc-watchdog-detect", Value: int64(max(0, detectMs)), Unit: "ms", Formula: "detect as given", Inputs: in, Source: src}
	restore = Derivation{Field: "pfc-watchdog-restore", Value: int64(max(0, restoreMs)), Unit: "ms", Formula: "restore as given", Inputs: in, Source: src}
	if platform == "sonic" {
		// sonic-pfcwd.yang takes detection_time 100..5000 ms and
		// restoration_time 100..60000 ms: the renderer writes the clamped
		// value, and explain shows it.
		clamp := func(d *Derivation, ms, lo, hi int) {
			if v := max(lo, min(ms, hi)); v != ms {
				d.Value = int64(v)
				d.Formula = fmt.Sprintf("%s clamped into SONiC's %d..%d ms", strings.TrimSuffix(d.Formula, " as given"), lo, hi)
				d.Source += "; sonic-pfcwd.yang"
			}
		}
		clamp(&detect, max(0, detectMs), SONiCWatchdogMinMs, 5000)
		clamp(&restore, max(0, restoreMs), SONiCWatchdogMinMs, 60000)
		return detect, restore
	}
	if platform != "nvue" {
		return detect, restore
	}
	poll, rob := 100, 3
	if detectMs > 0 {
		poll = detectMs
		if restoreMs > 0 && restoreMs < poll {
			poll = restoreMs
		}
		rob = max((detectMs+poll-1)/poll, 1)
	}
	nv := append(append([]Input{}, in...), intIn("poll", int64(poll), "ms"), intIn("robustness", int64(rob), ""))
	src += "; Cumulus Linux QoS guide, PFC Watchdog (polling-interval, robustness)"
	detect.Value, detect.Formula, detect.Inputs, detect.Source = int64(poll*rob), "detect = poll·⌈detect/poll⌉, poll = min(detect, restore)", nv, src
	restore.Value, restore.Formula, restore.Inputs, restore.Source = int64(poll), "restore = poll = min(detect, restore)   (NVUE restores after one polling interval)", nv, src
	return detect, restore
}
