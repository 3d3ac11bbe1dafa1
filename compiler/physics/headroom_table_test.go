package physics

import "testing"

// acsSN5600 is NVIDIA's table for the default SN5600 SKU at 400G and 800G
// (sonic-buildimage@086b03bd device/mellanox/x86_64-nvidia_sn5600-r0/
// ACS-SN5600/pg_profile_lookup.ini: speed, cable, size, xon, xoff).
var acsSN5600 = []TableRow{
	{400, 5, 250880, 19456, 231424}, {400, 40, 303104, 19456, 283648}, {400, 300, 697344, 19456, 677888},
	{800, 5, 304128, 38912, 257024}, {800, 40, 410624, 38912, 362496}, {800, 300, 1198080, 38912, 1150976},
}

func TestTableHeadroom(t *testing.T) {
	for _, c := range []struct {
		speed           int
		cable           float64
		size, xon, xoff int64
	}{
		// The table's own rows.
		{400, 5, 250880, 19456, 231424},
		{400, 40, 303104, 19456, 283648},
		{800, 300, 1198080, 38912, 1150976},
		// Between rows: 400G at 100 m, 60/260 of the way from 40 m to 300 m,
		// rounded up to KiB: xoff 283648 + 60·394240/260 = 374626 → 374784.
		{400, 100, 394240, 19456, 374784},
		// Below the shortest row: the shortest row.
		{400, 1, 250880, 19456, 231424},
		// Beyond the longest: the 40 m–300 m line, 500 m at 400G:
		// 283648 + 460·394240/260 = 981150 → 982016.
		{400, 500, 1001472, 19456, 982016},
	} {
		got := TableHeadroom(acsSN5600, c.speed, c.cable, "table")
		if got.Size.Value != c.size || got.Xon.Value != c.xon || got.Xoff.Value != c.xoff {
			t.Errorf("%dG %gm: size %d xon %d xoff %d, want %d %d %d", c.speed, c.cable,
				got.Size.Value, got.Xon.Value, got.Xoff.Value, c.size, c.xon, c.xoff)
		}
		if got.Xoff.Source != "table" || got.Xoff.Formula == "" {
			t.Errorf("%dG %gm: derivation %+v", c.speed, c.cable, got.Xoff)
		}
	}
	// A speed the table lacks, or a single row, leaves the port to the formula.
	for _, rows := range [][]TableRow{acsSN5600, acsSN5600[:1]} {
		if got := TableHeadroom(rows, 200, 5, ""); got.Size.Valid() {
			t.Errorf("200G from %d rows: %+v, want none", len(rows), got)
		}
	}
}
