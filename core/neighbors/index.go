package neighbors

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/spatial/kdtree"

	"github.com/dpscope/dpscope/core/compute"

	"github.com/dpscope/dpscope/internal/errkind"
)

// Method names a route of neighbour search.
type Method int

const (
	// Auto picks KDTree for D ≤ MaxKDTreeDim and Brute otherwise.
	Auto Method = iota
	// KDTree searches gonum's k-d tree.
	KDTree
	// Brute computes all distances with matrix products.
	Brute
)

// MaxKDTreeDim is the largest ambient dimension for which Auto uses the k-d
// tree. Above it a tree prunes little at the bandwidths of manifold
// denoising, and the numpy peer (../shared/peers/DPMD_RESULTS.md §5) found
// its GEMM sweep 3–14× faster than a tree already in R² and R³ whenever a
// ball holds more than a few per cent of the references.
const MaxKDTreeDim = 3

// String returns "auto", "kdtree" or "brute".
func (m Method) String() string {
	switch m {
	case Auto:
		return "auto"
	case KDTree:
		return "kdtree"
	case Brute:
		return "brute"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Choose returns the route Auto takes for dimension dim when a ball is
// expected to hold the share frac ∈ [0, 1] of the references (use 0 when
// unknown): the tree only when dim ≤ MaxKDTreeDim and frac < 2 %.
func Choose(dim int, frac float64) Method {
	if dim <= MaxKDTreeDim && frac < 0.02 {
		return KDTree
	}
	return Brute
}

// ErrInput is wrapped by every error about the points or a query.
var ErrInput = errors.New("neighbors: invalid input")

// Index holds n reference points in R^dim for exact radius and k-nearest
// searches. It is immutable after New and safe for concurrent use; each
// goroutine searches through its own Searcher.
type Index struct {
	n, dim int
	method Method
	raw    []float64 // n × dim, a copy of the points
	cen    []float64 // n × dim, centred on mean (Brute)
	norm   []float64 // ‖cen_i‖² (Brute)
	mean   []float64
	tree   *kdtree.Tree
	blas   blas.Float64
}

// New copies points (row-major n × dim) into an index searched by method.
// It returns an error wrapping ErrInput when n < 1, dim < 1, the length is
// not n·dim, or a coordinate is NaN or infinite.
func New(points []float64, n, dim int, method Method) (*Index, error) {
	switch {
	case n < 1:
		return nil, errkind.Wrapf(ErrInput, "neighbors: n is %d, must be ≥ 1", n)
	case dim < 1:
		return nil, errkind.Wrapf(ErrInput, "neighbors: dim is %d, must be ≥ 1", dim)
	case len(points) != n*dim:
		return nil, errkind.Wrapf(ErrInput, "neighbors: points has %d values, must be n·dim = %d", len(points), n*dim)
	case method < Auto || method > Brute:
		return nil, errkind.Wrapf(ErrInput, "neighbors: method is %d, must be auto, kdtree or brute", int(method))
	}
	for i, v := range points {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errkind.Wrapf(ErrInput, "neighbors: coordinate %d of point %d is %v, must be finite", i%dim, i/dim, v)
		}
	}
	if method == Auto {
		method = Choose(dim, 0)
	}
	ix := &Index{n: n, dim: dim, method: method, raw: append([]float64(nil), points...)}
	if method == KDTree {
		pts := make(treePoints, n)
		for i := range pts {
			pts[i] = treePoint{x: ix.raw[i*dim : (i+1)*dim], i: int32(i)}
		}
		ix.tree = kdtree.New(pts, false)
		return ix, nil
	}
	ix.blas = compute.Impl64()
	ix.mean = make([]float64, dim)
	for i := range n {
		for j, v := range ix.raw[i*dim : (i+1)*dim] {
			ix.mean[j] += v
		}
	}
	for j := range ix.mean {
		ix.mean[j] /= float64(n)
	}
	ix.cen = make([]float64, n*dim)
	ix.norm = make([]float64, n)
	for i := range n {
		row := ix.cen[i*dim : (i+1)*dim]
		var s float64
		for j, v := range ix.raw[i*dim : (i+1)*dim] {
			row[j] = v - ix.mean[j]
			s += row[j] * row[j]
		}
		ix.norm[i] = s
	}
	return ix, nil
}

// Points returns the index's copy of the references, n × dim row-major (not
// a copy: do not modify).
func (ix *Index) Points() []float64 { return ix.raw }

// exactDist2 returns Σ_j (q_j − y_j)² for reference i, the sum the tree and
// the tests use.
func (ix *Index) exactDist2(q []float64, i int) float64 {
	var s float64
	for j, y := range ix.raw[i*ix.dim : (i+1)*ix.dim] {
		d := q[j] - y
		s += d * d
	}
	return s
}

// checkQuery validates one query's length and values.
func (ix *Index) checkQuery(q []float64) error {
	if len(q) != ix.dim {
		return errkind.Wrapf(ErrInput, "neighbors: query has %d coordinates, must be %d", len(q), ix.dim)
	}
	for j, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errkind.Wrapf(ErrInput, "neighbors: query coordinate %d is %v, must be finite", j, v)
		}
	}
	return nil
}

func checkRadius(r float64) error {
	if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
		return errkind.Wrapf(ErrInput, "neighbors: radius is %v, must be finite and ≥ 0", r)
	}
	return nil
}

// treePoint is a reference in the k-d tree: its coordinates and index.
type treePoint struct {
	x []float64
	i int32
}

func (p treePoint) Compare(c kdtree.Comparable, d kdtree.Dim) float64 {
	return p.x[d] - c.(treePoint).x[d]
}
func (p treePoint) Dims() int { return len(p.x) }
func (p treePoint) Distance(c kdtree.Comparable) float64 {
	q := c.(treePoint).x
	var s float64
	for j, v := range p.x {
		d := q[j] - v
		s += d * d
	}
	return s
}

// treePoints implements kdtree.Interface with a deterministic median pivot.
type treePoints []treePoint

func (p treePoints) Index(i int) kdtree.Comparable         { return p[i] }
func (p treePoints) Len() int                              { return len(p) }
func (p treePoints) Slice(start, end int) kdtree.Interface { return p[start:end] }
func (p treePoints) Pivot(d kdtree.Dim) int {
	return kdtree.Partition(treePlane{p, d}, kdtree.MedianOfMedians(treePlane{p, d}))
}

type treePlane struct {
	p treePoints
	d kdtree.Dim
}

func (t treePlane) Len() int           { return len(t.p) }
func (t treePlane) Less(i, j int) bool { return t.p[i].x[t.d] < t.p[j].x[t.d] }
func (t treePlane) Swap(i, j int)      { t.p[i], t.p[j] = t.p[j], t.p[i] }
func (t treePlane) Slice(start, end int) kdtree.SortSlicer {
	return treePlane{t.p[start:end], t.d}
}
