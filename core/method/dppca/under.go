package dppca

import (
	"fmt"
	"strconv"
	"strings"
)

// under=auto: fewer centres than K when the budget cannot support K, the
// mirror of over=auto (overRule). At a small budget on a small set (pollen:
// about 300 cells of 11 types, ε 1) each of K clusters holds a few dozen
// cells and the noise of its released sum and count moves its centre by
// more than the spread of the rows: K noisy centres then label the cells
// no better than chance. Fewer, larger clusters have centres the noise
// moves less (centreNoise grows with the number of clusters m as m/ñ), so
// a coarser partition can still be read.

// DefaultUnder is under's threshold when the option is absent: 0, off (the
// rule was judged on fresh draws, docs/RESULTS.md, dppca seventeenth
// attempt).
const DefaultUnder = 0

// underNoiseMax is under=auto's threshold without a value ("under=auto"):
// the largest relative centre noise (centreNoise) of the centres kept.
// Set on the base draws of the simulation families before the fresh draws
// that judge it (docs/RESULTS.md, dppca seventeenth attempt).
const underNoiseMax = 0.5

// MaxUnder bounds under=auto's threshold: a centre noise as large as the
// rows' rms norm is no bound at all.
const MaxUnder = 4

// underRule returns the number of centres the k-means uses: the largest
// m ≤ k, m ≥ 2, whose centres, for clusters of the average size ñ/m, are
// released with a relative noise centreNoise(m) of at most tau; 2 when
// even two centres are noisier than that; k without noise, with k ≤ 2, or
// with tau ≤ 0 (off). It reads only releases (the cell count ñ and the
// released eigenvalues) and the plan, so it is post-processing: the rounds
// are the same two releases whatever the number of centres.
func underRule(pl Plan, nt float64, k int, eigen []float64, tau float64) int {
	if tau <= 0 || k <= 2 || !pl.Private() {
		return k
	}
	for m := k; m > 2; m-- {
		if centreNoise(pl, nt, m, eigen) <= tau {
			return m
		}
	}
	return 2
}

// parseUnder reads the option under: off (0), auto (underNoiseMax) or
// auto:τ with τ in (0, MaxUnder].
func parseUnder(v string) (float64, error) {
	switch v {
	case "off":
		return 0, nil
	case "auto":
		return underNoiseMax, nil
	}
	if c, ok := strings.CutPrefix(v, "auto:"); ok {
		f, err := strconv.ParseFloat(c, 64)
		if err == nil && f > 0 && f <= MaxUnder {
			return f, nil
		}
	}
	return 0, optf("option under is %q, must be off, auto or auto:τ (τ in (0, %g], the largest relative noise of a kept centre)", v, float64(MaxUnder))
}

// underString is the option's value as Options.String lists it.
func underString(tau float64) string {
	switch tau {
	case 0:
		return "off"
	case underNoiseMax:
		return "auto"
	}
	return "auto:" + strconv.FormatFloat(tau, 'g', -1, 64)
}

// chooseK fixes the number of centres of the release once the covariance
// is released (under=auto's underRule, else K) and returns it.
func (r *release) chooseK() int {
	if r.k != 0 {
		return r.k
	}
	r.k = r.src.K
	if r.o.Init != InitKMeansPlusPlus {
		r.k = underRule(r.pl, r.out.Matrix.NoisyN, r.src.K, r.out.Eigen, r.o.Under)
	}
	r.out.K, r.out.under = r.k, r.o.Under
	return r.k
}

// underWords says, when under=auto kept fewer centres than K, how many and
// why; "" otherwise.
func underWords(pl Plan, nt float64, k, used int, eigen []float64, tau float64) string {
	if used >= k || used == 0 || tau <= 0 {
		// tau 0: under=auto was off, so fewer centres came from elsewhere
		// (floor=F:drop's dropped groups, floor.go)
		return ""
	}
	return fmt.Sprintf("the budget supports %d of K = %d centres (under=auto: the relative noise of a centre of K clusters of average size ñ/K is %.3g, of %d clusters %.3g, bound %g); the labels take %d values", used, k, centreNoise(pl, nt, k, eigen), used, centreNoise(pl, nt, used, eigen), tau, used)
}

// underReason is the guarantee panel's line for under=auto: the rule is
// post-processing, and when the last release kept fewer centres than K it
// says how many ("" when the option is off).
func (r *runner) underReason() string {
	tau := r.st.o.Under
	if tau <= 0 {
		return ""
	}
	s := fmt.Sprintf("under=auto (bound %g): the number of centres, at most K, is read from the released cell count and eigenvalues (post-processing; each round is the same two releases whatever the number of centres)", tau)
	if outs := r.e.Outcomes(); len(outs) > 0 {
		if out := outs[len(outs)-1]; out.K > 0 && out.K < r.src.K {
			s += "; " + underWords(out.Plan, out.Matrix.NoisyN, r.src.K, out.K, out.Eigen, out.under)
		}
	}
	return s
}
