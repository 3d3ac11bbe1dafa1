// Package sonic renders a switch of the compiled fabric into the QoS and
// buffer tables of SONiC's CONFIG_DB, as one config_db.json per device.
//
// The artifact is a partial CONFIG_DB: the tables that make the fabric's
// lossless class lossless on this hop (DSCP and TC maps, PFC, buffer pools,
// profiles and priority groups, ECN, schedulers, the PFC watchdog, port MTU
// and speed, cable lengths), meant to be merged into the switch's running
// configuration (`config apply-patch` computed from it, or `config load`),
// not to replace it. PORT lanes, alias and index are the SKU's own: the
// compiler lays a SONiC tier's ports out from the SKU's port map
// (platform.json and hwsku.json as sonic-buildimage ships them, embedded in
// compiler/platforms with their source commit), a cage split at the
// tier's speed through one of the SKU's breakout modes, with the child
// ports and lanes SONiC's own breakout rule gives. Lanes are create-only on
// a switch, so a split is not a merge: breakout_cfg.json lists the
// BREAKOUT_CFG mode of every parent port, applied with `config interface
// breakout` before config_db.json. A model without a port map gets no
// lanes (lint RF117 says so); the file then validates together with the
// switch's own PORT table, the way shared/tools/validate/sonic-validate.py
// merges files.
//
// # Buffer model
//
// The tables are written for SONiC's traditional buffer model
// (DEVICE_METADATA|localhost buffer_model absent or "traditional"): pools
// with explicit sizes from the model's buffer plan, and one static headroom
// profile (xon, xoff, size from the model) per port class. The headroom
// profiles carry the name buffermgrd itself would give them,
// pg_lossless_<speed Mb/s>_<cable>_profile, and the lossless priority-group
// keys are the ranges buffermgrd derives from pfc_enable, because in the
// traditional model buffermgrd rewrites BUFFER_PG|<port>|<lossless PGs>
// whenever a port's speed, cable length or pfc_enable changes; it reuses a
// profile of that name when one exists (sonic-swss
// cfgmgr/buffermgr.cpp doSpeedUpdateTask), so the model's headroom survives
// instead of being replaced by the SKU's pg_profile_lookup.ini values.
//
// The profiles follow the buffer convention of the switch's ASIC family
// (ir.BufferPlan.Convention). On Spectrum a lossless profile's size is its
// headroom, xoff + xon, with separate ingress pools for lossless and lossy
// traffic. On Broadcom XGS size is the priority group's reserved minimum
// and xoff its headroom, drawn from the shared headroom pool the ingress
// pool's xoff sizes, with xon_offset below the XOFF point; lossy and
// lossless priority groups share the one ingress pool, and the egress
// lossless pool has a static limit, as the Tomahawk SKU files in
// sonic-buildimage write them.
//
// # Plan and apply
//
// [Renderer] is also the platform plan and apply use: Desired gives the
// fields the artifacts print, Parse reads a switch's running
// config_db.json within the owned scope (docs/ownership.md, SONiC), Diff
// gives the changes with their disruption and a [Remediation] (breakouts,
// a JSON patch for `config apply-patch`, and the part that needs `config
// reload`, from compiler/platforms sonic_apply.json through
// ir.Device.Tables), and Apply applies one to a config_db.json file,
// keeping every byte outside the changed members.
//
// # What cannot be rendered
//
// JSON has no comments, so what the platform cannot express is returned by
// [Gaps] (lint rule RF117 reports the same from the capability catalog):
// adaptive routing and packet spraying, which community SONiC master does
// not have, and values that SONiC's ranges or units force to change (PFC
// watchdog timers outside 100..5000/60000 ms, fractional cable lengths,
// ETS weights of 0).
//
// Sources: shared/reference/switches.md §3 (tables, defaults, pitfalls);
// the YANG models of sonic-net/sonic-buildimage src/sonic-yang-models at
// 086b03bd (shared/yang/sonic), which fix key shapes, value formats and
// ranges; sonic-config-engine sample outputs for the profile and pool
// conventions.
package sonic
