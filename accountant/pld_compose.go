package accountant

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Grid caps of the PLD. Every FFT, and so every PMF the composer holds, has
// at most directBins bins, so a PLD costs O(directBins) memory (~50 MB for
// both directions) whatever the step count. A composition whose tail window
// fits directBins on the requested interval is computed in one FFT, exactly
// as dp_accounting does; a longer one is computed level by level (see
// selfCompose) on grids of at most levelBins bins, coarsened as it grows.
//
// directBins and levelBins are variables only so that the fuzz test can
// lower them (the same code paths on small grids run fast enough to fuzz).
var (
	directBins = 1 << 20
	levelBins  = 1 << 16
	stepBins   = 1 << 18
	// longBins caps the one-FFT path for compositions of more than
	// shortSteps: there the level path is 2–5 times faster (gonum's FFT of
	// 2^20 points is memory-bound) and differs by 1e-6–2e-5 relative (1607.4979
	// against 1607.4994 at q = 0.1, σ = 2, 10^6 steps, h = 1e-3), always
	// upwards. Short ones, the regime of dp_accounting's references, keep
	// the exact one-FFT figure up to directBins.
	longBins = 1 << 18
)

// shortSteps is the longest composition that takes one FFT of up to
// directBins points.
const shortSteps = 1000

const (
	// composeRadix is the factor by which each level multiplies the step
	// count: the loss spread grows by √64 = 8 per level, so 10^18 steps
	// take 10 levels and each coarsening moves little mass (see rebin).
	composeRadix = 64
	// maxGridIndex bounds |loss / interval| so that grid indices and the
	// losses (lo+i)·h they stand for stay exact in int and float64.
	maxGridIndex = 1 << 52
	// maxStepLoss bounds the loss range of one step: a smaller noise
	// multiplier than that allows (≈ 7e-4) has ε beyond any use, and the
	// grid would have to be coarser than 1 to hold it.
	maxStepLoss = 1 << 20
)

// ErrPLDRange is matched (errors.Is) by the PLD's refusals: the privacy loss
// does not fit a grid the accountant can hold. RDP answers every such case.
var ErrPLDRange = errors.New("accountant: privacy loss beyond the PLD's range")

// errNoFit is powerConv's answer when coarsening is not allowed and the
// composition does not fit the cap.
var errNoFit = errors.New("accountant: composition does not fit the grid cap")

// selfCompose returns the k-fold composition of m (k ≥ 1).
//
// When the composition's tail window (see window) fits directBins bins on
// m's grid (longBins beyond shortSteps steps), it is one FFT of the window size with the coefficients raised to
// the k-th power by repeated squaring: O(log k) products per coefficient, and
// the result is dp_accounting's to ~1e-10.
//
// Otherwise k is written in base composeRadix, k = Σ d_j R^j, and
// B_0 = m, B_{j+1} = B_j^R, result = Π_j B_j^{d_j}: about log_R k levels,
// each one or two FFTs of at most levelBins bins. Each B_j^R is computed on a
// grid coarse enough to hold it (rebin): since the spread of B_j grows as
// √(R^j), the grid coarsens by about √R per level and stays near levelBins
// bins, so time is O(levelBins · log k) and memory O(levelBins) for any k.
// Every coarsening splits mass between neighbouring grid points so that
// both distributions of the pair keep their mass (rebin): the coarse pair
// dominates the fine one, so the result stays an upper bound, and the
// change is second order in the grid (the mean loss per copy rises by at
// most g²/8).
func selfCompose(m lossPMF, k int, w *fftWork) (lossPMF, error) {
	if k == 1 {
		return m, nil
	}
	id := identityPMF()
	capBins := directBins
	if k > shortSteps {
		capBins = min(directBins, longBins)
	}
	out, err := powerConv(m, k, id, capBins, false, pldComposeTail, w)
	if !errors.Is(err, errNoFit) {
		return out, err
	}
	// The mass a level truncates is repeated in every copy of it that the
	// rest of the composition takes (k/R^{j+1} of B_{j+1}), so each level's
	// truncation is pldComposeTail divided by that count: the total stays
	// ~pldComposeTail per level instead of growing with k.
	// A step whose grid is coarse for its bulk (see stepPMF) keeps 4 times
	// finer levels: coarsening splits that bulk over grid points far apart,
	// adding up to |l|·g of variance per copy.
	capLevel := levelBins
	if m.h > math.Sqrt(m.variance())/8 {
		capLevel = 4 * levelBins
	}
	result, base := id, m
	kf := float64(k)
	copies := kf / composeRadix
	for {
		d := k % composeRadix
		k /= composeRadix
		if d > 0 {
			if result, err = powerConv(base, d, result, capLevel, true, pldComposeTail, w); err != nil {
				return lossPMF{}, err
			}
		}
		if k == 0 {
			return result, nil
		}
		tail := pldComposeTail / math.Max(1, copies)
		if base, err = powerConv(base, composeRadix, id, capLevel, true, tail, w); err != nil {
			return lossPMF{}, err
		}
		copies /= composeRadix
	}
}

