package sonic

import (
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
)

// PrintedAlone returns d's config_db.json and breakout_cfg.json printed
// from its own sorted entries, never from a kept order or layout.
func PrintedAlone(d *ir.Device) (db, breakout []byte, err error) {
	es, _, err := build(d)
	if err != nil {
		return nil, nil, err
	}
	// Sorted again on their own: build may have ordered them by a kept
	// order, which is what is tested.
	slices.SortStableFunc(es, compareEntry)
	in, out := split(es, tableBreakout)
	if len(in) > 0 {
		breakout = writeJSON(in)
	}
	return writeJSON(out), breakout, nil
}
