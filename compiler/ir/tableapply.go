package ir

// SONiCApply says how a SONiC switch, of its HWSKU running its release,
// takes each change of its CONFIG_DB (compiler/platforms sonic_apply.json
// and the release's GCU field validators).
type SONiCApply interface {
	// Method is how the RFC 6902 operation op ("add", "replace",
	// "remove") at path (table, row key, field) is applied, members being
	// the member names of an object value: "apply-patch",
	// "config-reload" or "breakout".
	Method(op string, path, members []string) string
	// Disruption is the class of a change to table that apply-patch or a
	// breakout applies: "hitless", "port-flap", "traffic-pause" or
	// "reboot".
	Disruption(table string) string
}
