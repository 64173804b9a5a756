package dpmd

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/blas"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/neighbors"
	"github.com/dpscope/dpscope/core/safe"
)

// segmentLen is the number of consecutive references (in chain order) one
// task of LocalPCA handles. It is fixed, so results do not depend on the
// number of workers.
const segmentLen = 128

// Tangents holds the local PCA of every reference point: the top-d
// eigenvectors V_i (D × d, orthonormal columns) of the covariance of the
// references within h of y_i, around their mean. P_{y_i} = V_i V_iᵀ is
// never formed.
type Tangents struct {
	N, D, Dim int
	H         float64
	V         []float64 // N blocks of D × d, row-major
	Count     []int32   // references within h of y_i, y_i included
	// Small counts the references with fewer than d + 1 neighbours, whose
	// covariance has rank < d (their V_i completes the range arbitrarily).
	Small int
}

// Basis returns V_i (not a copy).
func (t *Tangents) Basis(i int) []float64 { return t.V[i*t.D*t.Dim : (i+1)*t.D*t.Dim] }

// checkPoints validates an n × D point set.
func checkPoints(name string, y []float64, n, D int) error {
	switch {
	case n < 1:
		return core.Wrapf(ErrInput, "dpmd: %s is empty, must hold at least one point", name)
	case D < 1 || len(y) != n*D:
		return core.Wrapf(ErrInput, "dpmd: %s has %d values, must be n·D = %d·%d", name, len(y), n, D)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return core.Wrapf(ErrInput, "dpmd: %s point %d coordinate %d is %v, must be finite", name, i/D, i%D, v)
		}
	}
	return nil
}

// checkGeometry validates h and d for ambient dimension D.
func checkGeometry(h float64, d, D int) error {
	if math.IsNaN(h) || math.IsInf(h, 0) || h <= 0 {
		return core.Wrapf(ErrInput, "dpmd: h is %v, must be finite and > 0", h)
	}
	if d < 1 || d >= D {
		return core.Wrapf(ErrInput, "dpmd: d is %d, must be in [1, D−1] = [1, %d]", d, D-1)
	}
	return nil
}

// LocalPCA computes the tangent basis of every reference of y (row-major
// n × D): for each y_i, the neighbours N_i = {j : ‖y_j − y_i‖ ≤ h} (closed
// ball, y_i included), their covariance
//
//	C_i = (1/k) Σ_{j∈N_i} (y_j − μ_i)(y_j − μ_i)ᵀ,  μ_i = (1/k) Σ_{j∈N_i} y_j,
//
// and its top-d eigenvectors (the paper's Algorithm 1, step 1–2, and
// Algorithm 2's P_{y_i}).
//
// Route. References are visited along a chain (Morton order of their
// coordinates on the top three global principal axes) in fixed segments of
// segmentLen, run in parallel (at most GOMAXPROCS at once). Within a
// segment the raw moments Σ(y_j − a), Σ(y_j − a)(y_j − a)ᵀ about the
// segment's first reference a are updated from one reference to the next
// by the symmetric difference of their neighbour sets (sorted lists,
// merged), two rank-k updates (Dsyrk) for the added and the removed — a
// few per cent of the neighbourhood for nearby centres instead of all of it — and
// recomputed from scratch when that is cheaper. The top-d subspace comes
// from block subspace iteration warm-started at the previous reference's
// (see topSubspace; exact to angle 1e-10, LAPACK's Dsyev for D ≤ 16 or on
// failure). Results are bit-identical for any number of workers.
//
// It returns an error wrapping ErrInput for an empty or non-finite y, h ≤ 0
// or d outside [1, D−1], and ctx.Err() when cancelled.
func LocalPCA(ctx context.Context, y []float64, n, D int, h float64, d int) (*Tangents, error) {
	if err := checkPoints("references", y, n, D); err != nil {
		return nil, err
	}
	if err := checkGeometry(h, d, D); err != nil {
		return nil, err
	}
	bl := compute.Impl64()
	order, ys, start := chainStore(bl, y, n, D, d)
	ix, err := neighbors.New(ys, n, D, neighbors.Choose(D, 0))
	if err != nil {
		return nil, fmt.Errorf("dpmd: local PCA: %w", err)
	}
	t := &Tangents{N: n, D: D, Dim: d, H: h, V: make([]float64, n*D*d), Count: make([]int32, n)}
	nseg := (n + segmentLen - 1) / segmentLen
	g, gctx := errgroup.WithContext(ctx)
	procs := runtime.GOMAXPROCS(0)
	pool := make(chan *pcaWorker, procs)
	for range procs {
		pool <- &pcaWorker{s: ix.NewSearcher(), ew: newEigWork(bl), bl: bl}
	}
	g.SetLimit(procs)
	for sgi := range nseg {
		if gctx.Err() != nil {
			break
		}
		g.Go(safe.Func(func() error {
			w := <-pool
			defer func() { pool <- w }()
			if err := gctx.Err(); err != nil {
				return err
			}
			lo, hi := sgi*segmentLen, min(n, (sgi+1)*segmentLen)
			return w.segment(t, ys, D, h, d, order, lo, hi, start)
		}))
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("dpmd: local PCA: %w", err)
	}
	for _, c := range t.Count {
		if int(c) < d+1 {
			t.Small++
		}
	}
	return t, nil
}

