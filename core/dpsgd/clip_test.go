package dpsgd

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// explicitClippedSum materialises each record's gradient with a batch of
// one, clips its groups (or the whole) to c in float64 and sums them.
func explicitClippedSum(f *fixture, batch []int, lo, hi int, c float64, joint bool) (sum []float64, norms []float64) {
	net := &f.ae.Net
	sum = make([]float64, len(net.Params))
	for _, r := range batch {
		f.loss([]int{r})
		net.AccumulateGrads(0)
		var s0, s1 float64
		for k, v := range net.Grads {
			if k >= lo && k < hi {
				s0 += float64(v) * float64(v)
			} else {
				s1 += float64(v) * float64(v)
			}
		}
		f0 := math.Min(1, c/(math.Sqrt(s0)+clipEps))
		f1 := math.Min(1, c/(math.Sqrt(s1)+clipEps))
		if joint {
			f0 = math.Min(1, c/(math.Sqrt(s0+s1)+clipEps))
			f1 = f0
		}
		norms = append(norms, math.Sqrt(s0+s1))
		for k, v := range net.Grads {
			if k >= lo && k < hi {
				sum[k] += f0 * float64(v)
			} else {
				sum[k] += f1 * float64(v)
			}
		}
	}
	return sum, norms
}

// TestGhostClippingMatchesExplicit checks that the ghost-norm clipped sum
// equals the sum of explicitly materialised, clipped per-sample gradients
// within float32 tolerance, for one and two views, both clipping modes,
// several perturbed ranges, and batches split into several chunks.
func TestGhostClippingMatchesExplicit(t *testing.T) {
	tests := []struct {
		desc        string
		views       int
		first, last int
		mode        ClipMode
	}{
		{"one view, groups 1-3", 1, 1, 3, ClipGroups},
		{"one view, joint 1-3", 1, 1, 3, ClipJoint},
		{"one view, groups 1-6", 1, 1, 6, ClipGroups},
		{"one view, groups 4-5", 1, 4, 5, ClipGroups},
		{"two views, groups 1-3", 2, 1, 3, ClipGroups},
		{"two views, joint 2-6", 2, 2, 6, ClipJoint},
		{"two views, groups 6-6", 2, 6, 6, ClipGroups},
	}
	for k, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			const records, genes = 40, 10
			f := newFixture(t, records, genes, 8, tc.views, nn.Tanh, uint64(k+1))
			batch := []int{0, 3, 4, 7, 9, 12, 13, 20, 21, 22, 30, 39} // 12 records: 3 or 6 chunks
			lo, hi := f.ae.ParamRange(tc.first, tc.last)
			_, norms := explicitClippedSum(f, batch, lo, hi, math.Inf(1), false)
			sorted := append([]float64(nil), norms...)
			sort.Float64s(sorted)
			c := sorted[len(sorted)/3] // clips about 2/3 of the whole-gradient norms
			want, _ := explicitClippedSum(f, batch, lo, hi, c, tc.mode == ClipJoint)
			opt, _ := nn.NewSGD(len(f.ae.Params), nn.SGDConfig{LR: 1})
			d, err := New(&f.ae.Net, opt, records, Config{SampleRate: 0.3, ClipNorm: c,
				Perturbed: LayerRange{tc.first, tc.last}, Clipping: tc.mode, Views: tc.views}, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := d.ClippedSum(batch, f.loss)
			if err != nil {
				t.Fatal(err)
			}
			partly := func(x float64) bool { return x > 0 && x < 1 }
			if !partly(st.Clipped[0]) && !partly(st.Clipped[1]) {
				t.Errorf("clipped fractions %v, want some but not all samples clipped in a group", st.Clipped)
			}
			scale := 0.0
			for _, v := range want {
				scale = math.Max(scale, math.Abs(v))
			}
			worst, at := 0.0, 0
			for i, v := range want {
				if e := math.Abs(float64(f.ae.Grads[i]) - v); e > worst {
					worst, at = e, i
				}
			}
			if worst > 2e-5*scale {
				t.Errorf("ClippedSum: Grads[%d] = %.8g, want %.8g (max error %.3g, tolerance %.3g)",
					at, f.ae.Grads[at], want[at], worst, 2e-5*scale)
			}
		})
	}
}

