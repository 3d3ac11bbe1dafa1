// Package nvue renders NVIDIA Cumulus Linux 5.x switches (Spectrum ASICs,
// platform "nvue") into one artifact per switch, <device>/nvue.yaml: an NVUE
// document for `nv config patch`, reviewed with `nv config diff` and
// committed with `nv config apply --confirm`.
//
// # What is rendered
//
// The document enables NVIDIA's RoCE profile (`qos roce`, lossless when the
// fabric has a lossless class) and overrides every part of it the fabric's
// policy decides, because the profile's defaults differ from a typical
// intent (DSCP>>3 classification puts DSCP 46 on priority 5, PFC sits on
// priority 3, ETS is 50/50):
//
//   - qos mapping default-global: trust l3 and all 64 DSCPs to their switch
//     priority (a patch only adds, so every entry is explicit);
//   - qos egress-queue-mapping: switch priority to traffic class;
//   - qos egress-scheduler: dwrr bw-percent per class, strict for CNP;
//   - qos congestion-control: ECN min/max thresholds in bytes and the
//     marking probability per queue, ECN off where the class does not mark;
//   - qos pfc: one profile per port class (the model's Headroom), carrying
//     the lossless switch priorities, cable length, port buffer and the
//     XOFF/XON thresholds; each interface binds to its class's profile;
//   - qos pfc-watchdog: polling interval and robustness derived from the
//     detect and restore times (see watchdogTimers), enabled per interface;
//   - qos traffic-pool: roce-lossless holds the reserve, default-lossy the
//     rest, summing to 100 %;
//   - interfaces: description, MTU, speed, and `link breakout <n>x` on the
//     parent of every split port used (swp1s0 exists only once swp1 is
//     broken out);
//   - router adaptive-routing, globally and on switch-facing 200/400G ports,
//     when the fabric load-balances adaptively (or sprays, which Cumulus
//     Linux cannot do: adaptive routing is rendered instead).
//
// What NVUE cannot express is rendered as closely as it can and said in a
// comment beginning "platform gap:" at the element and in the header.
//
// # Sources
//
// Key names and value forms follow the Cumulus Linux 5.14 user guide
// (Quality of Service, RoCE, ECMP pages), the NVUE command reference (QoS,
// Interface, Adaptive Routing) and an NVUE API dump of Cumulus Linux 5.5
// (collections such as switch-priority are mappings of empty objects). The
// PFC threshold semantics come from the guide's qos_features.conf table:
// xoff-threshold is the port buffer consumed before XOFF (xoff_size) and
// xon-threshold the drop below that point before XON (xon_delta). Cumulus
// Linux 5.15 renames several on/off leaves (router adaptive-routing enable
// becomes state: enabled); the document targets 5.14 and earlier.
package nvue
