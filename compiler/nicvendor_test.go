package compiler_test

import "testing"

// A NIC model of another vendor takes the tool its driver documents, the
// RDMA device names its driver registers, and no cable length where the
// driver takes none.
func TestNICVendorDefaults(t *testing.T) {
	for _, c := range []struct {
		model, tool, hca string
		cable            float64
	}{
		{"connectx-7", "mlnx_qos", "mlx5_0,mlx5_1", 3},
		{"thor2", "dcb", "bnxt_re0,bnxt_re1", 0},
		{"BCM57608", "dcb", "bnxt_re0,bnxt_re1", 0},
		{"e810", "dcb", "irdma0,irdma1", 0},
	} {
		f := compile(t, "name: \"x\"\ntopology: {servers: 16, rails: 2}\ntenants: train: class: \"roce\"\nhosts: nic: model: \""+c.model+"\"\n")
		prof := f.HostProfile
		if prof == nil || prof.Tool != c.tool || prof.CableM != c.cable {
			t.Fatalf("%s: profile %+v, want tool %s, cable %g m", c.model, prof, c.tool, c.cable)
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
