package platforms

import (
	"slices"
	"strings"
)

// The load-balancing modes a switch can run, as far as the receivers are
// concerned: what matters to a RoCE NIC is whether the packets of one flow
// can arrive out of order.
const (
	// BalanceECMP hashes each flow onto one member of an ECMP group: a
	// flow keeps its path and its order.
	BalanceECMP = "ecmp"
	// BalanceFlowlet moves a flow to another member only between bursts
	// (flowlets, or Broadcom's flow sets), after a gap long enough for the
	// packets in flight to drain: order within a flow is kept, and the NICs
	// need nothing (Cisco Nexus Hyperfabric, Dynamic Load Balancing:
	// flowlet load balancing "works with standard Ethernet or RoCEv2 NICs",
	// https://www.cisco.com/c/en/us/td/docs/dcn/hyperfabric/software/dynamic-load-balancing.pdf).
	BalanceFlowlet = "flowlet"
	// BalancePerPacket picks a member for every packet: packets of one flow
	// take several paths and arrive out of order, so the receiving NIC must
	// place them out of order and the RDMA library must expect it (the same
	// Cisco document: adaptive routing "requires server endpoints with
	// NVIDIA NICs that support adaptive routing").
	BalancePerPacket = "per-packet"
)

// Balancing is the load balancing a platform renders for the intent's
// routing.loadBalancing.
type Balancing struct {
	Mode     string // BalanceECMP, BalanceFlowlet or BalancePerPacket
	Rendered string // the statement that selects it, or what stays
	Source   string
	// Speeds are the port speeds (Gbit/s) at which the mode runs; ports at
	// other speeds keep ECMP hashing. Empty means every speed.
	Speeds []int
}

// Runs reports whether the mode runs on a port of that speed.
func (b Balancing) Runs(speedGbps int) bool {
	return len(b.Speeds) == 0 || slices.Contains(b.Speeds, speedGbps)
}

// LoadBalancing returns what platform renders for loadBalancing ("ecmp",
// "adaptive" or "spray") on a switch with that ASIC. It follows the
// renderers: NVUE turns on Spectrum adaptive routing for both adaptive and
// spray, EOS dynamic load balancing (DLB) on Broadcom XGS, NX-OS DLB in
// flowlet mode for adaptive and per-packet mode for spray; SONiC and the
// EOS VOQ (Jericho) platforms keep ECMP hashing.
func LoadBalancing(platform, asic, loadBalancing string) Balancing {
	ecmp := Balancing{Mode: BalanceECMP, Rendered: "ECMP hashing", Source: "the platform's default hash-based ECMP"}
	if loadBalancing != "adaptive" && loadBalancing != "spray" {
		return ecmp
	}
	switch strings.ToLower(platform) {
	case "nvue":
		// NVUE reference, Adaptive Routing: paths are selected dynamically
		// by queue occupancy and port utilization, without resilient
		// hashing; NVIDIA's Spectrum-X material says packets of one flow
		// then travel different paths and may arrive out of order, which
		// the SuperNIC handles. Spectrum-4 runs it on 200G and 400G ports,
		// not 800G (Cumulus Linux user guide, ECMP, Adaptive Routing).
		return Balancing{Mode: BalancePerPacket, Rendered: "router adaptive-routing",
			Source: "NVUE reference, Adaptive Routing (https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/Adaptive-Routing/): path chosen by queue occupancy and port utilization, no resilient hashing; packets of one flow may arrive out of order (NVIDIA Spectrum-X, BlueField-3 SuperNIC); 200G and 400G ports on Spectrum-4",
			Speeds: []int{200, 400}}
	case "eos":
		a := strings.ToLower(asic)
		if strings.Contains(a, "jericho") || strings.Contains(a, "qumran") {
			ecmp.Source = "EOS documents dynamic load balancing for Broadcom XGS platforms only; the VOQ platform keeps hash-based ECMP"
			return ecmp
		}
		// DLB assigns ECMP members per flow set (the CLI's flow-set-size,
		// quoted in aristanetworks/avd#4920), by port load, as Broadcom
		// XGS DLB does in flowlet mode.
		return Balancing{Mode: BalanceFlowlet, Rendered: "ip hardware fib load-balance distribution dynamic",
			Source: "Arista TOI EOS 4.24.2F, Support for Dynamic Load Balancing on ECMP groups; CLI flow-set-size in aristanetworks/avd#4920 (verify: per flow set, re-assigned after inactivity)"}
	case "nxos":
		// CiscoTestAutomation/genielibs conf/dlb/nxos: hardware profile dlb,
		// mode flowlet | per-packet.
		if loadBalancing == "spray" {
			return Balancing{Mode: BalancePerPacket, Rendered: "hardware profile dlb, mode per-packet",
				Source: "NX-OS hardware profile dlb mode per-packet (CiscoTestAutomation/genielibs conf/dlb/nxos)"}
		}
		return Balancing{Mode: BalanceFlowlet, Rendered: "hardware profile dlb, mode flowlet",
			Source: "NX-OS hardware profile dlb mode flowlet (CiscoTestAutomation/genielibs conf/dlb/nxos)"}
	}
	ecmp.Source = "community SONiC has no adaptive routing or spraying (ARS tables are off master)"
	return ecmp
}
