package dppca

import (
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core/cluster"
)

// MaxFloor bounds the option floor (Options.Floor): a floor of ten count
// noise sds would refuse clusters of a few hundred cells at ε 8 on
// pbmc_4k, more than the noise can explain.
const MaxFloor = 10

// FloorNoise is the multiple of the released count noise σ_count the
// option floor is stated with (floor=3; docs/RESULTS.md, dppca twentieth
// attempt). Why 3, fixed before any run: a group of the merge becomes a
// cluster whose next released count carries noise σ_count and whose
// released centre carries noise √p·σ_sum/n = R·σ_count/n (the plan's
// split makes the two equal); at n = 3·σ_count that is R/3, and the count
// of an empty group exceeds 3·σ_count with probability 0.13 %. A merged
// group's weight is the sum of its pieces' released counts, so its noise
// is √m·σ_count for m pieces: 3 rather than the overlap merge's 2 leaves
// room for two or three pieces.
const FloorNoise = 3

// DefaultFloor and DefaultFloorMode are the option floor's default, set
// by Parse when floor is absent (floor=3:drop): adopted by rule G17,
// stated and committed before the fresh draws that judged it
// (DPSCOPE_DPPCA_FRESH=18, the 14 families, ε 1–16: −0.0002 ± 0.0005
// ARI per cell, the mean sd over seeds 0.0421 → 0.0418, no family below
// its guard, no cell below −0.10; docs/RESULTS.md, dppca twentieth
// attempt). It passed by G17's spread arm, whose margin is small; it does
// not reach pbmc_4k's low seed at ε 8 (no group of that seed is near the
// floor). Library callers' zero Options stay without a floor.
const (
	DefaultFloor     = FloorNoise
	DefaultFloorMode = FloorDrop
)

// FloorOff is the mode Parse records for an explicit floor=0, so String
// can tell it from the default (a library caller's zero Options has mode
// "" and no floor either).
const FloorOff FloorMode = "off"

// floorWeight returns the least released weight a group of the merge may
// have under o (Options.Floor·σ_count of the plan's Lloyd rounds), 0 when
// the floor is off or the release has no count noise (nonprivate).
func (o Options) floorWeight(pl Plan) float64 {
	return o.Floor * pl.Counts
}

// FloorMode is how the option floor treats a merge that leaves a group
// below it (Options.FloorMode, "floor=F:MODE").
type FloorMode string

// Floor modes. All are post-processing of the released centres and
// counts at the merge.
const (
	// FloorSplit (floor=F, the first form): each restart of the weighted
	// k-means merge that leaves a group below the floor is repaired
	// (floorRepair: the lightest such group's centre moved to split the
	// heaviest group), and the run of least weighted inertia meeting the
	// floor is kept.
	FloorSplit FloorMode = "split"
	// FloorRestart (floor=F:restart): no repair; among the restarts the
	// one of least weighted inertia whose every group meets the floor is
	// kept, or, when none does, the k-means merge's own choice.
	FloorRestart FloorMode = "restart"
	// FloorDrop (floor=F:drop): the k-means merge's own choice, then each
	// group below the floor is dropped (its centres join their nearest
	// other group; weighted Lloyd on the rest), so the K-centre rounds run
	// with fewer centres (at least two) and no population is re-split to
	// make up the number.
	FloorDrop FloorMode = "drop"
)

// mergeCentresFloor is mergeCentres with a floor nmin on the merged
// groups' summed released counts (Options.Floor, Options.FloorMode):
// under FloorSplit each of the seedRestarts weighted k-means++ + Lloyd
// runs on the released centres c (rows of p, weighted by their released
// counts, a count below one weighing nothing) that leaves a group below
// nmin is repaired (floorRepair), and the kept run is the one of least
// weighted inertia among those whose every group reaches nmin, or, when
// none does, among those with the fewest groups below it; FloorRestart
// and FloorDrop as their constants say. Post-processing of releases;
// with nmin ≤ 0 it is mergeCentres bit for bit (the same draws from rng).
// With fewer than k weighted centres the first k centres of c are kept,
// as mergeCentres does. Under FloorDrop it may return fewer than k
// centres.
func mergeCentresFloor(c, counts []float64, p, k int, nmin float64, mode FloorMode, rng *rand.Rand) []float64 {
	return mergeCentresStarts(c, counts, p, k, nmin, mode, rng, 0)
}