// pcaWorker is one goroutine's scratch for LocalPCA segments.
type pcaWorker struct {
	s        *neighbors.Searcher
	ew       *eigWork
	bl       blas.Float64
	qs       []float64
	lists    [][]int32
	m, c     []float64 // D × D (m: upper triangle only)
	sum, a   []float64 // D
	g        []float64 // rows × D
	add, rem []int32
}

// segment computes the tangents of the stored references lo..hi−1 (y is
// in chain order; order maps a stored index to the caller's).
func (w *pcaWorker) segment(t *Tangents, y []float64, D int, h float64, d int, order []int32, lo, hi int, start []float64) error {
	L := hi - lo
	w.qs = grow(w.qs, L*D)
	copy(w.qs, y[lo*D:hi*D])
	if len(w.lists) < L {
		w.lists = append(w.lists, make([][]int32, L-len(w.lists))...)
	}
	err := w.s.RadiusBatch(w.qs, L, h, func(k int, idx []int32, _ []float64) error {
		w.lists[k] = append(w.lists[k][:0], idx...)
		return nil
	})
	if err != nil {
		return err
	}
	w.m, w.c = grow(w.m, D*D), grow(w.c, D*D)
	w.sum, w.a = grow(w.sum, D), grow(w.a, D)
	copy(w.a, w.qs[:D])
	var prev []int32
	for k := range L {
		i := order[lo+k]
		cur := w.lists[k]
		if k == 0 || !w.update(y, D, prev, cur) {
			w.full(y, D, cur)
		}
		prev = cur
		kk := float64(len(cur))
		for r := range D { // w.m holds the upper triangle
			mr := w.sum[r] / kk
			for s := r; s < D; s++ {
				v := w.m[r*D+s]/kk - mr*w.sum[s]/kk
				w.c[r*D+s], w.c[s*D+r] = v, v
			}
		}
		st := start
		if k > 0 {
			st = w.ew.q
		}
		if err := w.ew.topSubspace(t.Basis(int(i)), w.c, D, d, st); err != nil {
			return fmt.Errorf("reference %d: %w", i, err)
		}
		t.Count[i] = int32(len(cur))
	}
	return nil
}

// full sets the moments about w.a from scratch for the neighbour set cur.
func (w *pcaWorker) full(y []float64, D int, cur []int32) {
	w.g = w.gather(w.g, y, D, cur, 1)
	clear(w.sum)
	for r := range cur {
		for s, v := range w.g[r*D : (r+1)*D] {
			w.sum[s] += v
		}
	}
	w.bl.Dsyrk(blas.Upper, blas.Trans, D, len(cur), 1, w.g, D, 0, w.m, D)
}

// update moves the moments from the set prev to cur by their symmetric
// difference; it reports false (and changes nothing) when a full
// recomputation is cheaper.
func (w *pcaWorker) update(y []float64, D int, prev, cur []int32) bool {
	w.add, w.rem = w.add[:0], w.rem[:0]
	a, b := 0, 0
	for a < len(prev) || b < len(cur) {
		switch {
		case b == len(cur) || (a < len(prev) && prev[a] < cur[b]):
			w.rem = append(w.rem, prev[a])
			a++
		case a == len(prev) || cur[b] < prev[a]:
			w.add = append(w.add, cur[b])
			b++
		default:
			a++
			b++
		}
	}
	r := len(w.add) + len(w.rem)
	if r >= len(cur) {
		return false
	}
	if r == 0 {
		return true
	}
	w.g = grow(w.g, r*D)
	for q := range r {
		j, sgn := int32(0), 1.0
		if q < len(w.add) {
			j = w.add[q]
		} else {
			j, sgn = w.rem[q-len(w.add)], -1
		}
		row := y[int(j)*D : (int(j)+1)*D]
		g := w.g[q*D : (q+1)*D]
		for s, v := range row {
			x := v - w.a[s]
			g[s] = x
			w.sum[s] += sgn * x
		}
	}
	// Upper triangle: + Σ_added g gᵀ − Σ_removed g gᵀ, two rank-k updates
	// (half the work of one product [added; removed]ᵀ[added; −removed]).
	if a := len(w.add); a > 0 {
		w.bl.Dsyrk(blas.Upper, blas.Trans, D, a, 1, w.g, D, 1, w.m, D)
	}
	if a := len(w.add); r > a {
		w.bl.Dsyrk(blas.Upper, blas.Trans, D, r-a, -1, w.g[a*D:], D, 1, w.m, D)
	}
	return true
}