// TestGhostClippingBound checks that every sample's clipped contribution
// has norm at most C in each group, by running ClippedSum on batches of one.
func TestGhostClippingBound(t *testing.T) {
	f := newFixture(t, 20, 10, 4, 2, nn.ReLU, 5)
	opt, _ := nn.NewSGD(len(f.ae.Params), nn.SGDConfig{LR: 1})
	const c = 0.05
	d, err := New(&f.ae.Net, opt, 20, Config{SampleRate: 0.5, ClipNorm: c, Perturbed: LayerRange{1, 3}, Views: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := f.ae.ParamRange(1, 3)
	for r := range 20 {
		if _, err := d.ClippedSum([]int{r}, f.loss); err != nil {
			t.Fatal(err)
		}
		var s0, s1 float64
		for k, v := range f.ae.Grads {
			if k >= lo && k < hi {
				s0 += float64(v) * float64(v)
			} else {
				s1 += float64(v) * float64(v)
			}
		}
		if math.Sqrt(s0) > c*(1+1e-5) || math.Sqrt(s1) > c*(1+1e-5) {
			t.Errorf("record %d: clipped group norms %.8g, %.8g, want <= %g", r, math.Sqrt(s0), math.Sqrt(s1), c)
		}
	}
}

// TestDot checks dot against a float64 sum and the vector kernels
// (AVX-512, AVX2) against the Go loop, bit for bit, at lengths around the
// kernels' 64 entries.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{0, 1, 63, 64, 65, 127, 128, 256, 2000} {
		x, y := make([]float32, n), make([]float32, n)
		want := 0.0
		for i := range x {
			x[i], y[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			want += float64(x[i]) * float64(y[i])
		}
		got := dot(x, y)
		var inGo, avx2 float64
		withoutVector(t, func() { inGo = dot(x, y) })
		if got != inGo {
			t.Fatalf("n = %d: dot = %v with the kernel, %v in Go", n, got, inGo)
		}
		if withAVX2(t, func() { avx2 = dot(x, y) }) && avx2 != inGo {
			t.Fatalf("n = %d: dot = %v with the AVX2 kernel, %v in Go", n, avx2, inGo)
		}
		if math.Abs(got-want) > 1e-5*(1+math.Sqrt(float64(n))) {
			t.Errorf("n = %d: dot = %v, want %v", n, got, want)
		}
	}
}

// TestGhostNormsSplitMatchOneCall checks that addGhostSqNorms, which
// splits large layers' samples over two goroutines, gives bit for bit the
// norms one call on one goroutine gives, for one and two views.
func TestGhostNormsSplitMatchOneCall(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for views := 1; views <= 2; views++ {
		const records, genes = 64, 3000
		f := newFixture(t, records, genes, views*records, views, nn.Tanh, uint64(views))
		cells := make([]int, records)
		for i := range cells {
			cells[i] = i
		}
		if _, err := f.loss(cells); err != nil {
			t.Fatal(err)
		}
		split := false
		for k, l := range f.ae.Layers {
			got, want := make([]float64, records), make([]float64, records)
			addGhostSqNorms(got, l, views, records)
			(&ghostJob{sq: want, x: l.Input(), g: l.Signal(), views: views, m: records}).Run(0, records)
			split = split || records*views*views*(l.In+l.Out)/4 >= compute.SplitMin
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) || want[i] <= 0 {
					t.Fatalf("views %d, layer %d, sample %d: norm² %.17g, one call %.17g (want equal and positive)", views, k, i, got[i], want[i])
				}
			}
		}
		if !split {
			t.Fatalf("views %d: no layer is large enough to split", views)
		}
	}
}
