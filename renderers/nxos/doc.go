// Package nxos renders a compiled switch into a Cisco NX-OS configuration
// (Nexus 9000 Cloud Scale and Silicon One) for lossless RoCE v2.
//
// [Renderer] turns one device whose platform is "nxos" into a single
// artifact, "<device>/nxos.cfg": native CLI lines, ready to be merged into the
// device's configuration, with "!" comments that say where the platform
// cannot express an element of the model and what each block costs to
// change.
//
// # How the model maps onto NX-OS
//
// NX-OS ties a class end to end through the qos-group: a type qos policy
// classifies DSCPs into qos-group N, and qos-group N is egress queue N
// (c-out-8q-qN), network-qos class N (c-8q-nqN) and ingress queue N. The
// renderer sets qos-group to the queue of each class's priority, so the
// lossless class's DSCP lands in the queue whose network-qos class carries
// "pause pfc-cos" for that priority: a mismatch there would leave PFC "on"
// without protecting RoCE (switches.md §4.4).
//
//   - DSCP → priority: class-map type qos per priority, policy-map type qos
//     setting qos-group, attached on every port.
//   - Lossless priorities and MTU: policy-map type network-qos over the
//     system-defined 8-queue classes (NX-OS does not let users define
//     network-qos or queuing class maps on these platforms), attached under
//     system qos; "priority-flow-control mode on" on every port.
//   - ETS, strict CNP, ECN: policy-map type queuing, output, under system
//     qos ("bandwidth remaining percent", "priority level 1",
//     "random-detect ... weight 0 ecn" in bytes).
//   - PFC watchdog: the global interval and multipliers, mapped from the
//     model's detect and restore times, and the per-port enable.
//   - Adaptive routing and spraying: "hardware profile dlb", which takes
//     effect only after a reload.
//
// # Gaps
//
// The model's shared-buffer reservation and its per-port-class headroom,
// xoff and xon are not rendered: NX-OS has no pool-percent knob, and its
// pause buffer-size/pause-threshold/resume-threshold are static per-port
// occupancy thresholds that cannot express the model's dynamic XOFF point.
// The artifact lists the values the model computed and why they are absent,
// which lint rule RF117 reports to the user.
package nxos