// gather writes sign·(y_j − a) for j in idx into dst (rows × D).
func (w *pcaWorker) gather(dst, y []float64, D int, idx []int32, sign float64) []float64 {
	dst = grow(dst, len(idx)*D)
	for r, j := range idx {
		row := y[int(j)*D : (int(j)+1)*D]
		out := dst[r*D : (r+1)*D]
		for s, v := range row {
			out[s] = sign * (v - w.a[s])
		}
	}
	return dst
}

// globalAxes returns the top min(3, D) principal axes of y (D × q) and the
// top-b block (D × blockSize(D, d)) that starts every segment's subspace
// iteration. For D ≤ 3 the axes are the coordinates.
func globalAxes(bl blas.Float64, y []float64, n, D, d int) (axes []float64, start []float64) {
	mean := make([]float64, D)
	for i := range n {
		for j, v := range y[i*D : (i+1)*D] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	c := make([]float64, D*D)
	bl.Dgemm(blas.Trans, blas.NoTrans, D, D, n, 1/float64(n), y, D, y, D, 0, c, D)
	for r := range D {
		for s := range D {
			c[r*D+s] -= mean[r] * mean[s]
		}
	}
	ew := newEigWork(bl)
	b := blockSize(D, d)
	start = make([]float64, D*b)
	if b < D {
		if err := ew.direct(start, c, D, b); err != nil {
			start = nil
		}
	} else {
		start = nil
	}
	q := min(3, D)
	axes = make([]float64, D*q)
	if D <= 3 {
		for j := range D {
			axes[j*q+j] = 1
		}
		return axes, start
	}
	if err := ew.direct(axes, c, D, q); err != nil {
		for j := range q {
			axes[j*q+j] = 1
		}
	}
	return axes, start
}

// chainStore returns the chain order of the references y (n × D; see
// chainOrder), a copy of y in that order, and the start block of globalAxes.
// Searched and gathered in chain order, the references a query or a
// reference sees — listed by increasing stored index — come in runs of
// consecutive rows, which are read sequentially.
func chainStore(bl blas.Float64, y []float64, n, D, d int) (order []int32, ys, start []float64) {
	axes, start := globalAxes(bl, y, n, D, d)
	order = chainOrder(y, n, D, axes)
	ys = make([]float64, n*D)
	for k, i := range order {
		copy(ys[k*D:(k+1)*D], y[int(i)*D:(int(i)+1)*D])
	}
	return order, ys, start
}

// chainOrder returns the references sorted by the Morton (Z-order) code of
// their coordinates on axes (D × q), quantised to 21 bits each, ties by
// index: nearby references come close together in the chain.
func chainOrder(y []float64, n, D int, axes []float64) []int32 {
	q := len(axes) / D
	proj := make([]float64, n*q)
	lo := make([]float64, q)
	hi := make([]float64, q)
	for j := range q {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := range n {
		for j := range q {
			var s float64
			for r, v := range y[i*D : (i+1)*D] {
				s += v * axes[r*q+j]
			}
			proj[i*q+j] = s
			lo[j], hi[j] = min(lo[j], s), max(hi[j], s)
		}
	}
	codes := make([]uint64, n)
	const bits = 21
	for i := range n {
		var code uint64
		for j := range q {
			span := hi[j] - lo[j]
			var u uint64
			if span > 0 {
				u = uint64((proj[i*q+j] - lo[j]) / span * float64(1<<bits-1))
			}
			for b := range bits {
				code |= ((u >> b) & 1) << (b*q + j)
			}
		}
		codes[i] = code
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(codes[a], codes[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}
