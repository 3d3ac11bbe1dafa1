package physics

import "math"

// ConvergenceDCQCN returns an upper bound on the time, in seconds, that
// flows sharing one bottleneck under DCQCN take to come within 10 % of
// their fair share C/N of each other, from the discrete AIMD model of
// "ECN or Delay" (Zhu, Ghobadi, Misra, Padhye, CoNEXT 2016, §3.3,
// "Convergence time", and appendix B), which counts time in α periods τ′
// and assumes the rate-increase timer T equals τ′ (the paper's 55 µs) and
// that marking starts at Kmax:
//
//	t    = (√(1 + 8·Kmax/(N·R_AI·τ′)) − 1)/2          periods to fill the queue to Kmax
//	ΔT*  = 2 + (t/2 + C/(2N·R_AI))·α*                  periods of one AIMD cycle
//	α*   = (1−g)^ΔT*·((1−g)·α* + g)                    α at the cycle's peak
//	time = τ′·ΔT*·ln(0.1/N)/ln(1 − α*/2)               rates converge as (1−α*/2)^cycles
//
// with C and R_AI in bit/s and Kmax in bytes. α* is found by bisection
// (the right side less α* falls from g·(1−g)² at 0 to below 0 at 1). It
// returns 0 for inputs that cannot describe a link or a NIC that never
// increases its rate.
func ConvergenceDCQCN(linkGbps, flows int, kmaxBytes int64, nic DCQCNParams) float64 {
	if linkGbps <= 0 || flows <= 0 || !(nic.AIRate > 0) || !(nic.AlphaPeriod > 0) {
		return 0
	}
	n := float64(min(flows, maxFluidFlows))
	c := float64(clampSpeed(linkGbps)) * 1e9
	g := max(1e-9, min(nic.G, 1-1e-9))
	t := (math.Sqrt(1+8*8*float64(nonNeg(kmaxBytes))/(n*nic.AIRate*nic.AlphaPeriod)) - 1) / 2
	k := t/2 + c/(2*n*nic.AIRate)
	cycle := func(a float64) float64 { return 2 + k*a }
	lo, hi := 0.0, 1.0
	for range 100 {
		a := (lo + hi) / 2
		if math.Pow(1-g, cycle(a))*((1-g)*a+g) > a {
			lo = a
		} else {
			hi = a
		}
	}
	a := (lo + hi) / 2
	return nic.AlphaPeriod * cycle(a) * math.Log(0.1/n) / math.Log1p(-a/2)
}
