package accountant

import (
	"fmt"
	"math"
	"sync"
)

// DefaultPLDInterval is the default discretisation interval of privacy loss
// values, dp_accounting's value_discretization_interval default.
const DefaultPLDInterval = 1e-4

// pldTailMass is the probability mass a PLD may drop at each truncation
// (dp_accounting: log_mass_truncation_bound = −50 for the single step,
// tail_mass_truncation 1e-15 for composition). Upper-tail mass is moved to
// the infinite-loss atom, so truncation never lowers δ(ε) for ε ≥ 0.
const (
	pldStepTail    = 1.9e-22 // ≈ e^-50
	pldComposeTail = 1e-15
	pldTau         = 9.75 // Φ̄(9.75) ≈ e^-50
)

// PLD is a pessimistic discretised privacy loss distribution of a (composed)
// Poisson-subsampled Gaussian mechanism under add/remove adjacency. It holds
// one distribution per direction — "remove" (the data set with the record
// against the one without) and "add" — because the subsampled Gaussian is not
// symmetric; δ(ε) is the larger of the two. Losses lie on the grid i·h.
//
// Each step is discretised by connect-the-dots (Doroshenko, Ghazi, Kamath,
// Kumar & Manurangsi 2022, https://arxiv.org/abs/2207.04380): the masses are
// chosen so that the discrete hockey-stick curve δ(ε) equals the exact one at
// every grid point and interpolates it linearly in e^ε in between, which lies
// above the convex exact curve. The discrete pair therefore dominates the
// mechanism, composition by convolution (computed by FFT, Koskela, Jälkö &
// Honkela 2020, https://arxiv.org/abs/1906.03049) preserves that, and the
// reported ε is an upper bound up to the truncated tail mass (≤ 1e-15 per
// composition, moved to the infinite-loss atom). A PLD is immutable and safe
// for concurrent use.
type PLD struct {
	h           float64
	remove, add lossPMF
}

// lossPMF is a distribution of privacy loss on the grid (lo+i)·h plus an atom
// at +∞.
type lossPMF struct {
	h     float64
	lo    int
	probs []float64
	inf   float64
}

// NewPLD returns the PLD of ev (Steps steps) with discretisation interval h
// (0 means DefaultPLDInterval). Smaller h is tighter and slower: the cost is
// about linear in 1/h up to the grid cap, beyond which the grid coarsens
// (see NewPLDSequence).
func NewPLD(ev Event, h float64) (*PLD, error) {
	return NewPLDSequence([]Event{ev}, h)
}

// NewPLDSequence returns the PLD of the composition of events, whose q, z and
// Steps may differ; each event is self-composed by FFT and the results are
// convolved.
//
// Time and memory are bounded for every step count (up to the largest int):
// no grid holds more than 2^20 bins. Where the requested interval h cannot
// hold a step or a composition in that many bins, the grid is coarsened by
// powers of two with a pessimistic rebinning (an upper bound still); where h
// is coarser than an eighth of a step's spread (small q), the step is
// discretised on a grid finer by a power of two, since a coarse one adds up
// to h²/4 of variance per step. Interval reports the grid used. It returns an error wrapping ErrPLDRange
// when the loss is out of any grid's reach (a noise multiplier below ~7e-4,
// or a loss beyond 2^52 intervals); RDP answers those.
func NewPLDSequence(events []Event, h float64) (*PLD, error) {
	if err := validateEvents(events); err != nil {
		return nil, err
	}
	if h == 0 {
		h = DefaultPLDInterval
	}
	if nonFinite(h) || h < 1e-7 || h > 1 {
		return nil, inputErr("PLD discretisation interval", h, "0 (default) or in [1e-7, 1]")
	}
	out := &PLD{h: h, remove: identityPMF(), add: identityPMF()}
	if len(events) == 0 {
		return out, nil
	}
	// The two directions are independent: build them concurrently.
	var errs [2]error
	var wg sync.WaitGroup
	for dir := 0; dir < 2; dir++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := identityPMF()
			var work fftWork
			for _, ev := range events {
				if ev.Steps == 0 {
					continue
				}
				one, err := stepPMF(ev.SampleRate, ev.NoiseMultiplier, h, dir == 0, ev.Steps)
				if err != nil {
					errs[dir] = err
					return
				}
				c, err := selfCompose(one, ev.Steps, &work)
				if err == nil {
					acc, err = convolve(acc, c, &work)
				}
				if err != nil {
					errs[dir] = err
					return
				}
			}
			if dir == 0 {
				out.remove = acc
			} else {
				out.add = acc
			}
		}()
	}
	wg.Wait()
	if errs[0] != nil {
		return nil, errs[0]
	}
	if errs[1] != nil {
		return nil, errs[1]
	}
	out.onCommonGrid()
	return out, nil
}

