package dppca

import (
	"fmt"
	"math"
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

// MaxUnderCount bounds under=count:F's factor: an average cluster asked
// to hold more than 20 count-noise σ leaves two centres almost always.
const MaxUnderCount = 20

// underCountRule is under=count:F (the twenty-sixth attempt,
// docs/RESULTS.md): the largest m ≤ k, m ≥ 2, whose clusters of the
// average size ñ/m hold at least F times the Lloyd rounds' count noise
// σ_count; k without noise, with k ≤ 2, or with F ≤ 0 (off). It is
// floor=F:drop's test (a merged group whose released count is below
// F·σ_count cannot be told from empty, floor.go) asked before the rounds
// of the average cluster rather than after them of a merged one: it reads
// only the released cell count and the plan's public σ, not the
// eigenvalues, whose sum at a small n·ε is mostly the covariance's own
// noise (under=auto's rms norm; seventeenth attempt, step 5).
// Post-processing: every round is the same two releases whatever m.
func underCountRule(pl Plan, nt float64, k int, f float64) int {
	if f <= 0 || k <= 2 || !pl.Private() || !(pl.Counts > 0) {
		return k
	}
	m := int(math.Floor(max(nt, 0) / (f * pl.Counts)))
	return min(max(m, 2), k)
}

// parseUnder reads the option under: off (0, 0), auto (underNoiseMax),
// auto:τ with τ in (0, MaxUnder], or count:F with F in (0, MaxUnderCount]
// (underCountRule; returned as the second value).
func parseUnder(v string) (tau, count float64, err error) {
	switch v {
	case "off":
		return 0, 0, nil
	case "auto":
		return underNoiseMax, 0, nil
	}
	if c, ok := strings.CutPrefix(v, "auto:"); ok {
		f, err := strconv.ParseFloat(c, 64)
		if err == nil && f > 0 && f <= MaxUnder {
			return f, 0, nil
		}
	}
	if c, ok := strings.CutPrefix(v, "count:"); ok {
		f, err := strconv.ParseFloat(c, 64)
		if err == nil && f > 0 && f <= MaxUnderCount {
			return 0, f, nil
		}
	}
	return 0, 0, optf("option under is %q, must be off, auto, auto:τ (τ in (0, %g], the largest relative noise of a kept centre) or count:F (F in (0, %g], the least average cluster in count-noise σ)", v, float64(MaxUnder), float64(MaxUnderCount))
}

// underString is the option's value as Options.String lists it.
func underString(tau, count float64) string {
	switch {
	case count > 0:
		return "count:" + strconv.FormatFloat(count, 'g', -1, 64)
	case tau == 0:
		return "off"
	case tau == underNoiseMax:
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
		if r.o.UnderCount > 0 {
			r.k = underCountRule(r.pl, r.out.Matrix.NoisyN, r.src.K, r.o.UnderCount)
		} else {
			r.k = underRule(r.pl, r.out.Matrix.NoisyN, r.src.K, r.out.Eigen, r.o.Under)
		}
	}
	r.out.K, r.out.under, r.out.underCount = r.k, r.o.Under, r.o.UnderCount
	return r.k
}

// underWords says, when under=auto kept fewer centres than K, how many and
// why; "" otherwise.
func underWords(pl Plan, nt float64, k, used int, eigen []float64, tau, count float64) string {
	if used < k && used > 0 && count > 0 {
		return fmt.Sprintf("the budget supports %d of K = %d centres (under=count:%g: the Lloyd rounds' count noise is σ = %.3g per round, so clusters of average size ñ/K = %.0f hold %.2g σ and %d clusters of ñ/%d = %.0f hold %.2g σ, the least kept %g σ); the labels take %d values", used, k, count, pl.Counts, nt/float64(k), nt/float64(k)/pl.Counts, used, used, nt/float64(used), nt/float64(used)/pl.Counts, count, used)
	}
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
	tau, count := r.st.o.Under, r.st.o.UnderCount
	var s string
	switch {
	case count > 0:
		s = fmt.Sprintf("under=count:%g: the number of centres, at most K, is read from the released cell count and the rounds' public count noise (post-processing; each round is the same two releases whatever the number of centres)", count)
	case tau > 0:
		s = fmt.Sprintf("under=auto (bound %g): the number of centres, at most K, is read from the released cell count and eigenvalues (post-processing; each round is the same two releases whatever the number of centres)", tau)
	default:
		return ""
	}
	if outs := r.e.Outcomes(); len(outs) > 0 {
		if out := outs[len(outs)-1]; out.K > 0 && out.K < r.src.K {
			s += "; " + underWords(out.Plan, out.Matrix.NoisyN, r.src.K, out.K, out.Eigen, out.under, out.underCount)
		}
	}
	return s
}
