package dpsgd

import (
	"math"
	"runtime"
	"slices"
	"testing"
)

// TestNoiserSameForAnyCores checks that the draws depend on the seed only,
// not on the number of cores, and that they are N(0, std²).
func TestNoiserSameForAnyCores(t *testing.T) {
	const n = 5*noiseBlock + 123
	var outs [][]float32
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		z := newNoiser(9, 2, false)
		v := make([]float32, n)
		z.add(v, 0.5)
		z.add(v[:noiseBlock/2], 0.5) // a second step moves the stream on
		runtime.GOMAXPROCS(old)
		outs = append(outs, v)
	}
	for i := 1; i < len(outs); i++ {
		if !slices.Equal(outs[0], outs[i]) {
			t.Fatalf("draws with GOMAXPROCS %d differ from GOMAXPROCS 1", i+1)
		}
	}
	var sum, sq float64
	for _, x := range outs[0][noiseBlock/2:] { // one step's draws only
		sum += float64(x)
		sq += float64(x) * float64(x)
	}
	m := float64(n - noiseBlock/2)
	mean, variance := sum/m, sq/m-(sum/m)*(sum/m)
	// 5σ bounds: the mean's sd is 0.5/√m, the variance's about 0.25·√(2/m).
	if math.Abs(mean) > 5*0.5/math.Sqrt(m) || math.Abs(variance-0.25) > 5*0.25*math.Sqrt(2/m) {
		t.Errorf("mean %.5f, variance %.5f, want 0 and 0.25", mean, variance)
	}
	if slices.Equal(outs[0][:noiseBlock], outs[0][noiseBlock:2*noiseBlock]) {
		t.Error("two blocks drew the same numbers")
	}
}

// TestNoiserSecureDiffers checks that secure noise is keyed from
// crypto/rand: two noisers draw different numbers.
func TestNoiserSecureDiffers(t *testing.T) {
	a, b := make([]float32, 2*noiseBlock), make([]float32, 2*noiseBlock)
	newNoiser(1, 2, true).add(a, 1)
	newNoiser(1, 2, true).add(b, 1)
	if slices.Equal(a, b) {
		t.Error("two secure noisers drew the same numbers")
	}
}

// TestNoiserAllocs checks that a step's noise on several cores allocates
// nothing once the generators exist.
func TestNoiserAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	old := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(old)
	z := newNoiser(1, 2, false)
	v := make([]float32, 4*noiseBlock)
	z.add(v, 1)
	if a := testing.AllocsPerRun(20, func() { z.add(v, 1) }); a != 0 {
		t.Errorf("add allocates %v times, want 0", a)
	}
}
