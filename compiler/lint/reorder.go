package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// ReorderSupport is RF109.
var ReorderSupport = &Analyzer{
	ID: "RF109", Name: "reorder-support", Severity: diag.Error,
	Title: "adaptive routing or spraying while the NIC cannot place out-of-order packets",
	Doc: `Load balancing per packet (NVUE adaptive routing for "adaptive" and "spray", NX-OS DLB in
per-packet mode for "spray") sends the packets of one flow over several paths, so they arrive out of
order at every server behind the fabric. A RoCE NIC then has to place them out of order
(ConnectX-6 Dx and later, BlueField-3) with adaptive routing enabled in its firmware
(mlxconfig ROCE_ADAPTIVE_ROUTING_EN=1, off by default), and NCCL has to know: on RoCE it keeps
NCCL_IB_ADAPTIVE_ROUTING at 0 unless told, and rocefab sets it to 1 in the environment of every
tenant whose servers are reordered. A NIC without that capability, or an environment that turns it
off, treats each gap as loss and goes back to retransmit, which is far worse than ECMP.
NCCL_IB_OOO_RQ=1 (NCCL 2.30) fails every connection unless adaptive routing is on as well.
Flowlet load balancing (EOS dynamic load balancing, NX-OS DLB for "adaptive") moves a flow only
between bursts and keeps its order: it needs nothing from the NICs. In an explicit topology the model
of each reordered server in the device list is checked as well as hosts.nic.model.`,
	Run: func(p *Pass) {
		reorderNICs(p)
		reorderEnv(p)
	},
}

// reorderNICs checks the NIC model of every server whose packets a switch
// reorders, once per model.
func reorderNICs(p *Pass) {
	lb, model := p.Fabric.LoadBalancing, ""
	if prof := p.Fabric.HostProfile; prof != nil {
		model = prof.NICModelStated
	}
	seen := map[string]bool{}
	for _, d := range p.Fabric.Hosts() {
		by := d.Host.ReorderedBy
		if by == "" {
			continue
		}
		m, own := d.Model, true
		if m == "" || strings.EqualFold(m, model) {
			m, own = model, false
		}
		nic, known := platforms.LookupNIC(m)
		key := strings.ToLower(m)
		if known {
			key = strings.ToLower(nic.Model) // aliases count as their model
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		at := p.Pos("routing.loadBalancing")
		if !known {
			at = p.Pos("hosts.nic.model")
		}
		report := func(format string, args ...any) {
			if own {
				pos := d.Pos // an explicit inventory's device
				if !pos.IsValid() {
					pos = p.Pos("hosts.nic.models") // a mixed fleet's
				}
				p.ReportDevice(pos, d.Name, "", format, args...)
				return
			}
			p.Reportf(at, format, args...)
		}
		why := balancedBy(p.Fabric, by)
		switch {
		case !known:
			report("loadBalancing %q needs NICs that place out-of-order packets; %q is not a known NIC model (known: %s)",
				lb, m, strings.Join(platforms.NICModels(), ", "))
		case !nic.OutOfOrder:
			report("loadBalancing %q reorders packets, but %s cannot place out-of-order packets (%s)", lb, nic.Model, why)
		case nic.AdaptiveRoutingFirmware == "" && !nic.ReorderNative:
			report("loadBalancing %q reorders packets (%s), but %s has no known firmware setting that lets RDMA QPs take adaptively routed packets",
				lb, why, nic.Model)
		}
	}
}

// balancedBy says which switch reorders and how, for messages.
func balancedBy(f *ir.Fabric, name string) string {
	d := f.Device(name)
	if d == nil || d.Switch == nil {
		return name + " balances per packet"
	}
	return fmt.Sprintf("%s balances per packet: %s %s", name, d.Platform, d.Switch.Balancing.Rendered)
}

// reorderEnv checks the NCCL environment the intent gives a tenant against
// the fabric's load balancing: adaptive routing off where switches reorder,
// and NCCL's out-of-order receive queues without adaptive routing, which
// NCCL refuses.
func reorderEnv(p *Pass) {
	for _, t := range p.Fabric.Tenants {
		env := map[string]string{}
		for _, e := range t.Env {
			env[e.Name] = e.Value
		}
		ar, setAR := env[ir.NCCLAdaptiveRouting]
		if t.ReorderedBy != "" && setAR && ar != "1" {
			p.Reportf(envPos(p, t, ir.NCCLAdaptiveRouting),
				"tenant %s: %s=%s, but %s: NCCL must run in adaptive-routing mode (1), or every reordered packet costs a retransmission",
				t.Name, ir.NCCLAdaptiveRouting, ar, balancedBy(p.Fabric, t.ReorderedBy))
		}
		if ooo := env[ir.NCCLOutOfOrderRQ]; ooo != "" && ooo != "0" && ar != "1" {
			p.Reportf(envPos(p, t, ir.NCCLOutOfOrderRQ),
				"tenant %s: %s=%s without %s=1: NCCL fails every connection (\"OOO RQ is force enabled but AR is not enabled\")",
				t.Name, ir.NCCLOutOfOrderRQ, ooo, ir.NCCLAdaptiveRouting)
		}
	}
}

// envPos is the intent field that set a tenant's NCCL variable: the
// tenant's own environment, else the fabric-wide one, else the tenant.
func envPos(p *Pass, t *ir.Tenant, name string) diag.Pos {
	if hasEnv(t.StatedEnv, name) {
		return p.At("tenants", t.Name, "nccl", "env", name)
	}
	if prof := p.Fabric.HostProfile; prof != nil && hasEnv(prof.NCCLEnv, name) {
		return p.At("hosts", "nccl", "env", name)
	}
	return p.At("tenants", t.Name)
}

func hasEnv(env []ir.EnvVar, name string) bool {
	return slices.ContainsFunc(env, func(e ir.EnvVar) bool { return e.Name == name })
}
