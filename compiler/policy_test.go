package compiler_test

import (
	"reflect"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
)

// TestPolicyFacts checks the fabric-wide settings and the facts about what
// the intent states that the compiler records for lint.
func TestPolicyFacts(t *testing.T) {
	f := expand(t, `name: "facts"
topology: {servers: 16, rails: 2, nic: speed: "400G", leaf: {platform: "eos", model: "7060X6-64PE"}}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 50, ecn: {min: "800 cells", max: "1MB"}}
	storage: {priority: 1, dscp: [10], bandwidth: 30}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 20}
}
buffers: {reserve: {roce: 30, storage: 0}, acceptGaps: ["reserve"]}
pfc: watchdog: {enabled: true, action: "alert"}
routing: loadBalancing: "adaptive"
hosts: {
	nic: model: "cx7"
	dcqcn: enabled: false
	shape: storage: {interface: "eth0", rate: "10Gbit"}
	nccl: {trafficClass: 104, env: {NCCL_DEBUG: "WARN", NCCL_IB_QPS_PER_CONNECTION: "4"}}
}
tenants: {
	train: {class: "roce"}
	own: {class: "roce", nccl: trafficClass: 104}
	checkpoint: {class: "storage", nccl: env: {NCCL_IB_DISABLE: "0", NCCL_SOCKET_NTHREADS: "4"}}
}`)
	wantReserves := []ir.Reserve{{Class: "roce", Percent: 30, Lossless: true}, {Class: "storage", Percent: 0}}
	if b := f.Buffers; !reflect.DeepEqual(b.Reserves, wantReserves) || !b.ReserveStated || !b.Accepts("reserve") || b.Accepts("priority-group") ||
		b.ReservePercent("roce") != 30 || b.ReservePercent("bulk") != 0 || !b.Pos.IsValid() {
		t.Errorf("Buffers = %+v, want reserves %v, stated, accepting the reserve gap only", b, wantReserves)
	}
	if w := f.Watchdog; !w.Enabled || w.Action != "alert" || !w.Pos.IsValid() {
		t.Errorf("Watchdog = %+v, want enabled with action alert", w)
	}
	if f.LoadBalancing != "adaptive" || f.Topology.NICSpeedGbps != 400 {
		t.Errorf("LoadBalancing %q, NIC speed %d G; want adaptive, 400 G", f.LoadBalancing, f.Topology.NICSpeedGbps)
	}
	e := f.Class("roce").ECN
	if e == nil || e.MinCells != 800 || e.MaxCells != 0 || e.MaxBytes != 1_000_000 || !e.InCells() {
		t.Errorf("roce ECN = %+v, want min 800 cells and max 1 MB", e)
	}
	prof := f.HostProfile
	if prof == nil || f.Hosts()[0].Host.Profile != prof {
		t.Fatalf("HostProfile %p is not the servers' profile", prof)
	}
	wantEnv := []ir.EnvVar{{Name: "NCCL_DEBUG", Value: "WARN"}, {Name: "NCCL_IB_QPS_PER_CONNECTION", Value: "4"}}
	if prof.DCQCN.Enabled || prof.NICModelStated != "cx7" || prof.NICModel != "connectx-7" || !reflect.DeepEqual(prof.NCCLEnv, wantEnv) ||
		!reflect.DeepEqual(prof.ShapedClasses, []string{"storage"}) || prof.RDMACMStated {
		t.Errorf("HostProfile: DCQCN %v, NIC model %q stated %q, NCCL env %v, shaped %v, rdma_cm stated %v",
			prof.DCQCN.Enabled, prof.NICModel, prof.NICModelStated, prof.NCCLEnv, prof.ShapedClasses, prof.RDMACMStated)
	}
	tenants := map[string]*ir.Tenant{}
	for _, tn := range f.Tenants {
		tenants[tn.Name] = tn
	}
	for name, from := range map[string]string{"train": ir.StatedByHosts, "own": ir.StatedByTenant, "checkpoint": ir.StatedByHosts} {
		if got := tenants[name].TrafficClassFrom; got != from {
			t.Errorf("tenant %s: traffic class from %q, want %q", name, got, from)
		}
	}
	// The tenant kept off RDMA has NCCL_IB_DISABLE=1 whatever it states;
	// what it states stays on record.
	cp := tenants["checkpoint"]
	if v, _ := envOf(cp, "NCCL_IB_DISABLE"); v != "1" {
		t.Errorf("checkpoint: NCCL_IB_DISABLE=%q in its environment, want 1", v)
	}
	wantStated := []ir.EnvVar{{Name: "NCCL_IB_DISABLE", Value: "0"}, {Name: "NCCL_SOCKET_NTHREADS", Value: "4"}}
	if !reflect.DeepEqual(cp.StatedEnv, wantStated) || tenants["train"].StatedEnv != nil {
		t.Errorf("stated env: checkpoint %v, train %v; want %v and none", cp.StatedEnv, tenants["train"].StatedEnv, wantStated)
	}
}

// TestPolicyDefaults checks the facts of an intent that states none of
// them: a default reserve, no stated traffic class or environment.
func TestPolicyDefaults(t *testing.T) {
	f := expand(t, `name: "defaults"
topology: {servers: 16, rails: 2}
hosts: rdmaCM: class: "roce"
tenants: train: class: "roce"`)
	if b := f.Buffers; b.ReserveStated || len(b.Reserves) == 0 {
		t.Errorf("Buffers = %+v, want the default reserve, not stated", b)
	}
	if tn := f.Tenants[0]; tn.TrafficClassFrom != "" || tn.StatedEnv != nil {
		t.Errorf("tenant: traffic class from %q, stated env %v; want neither", tn.TrafficClassFrom, tn.StatedEnv)
	}
	if p := f.HostProfile; p == nil || !p.RDMACMStated || p.ShapedClasses != nil || p.NCCLEnv != nil {
		t.Errorf("HostProfile = %+v, want rdma_cm stated and no shaping or NCCL env", p)
	}
}