// onCommonGrid rebins both directions to the coarser of their grids, a
// power-of-two multiple of the other (p.h stays when both are identities).
func (p *PLD) onCommonGrid() {
	g := 0.0
	for _, m := range []lossPMF{p.remove, p.add} {
		if !isIdentity(m) {
			g = math.Max(g, m.h)
		}
	}
	if g > 0 {
		p.h = g
	}
	p.remove, p.add = rebin(p.remove, p.h, pldComposeTail), rebin(p.add, p.h, pldComposeTail)
}

// identityPMF is the PLD of releasing nothing: all mass at loss 0.
func identityPMF() lossPMF { return lossPMF{lo: 0, probs: []float64{1}} }

// Compose returns the PLD of running the mechanisms of p and o both. Their
// intervals must be equal or differ by a power of two (as when one of them
// was coarsened from the same requested interval); the result is on the
// coarser grid.
func (p *PLD) Compose(o *PLD) (*PLD, error) {
	if p == nil || o == nil {
		return nil, fmt.Errorf("accountant: compose: nil PLD: %w", ErrInvalidInput)
	}
	if fr, _ := math.Frexp(math.Max(p.h, o.h) / math.Min(p.h, o.h)); fr != 0.5 {
		return nil, inputErr("discretisation interval of the second PLD", o.h, fmt.Sprintf("equal to the first's (%g) or a power-of-two multiple or fraction of it", p.h))
	}
	var work fftWork
	out := &PLD{h: math.Max(p.h, o.h)}
	var err error
	if out.remove, err = convolve(p.remove, o.remove, &work); err != nil {
		return nil, err
	}
	if out.add, err = convolve(p.add, o.add, &work); err != nil {
		return nil, err
	}
	out.onCommonGrid()
	return out, nil
}

// Interval returns the discretisation interval of the grid: the one
// requested, or a power-of-two multiple or fraction of it (see
// NewPLDSequence).
func (p *PLD) Interval() float64 { return p.h }

// Epsilon returns the smallest ε ≥ 0 with δ(ε) ≤ delta for the discrete PLD,
// exact for the discrete pair (δ is linear in e^ε between grid points). It
// returns an error if δ is outside (0, 1) or below the infinite-loss mass (no
// finite ε exists).
func (p *PLD) Epsilon(delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	e1, err := p.remove.epsilon(delta, p.h)
	if err != nil {
		return 0, err
	}
	e2, err := p.add.epsilon(delta, p.h)
	if err != nil {
		return 0, err
	}
	return math.Max(0, math.Max(e1, e2)), nil
}

// Delta returns δ(ε) = max over both directions of
// P_∞ + Σ_{l_i > ε} p_i (1 − e^{ε − l_i}), for finite ε ≥ 0.
func (p *PLD) Delta(eps float64) (float64, error) {
	if err := checkNonNegative("epsilon", eps); err != nil {
		return 0, err
	}
	return math.Max(p.remove.delta(eps, p.h), p.add.delta(eps, p.h)), nil
}

// EpsilonPLD returns ε at δ of the composition of events under the PLD
// accountant with interval h (0 means DefaultPLDInterval).
func EpsilonPLD(events []Event, delta, h float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	p, err := NewPLDSequence(events, h)
	if err != nil {
		return 0, err
	}
	return p.Epsilon(delta)
}

// delta evaluates the hockey-stick divergence of one direction.
func (m *lossPMF) delta(eps, h float64) float64 {
	d := m.inf
	for i := len(m.probs) - 1; i >= 0; i-- {
		l := float64(m.lo+i) * h
		if l <= eps {
			break
		}
		d += m.probs[i] * -math.Expm1(eps-l)
	}
	return math.Min(d, 1)
}

// epsilon inverts delta. Walking down from the top bin it keeps
// A = P_∞ + Σ_{i≥j} p_i and B = Σ_{i≥j} p_i e^{l_j − l_i}, so that for ε in
// [l_{j−1}, l_j], δ(ε) = A − e^{ε − l_j} B.
func (m *lossPMF) epsilon(delta, h float64) (float64, error) {
	if m.inf >= delta {
		return 0, fmt.Errorf("%w: δ = %g is below the mass %g of infinite privacy loss (the PLD's truncated tails, ~1e-22 per step); a larger δ has a finite PLD ε", ErrUnreachable, delta, m.inf)
	}
	a, b := m.inf, 0.0
	eh := math.Exp(-h)
	for j := len(m.probs) - 1; j >= 0; j-- {
		a += m.probs[j]
		b = m.probs[j] + eh*b
		// δ at l_{j−1}.
		if a-eh*b >= delta {
			lj := float64(m.lo+j) * h
			return lj + math.Log((a-delta)/b), nil
		}
	}
	return math.Inf(-1), nil // δ(ε) ≤ delta for every ε on the grid
}

