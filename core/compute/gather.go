package compute

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// GatherSplit makes GatherRows share the rows between Split's two
// goroutines. On by default on AMD family 19h (Zen 3, Zen 4), by rule G30
// of docs/PERFORMANCE.md: on a quiet Zen 4 DP-SGD epochs were a median
// 1.024× (AVX-512) and 1.016× (AVX2) as fast, the gather alone 1.47–1.63×.
// Off elsewhere, by the rule of the speed12 section: on a Xeon at load 4
// the split gave 0.97–1.00× the one goroutine's time. The copies are the
// same either way.
var GatherSplit = func() *atomic.Bool {
	var on atomic.Bool
	on.Store(amdFamily19h)
	return &on
}()

// GatherRows copies row rows[i] of src into row i of dst for every i: the
// gathering of a mini-batch's cells before a forward pass. Each row is a
// copy, so the result does not depend on how the rows are shared; with
// GatherSplit, GOMAXPROCS ≥ 2 and enough floats to move (rows × columns /
// 4 at least SplitMin, the cost of a copy as in nn's bias rows) the rows
// go to Split's two goroutines. It panics, wrapping ErrShape, if dst.Rows <
// len(rows) or the widths differ, and on an index outside src.
func GatherRows(dst, src Matrix, rows []int) {
	if dst.Rows < len(rows) || dst.Cols != src.Cols {
		panic(fmt.Errorf("compute: GatherRows: %d rows of a %d×%d matrix into %d×%d: %w",
			len(rows), src.Rows, src.Cols, dst.Rows, dst.Cols, ErrShape))
	}
	for _, r := range rows {
		if r < 0 || r >= src.Rows {
			panic(fmt.Errorf("compute: GatherRows: row %d of a matrix of %d rows", r, src.Rows))
		}
	}
	if !GatherSplit.Load() {
		gatherRange(dst, src, rows, 0, len(rows))
		return
	}
	j := gatherJobs.Get().(*gatherJob)
	j.dst, j.src, j.rows = dst, src, rows
	Split(len(rows), 1, max(1, src.Cols/4), j)
	*j = gatherJob{}
	gatherJobs.Put(j)
}

// gatherRange copies rows rows[lo:hi] of src into rows lo…hi−1 of dst.
func gatherRange(dst, src Matrix, rows []int, lo, hi int) {
	for i := lo; i < hi; i++ {
		copy(dst.RawRowView(i), src.RawRowView(rows[i]))
	}
}

// gatherJob is GatherRows over a range of rows, for Split.
type gatherJob struct {
	dst, src Matrix
	rows     []int
}

// gatherJobs recycles gatherJob values: GatherRows does not allocate.
var gatherJobs = sync.Pool{New: func() any { return new(gatherJob) }}

// Run implements RangeJob.
func (j *gatherJob) Run(lo, hi int) { gatherRange(j.dst, j.src, j.rows, lo, hi) }
