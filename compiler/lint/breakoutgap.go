package lint

import (
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/platforms"
)

// splitCages reports whether switch d splits a cage into several ports:
// a link runs at a speed at which the model has more ports than cages
// (its port count at its fastest speed). The openconfig renderer gives
// such ports their port-speed but writes no breakout of the cage
// (/components/component/port/breakout-mode, openconfig-platform-port),
// which RF117 reports with OpenConfig's other gaps.
func splitCages(d *ir.Device) bool {
	sw, ok := platforms.LookupSwitch(d.Model)
	if !ok || d.Switch == nil {
		return false
	}
	cages := 0
	for _, sp := range platforms.PortSpeeds() {
		if n := sw.Ports[sp]; n > 0 {
			cages = n
		}
	}
	return cages > 0 && slices.ContainsFunc(d.Switch.Ports, func(pt ir.Port) bool { return sw.Ports[speedStr(pt.SpeedGbps)] > cages })
}
