package physics

import (
	"math"
	"math/cmplx"
)

const srcDCQCNStability = "Zhu, Ghobadi, Misra, Padhye, \"ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY\", " +
	"CoNEXT 2016, §3.2 (fixed point, eq. for p*; linear stability by phase margin) and appendix A (linearisation); physics.md §3.4"

// dcqcnFixed is the fixed point of the fluid model in its units: every
// flow at rc = C/N packets/s, the target rate rt, α and the marking
// probability p, the queue q in packets.
type dcqcnFixed struct {
	p, alpha, rt, rc, q float64
}

// fixedPoint returns the fluid model's fixed point ("ECN or Delay" §3.2,
// theorem 1): R_C* = C/N, and p* the unique root of
//
//	a²·α*/((b+d)(c+e)) = τ²·R_AI·R_C*
//	a = 1−(1−p)^(τR*), b = p/((1−p)^(−B)−1), c = (1−p)^(FB)·b,
//	d = p/((1−p)^(−TR*)−1), e = (1−p)^(FTR*)·d, α* = 1−(1−p)^(τ′R*)
//
// found by bisection on log p (the left side grows with p), or, with
// approx, the paper's closed form for small p, p* ≈ ∛(R_AI·N²/(τ′C²)·
// (1/B + N/(TC))²). R_T* follows from dR_T/dt = 0: R_T* = R*·(1 +
// (c+e)·τ·R_AI/a), and q* from the marking ramp. ok is false where no
// fixed point lies on the ramp: no marking (Pmax 0), a step (Kmin =
// Kmax), or a p* above Pmax (the queue sits at Kmax, where marking jumps
// to 1). The closed form, as the paper's figures do, extends the ramp
// past Kmax instead.
func (u fluidUnits) fixedPoint(approx bool) (fp dcqcnFixed, ok bool) {
	if u.c <= 0 || u.n <= 0 || u.pmax <= 0 || u.kmax <= u.kmin || u.rai <= 0 {
		return dcqcnFixed{}, false
	}
	r := u.c / u.n
	terms := func(p float64) (a, b, c, d, e, alpha float64) {
		a = 1 - pow1m(p, u.tau*r)
		b = incr(p, u.bc)
		c = pow1m(p, u.f*u.bc) * b
		d = incr(p, u.timer*r)
		e = pow1m(p, u.f*u.timer*r) * d
		alpha = 1 - pow1m(p, u.tauA*r)
		return
	}
	var p float64
	if approx {
		s := 1/u.bc + u.n/(u.timer*u.c)
		p = math.Cbrt(u.rai * u.n * u.n / (u.tauA * u.c * u.c) * s * s)
	} else {
		rhs := math.Log(u.tau * u.tau * u.rai * r)
		// log(a²α/((b+d)(c+e))) − rhs, +Inf where the increase terms vanish.
		f := func(p float64) float64 {
			a, b, c, d, e, alpha := terms(p)
			den := (b + d) * (c + e)
			if den <= 0 {
				return math.Inf(1)
			}
			return math.Log(a*a*alpha/den) - rhs
		}
		lo, hi := 1e-15, 1.0-1e-12
		if f(lo) >= 0 || f(hi) <= 0 {
			return dcqcnFixed{}, false
		}
		for range 200 {
			m := math.Sqrt(lo * hi)
			if f(m) < 0 {
				lo = m
			} else {
				hi = m
			}
		}
		p = math.Sqrt(lo * hi)
	}
	if !(p > 0) || (!approx && p > u.pmax) {
		return dcqcnFixed{}, false
	}
	a, _, c, _, e, alpha := terms(p)
	if a <= 0 {
		return dcqcnFixed{}, false
	}
	return dcqcnFixed{p: p, alpha: alpha, rc: r, rt: r * (1 + (c+e)*u.tau*u.rai/a),
		q: u.kmin + p/u.pmax*(u.kmax-u.kmin)}, true
}

// dcqcnLinear is the fluid model linearised around its fixed point: the
// state z = (δα, δR_T, δR_C) of one flow obeys
//
//	dz/dt = A·z(t) + B·(δp(t−τ*), δR_C(t−τ*))
//
// and the queue closes the loop, δq = N·δR_C/s, δp = κ·δq with κ =
// Pmax/(Kmax−Kmin) the slope of the marking ramp.
type dcqcnLinear struct {
	a     [3][3]float64
	b     [3][2]float64
	kappa float64 // marking slope per packet
	n     float64
}

