package compiler

import (
	"slices"
	"strings"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// checkRelease refuses a release a tier's platform does not run: an nvue
// tier names a Cumulus Linux release (5.x, whose spelling the renderer
// writes), a sonic tier a SONiC release branch the catalog holds GCU
// rules of (which decide how a plan applies each change); elsewhere a
// release would be silently ignored.
func (c *compilation) checkRelease(path, platform, release string) bool {
	if release == "" {
		return true
	}
	var sonic []string
	for _, r := range platforms.SONiCReleases() {
		sonic = append(sonic, r.Release)
	}
	switch {
	case platform == ir.PlatformNVUE && !slices.Contains(sonic, release):
		return true
	case platform == ir.PlatformSONiC && slices.Contains(sonic, release):
		return true
	case platform == ir.PlatformNVUE:
		c.errorf(c.pos(path+".release"), "%s.release: %q names a SONiC release; this tier's platform is nvue, which runs Cumulus Linux 5.x", path, release)
	case platform == ir.PlatformSONiC:
		c.errorf(c.pos(path+".release"), "%s.release: %q is not a SONiC release rocefab holds the apply rules of; allowed: %s (default %s)",
			path, release, strings.Join(sonic, ", "), platforms.DefaultSONiCRelease())
	default:
		c.errorf(c.pos(path+".release"), "%s.release: %q names a NOS release, which only nvue and sonic tiers read; this tier's platform is %s: remove release",
			path, release, platform)
	}
	return false
}
