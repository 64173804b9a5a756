package dppca

import (
	"math/rand/v2"
)

// mergeTau is the threshold of mergeRule: the standardised distance below
// which two released centres are taken as one group split by the k-means.
// Two halves of one Gaussian cut by k-means along an axis lie 1.6σ apart
// with a within-half sd of 0.6σ there: a standardised distance of 2.7; two
// groups that k-means keeps apart at their valley lie further.
const mergeTau = 3.0

// postRelease, when set, edits each Outcome releaseARI gets before its
// ARI: TestSimDesign's variant key merge=on applies mergeRule (a rule
// judged in tests before it is built into the release).
var postRelease func(out *Outcome, rng *rand.Rand)

// mergeRule is the seventh attempt's rule (docs/RESULTS.md), stated before
// measuring: after the last Lloyd round, merge released centres that are
// not separated, post-processing of releases only. From the released
// eigenvalues λ_j, the released cell count ñ, the released centres c_k
// and the last round's released counts ñ_k: the pooled within-cluster
// variance of component j is W_j = λ_j/ñ − Σ_k (ñ_k/ñ)·c_kj² (at least
// 5 % of λ_j/ñ); the standardised squared distance of centres a, b is
// Σ_j [(c_aj − c_bj)² − s²(1/ñ_a² + 1/ñ_b²)]/W_j, s the sums' noise sd
// (the centres' noise taken out); while the closest pair of clusters
// (counts ≥ 1) lies below mergeTau² and more than two remain, merge it
// (count-weighted centre, summed counts). Each cell takes its cluster's
// merged label. In this test form the last round's counts are drawn
// again from the final labels with the plan's count noise, which has the
// released counts' distribution (the built form would keep the released
// ones, at no cost). It returns the number of merges.
func mergeRule(out *Outcome, rng *rand.Rand) int {
	pl, p := out.Plan, len(out.Eigen)
	k := len(out.Centres) / max(p, 1)
	if p == 0 || k < 3 {
		return 0
	}
	nt := max(out.Matrix.NoisyN, 1)
	if nt <= 1 {
		nt = float64(out.Matrix.N)
	}
	cnt := make([]float64, k)
	for _, l := range out.Labels {
		cnt[l]++
	}
	for j := range cnt {
		if pl.Counts > 0 {
			cnt[j] += pl.Counts * rng.NormFloat64()
		}
	}
	c := append([]float64(nil), out.Centres...)
	w := make([]float64, p)
	for j := range p {
		tot := max(out.Eigen[j], 0) / nt
		b := 0.0
		for a := range k {
			if cnt[a] >= 1 {
				b += cnt[a] / nt * c[a*p+j] * c[a*p+j]
			}
		}
		w[j] = max(tot-b, 0.05*tot, 1e-12)
	}
	alive := make([]bool, k)
	n := 0
	for a := range k {
		if cnt[a] >= 1 {
			alive[a] = true
			n++
		}
	}
	to := make([]int, k)
	for a := range to {
		to[a] = a
	}
	s2 := pl.Sums * pl.Sums
	merges := 0
	for n > 2 {
		ba, bb, best := -1, -1, mergeTau*mergeTau
		for a := range k {
			if !alive[a] {
				continue
			}
			for b := a + 1; b < k; b++ {
				if !alive[b] {
					continue
				}
				var d float64
				for j := range p {
					x := c[a*p+j] - c[b*p+j]
					d += (x*x - s2*(1/(cnt[a]*cnt[a])+1/(cnt[b]*cnt[b]))) / w[j]
				}
				if d < best {
					ba, bb, best = a, b, d
				}
			}
		}
		if ba < 0 {
			break
		}
		na, nb := cnt[ba], cnt[bb]
		for j := range p {
			c[ba*p+j] = (na*c[ba*p+j] + nb*c[bb*p+j]) / (na + nb)
		}
		cnt[ba] = na + nb
		alive[bb] = false
		for x := range to {
			if to[x] == bb {
				to[x] = ba
			}
		}
		n--
		merges++
	}
	for i, l := range out.Labels {
		out.Labels[i] = to[l]
	}
	out.NonEmpty = n
	return merges
}
