package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A NIC model of another vendor takes the tool its driver documents, the
// RDMA device names its driver registers, and no cable length where the
// driver takes none.
func TestNICVendorDefaults(t *testing.T) {
	for _, c := range []struct {
		model, tool, hca string
		speed            string // the NIC links, at most the model's fastest port (RF121)
		cable            float64
		cc               string // the congestion-control knobs, as %v prints them
	}{
		{"connectx-7", "mlnx_qos", "mlx5_0,mlx5_1", "400G", 3, "[]"},
		{"thor2", "dcb", "bnxt_re0,bnxt_re1", "400G", 0,
			"[{bnxt_re ecn_enable 0x1} {bnxt_re cc_mode 0x1} {bnxt_re roce_dscp 0x1a} {bnxt_re cnp_dscp 0x30}]"},
		{"BCM57608", "dcb", "bnxt_re0,bnxt_re1", "400G", 0,
			"[{bnxt_re ecn_enable 0x1} {bnxt_re cc_mode 0x1} {bnxt_re roce_dscp 0x1a} {bnxt_re cnp_dscp 0x30}]"},
		{"e810", "dcb", "irdma0,irdma1", "100G", 0, "[{irdma roce_dcqcn_enable 1}]"},
	} {
		f := compile(t, "name: \"x\"\ntopology: {servers: 16, rails: 2, nic: speed: \""+c.speed+"\"}\ntenants: train: class: \"roce\"\nhosts: nic: model: \""+c.model+"\"\n")
		prof := f.HostProfile
		if prof == nil || prof.Tool != c.tool || prof.CableM != c.cable {
			t.Fatalf("%s: profile %+v, want tool %s, cable %g m", c.model, prof, c.tool, c.cable)
		}
		if got := fmt.Sprint(prof.CCKnobs); got != c.cc {
			t.Errorf("%s: congestion-control knobs %s, want %s", c.model, got, c.cc)
		}
		got := ""
		for _, e := range f.Tenants[0].Env {
			if e.Name == "NCCL_IB_HCA" {
				got = e.Value
			}
		}
		if got != c.hca {
			t.Errorf("%s: NCCL_IB_HCA %q, want %q", c.model, got, c.hca)
		}
	}
}

// Tenants on AMD GPUs get an environment for RCCL, on NVIDIA GPUs (the
// default) one for NCCL.
func TestTenantLibraryFollowsGPU(t *testing.T) {
	for gpu, want := range map[string]string{"": "nccl", "hosts: gpu: \"nvidia\"\n": "nccl", "hosts: gpu: \"amd\"\n": "rccl"} {
		f := compile(t, "name: \"x\"\ntopology: {servers: 16, rails: 2}\ntenants: train: class: \"roce\"\n"+gpu)
		if got := f.Tenants[0].Library; got != want {
			t.Errorf("%q: library %q, want %q", gpu, got, want)
		}
	}
}

// A mixed fleet: the servers hosts.nic.models names get their model's
// profile and RDMA device names, the others keep the fabric's, and a
// tenant on both lists both drivers' devices.
func TestMixedFleet(t *testing.T) {
	f := compile(t, "name: \"x\"\ntopology: {servers: 16, rails: 2}\ntenants: train: class: \"roce\"\n"+
		"hosts: nic: models: \"gpu-[0008-0015]\": \"BCM57608\"\n")
	for _, c := range []struct{ server, model, tool, hca string }{
		{"gpu-0000", "connectx-7", "mlnx_qos", "mlx5_1"},
		{"gpu-0007", "connectx-7", "mlnx_qos", "mlx5_1"},
		{"gpu-0008", "thor2", "dcb", "bnxt_re1"},
		{"gpu-0015", "thor2", "dcb", "bnxt_re1"},
	} {
		d := f.Device(c.server)
		if d == nil || d.Host == nil {
			t.Fatalf("no server %s", c.server)
		}
		p := d.Host.Profile
		if d.Model != c.model || p.NICModel != c.model || p.Tool != c.tool || d.Host.NICs[1].HCA != c.hca {
			t.Errorf("%s: model %s/%s, tool %s, NIC 1 on %s; want %s, %s, %s", c.server, d.Model, p.NICModel, p.Tool, d.Host.NICs[1].HCA, c.model, c.tool, c.hca)
		}
	}
	if f.Device("gpu-0000").Host.Profile == f.Device("gpu-0008").Host.Profile || f.Device("gpu-0008").Host.Profile != f.Device("gpu-0015").Host.Profile {
		t.Error("the servers of one NIC model do not share one profile")
	}
	for _, e := range f.Tenants[0].Env {
		if e.Name == "NCCL_IB_HCA" && e.Value != "mlx5_0,mlx5_1,bnxt_re0,bnxt_re1" {
			t.Errorf("NCCL_IB_HCA=%s, want both drivers' devices", e.Value)
		}
	}
}

// In an explicit topology the device list's model of a server counts: a
// Thor 2 server among ConnectX-7 ones gets the Thor 2 profile.
func TestExplicitInventoryNICModel(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("lint", "testdata", "reorder-support", "explicit-cx5", "devices.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := compileFiles(t, "name: \"x\"\ntopology: {style: \"explicit\", inventory: \"devices.json\", rails: 2}\n",
		map[string]string{"devices.json": strings.ReplaceAll(string(b), `"connectx-5"`, `"thor2"`)})
	cx7, thor := f.Device("gpu-0000").Host.Profile, f.Device("gpu-0001").Host.Profile
	if cx7.NICModel != "connectx-7" || cx7.Tool != "mlnx_qos" || thor.NICModel != "thor2" || thor.Tool != "dcb" || len(thor.CCKnobs) == 0 {
		t.Errorf("profiles: gpu-0000 %s/%s, gpu-0001 %s/%s %v", cx7.NICModel, cx7.Tool, thor.NICModel, thor.Tool, thor.CCKnobs)
	}
	if h := f.Device("gpu-0001").Host.NICs[0].HCA; h != "bnxt_re0" {
		t.Errorf("gpu-0001 NIC 0 on %s, want bnxt_re0", h)
	}
}

// Thor 2 servers take the traffic classes bnxt_re requires (README, DCB
// Settings): RoCE on class 1 and the CNP class on class 2, the rest on
// class 0 with the other shares; a mixed fleet's ConnectX-7 servers keep
// priority p on class p.
func TestThor2TrafficClasses(t *testing.T) {
	f := compile(t, `name: "x"
topology: {servers: 16, rails: 2}
classes: {
	roce: {priority: 3, dscp: [26], lossless: true, bandwidth: 60, ecn: {min: "100KB", max: "300KB", probability: 20}}
	cnp: {priority: 6, dscp: [48], cnp: true, strict: true}
	bulk: {priority: 0, default: true, bandwidth: 40}
}
hosts: nic: {model: "connectx-7", models: "gpu-[0008-0015]": "thor2"}
`)
	want := map[string]string{
		"connectx-7": "[0 1 2 3 4 5 6 7] [ets ets ets ets ets ets strict ets] [40 0 0 60 0 0 0 0]",
		"thor2":      "[0 0 0 1 0 0 2 0] [ets ets strict strict strict strict strict strict] [40 60 0 0 0 0 0 0]",
	}
	for _, name := range []string{"gpu-0000", "gpu-0008"} {
		p := f.Device(name).Host.Profile
		if got := fmt.Sprint(p.PrioToTC, p.TSA, p.ETS); got != want[p.NICModel] {
			t.Errorf("%s (%s): prio_tc, tsa, tc_bw %s, want %s", name, p.NICModel, got, want[p.NICModel])
		}
	}
}
