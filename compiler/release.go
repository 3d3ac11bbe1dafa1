package compiler

import "github.com/rocefab/rocefab/compiler/ir"

// checkRelease refuses a release on a tier whose platform does not read
// one: the schema knows the Cumulus Linux releases, and only the nvue
// renderer writes a release's spelling, so a release elsewhere would be
// silently ignored.
func (c *compilation) checkRelease(path, platform, release string) bool {
	if release == "" || platform == ir.PlatformNVUE {
		return true
	}
	c.errorf(c.pos(path+".release"), "%s.release: %q names a Cumulus Linux release, which only an nvue tier runs; this tier's platform is %s: remove release",
		path, release, platform)
	return false
}
