package compute

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestGatherRowsCopiesEveryRow checks GatherRows against a loop of
// copies, to the bit (NaNs with payloads, ±0, ±Inf, subnormals among the
// entries), on views with padding, from no row to more than the split
// threshold, repeated rows, at one goroutine and two, with the split on
// and off; and that nothing past the gathered rows of dst is written.
func TestGatherRowsCopiesEveryRow(t *testing.T) {
	defer GatherSplit.Store(GatherSplit.Load())
	rng := rand.New(rand.NewPCG(11, 12))
	special := []float32{float32(math.NaN()), math.Float32frombits(0x7fc00123), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.Copysign(0, -1)), math.Float32frombits(1)}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, cols := range []int{1, 7, 300} {
		src := randMatrix(rng, 500, cols, 3)
		for i := range 40 {
			src.Data[rng.IntN(500)*src.Stride+rng.IntN(cols)] = special[i%len(special)]
		}
		for _, n := range []int{0, 1, 2, 3, 255, 437, 600} {
			if cols == 300 && n == 437 && n*cols/4 < SplitMin {
				t.Fatalf("the test's %d×%d gather is below SplitMin and would not split", n, cols)
			}
			rows := make([]int, n)
			for i := range rows {
				rows[i] = rng.IntN(src.Rows)
			}
			for _, procs := range []int{1, 2} {
				for _, one := range []bool{false, true} {
					runtime.GOMAXPROCS(procs)
					GatherSplit.Store(!one)
					dst := randMatrix(rng, n+2, cols, 2)
					sentinel := append([]float32(nil), dst.Data[n*dst.Stride:]...)
					GatherRows(dst, src, rows)
					for i, r := range rows {
						got, want := dst.RawRowView(i), src.RawRowView(r)
						for x := range want {
							if math.Float32bits(got[x]) != math.Float32bits(want[x]) {
								t.Fatalf("cols %d, %d rows, GOMAXPROCS %d, one %v: dst[%d][%d] = %v, want src[%d][%d] = %v",
									cols, n, procs, one, i, x, got[x], r, x, want[x])
							}
						}
					}
					for x, v := range dst.Data[n*dst.Stride:] {
						if math.Float32bits(v) != math.Float32bits(sentinel[x]) {
							t.Fatalf("cols %d, %d rows: entry %d past the gathered rows was written", cols, n, x)
						}
					}
				}
			}
		}
	}
}

// TestGatherRowsPanics checks the shape and index checks.
func TestGatherRowsPanics(t *testing.T) {
	src, dst := NewMatrix(4, 3, nil), NewMatrix(2, 3, nil)
	for name, f := range map[string]func(){
		"too many rows": func() { GatherRows(dst, src, []int{0, 1, 2}) },
		"widths":        func() { GatherRows(NewMatrix(2, 4, nil), src, []int{0}) },
		"index":         func() { GatherRows(dst, src, []int{0, 4}) },
		"negative":      func() { GatherRows(dst, src, []int{-1}) },
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatalf("%s: no panic", name)
				}
				if err, ok := r.(error); name != "index" && name != "negative" && (!ok || !errors.Is(err, ErrShape)) {
					t.Fatalf("%s: panic %v does not wrap ErrShape", name, r)
				}
			}()
			f()
		}()
	}
}

// TestGatherRowsDoesNotAllocate checks that a split gather allocates
// nothing (the DP-SGD step's allocation test counts on it).
func TestGatherRowsDoesNotAllocate(t *testing.T) {
	defer GatherSplit.Store(GatherSplit.Load())
	GatherSplit.Store(true)
	rng := rand.New(rand.NewPCG(13, 14))
	src, dst := randMatrix(rng, 600, 400, 0), NewMatrix(427, 400, nil)
	rows := make([]int, 427)
	for i := range rows {
		rows[i] = rng.IntN(600)
	}
	GatherRows(dst, src, rows)
	if a := testing.AllocsPerRun(20, func() { GatherRows(dst, src, rows) }); a != 0 {
		t.Fatalf("GatherRows allocates %v times a call", a)
	}
}

// TestGatherSplitDefault checks rule G30's default: the gather on two
// goroutines on AMD family 19h only.
func TestGatherSplitDefault(t *testing.T) {
	if got := GatherSplit.Load(); got != amdFamily19h {
		t.Errorf("GatherSplit is %v by default, want %v (amdFamily19h)", got, amdFamily19h)
	}
}
