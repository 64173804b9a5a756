package dppca

import (
	"math"

	"github.com/dpscope/dpscope/core/cluster"
)

// Choose names the option choose: whether the merge of over-clustering is
// followed by a private choice between two candidate K-centre sets.
type Choose string

const (
	// ChooseOff keeps the merge's centres (the default).
	ChooseOff Choose = "off"
	// ChooseObjective forms a second candidate from the merge's centres
	// and the over-clustered pieces (splitMergePairs, post-processing) and
	// releases one scalar, the gap of the k-means objective
	// Σ_i [min_j ‖x_i − a_j‖² − min_j ‖x_i − b_j‖²] over the projected
	// rows, with Gaussian noise of μ = μ_total·√ShareChoose (taken from
	// the k-means share); the K-centre rounds start from the candidate
	// with the lower noisy objective. Its Δ is a bound read from the
	// released centres (chooseSens).
	//
	// Why (issue 16.2, pbmc_4k at ε 8, docs/RESULTS.md twenty-third and
	// twenty-fourth attempts): the low seed sits in a worse local optimum
	// of the private objective, with one large population cut in two and
	// two others joined; the second candidate undoes exactly that, and
	// only the data can say which of the two is better.
	ChooseObjective Choose = "objective"
)

// ShareChoose is choose=objective's share of μ², taken from the k-means.
const ShareChoose = 0.05

// chooseShare is choose=objective's share of μ², 0 when off.
func (o Options) chooseShare() float64 {
	if o.Choose == ChooseObjective {
		return ShareChoose
	}
	return 0
}

// chooseSens bounds how much one cell x (‖x‖ ≤ R) changes the gap
// min_j ‖x − a_j‖² − min_j ‖x − b_j‖²: with maps A→B and B→A that move
// each centre to a partner (pairs (i, j): a_i's partner b_j and back),
// |min_A − min_B| is at most the largest |‖x − a_i‖² − ‖x − b_j‖²| over
// the pairs, and |‖x − a‖² − ‖x − b‖²| = |(b − a)·(2x − a − b)| ≤
// ‖a − b‖·(2R + ‖a‖ + ‖b‖). Adding or removing one cell moves the sum by
// at most that. Read from released centres only.
func chooseSens(a, b []float64, pairs [][2]int, p int, R float64) float64 {
	var s float64
	for _, pr := range pairs {
		x, y := a[pr[0]*p:(pr[0]+1)*p], b[pr[1]*p:(pr[1]+1)*p]
		s = max(s, math.Sqrt(cluster.SqDist(x, y))*(2*R+math.Sqrt(cluster.SqDist(x, make([]float64, p)))+math.Sqrt(cluster.SqDist(y, make([]float64, p)))))
	}
	return s
}

// objectiveGap is Σ_i [min_j ‖x_i − a_j‖² − min_j ‖x_i − b_j‖²] over the
// n rows of x clipped to R.
func objectiveGap(x []float64, n, p int, a, b []float64, R float64) float64 {
	xc := append([]float64(nil), x[:n*p]...)
	clipRows(xc, n, p, R)
	_, wa := assign(xc, n, p, a)
	_, wb := assign(xc, n, p, b)
	return wa - wb
}

// choose is choose=objective at the merge: the merged centres against
// splitMergePairs' candidate, one noisy gap released (nonprivate: exact), the
// lower objective kept in r.out.Centres.
func (r *release) choose(pieces, pw []float64) {
	m, p := r.out.Matrix, len(r.out.Eigen)
	a := r.out.Centres
	b, pairs := splitMergePairs(a, pieceWeights(a, pieces, pw, p), pieces, pw, p)
	if b == nil {
		return
	}
	gap := objectiveGap(r.out.Proj, m.N, p, a, b, r.pl.R)
	if r.pl.ChooseMu > 0 {
		gap += chooseSens(a, b, pairs, p, r.pl.R) / r.pl.ChooseMu * r.rng.NormFloat64()
	}
	r.out.Chose, r.out.ChooseGap = 1, gap
	if gap > 0 {
		copy(r.out.Centres, b)
		r.out.Chose = 2
	}
}

