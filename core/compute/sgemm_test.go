package compute

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// asmImpl sends every product to the AVX-512 kernel, for tests.
func checkAsm(t *testing.T, rng *rand.Rand, m, n, k, pad int, ta, tb bool, alpha, beta float32) {
	t.Helper()
	ar, ac := m, k
	if ta {
		ar, ac = k, m
	}
	br, bc := k, n
	if tb {
		br, bc = n, k
	}
	a := randMatrix(rng, ar, ac, pad)
	b := randMatrix(rng, br, bc, pad)
	dst := randMatrix(rng, m, n, pad)
	if beta == 0 {
		dst.Fill(float32(math.NaN()))
	}
	want, scale := refMul(a, ta, b, tb, dst, alpha, beta)
	sgemmAsm(ta, tb, m, n, k, alpha, a.Data, ld(a), b.Data, ld(b), beta, dst.Data, ld(dst))
	for i := range m {
		for j := range n {
			got := float64(dst.At(i, j))
			if tol := gemmTol(k, scale[i][j]); !(math.Abs(got-want[i][j]) <= tol) {
				t.Fatalf("sgemmAsm(%d×%d×%d, ta=%v, tb=%v, alpha=%v, beta=%v)[%d,%d] = %v, want %v ± %.3g",
					m, n, k, ta, tb, alpha, beta, i, j, got, want[i][j], tol)
			}
		}
		for j := n; j < dst.Stride && i*dst.Stride+j < len(dst.Data); j++ {
			if v := dst.Data[i*dst.Stride+j]; !math.IsNaN(float64(v)) {
				t.Fatalf("sgemmAsm wrote %v into padding at row %d, column %d", v, i, j)
			}
		}
	}
}

// TestSgemmAsmMatchesFloat64Reference checks the AVX-512 kernel on shapes
// with and without edge tiles, several k blocks, every transposition and
// the three kinds of beta (0: overwrite, 1: add, other: scale first).
func TestSgemmAsmMatchesFloat64Reference(t *testing.T) {
	if !hasAsmGemm {
		t.Skip("no AVX-512")
	}
	shapes := []struct{ m, n, k int }{
		{1, 1, 1}, {12, 32, 5}, {13, 33, 257}, {30, 253, 40}, {1030, 20, 9}, {14, 20, 1021}, {427, 64, 300}, {24, 96, 512}, {7, 200, 600}, {100, 1, 50},
	}
	scalars := []struct{ alpha, beta float32 }{{1, 0}, {0.5, 2}, {-1.5, 1}}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		for _, sc := range scalars {
			for _, ta := range []bool{false, true} {
				for _, tb := range []bool{false, true} {
					checkAsm(t, rng, s.m, s.n, s.k, 3, ta, tb, sc.alpha, sc.beta)
				}
			}
		}
	}
}

// TestSgemmAsmSameBitsAnyThreads checks that a product split over two
// goroutines gives the bits of one goroutine's.
func TestSgemmAsmSameBitsAnyThreads(t *testing.T) {
	if !hasAsmGemm {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range []struct {
		m, n, k int
		ta, tb  bool
	}{{427, 256, 2000, false, false}, {427, 2000, 256, false, true}, {2000, 256, 427, true, false}, {256, 2000, 427, true, false}} {
		ar, ac := s.m, s.k
		if s.ta {
			ar, ac = s.k, s.m
		}
		br, bc := s.k, s.n
		if s.tb {
			br, bc = s.n, s.k
		}
		a, b := randMatrix(rng, ar, ac, 0), randMatrix(rng, br, bc, 0)
		c1, c2 := NewMatrix(s.m, s.n, nil), NewMatrix(s.m, s.n, nil)
		prev := runtime.GOMAXPROCS(1)
		sgemmAsm(s.ta, s.tb, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c1.Data, s.n)
		runtime.GOMAXPROCS(max(prev, 2))
		sgemmAsm(s.ta, s.tb, s.m, s.n, s.k, 1, a.Data, ld(a), b.Data, ld(b), 0, c2.Data, s.n)
		runtime.GOMAXPROCS(prev)
		for i := range c1.Data {
			if math.Float32bits(c1.Data[i]) != math.Float32bits(c2.Data[i]) {
				t.Fatalf("%+v: entry %d is %v on one goroutine, %v on two", s, i, c1.Data[i], c2.Data[i])
			}
		}
	}
}

// TestParseGemm checks DPSCOPE_SGEMM's values and that a bad one is named.
func TestParseGemm(t *testing.T) {
	for _, tc := range []struct {
		v       string
		has     bool
		want    bool
		wantErr bool
	}{{"", true, true, false}, {" auto ", true, true, false}, {"auto", false, false, false},
		{"openblas", true, false, false}, {"avx", true, false, true}} {
		got, err := parseGemm(tc.v, tc.has)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("parseGemm(%q, %v) = %v, %v, want %v, error %v", tc.v, tc.has, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), `"avx"`) {
			t.Errorf("parseGemm(%q) error %q does not name the value", tc.v, err)
		}
	}
}

// TestAsmGemmTakes checks which products the kernel takes: at least
// AsmGemmMin multiply-adds, and no more than a quarter of its tiles
// padding.
func TestAsmGemmTakes(t *testing.T) {
	if !hasAsmGemm {
		t.Skip("no AVX-512")
	}
	for _, tc := range []struct {
		m, n, k int
		want    bool
	}{{427, 256, 2000, true}, {427, 2000, 256, true}, {63, 64, 64, false}, {64, 64, 64, true}, {1, 2000, 500, false},
		{2000, 1, 500, false}, {2000, 16, 500, false}, {2000, 28, 500, true}, {10, 2000, 500, true}} {
		a := make([]float32, tc.m*tc.k)
		b := make([]float32, tc.k*tc.n)
		c := make([]float32, tc.m*tc.n)
		if got := asmGemm(blas.NoTrans, blas.NoTrans, tc.m, tc.n, tc.k, 1, a, tc.k, b, tc.n, 0, c, tc.n); got != tc.want {
			t.Errorf("asmGemm(%d×%d×%d) took it: %v, want %v", tc.m, tc.n, tc.k, got, tc.want)
		}
	}
}

// FuzzParseGemm: any DPSCOPE_SGEMM value gives a choice or an error that
// quotes it, never a panic; only auto (or empty) and openblas are
// accepted, with spaces around them.
func FuzzParseGemm(f *testing.F) {
	for _, s := range []string{"", "auto", " openblas\t", "AVX", "open blas", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := parseGemm(v, true)
		switch strings.TrimSpace(v) {
		case "", ModeAuto:
			if !got || err != nil {
				t.Fatalf("parseGemm(%q) = %v, %v, want the kernel", v, got, err)
			}
		case ModeOpenBLAS:
			if got || err != nil {
				t.Fatalf("parseGemm(%q) = %v, %v, want OpenBLAS", v, got, err)
			}
		default:
			if got || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", v)) {
				t.Fatalf("parseGemm(%q) = %v, %v, want an error quoting the value", v, got, err)
			}
		}
	})
}
