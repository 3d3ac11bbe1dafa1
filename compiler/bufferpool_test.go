package compiler_test

import (
	"strconv"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// TestBroadcomXoffPointPool: on a Broadcom XGS SONiC switch lossy and
// lossless priority groups share one ingress pool (renderers/sonic
// poolsBroadcom: size = buffer − minimums, the headroom pool as its xoff)
// and lossy traffic is bounded by the egress lossy pool. The XOFF point
// the plan gives RF102, explain and SUMMARY must be that of the pool the
// lossless groups see there when lossy traffic holds all it can, derived
// from the figures config_db.json programs, with N congested groups.
func TestBroadcomXoffPointPool(t *testing.T) {
	n := 0
	for _, m := range platforms.SwitchModels() {
		sw, _ := platforms.LookupSwitch(m)
		fam, ok := platforms.FamilyOf(sw)
		if !ok || fam.BufferConvention != physics.ConventionBroadcomXGS || sw.Ports["400G"] < 64 {
			continue
		}
		n++
		down := sw.Ports["400G"] / 2
		leaf := firstLeaf(t, compile(t, fullPortIntent("sonic", m, "400G", down*2, 2, "30m")))
		bp := leaf.Switch.Buffers
		if bp.Convention != physics.ConventionBroadcomXGS {
			t.Fatalf("%s: convention %q", m, bp.Convention)
		}
		// What config_db.json programs (renderers/sonic poolsBroadcom).
		size, xoff, lossy := bp.TotalBytes-bp.SDKReservedBytes-bp.MinimumBytes, bp.HeadroomBytes, bp.LossyBytes
		want := size - xoff - lossy
		if bp.PoolBytes != want {
			t.Errorf("%s: pool %d B, want ingress size %d − xoff %d − egress lossy %d = %d B", m, bp.PoolBytes, size, xoff, lossy, want)
		}
		byField := map[string]ir.Derivation{}
		for _, dv := range bp.Derived {
			byField[dv.Field] = dv
		}
		lp, ok := byField["lossless-pool"]
		if !ok || lp.Value != want {
			t.Fatalf("%s: explain's lossless-pool %+v, want %d B", m, lp, want)
		}
		in := map[string]string{}
		for _, i := range lp.Inputs {
			in[i.Name] = i.Value
		}
		for name, v := range map[string]int64{"size": size, "xoff": xoff, "lossy_max": lossy} {
			if in[name] != itoa64(v)+" B" {
				t.Errorf("%s: lossless-pool input %s = %q, want %d B", m, name, in[name], v)
			}
		}
		xp := physics.CongestedXoffPoint(want, bp.AlphaLog2, bp.CongestedQueues)
		if bp.XoffPoint != xp.Value || byField["xoff-point"].Value != xp.Value {
			t.Errorf("%s: XOFF point %d (explain %d), want %d", m, bp.XoffPoint, byField["xoff-point"].Value, xp.Value)
		}
		pin := map[string]string{}
		for _, i := range byField["xoff-point"].Inputs {
			pin[i.Name] = i.Value
		}
		if pin["pool"] != itoa64(want)+" B" {
			t.Errorf("%s: xoff-point pool input %q, want %d B", m, pin["pool"], want)
		}
		t.Logf("%-12s ingress %d − xoff %d − lossy %d = pool %d B; N = %d, XOFF point %d B", m, size, xoff, lossy, want, bp.CongestedQueues, bp.XoffPoint)
	}
	if n == 0 {
		t.Fatal("no Broadcom XGS model in the catalog")
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