// stepPMF discretises one step of the sampled Gaussian mechanism in the
// remove (remove = true) or add direction by connect-the-dots, on the grid
// h or, if the step's loss range needs more than stepBins bins there, the
// finest power-of-two multiple of h that holds it (connect-the-dots is an
// upper bound on any grid). Each bin costs two log Φ evaluations, and a
// composition of such a step would not fit a finer grid anyway: a small
// noise multiplier (0.09 at q = 0.1) has 10^6 bins at h = 1e-4, which took
// 0.3 s per PLD and 3 s per calibration. A loss range beyond maxStepLoss (a noise
// multiplier below ~7e-4) is refused with ErrPLDRange.
//
// The outputs beyond τ noise standard deviations go to the infinite-loss
// atom, Φ̄(τ) ≈ 1e-22 of the mass per step at τ = 9.75; a step to be
// composed steps times takes a larger τ (stepTau) so that this stays below
// ~1e-15 in total (10^18 steps of q = 1, σ = 0.5 had an atom of 1.5e-5 and no
// finite ε at δ = 1e-5).
func stepPMF(q, z, h float64, remove bool, steps int) (lossPMF, error) {
	tau := stepTau(steps)
	var lLo, lHi float64
	if remove {
		lLo, lHi = lossRemove(q, z, -tau*z), lossRemove(q, z, 1+tau*z)
	} else {
		lLo, lHi = -lossRemove(q, z, tau*z), -lossRemove(q, z, -tau*z)
	}
	if nonFinite(lLo) || nonFinite(lHi) || lHi-lLo > maxStepLoss {
		return lossPMF{}, fmt.Errorf("%w: one step at q = %g, noise multiplier %g has privacy losses up to %.3g, beyond the PLD's %g; use RDP or more noise", ErrPLDRange, q, z, math.Max(math.Abs(lLo), math.Abs(lHi)), float64(maxStepLoss))
	}
	for (lHi-lLo)/h+3 > float64(stepBins) {
		h *= 2
	}
	// A grid coarser than the step's spread inflates every step's variance
	// by up to h²/4 (connect-the-dots splits each loss between two grid
	// points), which k steps add up: at q = 0.001, σ = 2.53, 10^5 steps and
	// h = 1e-3 the PLD gave ε = 0.656 against RDP's 0.500 (0.455 at 1e-4).
	// A finer grid is still an upper bound, so refine to an eighth of the
	// spread q·√(e^{1/σ²} − 1) (an overestimate of it) while the step fits.
	// Where the step's loss range holds the grid back (a long tail beside a
	// narrow bulk: q = 1e-5, σ = 0.6), take up to 4·stepBins bins: 10^8 such
	// steps gave ε = 3.05 on 2^18 bins, 1.75 on 2^20, ~1.51 on 2^22
	// (RDP 1.95).
	if sd := q * math.Sqrt(math.Expm1(1/(z*z))); sd > 0 && !nonFinite(sd) {
		for h > sd/8 && h > 1e-9 && (lHi-lLo)/(h/2)+3 <= float64(4*stepBins) {
			h /= 2
		}
	}
	lo, hi := int(math.Floor(lLo/h)), int(math.Ceil(lHi/h))
	if hi <= lo {
		hi = lo + 1
	}
	n := hi - lo + 1
	dl := make([]float64, n)
	for i := range dl {
		e := float64(lo+i) * h
		if remove {
			dl[i] = deltaRemove(q, z, e)
		} else {
			dl[i] = deltaAdd(q, z, e)
		}
	}
	// Slopes of δ against x = e^ε between grid points, T_j =
	// (δ_j − δ_{j+1}) / (e^{ε_j}·expm1(h)), give the masses
	// p_j = e^{ε_j}(T_{j−1} − T_j) = ((δ_{j−1} − δ_j)e^h − (δ_j − δ_{j+1})) / expm1(h),
	// T_n = 0, P_∞ = δ_n. The last form never forms e^{ε}, which overflows
	// for the losses of a small noise multiplier.
	probs := make([]float64, n)
	eh, em := math.Exp(h), math.Expm1(h)
	sum := 0.0
	for j := 1; j < n; j++ {
		next := 0.0
		if j < n-1 {
			next = dl[j] - dl[j+1]
		}
		if p := ((dl[j-1]-dl[j])*eh - next) / em; p > 0 {
			probs[j] = p
			sum += p
		}
	}
	inf := dl[n-1]
	probs[0] = math.Max(0, 1-inf-sum)
	return normalised(lossPMF{h: h, lo: lo, probs: probs, inf: inf}), nil
}

