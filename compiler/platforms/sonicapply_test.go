package platforms

import "testing"

func TestSONiCApply(t *testing.T) {
	if _, err := loadSONiCApply(); err != nil {
		t.Fatal(err)
	}
	pool, ok := SONiCApply("BUFFER_POOL")
	if !ok || pool.Method("size", "replace", "th5", "20251100") != ApplyReload || pool.Disruption != Reboot {
		t.Errorf("BUFFER_POOL: GCU refuses every change: %+v", pool)
	}
	prof, _ := SONiCApply("BUFFER_PROFILE")
	for _, c := range []struct{ field, op, asic, image, want string }{
		{"xoff", "replace", "th5", "20241100", ApplyPatch},
		{"xoff", "replace", "th5", "20231100", ApplyReload}, // image older than the validator's
		{"size", "replace", "th5", "20251100", ApplyReload},
		{"xon_offset", "replace", "spc4", "20251100", ApplyReload},
		{"dynamic_th", "replace", "spc4", "20251100", ApplyPatch},
		{"dynamic_th", "replace", "unknown", "20251100", ApplyReload},
	} {
		if got := prof.Method(c.field, c.op, c.asic, c.image); got != c.want {
			t.Errorf("BUFFER_PROFILE %s %s on %s %s = %s, want %s", c.op, c.field, c.asic, c.image, got, c.want)
		}
	}
	if b, _ := SONiCApply("BREAKOUT_CFG"); b.Apply != ApplyBreakout || b.Disruption != PortFlap {
		t.Errorf("BREAKOUT_CFG: %+v", b)
	}
}
