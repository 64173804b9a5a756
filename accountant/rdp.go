package accountant

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// RDP returns the Rényi DP curve ε_α of ev, all of its Steps composed, at each
// of orders: Steps · R_{q,z}(α), where for one step of the sampled Gaussian
// mechanism (Mironov, Talwar & Zhang 2019, https://arxiv.org/abs/1908.10530,
// Sec. 3.3)
//
//	R_{q,z}(α) = ln A_α / (α − 1),
//	A_α = E_{x~N(0,z²)} [ ((1−q) + q·e^{(2x−1)/(2z²)})^α ].
//
// For q = 1 this is α/(2z²). At integer α, A_α is the exact binomial sum
// Σ_i C(α,i)(1−q)^{α−i} q^i e^{(i²−i)/(2z²)}, evaluated here as
// ln A = log1p(A − 1) with A − 1 = Σ_{i≥2} C(α,i)(1−q)^{α−i} q^i expm1((i²−i)/(2z²)),
// a sum of positive terms in log space, so small RDP values keep full relative
// precision. At fractional α it is the two-sided series of Mironov, Talwar &
// Zhang (Sec. 3.3, as TensorFlow Privacy's _compute_log_a_frac and Opacus),
// summed until the remaining terms are below 1e-14 of ln A.
//
// It returns an error if ev is invalid or an order is not finite and > 1.
func RDP(ev Event, orders []float64) ([]float64, error) {
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	if err := validateOrders(orders); err != nil {
		return nil, err
	}
	out := make([]float64, len(orders))
	addRDPTo(out, ev, orders)
	return out, nil
}

// RDPSequence returns the RDP curve of the composition of events, which may
// differ in q, z and Steps: by RDP composition (Mironov 2017, Prop. 1) the
// per-event curves add order by order.
func RDPSequence(events []Event, orders []float64) ([]float64, error) {
	if err := validateEvents(events); err != nil {
		return nil, err
	}
	if err := validateOrders(orders); err != nil {
		return nil, err
	}
	out := make([]float64, len(orders))
	for _, ev := range events {
		addRDPTo(out, ev, orders)
	}
	return out, nil
}

// addRDPTo adds the RDP of a valid ev to dst at valid orders. Long order
// lists are split over the available cores: each order is independent, and
// a live slider waits on this.
func addRDPTo(dst []float64, ev Event, orders []float64) {
	if ev.Steps == 0 {
		return
	}
	// Worker w takes orders w, w+n, w+2n, …: fractional orders cost far
	// more than integer ones and come first, so strides balance the load.
	add := func(first, stride int) {
		for i := first; i < len(orders); i += stride {
			dst[i] += float64(ev.Steps) * rdpStep(ev.SampleRate, ev.NoiseMultiplier, orders[i])
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(orders)/parallelOrders)
	if workers < 2 {
		add(0, 1)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { add(w, workers) })
	}
	wg.Wait()
}

// parallelOrders is the least number of orders per worker worth a
// goroutine (one order costs about 5–20 µs).
const parallelOrders = 32

// validateOrders requires a non-empty list of finite orders > 1.
func validateOrders(orders []float64) error {
	if len(orders) == 0 {
		return inputErr("number of orders", 0, "≥ 1")
	}
	for i, a := range orders {
		if nonFinite(a) || a <= 1 {
			return inputErr(fmt.Sprintf("order %d", i), a, "finite and > 1")
		}
	}
	return nil
}

// rdpStep returns R_{q,z}(α) for valid inputs. It may return +Inf when the
// value overflows float64 (large α, small z).
func rdpStep(q, z, alpha float64) float64 {
	if q == 1 {
		return alpha / (2 * z * z)
	}
	var logA float64
	if alpha == math.Trunc(alpha) && alpha <= 1e6 {
		logA = logAInt(q, z, int(alpha))
	} else {
		logA = logAFrac(q, z, alpha)
	}
	if math.IsNaN(logA) {
		return math.Inf(1)
	}
	// A_α ≥ 1 (Jensen), so ln A_α ≥ 0; the fractional series' cancellation
	// can leave −1e-17 at a tiny q (q = 1e-6, z = 100), which the
	// conversions rightly reject as an RDP value.
	return math.Max(0, logA) / (alpha - 1)
}

