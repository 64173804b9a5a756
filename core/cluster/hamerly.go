package cluster

import (
	"context"
	"math"
)

// boundSlack is the relative margin kept on a directly computed distance
// (tightened upper bound) so that rounding can never prune a row whose
// nearest centroid changed: a sum of d ≤ 10⁴ squared differences errs by at
// most d·2⁻⁵³ ≈ 1.1e-12 relative, and the square root halves that.
const boundSlack = 1e-12

// gramSlack bounds the rounding error of the Gram-form squared distance
// ‖x‖² + ‖c‖² − 2x·c relative to ‖x‖² + ‖c‖² (each dot product of length
// d ≤ 10⁴ errs by at most d·2⁻⁵³ of its magnitude, below 1.1e-12 of it).
const gramSlack = 4e-12

// hamerly holds the bounds of Hamerly's accelerated Lloyd iteration
// (Hamerly 2010, https://doi.org/10.1137/1.9781611972801.12): for each row
// an upper bound upper[i] on its distance to its centroid and a lower bound
// lower[i] on its distance to every other centroid. A row whose upper bound
// is below max(lower[i], half the distance from its centroid to the nearest
// other) cannot change cluster and is skipped. Labels are those of Lloyd's
// algorithm, except that a row exactly tied between two centroids may keep
// its current one.
type hamerly struct {
	upper, lower []float64
	half         []float64 // half[j] = ½ min_{j'≠j} ‖c_j − c_j'‖
	move         []float64 // move[j] = ‖c_j' − c_j‖ of the last update
	prev         []float64 // k×d centroids before the last update
	maxCnorm     float64   // max_j ‖c_j‖² of the current centroids
}

// prepare computes the centroid norms scan needs.
func (h *hamerly) prepare(w *lloyd) {
	w.prepare()
	h.maxCnorm = 0
	for _, v := range w.cnorm {
		h.maxCnorm = max(h.maxCnorm, v)
	}
}

func newHamerly(n, k, d int) *hamerly {
	return &hamerly{
		upper: make([]float64, n), lower: make([]float64, n),
		half: make([]float64, k), move: make([]float64, k),
		prev: make([]float64, k*d),
	}
}

// scan assigns row i to its nearest centroid (lowest index on ties) and
// resets its bounds; it reports whether the label changed. prepare must
// have been called for the current centroids. Squared distances come from
// the Gram form ‖x‖² + ‖c‖² − 2x·c, whose rounding error is below
// gramSlack·(‖x‖² + max_j ‖c_j‖²); the bounds are widened by it.
func (w *lloyd) scan(h *hamerly, i int) bool {
	w.rowDots(i)
	b1, b2, bj := math.Inf(1), math.Inf(1), 0
	for j, s := range w.dots {
		v := w.cnorm[j] - 2*s
		if v < b1 {
			b1, b2, bj = v, b1, j
		} else if v < b2 {
			b2 = v
		}
	}
	xn := w.xnorm[i]
	e := gramSlack * (xn + h.maxCnorm)
	h.upper[i] = math.Sqrt(max(xn+b1+e, 0))
	h.lower[i] = math.Sqrt(max(xn+b2-e, 0))
	w.dist[i] = max(xn+b1, 0)
	changed := w.labels[i] != bj
	w.labels[i] = bj
	return changed
}

// hamerlyAssign updates the labels of all rows that the bounds do not
// exclude, and returns the number of labels changed.
func (w *lloyd) hamerlyAssign(h *hamerly) int {
	d, k := w.d, w.k
	h.prepare(w)
	for j := range k {
		m := math.Inf(1)
		for q := range k {
			if q != j {
				m = min(m, SqDist(w.centers[j*d:j*d+d], w.centers[q*d:q*d+d]))
			}
		}
		h.half[j] = math.Sqrt(m) / 2
	}
	changed := 0
	for i := range w.n {
		a := w.labels[i]
		bound := max(h.half[a], h.lower[i])
		if h.upper[i] <= bound {
			continue
		}
		// Tighten the upper bound and test again before a full scan.
		v := SqDist(w.x[i*d:i*d+d], w.centers[a*d:a*d+d])
		u := math.Sqrt(v)
		h.upper[i] = u + boundSlack*(u+math.Sqrt(w.xnorm[i]))
		w.dist[i] = v
		if h.upper[i] <= bound {
			continue
		}
		if w.scan(h, i) {
			changed++
		}
	}
	return changed
}

// runHamerly does Lloyd
// iterations, pruned by Hamerly's bounds, from the current centers until no label changes, the squared
// centre shift is at most tolAbs, or maxIter iterations, and ends with
// labels consistent with the final centroids. It returns the number of
// iterations and whether it converged before maxIter.
func (w *lloyd) runHamerly(ctx context.Context, maxIter int, tolAbs float64) (iters int, converged bool, err error) {
	d, k := w.d, w.k
	h := newHamerly(w.n, k, d)
	h.prepare(w)
	for i := range w.n {
		w.labels[i] = -1
		w.scan(h, i)
	}
	strict := false
	for iters < maxIter {
		if err := ctx.Err(); err != nil {
			return iters, false, err
		}
		var changed int
		if iters > 0 {
			changed = w.hamerlyAssign(h)
		}
		copy(h.prev, w.centers)
		relocated := w.update()
		var shift float64
		for j := range k {
			m := SqDist(w.centers[j*d:j*d+d], h.prev[j*d:j*d+d])
			shift += m
			h.move[j] = math.Sqrt(m)
		}
		iters++
		if iters > 1 && changed == 0 && !relocated {
			strict, converged = true, true
			break
		}
		if relocated {
			// Labels were moved by hand: rescan every row.
			h.prepare(w)
			for i := range w.n {
				w.scan(h, i)
			}
		} else {
			w.shiftBounds(h)
		}
		if shift <= tolAbs {
			converged = true
			break
		}
	}
	if !strict {
		w.hamerlyAssign(h)
	}
	return iters, converged, nil
}

// shiftBounds moves the bounds by the centroid moves: the upper bound grows
// by the move of the row's centroid, the lower bound shrinks by the largest
// move of any other centroid.
func (w *lloyd) shiftBounds(h *hamerly) {
	r1, r2 := 0, -1 // indices of the largest and second-largest moves
	for j := 1; j < w.k; j++ {
		if h.move[j] > h.move[r1] {
			r1, r2 = j, r1
		} else if r2 < 0 || h.move[j] > h.move[r2] {
			r2 = j
		}
	}
	for i, a := range w.labels {
		h.upper[i] += h.move[a]
		other := 0.0
		if a != r1 {
			other = h.move[r1]
		} else if r2 >= 0 {
			other = h.move[r2]
		}
		h.lower[i] -= other
	}
}