// normalised scales m's finite masses so that they and P_∞ sum to exactly
// 1 (the sum taken with Neumaier's compensation). Rounding moves the sum:
// connect-the-dots takes second differences of δ, whose negative residues
// are clamped to 0 (~1e-12 of the mass); every FFT adds ~1e-16·log n either
// way. Left alone, an excess compounds as (1 + e)^k over a k-fold
// composition (a mass of 7.7 after 10^12 steps at q = 0.1, σ = 2) and a
// deficit as (1 − e)^k, which lost all finite mass by 10^18 steps (ε = 0
// at q = 0.001, σ = 1, h = 1e-7). Pinning the mass each time keeps the error
// at the rounding of one operation: δ moves by a relative ~1e-12 at most.
func normalised(m lossPMF) lossPMF {
	s, c := 0.0, 0.0
	for _, p := range m.probs {
		t := s + p
		if math.Abs(s) >= math.Abs(p) {
			c += (s - t) + p
		} else {
			c += (p - t) + s
		}
		s = t
	}
	s += c
	if room := 1 - m.inf; s > 0 && s != room {
		f := room / s
		for i := range m.probs {
			m.probs[i] *= f
		}
	}
	return m
}

// stepTau returns the truncation point τ (in noise standard deviations) of
// a step composed steps times: pldTau, or the τ with Φ̄(τ) = 1e-15/steps
// where that is larger (by bisection on log Φ̄: math.Erfcinv rounds its
// argument's complement to 1 below 1e-17).
func stepTau(steps int) float64 {
	target := math.Log(1e-15 / math.Max(1, float64(steps)))
	if logNormCDF(-pldTau) <= target {
		return pldTau
	}
	lo, hi := pldTau, 40.0
	for hi-lo > 1e-6 {
		mid := (lo + hi) / 2
		if logNormCDF(-mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// lossRemove is the privacy loss ln((1−q) + q e^{(2x−1)/(2z²)}) of the
// remove direction at output x; the add direction's loss is its negative.
func lossRemove(q, z, x float64) float64 {
	u := (2*x - 1) / (2 * z * z)
	if q == 1 {
		return u
	}
	return logAdd(math.Log1p(-q), math.Log(q)+u)
}

// deltaRemove is the exact hockey-stick divergence of the remove direction,
// P = (1−q)N(0,z²) + qN(1,z²) against Q = N(0,z²):
// δ(ε) = qΦ̄((x*−1)/z) − (e^ε − 1 + q)Φ̄(x*/z), x* = z² ln((e^ε − 1 + q)/q) + 1/2,
// and 1 − e^ε when e^ε ≤ 1 − q.
func deltaRemove(q, z, eps float64) float64 {
	// ln c = ln(e^ε − 1 + q), formed without e^ε for ε > 0 (it overflows
	// beyond 709, where a small noise multiplier's losses reach).
	var lc float64
	if eps <= 0 {
		c := math.Expm1(eps) + q
		if c <= 0 {
			return -math.Expm1(eps)
		}
		lc = math.Log(c)
	} else {
		lc = eps + math.Log1p(-(1-q)*math.Exp(-eps))
	}
	xs := z*z*(lc-math.Log(q)) + 0.5
	a := math.Log(q) + logNormCDF(-(xs-1)/z)
	b := lc + logNormCDF(-xs/z)
	if !(b < a) { // also when both are −∞: no mass that far out
		return 0
	}
	return math.Exp(a) * -math.Expm1(b-a)
}

// deltaAdd is the exact hockey-stick divergence of the add direction,
// P = N(0,z²) against Q = (1−q)N(0,z²) + qN(1,z²):
// δ(ε) = e^ε[cΦ(x'/z) − qΦ((x'−1)/z)], c = e^{−ε} − 1 + q, x' = z² ln(c/q) + 1/2,
// and 0 when c ≤ 0.
func deltaAdd(q, z, eps float64) float64 {
	// ε + ln c, formed without e^{−ε} for ε < 0 (it overflows below −709).
	var lc, elc float64
	if eps >= 0 {
		c := math.Expm1(-eps) + q
		if c <= 0 {
			return 0
		}
		lc = math.Log(c)
		elc = eps + lc
	} else {
		elc = math.Log1p(-(1 - q) * math.Exp(eps))
		lc = elc - eps
	}
	xp := z*z*(lc-math.Log(q)) + 0.5
	a := logNormCDF(xp / z)
	b := math.Log(q) - lc + logNormCDF((xp-1)/z)
	if !(b < a) {
		return 0
	}
	return math.Min(1, math.Exp(elc+a)*-math.Expm1(b-a))
}
