package ir

// NCCLAdaptiveRouting is the NCCL variable that tells the IB/RoCE
// transport that the fabric routes adaptively. NCCL_PARAM(IbAdaptiveRouting,
// "IB_ADAPTIVE_ROUTING", -2) in NVIDIA/nccl src/transport/net_ib/init.cc
// (at 5067397): -2 means 1 on an InfiniBand link layer and 0 on RoCE, so a
// RoCE fabric that balances per packet must set it. With it on, NCCL writes
// the bulk of each message (above NCCL_IB_AR_THRESHOLD, 8192 B) as a plain
// RDMA write and signals completion with a separate write-with-immediate
// (p2p.cc), so reordered data packets never complete a receive early.
const NCCLAdaptiveRouting = "NCCL_IB_ADAPTIVE_ROUTING"

// NCCLOutOfOrderRQ is NCCL's out-of-order receive queue switch,
// NCCL_PARAM(IbOooRq, "IB_OOO_RQ", 0) in init.cc (NCCL 2.30 and later):
// 1 forces mlx5 out-of-order data placement QPs
// (MLX5DV_QP_CREATE_OOO_DP) and fails the connection when adaptive
// routing is off ("OOO RQ is force enabled but AR is not enabled",
// connect.cc), when either side's NIC lacks mlx5dv out-of-order receive
// WRs, or when their number is below NCCL's receive queue depth. That is a
// run-time capability of NIC firmware and rdma-core, not in the catalog,
// so rocefab leaves it at its default and lint checks a value the intent
// sets (RF109).
const NCCLOutOfOrderRQ = "NCCL_IB_OOO_RQ"