// powerConv returns b^{*r} * o (the r-fold self-convolution of b, convolved
// with o) restricted to a window [lo, hi] outside which the finite mass is
// at most tail on each side, by Chernoff bounds (see window), on
// the coarser of the two grids. If the window does not fit capBins bins it
// returns errNoFit, or with coarsen doubles the grid (rebinning b and o)
// until it does. The power is taken in the frequency domain (one real FFT of
// the window size); bins cyclically aliased from outside the window carry at
// most 2·tail. Mass below the window is moved to its lowest bin
// and mass above it to +∞: both raise δ(ε) for every ε, so the result stays
// pessimistic.
func powerConv(b lossPMF, r int, o lossPMF, capBins int, coarsen bool, tail float64, w *fftWork) (lossPMF, error) {
	idO := isIdentity(o)
	g := b.h
	if !idO {
		g = math.Max(g, o.h)
	}
	if 1-b.inf <= 0 || (!idO && 1-o.inf <= 0) {
		// No finite mass left: the composition is all infinite loss.
		return lossPMF{h: g, probs: []float64{0}, inf: 1}, nil
	}
	for {
		rb, ro := rebin(b, g, tail), o
		if !idO {
			ro = rebin(o, g, tail)
		}
		lower, upper := window(rb, r, ro, tail)
		reach := math.Max(math.Abs(lower), math.Abs(upper))
		if nonFinite(lower) || nonFinite(upper) || g > math.MaxFloat64/4 {
			return lossPMF{}, fmt.Errorf("%w: the composed privacy loss reaches %.3g", ErrPLDRange, reach)
		}
		// The grid must hold the window in capBins bins and keep every
		// index below maxGridIndex.
		fits := func(g float64) bool { return (upper-lower)/g+6 <= float64(capBins) && reach/g <= maxGridIndex }
		if !fits(g) {
			if !coarsen {
				return lossPMF{}, errNoFit
			}
			// Jump to the needed grid at once; the next pass checks the
			// window again after rebinning, which may widen it by a bin
			// per copy.
			for !fits(g) {
				g *= 2
			}
			continue
		}
		return fftPower(rb, r, ro, idO, lower, upper, tail, w), nil
	}
}

// fftPower computes powerConv's result on b's grid for the window
// [lower, upper] (losses), b and o already on the same grid.
func fftPower(b lossPMF, r int, o lossPMF, idO bool, lower, upper, tail float64, w *fftWork) lossPMF {
	g := b.h
	upper = math.Max(upper, lower+g) // rounding at large losses may cross them
	lo := int(math.Floor(lower/g)) - 1
	hi := int(math.Ceil(upper/g)) + 1
	n := hi - lo + 1
	size := 1
	for size < n {
		size <<= 1
	}
	w.reset(size)
	for i, p := range b.probs {
		w.a[mod(b.lo+i, size)] += p
	}
	coef := w.fft.Coefficients(w.ca, w.a)
	for i, c := range coef {
		coef[i] = cpow(c, r)
	}
	if !idO {
		w.b, w.cb = zeroed(w.b, size), resized(w.cb, size/2+1)
		for i, p := range o.probs {
			w.b[mod(o.lo+i, size)] += p
		}
		cb := w.fft.Coefficients(w.cb, w.b)
		for i := range coef {
			coef[i] *= cb[i]
		}
	}
	w.fft.Sequence(w.a, coef)
	probs := make([]float64, n)
	for i := range probs {
		if v := w.a[mod(lo+i, size)] / float64(size); v > 0 {
			probs[i] = v
		}
	}
	probs[0] += tail
	// 1 − (1 − P_∞)^r (1 − P'_∞), without the cancellation of 1 − (1 − x)^r
	// for a tiny x and a huge r.
	inf := -math.Expm1(float64(r)*math.Log1p(-b.inf)+math.Log1p(-o.inf)) + tail
	return trimPMF(normalised(lossPMF{h: g, lo: lo, probs: probs, inf: math.Min(inf, 1)}), tail)
}

