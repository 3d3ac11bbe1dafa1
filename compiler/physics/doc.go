// Package physics owns every formula rocefab derives a number from: PFC
// headroom (xoff, xon, size) on switches and NICs, the ingress XOFF point
// under dynamic thresholds that ECN must stay below, buffer pools and the
// buffer budget, cell quantisation, and the RoCE/NCCL header and ToS
// arithmetic.
//
// Each formula lives here once, with its source and units in a comment.
// Functions are pure: they take plain numbers and return a [Derivation] that
// records the value together with the formula, the inputs that fed it and a
// short citation, so that `rocefab explain` can print how every derived value
// came about and lint rules can quote it in their messages.
//
// # Units
//
// Sizes are bytes (int64), port speeds Gbit/s (int: 100, 200, 400, 800,
// 1600), cable lengths metres (float64), MTUs bytes, durations
// [time.Duration]. A Derivation's Value is an int64 in its Unit ("B" for
// sizes, "" for plain numbers).
//
// # Out-of-range input
//
// No function panics. Inputs that cannot describe a real port (a speed of
// zero or less, a DSCP outside 0..63, a RoCE MTU that is not a power of two
// between 256 and 4096) yield the zero [Derivation] (Formula == ""), which
// callers treat as "not derivable". Inputs that are merely absurd are clamped
// to a documented range before use: negative lengths, MTUs and sizes count as
// zero, cable lengths are capped at [MaxCableM], speeds at [MaxSpeedGbps],
// MTUs at [MaxMTU], cells at [MaxCellBytes], percentages to 0..100, and
// products saturate at the largest int64 instead of wrapping.
//
// # Sources
//
// The reference notes the project was written against are cited as
// "physics.md §n" (headroom, ECN vs PFC) and "hosts.md §n" (NIC and NCCL);
// primary sources are named next to each formula:
//
//   - sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua (switch headroom)
//   - sonic-net/sonic-buildimage platform/mellanox/asic_table.j2 (Spectrum cell
//     size, pipeline latency, MAC/PHY delay)
//   - Linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c (NIC xoff)
//   - Linux include/rdma/ib_addr.h iboe_get_mtu (RoCE MTU from netdev MTU)
//   - IEEE 802.1Qbb / 802.3 Annex 31B (pause quanta), Cisco white paper
//     c11-542809 (first-principles headroom components)
package physics
