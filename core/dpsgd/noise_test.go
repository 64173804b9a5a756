package dpsgd

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// withoutVector runs f with the vector kernels switched off, so that the
// Go loops do every word.
func withoutVector(t *testing.T, f func()) {
	t.Helper()
	s512, s2 := hasAVX512, hasAVX2
	hasAVX512, hasAVX2 = false, false
	defer func() { hasAVX512, hasAVX2 = s512, s2 }()
	f()
}

// withAVX2 runs f with the AVX-512 kernels switched off, so that the AVX2
// kernels run, as on a CPU without AVX-512; false (f not run) where the
// CPU lacks AVX2.
func withAVX2(t *testing.T, f func()) bool {
	t.Helper()
	if !hasAVX2 {
		return false
	}
	s512 := hasAVX512
	hasAVX512 = false
	defer func() { hasAVX512 = s512 }()
	f()
	return true
}

// kernelSets runs f once per set of vector kernels this CPU has (AVX-512,
// AVX2), each compared with the Go loops by f; name says which.
func kernelSets(t *testing.T, f func(t *testing.T, name string, run func(func()))) {
	t.Helper()
	ran := false
	if hasAVX512 {
		ran = true
		f(t, "avx512", func(g func()) { g() })
	}
	if hasAVX2 {
		ran = true
		f(t, "avx2", func(g func()) { withAVX2(t, g) })
	}
	if !ran {
		t.Skip("no vector kernels on this machine")
	}
}

// TestXoshiro8Lanes checks that each lane of xoshiro8 is the xoshiro256++
// stream of its state, with the vector kernel and without, across calls
// of different lengths.
func TestXoshiro8Lanes(t *testing.T) {
	if !hasAVX512 {
		t.Log("no AVX-512 here: only the Go loop is tested")
	}
	for _, mode := range []string{"vector", "go", "avx2"} {
		vector := mode != "go"
		if mode == "avx2" && !hasAVX2 {
			continue
		}
		src := newNormalSource(5, 2, false).words.(*xoshiro8)
		var ref [xoLanes]xoshiro
		for l := range ref {
			ref[l].s = [4]uint64{src.s[0][l], src.s[1][l], src.s[2][l], src.s[3][l]}
		}
		fill := src.fill16
		switch mode {
		case "go":
			fill = func(dst []uint32) { withoutVector(t, func() { src.fill16(dst) }) }
		case "avx2":
			fill = func(dst []uint32) { withAVX2(t, func() { src.fill16(dst) }) }
		}
		for _, n := range []int{16, 48, 4096, 32} {
			dst := make([]uint32, n)
			fill(dst)
			for k := 0; k < n; k += 2 {
				l := (k / 2) % xoLanes
				w := ref[l].Uint64()
				if dst[k] != uint32(w) || dst[k+1] != uint32(w>>32) {
					t.Fatalf("%s (vector %v), block of %d: words %d, %d = %#x, %#x, want lane %d's %#x",
						mode, vector, n, k, k+1, dst[k], dst[k+1], l, w)
				}
			}
		}
	}
}

// TestNoiseVectorMatchesGo checks that the vector kernels (AVX-512, and
// AVX2 as on a CPU without AVX-512) and the Go loops add the same noise,
// bit for bit, to the same gradient, for lengths around the kernels' 16
// draws and the 4,096-draw block, including draws that take the slow path.
func TestNoiseVectorMatchesGo(t *testing.T) {
	kernelSets(t, func(t *testing.T, name string, run func(func())) {
		rng := rand.New(rand.NewPCG(1, 2))
		slow := 0
		for _, n := range []int{0, 1, 15, 16, 17, 100, 4095, 4096, 4097, 20000} {
			g := make([]float32, n)
			for i := range g {
				g[i] = float32(rng.NormFloat64())
			}
			vec, scalar := append([]float32(nil), g...), append([]float32(nil), g...)
			a, b := newNormalSource(11, 2, false), newNormalSource(11, 2, false)
			for range 2 { // a second call continues both streams
				run(func() { a.addScaled(vec, 0.37) })
				withoutVector(t, func() { b.addScaled(scalar, 0.37) })
			}
			for i := range vec {
				if math.Float32bits(vec[i]) != math.Float32bits(scalar[i]) {
					t.Fatalf("%s, n = %d: g[%d] = %v with the vector kernel, %v in Go", name, n, i, vec[i], scalar[i])
				}
			}
			if a.extra.Uint64() != b.extra.Uint64() {
				t.Fatalf("%s, n = %d: the slow path drew a different number of extra words", name, n)
			}
			for _, m := range a.missed[:min(n, zigBlock)/16] {
				for ; m != 0; m &= m - 1 {
					slow++
				}
			}
		}
		if slow == 0 {
			t.Errorf("%s: no draw took the slow path: the comparison does not cover it", name)
		}
	})
}

// TestNoiseSplitSameBits checks that addScaledSplit (the fast paths of
// each chunk on two goroutines) adds the same noise as addScaled's loop
// on one goroutine, bit for bit, and draws the same extra words, for
// lengths around the block, the split threshold (8 blocks) and
// the benchmark autoencoder's 1,063,536 parameters, per kernel set.
func TestNoiseSplitSameBits(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Log("one CPU: Split runs both parts on this goroutine")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(s bool) { noiseSplit = s }(noiseSplit)
	kernelSets(t, func(t *testing.T, name string, run func(func())) {
		rng := rand.New(rand.NewPCG(4, 2))
		slow := 0
		for _, n := range []int{0, 1, 17, 4096, 2*zigBlock - 1, 2 * zigBlock, 8*zigBlock + 5,
			16*zigBlock - 16, 16 * zigBlock, 16*zigBlock + 1,
			3*16*zigBlock + 4097, 1063536} {
			g := make([]float32, n)
			for i := range g {
				g[i] = float32(rng.NormFloat64())
			}
			split, serial := append([]float32(nil), g...), append([]float32(nil), g...)
			a, b := newNormalSource(13, 2, false), newNormalSource(13, 2, false)
			for range 2 { // a second call continues both streams
				run(func() {
					noiseSplit = true
					a.addScaled(split, 0.37)
					noiseSplit = false
					b.addScaled(serial, 0.37)
				})
			}
			for i := range split {
				if math.Float32bits(split[i]) != math.Float32bits(serial[i]) {
					t.Fatalf("%s, n = %d: g[%d] = %v split, %v on one goroutine", name, n, i, split[i], serial[i])
				}
			}
			if a.extra.Uint64() != b.extra.Uint64() {
				t.Fatalf("%s, n = %d: the slow path drew a different number of extra words", name, n)
			}
			if a.split != nil {
				for _, m := range a.split.miss {
					slow += len(m)
				}
			}
		}
		if slow == 0 {
			t.Errorf("%s: no draw of the split path took the slow path: the comparison does not cover it", name)
		}
	})
}

// TestXoshiroJump checks that jumpBlocks(b) leaves every lane where
// drawing b blocks of words does, for counts that use one, several and
// no powers of the jump.
func TestXoshiroJump(t *testing.T) {
	words := make([]uint32, zigBlock)
	for _, b := range []int{0, 1, 2, 3, 5, 8, 13, 64, 77} {
		a := newNormalSource(7, 2, false).words.(*xoshiro8)
		j := *a
		for range b {
			a.fill16(words)
		}
		j.jumpBlocks(b)
		if j.s != a.s {
			t.Fatalf("%d blocks: jumped state differs from the drawn one", b)
		}
	}
}
