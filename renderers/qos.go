package renderers

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rocefab/rocefab/compiler/ir"
)

// CheckQoSRanges refuses a switch QoS policy that names a traffic class,
// queue or lossless priority outside 0..7: a DSCP mapped to such a class,
// a class mapped to such a queue, such a queue, or such a lossless
// priority. Every switch platform has eight of each, and lint rejects an
// intent that would give more, so a renderer that meets one refuses the
// model rather than write a line the switch would reject.
func CheckQoSRanges(q *ir.QoS) error {
	for dscp, tc := range q.DSCPToTC {
		if !inEight(tc) {
			return fmt.Errorf("DSCP %d maps to traffic class %d, outside 0..7", dscp, tc)
		}
	}
	for tc, queue := range q.TCToQueue {
		if !inEight(queue) {
			return fmt.Errorf("traffic class %d maps to queue %d, outside 0..7", tc, queue)
		}
	}
	for _, qu := range q.Queues {
		if !inEight(qu.ID) {
			return fmt.Errorf("queue %d outside 0..7", qu.ID)
		}
	}
	for _, p := range q.PFC {
		if !inEight(p) {
			return fmt.Errorf("lossless priority %d outside 0..7", p)
		}
	}
	return nil
}

// inEight reports whether n is one of eight classes, queues or priorities.
func inEight(n int) bool { return n >= 0 && n <= 7 }

// HeadroomClasses returns a switch's port classes, each once: the ones the
// model lists, then any of ports points at that the list lacks, in that
// order.
func HeadroomClasses(listed []*ir.Headroom, ports []ir.Port) []*ir.Headroom {
	var hs []*ir.Headroom
	add := func(h *ir.Headroom) {
		if h != nil && !slices.Contains(hs, h) {
			hs = append(hs, h)
		}
	}
	for _, h := range listed {
		add(h)
	}
	for i := range ports {
		add(ports[i].Headroom)
	}
	return hs
}

// ComparePortClasses orders port classes by speed, cable length and name,
// as the model orders them and the CLI platforms print them.
func ComparePortClasses(a, b *ir.Headroom) int {
	return cmp.Or(cmp.Compare(a.SpeedGbps, b.SpeedGbps), cmp.Compare(a.CableM, b.CableM), cmp.Compare(a.Name, b.Name))
}