// mergeCentresStarts is mergeCentresFloor with extra further weighted
// k-means++ + Lloyd starts (mergestarts, merge.go) after the seedRestarts
// drawn from rng; the extra starts draw from piecesRng(c, counts), so rng
// is read exactly as mergeCentresFloor reads it. With extra ≤ 0 it is
// mergeCentresFloor bit for bit.
func mergeCentresStarts(c, counts []float64, p, k int, nmin float64, mode FloorMode, rng *rand.Rand, extra int) []float64 {
	w := make([]float64, len(counts))
	m := 0
	for j, v := range counts {
		if v >= 1 {
			w[j] = v
			m++
		}
	}
	if m < k {
		out := make([]float64, 0, k*p)
		for j := range k {
			out = append(out, c[j*p:(j+1)*p]...)
		}
		return out
	}
	best, bestCost, bestLow := []float64(nil), math.Inf(1), math.MaxInt
	plain, plainCost := []float64(nil), math.Inf(1) // mergeCentres' choice
	var xr *rand.Rand
	if extra > 0 {
		xr = piecesRng(c, counts)
	}
	for i := range seedRestarts + max(extra, 0) {
		src := rng
		if i >= seedRestarts {
			src = xr
		}
		s := cluster.WeightedPlusPlus(c, w, p, k, src)
		cost := cluster.WeightedLloyd(c, w, p, s, seedLloyd)
		if cost < plainCost {
			plain, plainCost = s, cost
		}
		if nmin <= 0 || mode == FloorDrop {
			continue
		}
		low := 0
		if mode == FloorRestart {
			low = min(1, groupsBelow(c, w, p, s, nmin))
		} else {
			s = append([]float64(nil), s...)
			cost, low = floorRepair(c, w, p, s, nmin, cost)
		}
		if low < bestLow || (low == bestLow && cost < bestCost) {
			best, bestCost, bestLow = s, cost, low
		}
	}
	switch {
	case nmin <= 0:
		return plain
	case mode == FloorDrop:
		return floorDrop(c, w, p, plain, nmin)
	case mode == FloorRestart && bestLow > 0:
		return plain
	}
	return best
}

// groupsBelow returns how many of the groups the centres s make of the
// weighted points pts (nearest centre) weigh less than nmin.
func groupsBelow(pts, w []float64, p int, s []float64, nmin float64) int {
	_, wt := weightedGroups(pts, w, p, s)
	low := 0
	for _, v := range wt {
		if v < nmin {
			low++
		}
	}
	return low
}

// floorDrop removes from the centres s (rows of p) of a merge of the
// weighted points pts the groups that weigh less than nmin, the lightest
// first and one at a time, keeping at least two: each time the points of
// the removed group go to their nearest remaining centre and weighted
// Lloyd runs on the rest. It returns the centres left (a copy).
func floorDrop(pts, w []float64, p int, s []float64, nmin float64) []float64 {
	s = append([]float64(nil), s...)
	for len(s)/p > 2 {
		_, wt := weightedGroups(pts, w, p, s)
		lightest := -1
		for j, v := range wt {
			if v < nmin && (lightest < 0 || v < wt[lightest]) {
				lightest = j
			}
		}
		if lightest < 0 {
			break
		}
		s = append(s[:lightest*p], s[(lightest+1)*p:]...)
		cluster.WeightedLloyd(pts, w, p, s, seedLloyd)
	}
	return s
}

// floorRepair refuses, up to k times, the partition of the weighted
// points pts (weights w) by the centres s (rows of p, changed in place):
// while a group's summed weight is below nmin, the lightest such group's
// centre is moved onto the point of the heaviest group that adds most to
// that group's inertia (largest w·d², the k-means++ choice made
// deterministic) and weighted Lloyd runs again; the heaviest group is
// taken among those of two or more points of positive weight (one point
// cannot be split). The lightest group's points go to their nearest other
// centre at the next assignment, so a small group is merged into its
// neighbour and the heaviest group re-split. It returns the weighted
// inertia and how many groups stay below nmin (0: the floor is met).
func floorRepair(pts, w []float64, p int, s []float64, nmin, cost float64) (float64, int) {
	k := len(s) / p
	for range k + 1 {
		lab, wt := weightedGroups(pts, w, p, s)
		pieces := make([]int, k) // points of positive weight, by group
		for i, l := range lab {
			if w[i] > 0 {
				pieces[l]++
			}
		}
		low, lightest, heaviest := 0, -1, -1
		for j := range k {
			if wt[j] < nmin {
				low++
				if lightest < 0 || wt[j] < wt[lightest] {
					lightest = j
				}
			}
			if pieces[j] > 1 && (heaviest < 0 || wt[j] > wt[heaviest]) {
				heaviest = j
			}
		}
		if low == 0 {
			return cost, 0
		}
		far, fd := -1, 0.0
		for i, l := range lab {
			if heaviest < 0 || l != heaviest || w[i] == 0 {
				continue
			}
			if d := w[i] * cluster.SqDist(pts[i*p:(i+1)*p], s[heaviest*p:(heaviest+1)*p]); d > fd {
				far, fd = i, d
			}
		}
		if heaviest < 0 || far < 0 || heaviest == lightest {
			return cost, low
		}
		copy(s[lightest*p:(lightest+1)*p], pts[far*p:(far+1)*p])
		cost = cluster.WeightedLloyd(pts, w, p, s, seedLloyd)
	}
	return cost, groupsBelow(pts, w, p, s, nmin)
}

// weightedGroups assigns each weighted point to its nearest centre of s
// and returns the labels and each group's summed weight.
func weightedGroups(pts, w []float64, p int, s []float64) ([]int, []float64) {
	lab := make([]int, len(w))
	wt := make([]float64, len(s)/p)
	for i := range w {
		j := cluster.Nearest(pts[i*p:(i+1)*p], s, p)
		lab[i] = j
		wt[j] += w[i]
	}
	return lab, wt
}
