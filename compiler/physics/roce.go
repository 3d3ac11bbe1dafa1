package physics

import "strconv"

// RoCEHeaderBytes is the per-packet overhead between a RoCE v2 path MTU and
// the netdev (IP) MTU that must carry it:
//
//	GRH 40 + UDP 8 + BTH 12 + XRC ETH 4 + AtomicETH 28 + ICRC 4 = 96 B
//
// It is exactly what the Linux RDMA core subtracts from the netdev MTU
// before choosing the RoCE path MTU (include/rdma/ib_addr.h iboe_get_mtu,
// constants from include/rdma/ib_pack.h). The choice is deliberately that
// of the kernel rather than the smallest real packet (IPv4 20 + UDP 8 + BTH
// 12 + ICRC 4 = 44 B, plus RETH 16 on the first packet of an RDMA WRITE):
// the kernel reserves the IPv6-sized GRH and the largest extension headers,
// and a host whose netdev MTU is one byte below the figure derived here
// silently runs the next smaller RoCE MTU. A netdev MTU of 4200 carries 4096
// (4200 − 96 = 4104 ≥ 4096).
const RoCEHeaderBytes = 96

const srcRoCEMTU = "linux include/rdma/ib_addr.h iboe_get_mtu, include/rdma/ib_pack.h; physics.md §1.3"

// roceMTUs are the path MTUs RoCE (InfiniBand transport) defines, ascending.
var roceMTUs = [...]int{256, 512, 1024, 2048, 4096}

// ValidRoCEMTU reports whether n is a RoCE path MTU: 256, 512, 1024, 2048
// or 4096.
func ValidRoCEMTU(n int) bool {
	for _, m := range roceMTUs {
		if n == m {
			return true
		}
	}
	return false
}

// MinHostMTU returns the smallest netdev MTU that carries the RoCE path MTU
// roceMTU: roceMTU + RoCEHeaderBytes (4096 → 4192). A roceMTU that is not a
// RoCE path MTU yields the zero Derivation.
func MinHostMTU(roceMTU int) Derivation {
	if !ValidRoCEMTU(roceMTU) {
		return Derivation{}
	}
	return Derivation{
		Field:   "min-host-mtu",
		Value:   int64(roceMTU + RoCEHeaderBytes),
		Unit:    "B",
		Formula: "MTU_host = MTU_roce + GRH + UDP + BTH + XRC_ETH + AtomicETH + ICRC",
		Inputs: []Input{
			intIn("MTU_roce", int64(roceMTU), "B"),
			{"GRH", "40 B"}, {"UDP", "8 B"}, {"BTH", "12 B"},
			{"XRC_ETH", "4 B"}, {"AtomicETH", "28 B"}, {"ICRC", "4 B"},
		},
		Source: srcRoCEMTU,
	}
}

// MaxRoCEMTU returns the largest RoCE path MTU a netdev MTU carries, as the
// Linux RDMA core picks it (iboe_get_mtu), or 0 if it carries none.
func MaxRoCEMTU(hostMTU int) int {
	if hostMTU < RoCEHeaderBytes {
		return 0 // also keeps the subtraction below from wrapping
	}
	for i := len(roceMTUs) - 1; i >= 0; i-- {
		if hostMTU-RoCEHeaderBytes >= roceMTUs[i] {
			return roceMTUs[i]
		}
	}
	return 0
}

// ValidDSCP reports whether d is a DSCP value (0..63).
func ValidDSCP(d int) bool { return d >= 0 && d <= 63 }

const srcTOS = "RFC 2474 (DSCP = upper 6 bits of the TOS/Traffic Class byte); hosts.md §4.2"

// NCCLTrafficClass returns the NCCL_IB_TC that marks NCCL's RoCE traffic
// with dscp: the IPv4 TOS / IPv6 Traffic Class byte with the ECN bits zero,
//
//	NCCL_IB_TC = DSCP << 2      (DSCP 26 → 104)
//
// NCCL writes it to grh.traffic_class; the NIC sets ECT itself, so 104 and
// 106 mark the same DSCP (hosts.md §4.2). A DSCP outside 0..63 yields the
// zero Derivation.
func NCCLTrafficClass(dscp int) Derivation {
	return tosByte(dscp, "nccl-traffic-class", "NCCL_IB_TC", "NVIDIA/nccl src/transport/net_ib")
}

// RoCETOS returns the value for cma_roce_tos (rdma_cm default_roce_tos) that
// marks rdma_cm QPs with dscp. It is the same TOS byte as NCCL_IB_TC,
// DSCP << 2 (DSCP 26 → 104), but applies only to QPs created through rdma_cm
// (NVMe-oF, iSER, some MPI/UCX paths), not to NCCL (hosts.md §1.4). A DSCP
// outside 0..63 yields the zero Derivation.
func RoCETOS(dscp int) Derivation {
	return tosByte(dscp, "roce-tos", "cma_roce_tos", "Documentation/ABI/testing/configfs-rdma_cm; hosts.md §1.4")
}

// tosByte is the TOS byte that marks dscp with ECN bits 00, DSCP << 2, as
// the setting named setting takes it (field in explain), its source beside
// RFC 2474's. NCCL_IB_TC and cma_roce_tos both take this byte, so one
// formula serves both. A DSCP outside 0..63 yields the zero Derivation.
func tosByte(dscp int, field, setting, source string) Derivation {
	if !ValidDSCP(dscp) {
		return Derivation{}
	}
	return Derivation{
		Field:   field,
		Value:   int64(dscp) << 2,
		Formula: setting + " = DSCP << 2   (TOS byte, ECN bits 00)",
		Inputs:  []Input{{"DSCP", strconv.Itoa(dscp)}},
		Source:  srcTOS + "; " + source,
	}
}
