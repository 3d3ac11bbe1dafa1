// Package platforms owns rocefab's capability catalog: what each supported
// switch model and NIC is (ASIC, packet buffer and cell size, port counts,
// dynamic-threshold alpha, whether a NIC places out-of-order packets) and
// what each configuration platform can express (EOS, NVUE, SONiC, NX-OS,
// OpenConfig, Linux hosts), what is rendered instead where it cannot, and
// how disruptive changing each element is.
//
// The catalog is data, not code: catalog.json is embedded in the binary and
// decoded strictly (unknown fields are errors), so adding a model is an edit
// to one file. Every figure carries its source in the entry's Sources map
// under the figure's JSON name; figures that are estimates or unconfirmed
// say so with a "verify: " prefix, and lint messages can quote them.
//
// # Lookups
//
// Model names are matched case-insensitively against the model and its
// aliases ("7060x6-64pe", "DCS-7060X6-64PE"). [SwitchModels] and
// [NICModels] list the canonical names for "allowed: ..." messages.
//
// # Intent elements
//
// Capabilities are keyed by the intent element names listed in [Elements]
// ("dscp-map", "pfc", "pool-percent", ...). Every platform lists every
// element; a "partial" or "no" entry says what the renderer emits instead,
// which the RF117 platform-gap rule reports.
package platforms
