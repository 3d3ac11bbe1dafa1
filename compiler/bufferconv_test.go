package compiler_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// TestBufferConventionPerSKU compiles a hyperscale-100k leaf (64 host ports
// on 3 m, 64 uplinks on 30 m, 400G) on every catalog SONiC model and checks
// that the buffer plan charges the convention the ASIC uses: Broadcom XGS
// switches a reserved minimum and the xoffs (the shared headroom pool),
// Spectrum switches size = xoff + xon per PG. It logs demand against the
// buffer for each, and what the profiles would have reserved on a Broadcom
// ASIC when written in the Spectrum form (size = xoff + xon as the
// minimum, xoff again as headroom, pools of the rest).
func TestBufferConventionPerSKU(t *testing.T) {
	for _, m := range platforms.SONiCSKUModels() {
		sw, _ := platforms.LookupSwitch(m)
		down, speed := 64, "400G"
		if sw.Ports["400G"] < 128 {
			down = sw.Ports["400G"] / 2
		}
		if sw.Ports["400G"] == 0 {
			down, speed = sw.Ports["100G"]/2, "100G"
		}
		leaf := firstLeaf(t, compile(t, fullPortIntent("sonic", m, speed, down*2, 2, "30m")))
		bp := leaf.Switch.Buffers
		fam, _ := platforms.FamilyOf(sw)
		if bp.Convention != fam.BufferConvention || bp.Convention == "" {
			t.Fatalf("%s: convention %q, family %s says %q", m, bp.Convention, fam.Family, fam.BufferConvention)
		}
		k := int64(len(leaf.Switch.QoS.PFC))
		var sumSize, sumXoff int64
		for _, p := range leaf.Switch.Ports {
			sumSize += p.Headroom.Size * k
			sumXoff += p.Headroom.Xoff * k
		}
		// What the pools can hold: the SDK keeps its reserved cells out.
		demand := bp.TotalBytes - bp.SDKReservedBytes - bp.LossyBytes
		switch bp.Convention {
		case "broadcom-xgs":
			if bp.HeadroomBytes != sumXoff || bp.MinimumBytes != bp.PGMinBytes*int64(len(leaf.Switch.Ports))*k || bp.PGMinBytes <= 0 {
				t.Errorf("%s: headroom %d (Σ xoff %d), minimum %d", m, bp.HeadroomBytes, sumXoff, bp.MinimumBytes)
			}
			if demand != bp.LosslessBytes+bp.MinimumBytes+sumXoff {
				t.Errorf("%s: demand %d", m, demand)
			}
			// The Spectrum form on this ASIC: size per PG reserved, xoff per
			// PG as private headroom (no pool xoff), pools sized to the rest
			// of the buffer.
			before := bp.TotalBytes + sumXoff
			t.Logf("%-12s %-13s demand %6.1f MB of %6.1f MB (minimum %.1f MB + headroom pool %.1f MB + reserve %.1f MB); Spectrum-form profiles would hold %.1f MB",
				m, bp.Convention, mb(demand), mb(bp.TotalBytes), mb(bp.MinimumBytes), mb(bp.HeadroomBytes), mb(bp.LosslessBytes), mb(before))
		default:
			if bp.HeadroomBytes != sumSize || bp.MinimumBytes != 0 {
				t.Errorf("%s: headroom %d (Σ size %d), minimum %d", m, bp.HeadroomBytes, sumSize, bp.MinimumBytes)
			}
			t.Logf("%-12s %-13s demand %6.1f MB of %6.1f MB (headroom %.1f MB + reserve %.1f MB)",
				m, bp.Convention, mb(demand), mb(bp.TotalBytes), mb(bp.HeadroomBytes), mb(bp.LosslessBytes))
		}
		found := false
		for _, dv := range bp.Derived {
			if dv.Field == "buffer-demand" && strings.Contains(dv.Formula, bp.Convention) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no buffer-demand derivation for %s", m, bp.Convention)
		}
	}
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// TestBroadcomHeadroomIsXoff: on a Broadcom XGS SONiC switch a port
// class's headroom (size, the physics' requirement, the explain
// derivation and each port's share of the headroom pool) is its xoff, the
// figure config_db.json programs; an EOS switch of the same ASIC family,
// cell size, speed and cable keeps size = xoff + xon and does not share
// the class.
func TestBroadcomHeadroomIsXoff(t *testing.T) {
	f := compile(t, th5Intent(64, "3m", `platform: "sonic"`, `platform: "eos", model: "7060X6-64PE"`, "30m"))
	var leaf, spine *ir.Device
	for _, d := range f.Devices {
		switch {
		case d.Role == ir.RoleLeaf && leaf == nil:
			leaf = d
		case d.Role == ir.RoleSpine && spine == nil:
			spine = d
		}
	}
	if leaf == nil || spine == nil || leaf.Switch.Buffers.Convention != "broadcom-xgs" {
		t.Fatalf("want a broadcom-xgs SONiC leaf and an EOS spine, got %v %v", leaf, spine)
	}
	k := int64(len(leaf.Switch.QoS.PFC))
	var pool int64
	for _, p := range leaf.Switch.Ports {
		h := p.Headroom
		if h.Size != h.Xoff || h.Required != h.Xoff || h.Xon <= 0 {
			t.Fatalf("%s %s: xoff %d, xon %d, size %d, required %d: want size = required = xoff", leaf.Name, h.Name, h.Xoff, h.Xon, h.Size, h.Required)
		}
		var hd *ir.Derivation
		for i := range h.Derived {
			if h.Derived[i].Field == "headroom" {
				hd = &h.Derived[i]
			}
		}
		if hd == nil || hd.Value != h.Xoff || !strings.Contains(hd.Formula, "broadcom-xgs") {
			t.Fatalf("%s %s: headroom derivation %+v", leaf.Name, h.Name, hd)
		}
		pool += h.Xoff * k
	}
	if got := leaf.Switch.Buffers.HeadroomBytes; got != pool {
		t.Errorf("%s: headroom pool %d, Σ xoff %d", leaf.Name, got, pool)
	}
	for _, dv := range leaf.Switch.Buffers.Derived {
		if dv.Field == "headroom-pool" && dv.Value != pool {
			t.Errorf("%s: explain's headroom-pool %d, Σ xoff %d", leaf.Name, dv.Value, pool)
		}
	}
	for _, p := range spine.Switch.Ports {
		if h := p.Headroom; h.Size != h.Xoff+h.Xon {
			t.Errorf("%s %s: size %d, want xoff + xon = %d", spine.Name, h.Name, h.Size, h.Xoff+h.Xon)
		}
	}
}
