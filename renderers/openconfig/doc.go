// Package openconfig renders a switch's ports and QoS policy as an
// OpenConfig tree: <device>/openconfig.json, RFC 7951 JSON for a gNMI Set
// on any switch that speaks OpenConfig, beside the platform's native
// artifact (which carries what OpenConfig cannot: PFC, headroom, pools).
//
// # How it is pushed
//
// The artifact is not a whole device tree and must never be sent as a
// replace of the root or of /interfaces: a replace deletes what the value
// omits, and this one omits IP subinterfaces, loopbacks and the management
// port (gNMI specification 3.4.4). [Owned] says what rocefab owns and how
// each part is sent: /qos as one replace, and for each port only its MTU,
// description, port speed and 802.3x flow control, as updates. The
// interface's name and type are in the tree only because OpenConfig needs
// them to name the interface. [OwnedPaths] expands that per switch for
// plan and apply.
//
// What the artifact holds:
//
//   - /interfaces/interface for every port: type ethernetCsmacd, MTU (at
//     most the platform's limit: 9214 on EOS, 9216 on NX-OS and Cumulus
//     Linux), a description naming the peer, port speed, and 802.3x PAUSE
//     off (link-level pause and PFC exclude each other). The admin state is
//     not rocefab's and is not written.
//   - /qos/queues and /qos/forwarding-groups: one queue per class, named
//     after the class, with queue-id set to the class's priority (which is
//     also its traffic class and egress queue on every hop), and one
//     forwarding group per class pointing at it.
//   - /qos/classifiers: "dscp-ipv4" and "dscp-ipv6", one term per class
//     matching its DSCP set and, last, the default class's term matching
//     every DSCP no other class takes. Term ids are numbered in evaluation
//     order ("1-cnp", "2-roce", ...); the sets are disjoint, so the order
//     never changes where a packet goes, and no term has an empty set
//     (which OpenConfig reads as "any DSCP").
//   - /qos/scheduler-policies "fabric": sequence 0 is a STRICT scheduler
//     holding the strict classes (input weight = priority, higher first, as
//     the model defines weights of a priority scheduler); sequence 1 holds
//     the other classes as weighted round-robin inputs with their ETS shares.
//     This is the idiom of the openconfig/featureprofiles QoS tests, since
//     OpenConfig has no WRR identity.
//   - /qos/queue-management-profiles "ecn-<class>": WRED uniform with
//     enable-ecn true, drop false, min/max thresholds in bytes and the
//     marking probability, for every queue that marks ECN.
//   - /qos/interfaces for every port: the IPv4 and IPv6 classifiers on
//     input, the scheduler policy and every class queue (with its ECN
//     profile) on output.
//
// No buffer-allocation-profile is rendered: its dedicated-buffer is a
// queue's guaranteed minimum share of the buffer (openconfig-qos-mem-mgmt),
// not PFC headroom, and the model has no such minimum to give.
//
// OpenConfig has no model for PFC, its watchdog, priority groups, headroom,
// xoff/xon thresholds, buffer pools or adaptive routing (see the shared OpenConfig
// reference, section 1.2): those stay in the platform's native artifact,
// and [Gaps] lists them for the device so that lint (RF117) and the build
// summary can say so; JSON has no comments to carry them.
//
// The tree is built only through the ygot-generated types of package oc,
// in one file of this package (ocdevice.go); the rest of the package turns
// the model into a small neutral description that file maps onto them, so
// a regeneration that renames generated identifiers touches one file.
// Every value reaches the tree through checks that refuse what the schema
// would (types, ranges, names), so an invalid tree is an error, never a
// file; the tests hold those checks to ygot.ValidateGoStruct (types,
// ranges, leafrefs) and every example's artifact to yanglint, so that a
// build need not load the schema (see emit).
package openconfig
