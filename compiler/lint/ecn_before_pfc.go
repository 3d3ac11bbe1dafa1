package lint

import (
	"fmt"
	"strconv"

	"github.com/rocefab/rocefab/compiler/diag"
	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/compiler/physics"
)

// ECNBeforePFC is RF102.
var ECNBeforePFC = &Analyzer{
	ID: "RF102", Name: "ecn-before-pfc", Severity: diag.Error,
	Title: "ECN min or max at or above the PFC xoff point of the lossless queue under congestion",
	Doc: `For DCQCN to work, a congested lossless queue must be marked with ECN before its ingress priority
group fills to the point where the switch sends PFC XOFF. Otherwise PFC pauses the upstream port first:
congestion spreads hop by hop and the senders never learn to slow down. Under dynamic thresholds the
xoff point falls as more priority groups fill at once: with N groups congested it is α·pool/(1 + N·α),
and all-to-all collectives congest every downlink together, so N defaults to every lossless port of the
switch times its lossless priorities (state fewer with buffers: congestion: queues: N when the traffic
cannot congest them all). ECN min at or above that point is an error: PFC pauses before a single packet
is marked. ECN max at or above it is an error when the marking probability the queue reaches where PFC
fires is below the probability DCQCN needs to hold the queue, the fixed point of its fluid model for 16
flows on the switch's fastest port with the servers' DCQCN parameters (` + "`rocefab explain DEVICE ecn`" + `):
PFC then pauses before ECN can act. Otherwise it is a warning that gives that probability.
` + "`rocefab explain DEVICE xoff-point`" + ` shows N, α, the pool and the formula; lower the ECN thresholds,
reserve more buffer or state a smaller N.`,
	Run: func(p *Pass) {
		ps, users := plans(p.Fabric)
		// Plans of one model and one congested-queue count differ only in
		// their port mix, not in the xoff point: report each once, with all
		// its switches.
		type key struct {
			model string
			xoff  int64
			cell  int
			n     int
			need  float64
		}
		var keys []key
		byKey := map[key][]*ir.Device{}
		for _, b := range ps {
			k := key{b.Model, b.XoffPoint, b.CellBytes, max(1, b.CongestedQueues), b.MarkingNeeded}
			if byKey[k] == nil {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], users[b]...)
		}
		for _, c := range p.Fabric.LosslessClasses() {
			if c.ECN == nil {
				continue
			}
			for _, k := range keys {
				if inCells(c) && k.cell == 0 {
					continue // the model's cell size is unknown
				}
				lo, hi := ecnBytes(c, k.cell)
				ds := byKey[k]
				ir.SortDevices(ds)
				switch {
				case lo >= k.xoff:
					p.ReportDevice(p.At("classes", c.Name, "ecn", "min"), ds[0].Name, "",
						"class %s: ECN min %s is at or above the PFC xoff point %s of %s (%s) with N = %d lossless priority groups congested at once (α·pool/(1+N·α)): PFC pauses before ECN marks a packet",
						c.Name, bytesStr(lo), bytesStr(k.xoff), k.model, deviceCount(ds), k.n)
				case hi >= k.xoff && physics.MarkProbability(lo, hi, c.ECN.Probability, k.xoff) < k.need*100:
					prob := physics.MarkProbability(lo, hi, c.ECN.Probability, k.xoff)
					p.ReportDevice(p.At("classes", c.Name, "ecn", "max"), ds[0].Name, "",
						"class %s: ECN max %s is at or above the PFC xoff point %s of %s (%s) with N = %d lossless priority groups congested at once, and marks only %s of packets there: DCQCN needs %s to hold the queue (the fluid model's fixed point, `rocefab explain DEVICE ecn-marking-needed`), so PFC pauses before ECN acts",
						c.Name, bytesStr(hi), bytesStr(k.xoff), k.model, deviceCount(ds), k.n, percentStr(prob), percentStr2(k.need*100))
				case hi >= k.xoff:
					prob := physics.MarkProbability(lo, hi, c.ECN.Probability, k.xoff)
					p.Report(diag.Diagnostic{
						Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Severity: diag.Warning,
						Pos: p.At("classes", c.Name, "ecn", "max"), Device: ds[0].Name,
						Message: fmt.Sprintf("class %s: ECN max %s is at or above the PFC xoff point %s of %s (%s) with N = %d lossless priority groups congested at once (α·pool/(1+N·α)): ECN marks at most %s of packets when PFC pauses",
							c.Name, bytesStr(hi), bytesStr(k.xoff), k.model, deviceCount(ds), k.n, percentStr(prob)),
					})
				}
			}
		}
		statedHides(p, ps, users)
	},
}

// statedHides warns where buffers.congestion.queues states fewer congested
// priority groups than a switch has and only that keeps a class's ECN
// profile from the error RF102 would report with every lossless port
// congested, as all-to-all traffic does: PFC would pause first.
func statedHides(p *Pass, ps []*ir.BufferPlan, users map[*ir.BufferPlan][]*ir.Device) {
	for _, b := range ps {
		ds := users[b]
		qos := ds[0].Switch.QoS
		if qos == nil || len(qos.PFC) == 0 {
			continue
		}
		own := physics.CongestedQueues(len(ds[0].Switch.Ports), len(qos.PFC), 0)
		if int64(b.CongestedQueues) >= own.Value {
			continue
		}
		full := physics.CongestedXoffPoint(b.PoolBytes, b.AlphaLog2, int(own.Value)).Value
		for _, c := range p.Fabric.LosslessClasses() {
			if c.ECN == nil || (inCells(c) && b.CellBytes == 0) {
				continue
			}
			lo, hi := ecnBytes(c, b.CellBytes)
			if hi >= b.XoffPoint {
				continue // reported at the stated N already
			}
			// Hidden is what would be an error at the full count: ECN min
			// at the point, or too little marking there.
			if lo < full && (hi < full || physics.MarkProbability(lo, hi, c.ECN.Probability, full) >= b.MarkingNeeded*100) {
				continue
			}
			ir.SortDevices(ds)
			what, v := "max", hi
			if lo >= full {
				what, v = "min", lo
			}
			p.Report(diag.Diagnostic{
				Rule: p.Analyzer.ID, Name: p.Analyzer.Name, Severity: diag.Warning,
				Pos: p.Pos("buffers.congestion.queues"), Device: ds[0].Name,
				Message: fmt.Sprintf("buffers.congestion.queues: %d of the %d lossless priority groups of %s (%s) keeps class %s's ECN %s %s below the PFC xoff point; with all %d congested, as all-to-all traffic does, the point is %s and PFC pauses first",
					b.CongestedQueues, own.Value, b.Model, deviceCount(ds), c.Name, what, bytesStr(v), own.Value, bytesStr(full)),
			})
		}
	}
}

// percentStr2 formats a probability in percent with two decimals.
func percentStr2(p float64) string {
	return strconv.FormatFloat(p, 'f', 2, 64) + " %"
}

// percentStr formats a probability in percent with one decimal, "7.3 %".
func percentStr(p float64) string {
	return strconv.FormatFloat(p, 'f', 1, 64) + " %"
}
