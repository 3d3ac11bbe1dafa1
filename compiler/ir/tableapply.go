package ir

// TableApply is how a change to one table of a device's configuration
// database reaches the running device, from the platform catalog
// (compiler/platforms sonic_apply.json): the disruption class of applying
// it and the method that applies it ("apply-patch", "config-reload",
// "breakout").
type TableApply struct {
	Disruption string
	Method     string
}
