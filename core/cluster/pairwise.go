package cluster

import (
	"math/rand/v2"
	"runtime"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/dpscope/dpscope/core/safe"

	"github.com/dpscope/dpscope/internal/errkind"
)

// Sampling policy of Silhouette and NeighbourhoodPurity.
const (
	// SilhouetteExactLimit is the largest number of labelled rows for which
	// Silhouette and NeighbourhoodPurity score every row. Above it they
	// score SilhouetteSampleSize rows drawn without replacement from
	// rand.NewPCG(SilhouetteSeed, 0), each still against all rows: an
	// unbiased estimate of the exact mean with standard error
	// sd(s)/√SilhouetteSampleSize (about 0.003 for a typical sd of 0.2).
	SilhouetteExactLimit = 10000
	// SilhouetteSampleSize is the number of rows scored above
	// SilhouetteExactLimit.
	SilhouetteSampleSize = 5000
	// SilhouetteSeed seeds the sample of scored rows.
	SilhouetteSeed = 0x5EED
)

// distBlock returns the number of anchor rows whose distances to all n rows
// are computed by one matrix product: 128, fewer when n is large so that a
// worker's block of products stays near 16 MB (50,000 rows: 41 anchors and
// 16 MB instead of 51 MB; a silhouette of 50,000 points allocates 49 MB
// instead of 173 MB, in 2.7–3.5 s either way on a loaded machine).
func distBlock(n int) int { return min(128, max(16, (1<<21)/max(n, 1))) }

// pointSet is a labelled point cloud with the unknown rows removed and the
// columns centred (which changes no distance but makes the Gram form
// ‖a‖² + ‖b‖² − 2a·b lose less to cancellation).
type pointSet struct {
	n, d   int
	x      []float64 // n×d centred
	norm   []float64 // ‖x_i‖²
	labels []int     // dense labels in [0, k)
	k      int       // number of distinct labels
	sizes  []int     // cluster sizes
}

// newPointSet checks x and labels, drops rows with a negative label and
// relabels the rest 0..k−1 in increasing order of label value.
func newPointSet(x []float64, n, d int, labels []int) (*pointSet, error) {
	if err := checkMatrix("x", x, n, d); err != nil {
		return nil, err
	}
	if len(labels) != n {
		return nil, errkind.Wrapf(ErrInvalidData, "cluster: len(labels) is %d, must be n = %d", len(labels), n)
	}
	idx, values := denseIndex(labels, labels)
	p := &pointSet{d: d, k: len(values), sizes: make([]int, len(values))}
	labelled := 0
	for _, l := range idx {
		if l >= 0 {
			labelled++
		}
	}
	p.x, p.labels = make([]float64, 0, labelled*d), make([]int, 0, labelled)
	for i, l := range idx {
		if l < 0 {
			continue
		}
		p.x = append(p.x, x[i*d:i*d+d]...)
		p.labels = append(p.labels, l)
		p.sizes[l]++
	}
	p.n = len(p.labels)
	if p.n == 0 {
		return nil, errkind.Wrapf(ErrNoLabelledRows, "cluster: %d rows given, none labelled", n)
	}
	mean := make([]float64, d)
	for i := range p.n {
		add(mean, p.x[i*d:i*d+d])
	}
	for t := range mean {
		mean[t] /= float64(p.n)
	}
	for i := range p.n {
		sub(p.x[i*d:i*d+d], mean)
	}
	p.norm = rowNorms(p.x, p.n, d)
	return p, nil
}

// anchors returns the rows to score: all of them up to
// SilhouetteExactLimit, else a sorted fixed-seed sample of
// SilhouetteSampleSize rows.
func (p *pointSet) anchors() []int {
	if p.n <= SilhouetteExactLimit {
		a := make([]int, p.n)
		for i := range a {
			a[i] = i
		}
		return a
	}
	return sampleRows(p.n, SilhouetteSampleSize, rand.New(rand.NewPCG(SilhouetteSeed, 0)))
}

// sampleRows returns m distinct indices of [0, n) in increasing order, drawn
// uniformly (partial Fisher–Yates).
func sampleRows(n, m int, rng *rand.Rand) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	for i := range m {
		j := i + rng.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := perm[:m]
	// Sort by counting over the marks to keep it O(n).
	mark := make([]bool, n)
	for _, v := range out {
		mark[v] = true
	}
	out = out[:0]
	for i, ok := range mark {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// forDistances calls fn(w, a, d2) for every position a of anchors, with d2[j]
// the squared distance from row anchors[a] to row j (exactly 0 for j =
// anchors[a]). Blocks of distBlock(n) anchors are one GEMM each; blocks are
// spread over workers(len(anchors)) workers with buffers of their own; w is
// the worker's index, for scratch space. fn is called concurrently for
// different a and must write only to outputs of a or scratch of w; d2 is
// reused after fn returns.
func (p *pointSet) forDistances(anchors []int, fn func(w, a int, d2 []float64)) {
	n, d := p.n, p.d
	bs := distBlock(n)
	nb := (len(anchors) + bs - 1) / bs
	workers := distWorkers(len(anchors), n)
	var g errgroup.Group
	for w := range workers {
		g.Go(safe.Func(func() error {
			blk := make([]float64, bs*d)
			prod := make([]float64, bs*n)
			for b := w; b < nb; b += workers {
				lo, hi := b*bs, min((b+1)*bs, len(anchors))
				m := hi - lo
				for r := range m {
					i := anchors[lo+r]
					copy(blk[r*d:r*d+d], p.x[i*d:i*d+d])
				}
				blas64.Gemm(blas.NoTrans, blas.Trans, 1,
					blas64.General{Rows: m, Cols: d, Stride: d, Data: blk[:m*d]},
					blas64.General{Rows: n, Cols: d, Stride: d, Data: p.x},
					0, blas64.General{Rows: m, Cols: n, Stride: n, Data: prod[:m*n]})
				for r := range m {
					i := anchors[lo+r]
					row := prod[r*n : r*n+n]
					ni := p.norm[i]
					for j, v := range row {
						row[j] = max(ni+p.norm[j]-2*v, 0)
					}
					row[i] = 0
					fn(w, lo+r, row)
				}
			}
			return nil
		}))
	}
	// The workers return no errors of their own: a recovered panic is
	// raised again here, in the caller's goroutine, where the run's own
	// recovery turns it into the run's error.
	if err := g.Wait(); err != nil {
		panic(err)
	}
}

// distWorkers returns the number of workers forDistances uses for m
// anchors among n rows: GOMAXPROCS, at most one per block, at least 1.
func distWorkers(m, n int) int {
	bs := distBlock(n)
	return max(1, min(runtime.GOMAXPROCS(0), (m+bs-1)/bs))
}
