package host

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/ir"
)

// rdmaStorageDevice is a server whose storage class leaves over RDMA on
// its first two NICs, limited to 50 Gbit/s each, with rdma_cm QPs marked
// with the storage class.
func rdmaStorageDevice(t *testing.T, tool string) *ir.Device {
	d := ofedDevice(t)
	p := d.Host.Profile
	p.Tool = tool
	var storage *ir.Class
	for _, s := range p.Shaping {
		storage = s.Class
	}
	p.Shaping = []ir.Shape{{Class: storage, Transport: ir.TransportRDMA, NICs: []string{"eth2", "eth3"}, RateBits: 50_000_000_000}}
	p.RDMACMClass, p.RoCETOS = storage, storage.DSCP[0]<<2
	return d
}

// TestScriptRDMALimit: the runtime limits the RDMA storage class in the
// NICs that carry it (mlnx_qos -r in Gbit/s, dcb maxrate in kbit/s), lifts
// nothing on the others, and writes nothing once the NICs hold the limit.
func TestScriptRDMALimit(t *testing.T) {
	for _, tool := range []string{"mlnx_qos", "dcb"} {
		t.Run(tool, func(t *testing.T) {
			d := rdmaStorageDevice(t, tool)
			conf := render(t, d)
			for _, want := range []string{"'eth2 0 50000000 0 0 0 0 0 0'", "'eth4 0 0 0 0 0 0 0 0'", "readonly ROCE_TOS=40",
				"class storage (priority 1, tc 1, DSCP 10,18) over RDMA: at most 50Gbit on eth2, eth3"} {
				if !strings.Contains(conf, want) {
					t.Errorf("host.conf lacks %q", want)
				}
			}
			if strings.Contains(conf, "rocefab-qos@eth0") {
				t.Error("a unit instance for a tc interface the RDMA limit does not use")
			}
			have := desiredNIC(d.Host.Profile)
			have.Rate = [8]int64{}
			w := newWorld(t, d, have, tcDrifted(), tool == "mlnx_qos", true)
			out, stderr, code := w.run("--only", "qos")
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			want := map[string]string{
				"mlnx_qos": "write mlnx_qos -i eth2 -r 0,50,0,0,0,0,0,0",
				"dcb":      "write dcb maxrate set dev eth2 tc-maxrate 0:0 1:50000000kbit 2:0 3:0 4:0 5:0 6:0 7:0",
			}[tool]
			ws := w.writes()
			if !slices.Contains(ws, want) {
				t.Errorf("writes lack %q:\n%s", want, strings.Join(ws, "\n"))
			}
			for _, l := range ws {
				if strings.Contains(l, "eth4") || strings.Contains(l, "eth5") {
					t.Errorf("a NIC without the limit was written: %s", l)
				}
			}
			// The stand-in NICs all report one state: limit every NIC.
			d.Host.Profile.Shaping[0].NICs = []string{"eth2", "eth3", "eth4", "eth5"}
			w = newWorld(t, d, desiredNIC(d.Host.Profile), tcDrifted(), tool == "mlnx_qos", true)
			out, stderr, code = w.run("--only", "qos", "--check")
			if code != 0 || strings.Contains(out, "DRIFT") {
				t.Errorf("--check on NICs that hold the limit: exit %d\n%s\n%s", code, out, stderr)
			}
		})
	}
}

// TestRDMALimitChecks: a limit mlnx_qos cannot write (not whole Gbit/s), on
// a netdev the server does not have, or sharing a traffic class with
// another limited class is refused.
func TestRDMALimitChecks(t *testing.T) {
	d := rdmaStorageDevice(t, "mlnx_qos")
	d.Host.Profile.Shaping[0].RateBits = 12_500_000_000
	if _, err := (Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "whole Gbit/s") {
		t.Errorf("12.5 Gbit/s with mlnx_qos: %v", err)
	}
	d.Host.Profile.Tool = "dcb"
	if _, err := (Renderer{}).Render(d); err != nil {
		t.Errorf("12.5 Gbit/s with dcb: %v", err)
	}
	d.Host.Profile.Shaping[0].NICs = []string{"eth0"}
	if _, err := (Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "not an RDMA netdev") {
		t.Errorf("a limit on eth0: %v", err)
	}
	d = rdmaStorageDevice(t, "dcb")
	s := d.Host.Profile.Shaping[0]
	d.Host.Profile.Shaping = append(d.Host.Profile.Shaping, ir.Shape{Class: &ir.Class{Name: "backup", Priority: 1}, Transport: ir.TransportRDMA,
		NICs: []string{"eth3"}, RateBits: s.RateBits})
	if _, err := (Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "share traffic class 1 on eth3") {
		t.Errorf("two limited classes on one traffic class: %v", err)
	}
}