// window returns losses [lower, upper] holding all but tail of
// the finite mass of b^{*r} * o on each side, by Chernoff bounds
// P(S ≥ u) ≤ M(t) e^{−tu}, P(S ≤ u) ≤ M(−t) e^{tu}, with M(t) = M_b(t)^r M_o(t)
// the (unnormalised) moment generating function of the finite parts, and
// within the support [r·min_b + min_o, r·max_b + max_o]. The t tried are a
// fixed ladder (the short compositions, whose window a single step's long
// upper tail sets) and a ladder around the Gaussian optimum √(2 ln(1/tail))/sd.
func window(b lossPMF, r int, o lossPMF, tail float64) (lower, upper float64) {
	rf := float64(r)
	bMin, bMax := b.support()
	oMin, oMax := o.support()
	lower, upper = rf*bMin+oMin, rf*bMax+oMax
	logTail := math.Log(tail)
	ts := make([]float64, 0, 16)
	for t := 1.0 / 64; t <= 1024; t *= 4 {
		ts = append(ts, t)
	}
	if sd := math.Sqrt(rf*b.variance() + o.variance()); sd > 0 && !nonFinite(sd) {
		t0 := math.Sqrt(-2*logTail) / sd
		for i := -3; i <= 3; i++ {
			ts = append(ts, t0*math.Ldexp(1, i))
		}
	}
	// A non-finite bound (a PMF with no finite mass) leaves the support's.
	for _, t := range ts {
		if u := (rf*b.logMGF(t) + o.logMGF(t) - logTail) / t; u < upper && !nonFinite(u) {
			upper = u
		}
		if l := (logTail - rf*b.logMGF(-t) - o.logMGF(-t)) / t; l > lower && !nonFinite(l) {
			lower = l
		}
	}
	return lower, upper
}

// support returns the smallest and largest loss of the finite part.
func (m *lossPMF) support() (lo, hi float64) {
	return float64(m.lo) * m.h, float64(m.lo+len(m.probs)-1) * m.h
}

// variance returns the variance of the normalised finite part.
func (m *lossPMF) variance() float64 {
	var s, s1, s2 float64
	for i, p := range m.probs {
		x := float64(i) * m.h
		s += p
		s1 += p * x
		s2 += p * x * x
	}
	if s <= 0 {
		return 0
	}
	mean := s1 / s
	return math.Max(0, s2/s-mean*mean)
}

// logMGF returns ln Σ_i p_i e^{t l_i} over the finite part. The terms are
// formed relative to the nonzero bin that maximises t·l (the top one for
// t > 0, the bottom one for t < 0: relative to an empty end bin every term
// could underflow) by a geometric recurrence in e^{−|t|h}, recomputed
// exactly every 64 bins: one multiplication per bin instead of one exp,
// for the window of every FFT.
func (m *lossPMF) logMGF(t float64) float64 {
	// Walk the bins away from the end of largest t·l (from the top for
	// t > 0) as a slice in that order: ps[j] is the j-th bin from that end.
	n := len(m.probs)
	at, sign := n-1, -1
	if t < 0 {
		at, sign = 0, 1
	}
	j0 := 0
	for j0 < n && !(m.probs[at+sign*j0] > 0) {
		j0++
	}
	if j0 == n {
		return math.Inf(-1)
	}
	d := math.Abs(t) * m.h
	step := math.Exp(-d)
	s := 0.0
	for b := j0; b < n; b += 64 {
		x := math.Exp(-d * float64(b-j0))
		e := min(b+64, n)
		if x == 0 {
			break // every later term underflows too
		}
		for j := b; j < e; j++ {
			s += m.probs[at+sign*j] * x
			x *= step
		}
	}
	return t*float64(m.lo+at+sign*j0)*m.h + math.Log(s)
}

