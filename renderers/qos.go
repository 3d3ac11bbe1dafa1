package renderers

import (
	"fmt"

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