// linearisePaper is the linearisation of "ECN or Delay", appendix A:
// every (1−p)^x expanded to first order in p (1−(1−p)^x ≈ p·x,
// p/((1−p)^(−x)−1) ≈ 1/x − p/2 − p/(2x)), A = 1/B + 1/(T·R_C*) held
// constant, dδR_C/dt with the delayed and present terms as the appendix's
// Laplace transform assigns them, and dδα/dt, dδR_T/dt (which the paper
// leaves out for space) expanded the same way from its equations:
//
//	dδα/dt  = g·(R*·δp′ + p*·δR′) − g/τ′·δα
//	dδR_T/dt = −p*R*·(δR_T − δR_C) − ((R_T*−R*)·R* + R_AI·R*·k)·δp′
//	           + (R_AI·(A − k·p*) − (R_T*−R*)·p*)·δR′,   k = 1 + 2F + A/2
//
// (primes: one loop delay ago). The fixed point is the paper's small-p
// closed form. The published phase-margin figures were computed this way.
func (u fluidUnits) linearisePaper() (dcqcnLinear, bool) {
	fp, ok := u.fixedPoint(true)
	if !ok {
		return dcqcnLinear{}, false
	}
	p, al, rt, r := fp.p, fp.alpha, fp.rt, fp.rc
	A := 1/u.bc + 1/(u.timer*r)
	k := 1 + 2*u.f + A/2
	h := 0.5 + A/4
	l := dcqcnLinear{kappa: u.pmax / (u.kmax - u.kmin), n: u.n}
	l.a[0][0] = -u.g / u.tauA
	l.b[0] = [2]float64{u.g * r, u.g * p}
	l.a[1][1], l.a[1][2] = -r*p, r*p
	l.b[1] = [2]float64{-(rt-r)*r - u.rai*r*k, u.rai*(A-k*p) - (rt-r)*p}
	l.a[2][0] = -r * r * p / 2
	l.a[2][1] = A/2*r - h*p*r
	l.a[2][2] = -p*r*al/2 - A/2*r + A/2*rt + h*p*r - h*p*rt
	l.b[2] = [2]float64{-r*r*al/2 - h*r*rt + h*r*r, -p*r*al/2 - A/2*r + h*p*r}
	return l, true
}

// lineariseExact is the Jacobian of the fluid model's equations
// ([fluidUnits.rates]) at the exact fixed point, by central differences
// with a step of 1e-6 of each variable: no expansion in p, which matters
// where p·B or p·T·R* is not small (ConnectX's 300 µs timer at 400G).
func (u fluidUnits) lineariseExact() (dcqcnLinear, bool) {
	fp, ok := u.fixedPoint(false)
	if !ok {
		return dcqcnLinear{}, false
	}
	x := [5]float64{fp.alpha, fp.rt, fp.rc, fp.p, fp.rc} // α, R_T, R_C, p′, R′
	l := dcqcnLinear{kappa: u.pmax / (u.kmax - u.kmin), n: u.n}
	for j := range x {
		h := 1e-6 * max(math.Abs(x[j]), 1e-12)
		up, dn := x, x
		up[j] += h
		dn[j] -= h
		a1, t1, c1 := u.rates(up[0], up[1], up[2], up[3], up[4])
		a2, t2, c2 := u.rates(dn[0], dn[1], dn[2], dn[3], dn[4])
		col := [3]float64{(a1 - a2) / (2 * h), (t1 - t2) / (2 * h), (c1 - c2) / (2 * h)}
		for i := range col {
			if j < 3 {
				l.a[i][j] = col[i]
			} else {
				l.b[i][j-3] = col[i]
			}
		}
	}
	return l, true
}

