package accountant

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// selfCompose returns the k-fold convolution of m (k ≥ 1) restricted to a
// window [lo, hi] of grid indices outside which the composed finite mass is
// at most pldComposeTail on each side, by Chernoff bounds
// P(S ≥ u) ≤ M(t)^k e^{−tu}, P(S ≤ u) ≤ M(−t)^k e^{tu} with M the
// (unnormalised) moment generating function of the finite part. The mass
// above the window is added to the infinite atom (pessimistic); the mass
// below it is moved to the window's lowest bin (raising a loss only raises
// δ(ε)). The k-th power is taken in the frequency domain (one
// real FFT of the window size); bins cyclically aliased from outside the
// window carry at most 2·pldComposeTail.
func selfCompose(m lossPMF, k int, h float64, w *fftWork) lossPMF {
	if k == 1 {
		return m
	}
	lo, hi := composeWindow(m, k, h)
	n := hi - lo + 1
	size := 1
	for size < n {
		size <<= 1
	}
	w.reset(size)
	seq := w.a
	for i, p := range m.probs {
		seq[mod(m.lo+i, size)] += p
	}
	coef := w.fft.Coefficients(w.ca, seq)
	for i, c := range coef {
		coef[i] = cpow(c, k)
	}
	w.fft.Sequence(seq, coef)
	probs := make([]float64, n)
	for i := range probs {
		v := seq[mod(lo+i, size)] / float64(size)
		if v > 0 {
			probs[i] = v
		}
	}
	// Mass below the window is moved up to its lowest bin and mass above it
	// to +∞ (both raise δ(ε) for every ε, so the result stays pessimistic);
	// aliasing has already folded them into the window, so add the bounds.
	probs[0] += pldComposeTail
	inf := 1 - math.Pow(1-m.inf, float64(k)) + pldComposeTail
	return trimPMF(lossPMF{lo: lo, probs: probs, inf: math.Min(inf, 1)})
}

// composeWindow returns grid indices [lo, hi] holding all but
// pldComposeTail of the k-fold sum's finite mass on each side, always
// containing 0 and within [k·min, k·max] of m's support.
func composeWindow(m lossPMF, k int, h float64) (lo, hi int) {
	kf := float64(k)
	minL := float64(m.lo) * h
	maxL := float64(m.lo+len(m.probs)-1) * h
	logTail := math.Log(pldComposeTail)
	upper, lower := kf*maxL, kf*minL
	for t := 1.0 / 64; t <= 1024; t *= 4 {
		if u := (kf*logMGF(m, t, h) - logTail) / t; u < upper {
			upper = u
		}
		if l := (logTail - kf*logMGF(m, -t, h)) / t; l > lower {
			lower = l
		}
	}
	upper, lower = math.Min(upper, kf*maxL), math.Max(lower, kf*minL)
	hi = int(math.Ceil(upper/h)) + 1
	lo = int(math.Floor(lower/h)) - 1
	return lo, hi
}

// logMGF returns ln Σ_i p_i e^{t l_i} over the finite part.
func logMGF(m lossPMF, t, h float64) float64 {
	mx := math.Inf(-1)
	for i, p := range m.probs {
		if p > 0 {
			mx = math.Max(mx, t*float64(m.lo+i)*h)
		}
	}
	s := 0.0
	for i, p := range m.probs {
		if p > 0 {
			s += p * math.Exp(t*float64(m.lo+i)*h-mx)
		}
	}
	return mx + math.Log(s)
}

// convolve returns the distribution of the sum of independent losses from a
// and b (linear convolution by FFT), then trims negligible tails.
func convolve(a, b lossPMF, w *fftWork) lossPMF {
	if len(a.probs) == 1 && a.lo == 0 && a.inf == 0 && a.probs[0] == 1 {
		return b
	}
	if len(b.probs) == 1 && b.lo == 0 && b.inf == 0 && b.probs[0] == 1 {
		return a
	}
	n := len(a.probs) + len(b.probs) - 1
	size := 1
	for size < n {
		size <<= 1
	}
	w.reset(size)
	w.b, w.cb = zeroed(w.b, size), resized(w.cb, size/2+1)
	sa, sb := w.a, w.b
	copy(sa, a.probs)
	ca := w.fft.Coefficients(w.ca, sa)
	copy(sb, b.probs)
	cb := w.fft.Coefficients(w.cb, sb)
	for i := range ca {
		ca[i] *= cb[i]
	}
	w.fft.Sequence(sa, ca)
	probs := make([]float64, n)
	for i := range probs {
		if v := sa[i] / float64(size); v > 0 {
			probs[i] = v
		}
	}
	inf := 1 - (1-a.inf)*(1-b.inf)
	return trimPMF(lossPMF{lo: a.lo + b.lo, probs: probs, inf: inf})
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
	switch {
	case w.fft == nil:
		w.fft = fourier.NewFFT(size)
	case w.fft.Len() != size:
		w.fft.Reset(size)
	}
	w.a, w.ca = zeroed(w.a, size), resized(w.ca, size/2+1)
}

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

// trimPMF moves bottom bins with cumulative mass below pldComposeTail into
// the lowest kept bin and top bins with cumulative mass
// below pldComposeTail into the infinite atom.
func trimPMF(m lossPMF) lossPMF {
	i0, s := 0, 0.0
	for i0 < len(m.probs)-1 && s+m.probs[i0] < pldComposeTail {
		s += m.probs[i0]
		i0++
	}
	i1, top := len(m.probs)-1, 0.0
	for i1 > i0 && top+m.probs[i1] < pldComposeTail {
		top += m.probs[i1]
		i1--
	}
	probs := m.probs[i0 : i1+1]
	probs[0] += s
	return lossPMF{lo: m.lo + i0, probs: probs, inf: math.Min(1, m.inf+top)}
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
