package physics

import (
	"math"
	"slices"
	"strconv"
)

// TableRow is one row of a vendor's lossless headroom table: size, xon and
// xoff of a priority group at a port speed and cable length.
type TableRow struct {
	SpeedGbps int
	CableM    int
	Size      int64
	Xon       int64
	Xoff      int64
}

// TableHeadroom returns a port's headroom from a vendor table (NVIDIA's
// pg_profile_lookup.ini for a Spectrum SKU): the row of the port's speed
// and cable length, and between or beyond the rows of its speed each of
// size, xon and xoff linear in the cable length through the two nearest
// rows, rounded up to whole KiB as the table's figures are:
//
//	v(L) = v(L₁) + (L − L₁)·(v(L₂) − v(L₁))/(L₂ − L₁)
//
// (xoff grows linearly with the data in flight on the cable, 2·L·S/v: the
// table's 5 m, 40 m and 300 m rows lie on such a line within 1 %). source
// names the table. A speed with fewer than two rows, or none, gives the
// zero Thresholds, and the caller falls back to its formula. No result is
// below the table's shortest row.
func TableHeadroom(rows []TableRow, speedGbps int, cableM float64, source string) Thresholds {
	var at []TableRow
	for _, r := range rows {
		if r.SpeedGbps == speedGbps && r.CableM > 0 {
			at = append(at, r)
		}
	}
	if len(at) < 2 || speedGbps <= 0 {
		return Thresholds{}
	}
	slices.SortFunc(at, func(a, b TableRow) int { return a.CableM - b.CableM })
	l := clampCable(cableM)
	// The two rows the line runs through: the ones around L, or the two
	// nearest ends beyond the table.
	i := 0
	for i < len(at)-2 && float64(at[i+1].CableM) < l {
		i++
	}
	a, b := at[i], at[i+1]
	interp := func(va, vb int64) int64 {
		if l <= float64(a.CableM) {
			return va // the table starts at its shortest cable
		}
		v := float64(va) + (l-float64(a.CableM))*float64(vb-va)/float64(b.CableM-a.CableM)
		return int64(math.Ceil(v/KiB)) * KiB
	}
	xoff, xon, size := interp(a.Xoff, b.Xoff), interp(a.Xon, b.Xon), interp(a.Size, b.Size)
	size = max(size, xoff+xon)
	inputs := []Input{
		{"S", strconv.Itoa(speedGbps) + " Gbit/s"},
		{"L", formatFloat(l, 1) + " m"},
		{"row₁", strconv.Itoa(a.CableM) + " m: size " + strconv.FormatInt(a.Size, 10) + ", xon " + strconv.FormatInt(a.Xon, 10) + ", xoff " + strconv.FormatInt(a.Xoff, 10) + " B"},
		{"row₂", strconv.Itoa(b.CableM) + " m: size " + strconv.FormatInt(b.Size, 10) + ", xon " + strconv.FormatInt(b.Xon, 10) + ", xoff " + strconv.FormatInt(b.Xoff, 10) + " B"},
	}
	formula := "v = v(L₁) + (L − L₁)·(v(L₂) − v(L₁))/(L₂ − L₁), rounded up to KiB   (the vendor's table at the port's speed, linear in the cable length)"
	mk := func(field string, v int64) Derivation {
		return Derivation{Field: field, Value: v, Unit: "B", Formula: formula, Inputs: inputs, Source: source}
	}
	return Thresholds{Xoff: mk("xoff", xoff), Xon: mk("xon", xon), Size: mk("headroom", size)}
}