// logAInt returns ln A_α for integer α ≥ 2 via log1p of the positive sum A − 1.
func logAInt(q, z float64, alpha int) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	a := float64(alpha)
	logAm1 := math.Inf(-1)
	for i := 2; i <= alpha; i++ {
		fi := float64(i)
		x := (fi*fi - fi) / (2 * z * z)
		lt := logBinom(a, fi) + fi*lq + (a-fi)*l1q + x + log1mExp(-x)
		logAm1 = logAdd(logAm1, lt)
	}
	if logAm1 < 0 {
		return math.Log1p(math.Exp(logAm1))
	}
	return logAdd(0, logAm1)
}

// logAFrac returns ln A_α for fractional α > 1 by the two-sided series of
// Mironov, Talwar & Zhang 2019 (Sec. 3.3): with z₀ = z² ln(1/q − 1) + 1/2,
//
//	A_α = Σ_{i≥0} C(α,i) q^i (1−q)^{α−i} e^{(i²−i)/(2z²)} · ½erfc((i − z₀)/(√2 z))
//	    + Σ_{i≥0} C(α,i) q^{α−i} (1−q)^i e^{((α−i)²−(α−i))/(2z²)} · ½erfc((z₀ − (α−i))/(√2 z)),
//
// where C(α,i) is the generalised binomial coefficient, negative for some i.
func logAFrac(q, z, alpha float64) float64 {
	la0, la1 := math.Inf(-1), math.Inf(-1)
	lq, l1q := math.Log(q), math.Log1p(-q)
	z0 := z*z*(math.Log(1/q)+l1q) + 0.5
	s2z := math.Sqrt2 * z
	// term returns ln of the two series terms at index i, given ln|C(α,i)|.
	term := func(i int, logCoef float64) (ls0, ls1 float64) {
		fi := float64(i)
		j := alpha - fi
		ls0 = logCoef + fi*lq + j*l1q + (fi*fi-fi)/(2*z*z) - math.Ln2 + logErfc((fi-z0)/s2z)
		ls1 = logCoef + j*lq + fi*l1q + (j*j-j)/(2*z*z) - math.Ln2 + logErfc((z0-j)/s2z)
		return ls0, ls1
	}
	// ln|C(α,i)| and its sign, updated by C(α,i+1) = C(α,i)(α−i)/(i+1).
	logCoef, sign := 0.0, 1.0
	next := func(i int) bool {
		r := (alpha - float64(i)) / float64(i+1)
		if r == 0 {
			return false
		}
		if r < 0 {
			sign = -sign
		}
		logCoef += math.Log(math.Abs(r))
		return true
	}
	head := int(alpha) + 24
	for i := 0; ; i++ {
		ls0, ls1 := term(i, logCoef)
		if sign > 0 {
			la0, la1 = logAdd(la0, ls0), logAdd(la1, ls1)
		} else {
			la0, la1 = logSub(la0, ls0), logSub(la1, ls1)
		}
		if math.IsNaN(la0) || math.IsNaN(la1) {
			return math.NaN()
		}
		// Stop once past the alternating head and the terms are negligible
		// against ln A (relative 1e-14) and in absolute terms (e^-30).
		m := math.Max(ls0, ls1)
		if float64(i) > alpha+1 && m < -30 {
			lA := logAdd(la0, la1)
			if m < math.Log(math.Abs(lA))-32.3 || math.IsInf(m, -1) {
				return lA
			}
		}
		if !next(i) {
			return logAdd(la0, la1)
		}
		if i+1 == head {
			break
		}
	}
	// The tail Σ_{i≥head} is alternating (C(α,i) changes sign each step for
	// i > α) with smoothly decaying magnitudes, which can decay as slowly as
	// i^{-α-2} (e.g. q = 1/2, large z). Sum it by the Euler transform
	// (repeated averaging of partial sums), relative to the head's A.
	lA := logAdd(la0, la1)
	const k = 48
	var partial [k]float64
	s := 0.0
	for n := 0; n < k; n++ {
		i := head + n
		ls0, ls1 := term(i, logCoef)
		s += sign * (math.Exp(ls0-lA) + math.Exp(ls1-lA))
		partial[n] = s
		if !next(i) {
			return lA + math.Log1p(s)
		}
	}
	for level := k - 1; level > 0; level-- {
		for n := 0; n < level; n++ {
			partial[n] = 0.5 * (partial[n] + partial[n+1])
		}
	}
	return lA + math.Log1p(partial[0])
}