// splitMergePairs returns a second candidate set of K centres from the
// final centres a (K rows of p, released counts w) and the over-clustered
// round's released pieces (centres pieces, counts pw; a count below one
// weighs nothing): each piece goes to its nearest final centre; the final
// cluster whose pieces' best two-group split lowers their weighted
// inertia most is replaced by the two groups' weighted means, and the
// pair of the other final centres of least Ward cost
// w_a·w_b/(w_a+w_b)·‖a − b‖² by their weighted mean. Post-processing of
// releases. It returns nil when no cluster has two weighted pieces or
// K < 3. With the candidate it returns the partner pairs (index in a,
// index in the candidate) of chooseSens: the split centre to both halves,
// the merged pair to their mean.
func splitMergePairs(a, w, pieces, pw []float64, p int) ([]float64, [][2]int) {
	k := len(a) / p
	if k < 3 || len(w) != k {
		return nil, nil
	}
	groups := make([][]int, k)
	for i := range len(pw) {
		if pw[i] < 1 {
			continue
		}
		j := nearestRow(pieces[i*p:(i+1)*p], a, p)
		groups[j] = append(groups[j], i)
	}
	best, gain := -1, 0.0
	var s1, s2 []float64
	for j, g := range groups {
		if len(g) < 2 {
			continue
		}
		c1, c2, gj := pieceSplit(g, pieces, pw, p)
		if gj > gain {
			best, gain, s1, s2 = j, gj, c1, c2
		}
	}
	if best < 0 {
		return nil, nil
	}
	ma, mb, cost := -1, -1, math.Inf(1)
	for x := range k {
		for y := x + 1; y < k; y++ {
			if x == best || y == best {
				continue
			}
			wx, wy := max(w[x], 1), max(w[y], 1)
			var d2 float64
			for t := range p {
				d := a[x*p+t] - a[y*p+t]
				d2 += d * d
			}
			if c := wx * wy / (wx + wy) * d2; c < cost {
				ma, mb, cost = x, y, c
			}
		}
	}
	if ma < 0 {
		return nil, nil
	}
	out := make([]float64, 0, k*p)
	wx, wy := max(w[ma], 1), max(w[mb], 1)
	merged := make([]float64, p)
	for t := range p {
		merged[t] = (wx*a[ma*p+t] + wy*a[mb*p+t]) / (wx + wy)
	}
	for j := range k {
		switch j {
		case best:
			out = append(out, s1...)
		case ma:
			out = append(out, merged...)
		case mb:
			out = append(out, s2...)
		default:
			out = append(out, a[j*p:(j+1)*p]...)
		}
	}
	return out, [][2]int{{best, best}, {best, mb}, {ma, ma}, {mb, ma}}
}

// nearestRow is the index of the row of c (rows of p) nearest to x.
func nearestRow(x, c []float64, p int) int {
	best, bd := 0, math.Inf(1)
	for j := range len(c) / p {
		var d2 float64
		for t, v := range x {
			d := v - c[j*p+t]
			d2 += d * d
		}
		if d2 < bd {
			best, bd = j, d2
		}
	}
	return best
}

// pieceSplit splits the weighted pieces g (indices into pieces, weights pw)
// into two groups: every split by a hyperplane through two pieces'
// midpoint is too many, so it tries each pair of pieces as two seeds,
// assigns the rest to the nearer seed and keeps the split of least
// weighted within-group inertia. It returns the two groups' weighted
// means and the inertia's drop from one group to two.
func pieceSplit(g []int, pieces, pw []float64, p int) ([]float64, []float64, float64) {
	mean := func(idx []int) ([]float64, float64) {
		c := make([]float64, p)
		var s float64
		for _, i := range idx {
			s += pw[i]
			for t := range p {
				c[t] += pw[i] * pieces[i*p+t]
			}
		}
		for t := range c {
			c[t] /= s
		}
		return c, s
	}
	inert := func(idx []int, c []float64) float64 {
		var v float64
		for _, i := range idx {
			for t := range p {
				d := pieces[i*p+t] - c[t]
				v += pw[i] * d * d
			}
		}
		return v
	}
	c0, _ := mean(g)
	base := inert(g, c0)
	var b1, b2 []float64
	bv := math.Inf(1)
	for x := range g {
		for y := x + 1; y < len(g); y++ {
			var ga, gb []int
			for _, i := range g {
				if nearestRow(pieces[i*p:(i+1)*p], append(append([]float64(nil), pieces[g[x]*p:(g[x]+1)*p]...), pieces[g[y]*p:(g[y]+1)*p]...), p) == 0 {
					ga = append(ga, i)
				} else {
					gb = append(gb, i)
				}
			}
			if len(ga) == 0 || len(gb) == 0 {
				continue
			}
			ca, _ := mean(ga)
			cb, _ := mean(gb)
			if v := inert(ga, ca) + inert(gb, cb); v < bv {
				bv, b1, b2 = v, ca, cb
			}
		}
	}
	if b1 == nil {
		return nil, nil, 0
	}
	return b1, b2, base - bv
}

// mergeHook, when not nil, sees each release's merged centres right after
// the merge, with the over-clustered pieces and counts it merged
// (diagnosis in tests only; nil in every release).
var mergeHook func(r *release, pieces, pw []float64)

// pieceWeights returns, for each centre of c (rows of p), the summed
// released counts (each below one weighing nothing) of the pieces nearest
// to it.
func pieceWeights(c, pieces, pw []float64, p int) []float64 {
	w := make([]float64, len(c)/p)
	for i, v := range pw {
		if v >= 1 {
			w[nearestRow(pieces[i*p:(i+1)*p], c, p)] += v
		}
	}
	return w
}