// loop returns the open-loop gain L(jω) = −H(jω)·e^(−jωτ*), H the response
// of δR_C to its own value one loop delay ago through the queue, the
// marking and the sender's equations; the characteristic equation is
// 1 + L(s) = 0.
func (l dcqcnLinear) loop(w, delay float64) complex128 {
	s := complex(0, w)
	var m [3][4]complex128
	for i := range 3 {
		for j := range 3 {
			m[i][j] = complex(-l.a[i][j], 0)
		}
		m[i][i] += s
		m[i][3] = complex(l.b[i][0]*l.kappa*l.n, 0)/s + complex(l.b[i][1], 0)
	}
	for c := range 3 { // Gauss-Jordan with partial pivoting
		piv := c
		for r := c + 1; r < 3; r++ {
			if cmplx.Abs(m[r][c]) > cmplx.Abs(m[piv][c]) {
				piv = r
			}
		}
		m[c], m[piv] = m[piv], m[c]
		if m[c][c] == 0 {
			return cmplx.Inf()
		}
		for r := range 3 {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for k := c; k < 4; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	return -m[2][3] / m[2][2] * cmplx.Exp(complex(0, -w*delay))
}

// Phase-margin search: ω from 1 to 1e10 rad/s, 200 points a decade.
const (
	pmDecades   = 10
	pmPerDecade = 200
)

// phaseMargin returns the phase margin of the loop in degrees, in
// (−180, 180]: 180° + ∠L(jω_c) at each gain crossover |L(jω_c)| = 1, the
// one closest to zero where there are several (the least stable), as
// the paper's figures report it. With no crossover the loop gain never
// reaches 1 and the margin is 180 (stable at any phase); ok is false when
// L cannot be evaluated.
func (l dcqcnLinear) phaseMargin(delay float64) (pm, crossover float64, ok bool) {
	mag := func(w float64) float64 { return cmplx.Abs(l.loop(w, delay)) - 1 }
	pm, found := 180.0, false
	w0 := 1.0
	v0 := mag(w0)
	for i := 1; i <= pmDecades*pmPerDecade; i++ {
		w1 := math.Pow(10, float64(i)/pmPerDecade)
		v1 := mag(w1)
		if math.IsNaN(v0) || math.IsNaN(v1) {
			return 0, 0, false
		}
		if (v0 > 0) != (v1 > 0) {
			lo, hi := w0, w1
			for range 80 {
				mid := math.Sqrt(lo * hi)
				if (mag(mid) > 0) == (v0 > 0) {
					lo = mid
				} else {
					hi = mid
				}
			}
			wc := math.Sqrt(lo * hi)
			m := math.Mod(cmplx.Phase(l.loop(wc, delay))*180/math.Pi+540, 360)
			if m > 180 {
				m -= 360
			}
			if !found || math.Abs(m) < math.Abs(pm) {
				pm, crossover, found = m, wc, true
			}
		}
		w0, v0 = w1, v1
	}
	return pm, crossover, true
}

// DCQCNStability is the linear stability of the fluid model's fixed point.
type DCQCNStability struct {
	// Applies is false where the analysis has no fixed point on the
	// marking ramp (see [StabilityDCQCN]); the other fields are then zero.
	Applies bool
	// PhaseMargin in degrees: above 0 the fixed point is stable at the
	// loop delay, below 0 the queue and rates oscillate around it.
	PhaseMargin float64
	// Crossover is the gain crossover frequency, rad/s.
	Crossover float64
	// MaxRTT is the longest loop delay the fixed point stays stable at,
	// in seconds: the delay shifts the loop's phase by −ω·τ* and leaves
	// its gain (and so the crossover) as it is, so a margin φ lasts
	// φ/ω_c more of delay (0 where the margin is not above 0).
	MaxRTT float64
	// Marking is p*, QueueBytes q* at the fixed point.
	Marking, QueueBytes float64
}

// StabilityDCQCN returns the phase margin of the DCQCN fluid model
// linearised exactly (no expansion in p) around its fixed point, at the
// loop delay in.RTT, with the method of "ECN or Delay" §3.2: the
// characteristic equation 1 + L(s) = 0 of one flow's rate fed back
// through the delayed queue and marking, and its margin at the gain
// crossover. It does not apply (Applies false) where the profile has no
// ramp to hold a fixed point on: Pmax 0, Kmin = Kmax, or a p* above Pmax;
// inputs are clamped as in [SimulateDCQCN].
func StabilityDCQCN(in FluidInput) DCQCNStability {
	if in.LinkGbps <= 0 || in.Flows <= 0 {
		return DCQCNStability{}
	}
	return stabMemo.get(in, func() DCQCNStability {
		u := toFluidUnits(in)
		l, ok := u.lineariseExact()
		if !ok {
			return DCQCNStability{}
		}
		pm, wc, ok := l.phaseMargin(u.rtt)
		if !ok {
			return DCQCNStability{}
		}
		fp, _ := u.fixedPoint(false)
		st := DCQCNStability{Applies: true, PhaseMargin: pm, Crossover: wc, Marking: fp.p, QueueBytes: fp.q * u.pkt}
		if pm > 0 && pm < 180 {
			st.MaxRTT = u.rtt + pm*math.Pi/180/wc
		}
		return st
	})
}

// stabMemo holds results of [StabilityDCQCN] by input.
var stabMemo = newMemo[DCQCNStability]()
