package lint

import (
	"fmt"

	"github.com/rocefab/rocefab/compiler/ir"
)

// nxosECNGrid is part of RF117: NX-OS takes ECN thresholds in whole
// kbytes, 1 <= min < max (physics.InWholeKbytes). A class whose thresholds
// are narrower than that grid (max below 2 KiB, or min and max in one
// kbyte) is written with thresholds the intent did not give: max raised,
// or min lowered. The values are the ones the compiler derived for the
// switch (Switch.Derived), which explain prints and the renderer writes.
// One finding per class and values.
func nxosECNGrid(p *Pass) {
	seen := map[string]bool{}
	for _, d := range p.Fabric.Switches() {
		if d.Platform != ir.PlatformNXOS || d.Switch.QoS == nil {
			continue
		}
		for _, q := range d.Switch.QoS.Queues {
			e := q.ECN
			if e == nil || q.Class == nil {
				continue
			}
			lo, okLo := d.Switch.Programmed(ir.ECNField("min", q.Class.Name))
			hi, okHi := d.Switch.Programmed(ir.ECNField("max", q.Class.Name))
			// Rounding down to the kbyte is the grid; moved is above the
			// intent's bytes, or below their whole kbyte.
			moved := hi > e.MaxBytes || lo > e.MinBytes || lo < e.MinBytes/1024*1024
			if !okLo || !okHi || !moved {
				continue
			}
			k := fmt.Sprintf("%s %d %d %d %d", q.Class.Name, e.MinBytes, e.MaxBytes, lo, hi)
			if seen[k] {
				continue
			}
			seen[k] = true
			p.ReportDevice(p.At("classes", q.Class.Name, "ecn"), d.Name, "",
				"nxos: class %s's ECN thresholds %d..%d B are narrower than the kbyte grid NX-OS takes (1 kbyte <= min < max): written as %d..%d kbytes (%d..%d B); give thresholds at least 1 kbyte apart with max at least 2 KiB",
				q.Class.Name, e.MinBytes, e.MaxBytes, lo/1024, hi/1024, lo, hi)
		}
	}
}
