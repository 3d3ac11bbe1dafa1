package lint_test

import (
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/compiler/lint"
	"github.com/rocefab/rocefab/compiler/lint/linttest"
)

// TestECNBeforePFCSharedPool: on EOS, which holds no share of the buffer
// for one class, the buffer plan, its XOFF point and so RF102 follow the
// shared pool the switch runs on, and the intent's reserve is kept as
// unheld rather than counted.
func TestECNBeforePFCSharedPool(t *testing.T) {
	dir := filepath.Join(linttest.TestData(), lint.ECNBeforePFC.Name)
	seen := false
	for _, r := range linttest.Run(t, dir, lint.ECNBeforePFC) {
		if r.Case != "eos-shared-pool" {
			continue
		}
		seen = true
		if len(r.Diagnostics) != 0 {
			t.Errorf("RF102 on the shared pool: %v", r.Diagnostics)
		}
		for _, d := range r.Fabric.Switches() {
			b := d.Switch.Buffers
			if !b.Shared || b.LosslessBytes != 0 || b.ReservePercent != 0 || len(b.Reserves) != 0 {
				t.Errorf("%s: plan holds a reserve on EOS: shared %v, %d B, %d %%", d.Name, b.Shared, b.LosslessBytes, b.ReservePercent)
			}
			if b.UnheldPercent != 30 || b.UnheldName != "roce" || b.UnheldBytes != b.TotalBytes*30/100 {
				t.Errorf("%s: unheld reserve %d %% for %q (%d B), want the default 30 %% for roce", d.Name, b.UnheldPercent, b.UnheldName, b.UnheldBytes)
			}
			if b.PoolBytes != b.TotalBytes-b.HeadroomBytes || b.LossyBytes != b.PoolBytes {
				t.Errorf("%s: pool %d B, lossy %d B, want buffer %d B less headroom %d B", d.Name, b.PoolBytes, b.LossyBytes, b.TotalBytes, b.HeadroomBytes)
			}
			if want := b.PoolBytes / int64(1+b.CongestedQueues); b.XoffPoint != want || b.CongestedQueues != len(d.Switch.Ports) {
				t.Errorf("%s: XOFF point %d B with N = %d, want pool/(1+N) = %d B with N = %d", d.Name, b.XoffPoint, b.CongestedQueues, want, len(d.Switch.Ports))
			}
			if !hasDerivation(b.Derived, "shared-pool", "headroom_pool") || hasDerivation(b.Derived, "reserved-pool", "percent") {
				t.Errorf("%s: explain would not show the shared pool: %+v", d.Name, b.Derived)
			}
			for _, dv := range b.Derived {
				if dv.Field == "buffer-demand" {
					for _, in := range dv.Inputs {
						if in.Name == "reserve[roce]" {
							t.Errorf("%s: the budget charges a reserve EOS does not hold: %+v", d.Name, dv)
						}
					}
				}
			}
		}
	}
	if !seen {
		t.Fatal("case eos-shared-pool did not run")
	}
}