// TestShapingUnmarked: a tcp shape that takes unmarked traffic makes its
// class the HTB default, matches its own DSCPs, and sends the DSCPs of the
// other listed classes to the line-rate class; the default class's DSCPs
// are left to the default.
func TestShapingUnmarked(t *testing.T) {
	d := ofedDevice(t)
	p := d.Host.Profile
	p.DefaultPriority = 0
	p.Shaping[0].Transport, p.Shaping[0].Unmarked = ir.TransportTCP, true
	si := shapingPlan(p)[0]
	if si.deflt != 0x11 {
		t.Errorf("HTB default %s, want the storage class 1:11", classID(si.deflt))
	}
	has := func(f string) bool { return slices.Contains(si.filters, f) }
	for _, f := range []string{"ip 10 1:11", "ipv6 18 1:11", "ip 26 1:ff", "ip 48 1:ff"} {
		if !has(f) {
			t.Errorf("filters lack %q: %v", f, si.filters)
		}
	}
	if has("ip 0 1:ff") || has("ip 0 1:11") {
		t.Errorf("an unmarked DSCP is filtered: %v", si.filters)
	}
	p.Shaping = append(p.Shaping, ir.Shape{Class: &ir.Class{Name: "other", Priority: 2, DSCP: []int{20}}, Transport: ir.TransportTCP,
		Interface: p.Shaping[0].Interface, RateBits: 1_000_000_000, Unmarked: true})
	if _, err := (Renderer{}).Render(d); err == nil || !strings.Contains(err.Error(), "both take unmarked traffic") {
		t.Errorf("two classes taking unmarked traffic on one interface: %v", err)
	}
}

// TestTenantLossyKeptOffRDMA: a tenant on a lossy class gets
// NCCL_IB_DISABLE=1 and no NCCL_IB_TC; an NCCL_IB_* setting of its own
// besides it is printed as the model has it (lint's RF113 reports it), and
// a model without NCCL_IB_DISABLE=1 is refused.
func TestTenantLossyKeptOffRDMA(t *testing.T) {
	storage := &ir.Class{Name: "storage", Priority: 1, DSCP: []int{10}}
	tn := &ir.Tenant{Name: "checkpoint", Class: storage, ClassName: "storage", TrafficClass: 40, NoRDMA: true,
		Env: []ir.EnvVar{{Name: "NCCL_IB_DISABLE", Value: "1"}}}
	a, err := RenderTenant(tn)
	if err != nil {
		t.Fatal(err)
	}
	env := string(a.Content)
	if !strings.Contains(env, "\nNCCL_IB_DISABLE=1\n") || strings.Contains(env, "NCCL_IB_TC") || !strings.Contains(env, "kept off RDMA") {
		t.Errorf("env of a lossy tenant:\n%s", env)
	}
	tn.Env = append(tn.Env, ir.EnvVar{Name: "NCCL_IB_HCA", Value: "mlx5_0"})
	if a, err := RenderTenant(tn); err != nil || !strings.Contains(string(a.Content), "\nNCCL_IB_HCA=mlx5_0\n") {
		t.Errorf("NCCL_IB_HCA on a lossy tenant: not printed as the model has it: %v", err)
	}
	tn.Env = nil
	if _, err := RenderTenant(tn); err == nil || !strings.Contains(err.Error(), "NCCL_IB_DISABLE=1 is not set") {
		t.Errorf("a lossy tenant without NCCL_IB_DISABLE: %v", err)
	}
}
