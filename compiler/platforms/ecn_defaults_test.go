package platforms_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/compiler/physics"
	"github.com/rocefab/rocefab/compiler/platforms"
	"github.com/rocefab/rocefab/schema"
)

// TestDefaultECNMarksBeforePFCAtFullPortCount is the promise of the schema's
// default ECN thresholds: on every catalog switch, with every port of one
// speed in use (breakouts included) and all of them congested at once, ECN
// marks below the PFC XOFF point (no RF102 error, no RF102 warning) with the
// default 30 % reserve and one lossless priority. The table it logs is the
// one the documentation quotes (go test -v -run DefaultECN).
func TestDefaultECNMarksBeforePFCAtFullPortCount(t *testing.T) {
	ecn := schema.DefaultECN()
	lo, hi := ecn.Min.Bytes, ecn.Max.Bytes
	var rows []string
	for _, m := range platforms.SwitchModels() {
		sw, _ := platforms.LookupSwitch(m)
		speeds := make([]string, 0, len(sw.Ports))
		for s := range sw.Ports {
			speeds = append(speeds, s)
		}
		slices.SortFunc(speeds, func(a, b string) int { return sw.Ports[a] - sw.Ports[b] })
		for _, speed := range speeds {
			n := sw.Ports[speed]
			pool := physics.ReservedPool(sw.BufferBytes, schema.DefaultReservePercent).Value
			x := physics.CongestedXoffPoint(pool, sw.AlphaLog2, n).Value
			// Cells round a threshold up on the ASIC.
			lo, hi := physics.QuantizeToCells(lo, sw.CellBytes), physics.QuantizeToCells(hi, sw.CellBytes)
			ok := lo < x && hi < x
			rows = append(rows, fmt.Sprintf("%-12s %3d×%-5s N=%3d pool %9d B  xoff %9d B  ECN %d/%d B  %v", sw.Model, n, speed, n, pool, x, lo, hi, ok))
			if lo >= x {
				t.Errorf("%s at %d×%s: default ECN min %d B at or above the XOFF point %d B (RF102 error)", sw.Model, n, speed, lo, x)
			} else if hi >= x {
				t.Errorf("%s at %d×%s: default ECN max %d B at or above the XOFF point %d B (RF102 warning)", sw.Model, n, speed, hi, x)
			}
		}
	}
	t.Log("\n" + strings.Join(rows, "\n"))
}

// TestNVUEDefaultECNWouldPauseFirst shows why the default changed: NVUE's
// `nv set qos roce` thresholds (150 KB/1.5 MB) reach the XOFF point of
// every catalog switch at its native port count once every port congests.
func TestNVUEDefaultECNWouldPauseFirst(t *testing.T) {
	for _, m := range platforms.SwitchModels() {
		sw, _ := platforms.LookupSwitch(m)
		most := 0
		for _, n := range sw.Ports {
			most = max(most, n)
		}
		pool := physics.ReservedPool(sw.BufferBytes, schema.DefaultReservePercent).Value
		if x := physics.CongestedXoffPoint(pool, sw.AlphaLog2, most).Value; x > 1_500_000 {
			t.Errorf("%s at %d ports: XOFF point %d B above 1.5 MB", sw.Model, most, x)
		}
	}
}