// rebin returns m on the grid g, a power-of-two multiple of m.h (m itself
// when g == m.h). A bin at loss l between grid points a < l < b = a + g is
// split into masses p_a + p_b = p with p_a e^{−a} + p_b e^{−b} = p e^{−l}: both
// distributions of the pair keep their mass, so merging a and b back is a
// post-processing that returns m, and the coarse pair dominates m (its
// δ(ε) is the chord of m's between grid points). Unlike rounding every loss
// up, which adds up to g per copy, this raises the mean loss by at most
// g²/8 per copy, so coarsening in composition costs almost nothing.
func rebin(m lossPMF, g, tail float64) lossPMF {
	if g == m.h || isIdentity(m) {
		m.h = g
		return m
	}
	f := int(math.Round(g / m.h))
	// up(r) is the share of a bin r fine steps above a coarse point that
	// goes to the next coarse point: expm1(−r·h)/expm1(−g). It is tabled
	// unless f is larger than m (a fine PMF rebinned onto a far coarser
	// grid), where a table would cost more than m.
	den := math.Expm1(-g)
	up := func(r int) float64 { return math.Expm1(-float64(r)*m.h) / den }
	if f <= len(m.probs)+64 {
		tab := make([]float64, f)
		for r := 1; r < f; r++ {
			tab[r] = up(r)
		}
		up = func(r int) float64 { return tab[r] }
	}
	lo := floorDiv(m.lo, f)
	hi := floorDiv(m.lo+len(m.probs)-1, f) + 1
	probs := make([]float64, hi-lo+1)
	for i, p := range m.probs {
		if p == 0 {
			continue
		}
		idx := m.lo + i
		j := floorDiv(idx, f)
		r := idx - j*f
		pb := p * up(r)
		probs[j-lo] += p - pb
		probs[j+1-lo] += pb
	}
	return trimPMF(lossPMF{h: g, lo: lo, probs: probs, inf: m.inf}, tail)
}

// isIdentity reports whether m is the PLD of releasing nothing.
func isIdentity(m lossPMF) bool {
	return len(m.probs) == 1 && m.lo == 0 && m.inf == 0 && m.probs[0] == 1
}

// convolve returns the distribution of the sum of independent losses from a
// and b, on the coarser of their grids (coarsened further if the sum does
// not fit directBins).
func convolve(a, b lossPMF, w *fftWork) (lossPMF, error) {
	if isIdentity(a) {
		return b, nil
	}
	if isIdentity(b) {
		return a, nil
	}
	return powerConv(a, 1, b, directBins, true, pldComposeTail, w)
}

// fftWork holds an FFT plan and its buffers for the compositions of one
// PLD, reused from one to the next: a fresh plan and buffers per FFT made
// ~200 MB of garbage per PLD of a long run, which a training run's budget
// events then carried above its memory goal. The zero value is ready.
type fftWork struct {
	fft    *fourier.FFT
	a, b   []float64    // sequences
	ca, cb []complex128 // coefficients
}

// reset prepares the plan, a and ca for sequences of length size (a
// convolution also sizes b and cb).
func (w *fftWork) reset(size int) {
	for {
		// Record the largest FFT any PLD has used, so that tests can hold
		// the composer to its memory cap for every input.
		top := fftHighWater.Load()
		if int64(size) <= top || fftHighWater.CompareAndSwap(top, int64(size)) {
			break
		}
	}
	switch {
	case w.fft == nil:
		w.fft = fourier.NewFFT(size)
	case w.fft.Len() != size:
		w.fft.Reset(size)
	}
	w.a, w.ca = zeroed(w.a, size), resized(w.ca, size/2+1)
}

// fftHighWater is the largest FFT size reset has prepared in this process.
var fftHighWater atomic.Int64

// zeroed returns s with length n, all zero, reusing its storage if it can.
func zeroed(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// resized returns s with length n, reusing its storage if it can.
func resized(s []complex128, n int) []complex128 {
	if cap(s) < n {
		return make([]complex128, n)
	}
	return s[:n]
}

// trimPMF moves bottom bins with cumulative mass below tail into the lowest
// kept bin and top bins with cumulative mass below tail into the infinite
// atom.
func trimPMF(m lossPMF, tail float64) lossPMF {
	i0, s := 0, 0.0
	for i0 < len(m.probs)-1 && s+m.probs[i0] < tail {
		s += m.probs[i0]
		i0++
	}
	i1, top := len(m.probs)-1, 0.0
	for i1 > i0 && top+m.probs[i1] < tail {
		top += m.probs[i1]
		i1--
	}
	probs := m.probs[i0 : i1+1]
	probs[0] += s
	return lossPMF{h: m.h, lo: m.lo + i0, probs: probs, inf: math.Min(1, m.inf+top)}
}

// cpow returns c^k by binary exponentiation.
func cpow(c complex128, k int) complex128 {
	r := complex(1, 0)
	for k > 0 {
		if k&1 == 1 {
			r *= c
		}
		c *= c
		k >>= 1
	}
	return r
}

// mod returns a mod n in [0, n).
func mod(a, n int) int {
	r := a % n
	if r < 0 {
		r += n
	}
	return r
}

// floorDiv returns ⌊a / n⌋ for n > 0.
func floorDiv(a, n int) int {
	q := a / n
	if a%n != 0 && a < 0 {
		q--
	}
	return q
}
