package physics

import (
	"fmt"
	"math"
	"strconv"
)

// A Derivation is one derived value with how it was computed.
type Derivation struct {
	Field   string  // what was derived, e.g. "headroom", "xoff", "xon", "nccl-traffic-class"
	Value   int64   // the value, in Unit
	Unit    string  // "B" for sizes, "" for plain numbers, "us", ...
	Formula string  // human-readable formula with symbol names
	Inputs  []Input // each symbol of the formula with its value and unit, in formula order
	Source  string  // short citation of where the formula comes from
}

// An Input is one symbol of a [Derivation]'s formula and the value it had.
// Value includes the unit, e.g. "400 Gbit/s", "30 m".
type Input struct{ Name, Value string }

// Valid reports whether d holds a derived value. Functions of this package
// return the zero Derivation when their input cannot describe a real port.
func (d Derivation) Valid() bool { return d.Formula != "" }

// String formats d as "field = value unit", for messages.
func (d Derivation) String() string {
	if d.Unit == "" {
		return fmt.Sprintf("%s = %d", d.Field, d.Value)
	}
	return fmt.Sprintf("%s = %d %s", d.Field, d.Value, d.Unit)
}

// Limits that absurd inputs are clamped to (see the package documentation).
const (
	// MaxCableM is the longest cable the formulas accept: 1000 km, far beyond
	// any lossless link, yet small enough that no product overflows.
	MaxCableM = 1_000_000.0
	// MaxSpeedGbps is the fastest port speed the formulas accept.
	MaxSpeedGbps = 1_000_000
	// MaxMTU is the largest MTU the formulas accept (the IPv4 total length limit).
	MaxMTU = 65535
	// MaxCellBytes is the largest buffer cell the formulas accept.
	MaxCellBytes = 65536
)

// KiB is 1024 bytes; headroom figures are rounded up to whole KiB the way
// SONiC rounds them.
const KiB = 1024

func clampCable(m float64) float64 {
	if !(m > 0) { // also catches NaN
		return 0
	}
	return min(m, MaxCableM)
}

func clampSpeed(gbps int) int { return max(0, min(gbps, MaxSpeedGbps)) }

func clampMTU(n int) int { return max(0, min(n, MaxMTU)) }

func clampPercent(p int) int { return max(0, min(p, 100)) }

func nonNeg(n int64) int64 { return max(0, n) }

// satAdd adds non-negative a and b, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies non-negative a and b, saturating at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// inBytes is the Derivation of a figure in bytes, v rounded up to a whole
// byte (ceilInt): the headroom models give xoff, xon and the headroom each
// so.
func inBytes(field string, v float64, formula, source string, inputs ...Input) Derivation {
	return Derivation{Field: field, Value: ceilInt(v), Unit: "B", Formula: formula, Inputs: inputs, Source: source}
}

// ceilInt converts a non-negative float to int64, rounding up and saturating.
func ceilInt(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	if x >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Ceil(x))
}

// ceil1K rounds x up to a whole KiB, as the SONiC headroom plugins do.
func ceil1K(x float64) float64 { return math.Ceil(x/KiB) * KiB }

// num formats a float without trailing zeros and at most two decimals.
func num(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

func bytesIn(name string, b float64) Input { return Input{name, num(b) + " B"} }

func intIn(name string, n int64, unit string) Input {
	if unit == "" {
		return Input{name, strconv.FormatInt(n, 10)}
	}
	return Input{name, strconv.FormatInt(n, 10) + " " + unit}
}

func speedIn(gbps int) Input { return Input{"S", strconv.Itoa(gbps) + " Gbit/s"} }

func cableIn(m float64) Input { return Input{"L", num(m) + " m"} }
