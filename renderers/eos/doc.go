// Package eos renders an Arista EOS switch (leaf, spine or superspine) of
// the compiled model into eos.cfg: a native configuration fragment meant to
// be loaded into a configuration session (`configure session NAME`, the
// lines, `show session-config diffs`, `commit timer`), never pasted into the
// running configuration line by line, so that a rejected line aborts the
// whole change.
//
// # What it writes
//
// Global statements first, then one QoS profile, then every port:
//
//   - `qos map dscp … to traffic-class N` covering all 64 DSCPs (the default
//     class takes every DSCP no other class lists) and `qos map traffic-class
//     N to tx-queue Q`, so that one number per class holds end to end;
//   - `qos random-detect ecn allow non-ect` when a queue marks;
//   - the PFC watchdog timers (`priority-flow-control pause watchdog default
//     …`, seconds);
//   - buffer statements only where the MMU takes them (Trident/Tomahawk:
//     `platform trident mmu headroom-pool limit` and one queue profile);
//   - the ECMP mode: hash for "ecmp", dynamic load balancing (DLB) for
//     "adaptive" and, as the closest documented mode, for "spray";
//   - `qos profile ROCEFAB`: DSCP trust, `priority-flow-control on` with
//     `no-drop` on exactly the lossless priorities and `drop` on the rest,
//     the watchdog and its action, and per queue `priority strict` or `no
//     priority` + `bandwidth percent`, plus the ECN profile in bytes;
//   - per port: `description to PEER:PEERPORT`, `mtu` (clamped to the EOS
//     maximum of 9214) and `service-profile ROCEFAB`.
//
// Peers' names appear in descriptions only. Lossless traffic is configured
// on every port of every EOS switch, whatever it faces.
//
// # Gaps
//
// Where EOS cannot express an element of the model, the artifact carries a
// comment starting with "! gap:" that names the element, says why and says
// what was rendered instead (lint rule RF117 reports the same gaps). EOS
// discards "!" comment lines when it parses a session, so they cost nothing
// on the device. Each section also carries a "! change:" comment with the
// disruption a change of it causes, as far as the vendor material says.
//
// # Sources
//
// Syntax follows Arista's own configuration generator and the field
// material it was checked against (reference/switches.md §1):
// aristanetworks/avd eos_cli_config_gen templates qos.j2, qos-profiles.j2,
// ethernet-interface-tx-queues.j2, ethernet-interface-uc-tx-queues.j2,
// priority-flow-control.j2, platform-trident.j2, platform-apply.j2 and
// ip-hardware.j2, with their schemas (qos_profiles.schema.yml: ECN units,
// probability 1..100, watchdog timer decimals and port actions;
// ethernet_interfaces: thresholds 1..256000000); avd issue #4920 (DLB CLI
// help, Arista TOI "Support for Dynamic Load Balancing on ECMP groups",
// EOS 4.24.2F) and #4921 (headroom-pool limit ranges). The queue sub-mode
// (uc-tx-queue on Trident/Tomahawk, tx-queue on Jericho and where the family
// is unknown) follows published field configurations, e.g. the AMD Instinct
// cluster networking guide's 7388 example.
package eos
