package dcan

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// testModel builds a model on the small data set with k clusters and random
// centroids.
func testModel(t testing.TB, k int) *model {
	t.Helper()
	d := simData(t, 240, 120, 3)
	o := Options{}.withDefaults()
	o.ChunkCells = 32
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: nn.Tanh, MaxRows: stage1Views * o.ChunkCells, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(ae, d, k, o, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range m.mu.Data {
		m.mu.Data[i] = float32(rng.NormFloat64())
	}
	for i := range m.p.Data {
		m.p.Data[i] = 1 / float32(k)
	}
	return m
}

func TestInitGeneMeans(t *testing.T) {
	d := simData(t, 240, 120, 3)
	m := testModel(t, 3)
	mu := m.ae.Layers[len(m.ae.Layers)-3] // the heads are μ, θ, π, last
	theta := append([]float32(nil), m.ae.Layers[len(m.ae.Layers)-2].B...)
	m.initHeads(true, false)
	for j := range d.Genes {
		mean := 0.0
		for i := range d.Cells {
			mean += float64(d.RawCounts[i*d.Genes+j]) / d.SizeFactors[i]
		}
		want := math.Log(max(mean/float64(d.Cells), 1e-4))
		if got := float64(mu.B[j]); math.Abs(got-want) > 1e-5*max(1, math.Abs(want)) {
			t.Fatalf("μ head bias of gene %d = %v, want log mean %v", j, got, want)
		}
	}
	for j, v := range m.ae.Layers[len(m.ae.Layers)-2].B {
		if v != theta[j] {
			t.Fatalf("θ head bias of gene %d changed from %v to %v", j, theta[j], v)
		}
	}
}

func TestCCLossGradient(t *testing.T) {
	m := testModel(t, 4)
	grad := compute.NewMatrix(m.k, m.latent, nil)
	l := m.ccLoss(grad, 1)
	// L_cc = ‖Σ u_i‖²/K² lies in [0, 1]: 1 when all centroids are parallel.
	if l < 0 || l > 1 {
		t.Fatalf("L_cc = %v, want in [0, 1]", l)
	}
	const h = 1e-2 // float32 centroids: a wide central difference
	for _, idx := range []int{0, 5, 37, len(m.mu.Data) - 1} {
		v := m.mu.Data[idx]
		m.mu.Data[idx] = v + h
		lp := m.ccLoss(compute.Matrix{}, 0)
		m.mu.Data[idx] = v - h
		lm := m.ccLoss(compute.Matrix{}, 0)
		m.mu.Data[idx] = v
		fd := (lp - lm) / (2 * h)
		if got := float64(grad.Data[idx]); math.Abs(got-fd) > 1e-3+1e-2*math.Abs(fd) {
			t.Errorf("∂L_cc/∂μ[%d] = %v, finite difference %v", idx, got, fd)
		}
	}
	// Parallel centroids: L_cc = 1 and no gradient (a maximum).
	for j := range m.k {
		for c := range m.latent {
			m.mu.Set(j, c, float32(j+1)*float32(c%3))
		}
	}
	grad.Zero()
	if l := m.ccLoss(grad, 1); math.Abs(l-1) > 1e-6 {
		t.Errorf("L_cc of parallel centroids = %v, want 1", l)
	}
	for i, g := range grad.Data {
		if math.Abs(float64(g)) > 1e-6 {
			t.Fatalf("gradient[%d] = %v at parallel centroids, want 0", i, g)
		}
	}
}

func TestMaskRate(t *testing.T) {
	m := testModel(t, 3)
	const n = 200000
	src := make([]float32, n)
	for i := range src {
		src[i] = 1
	}
	dst := make([]float32, n)
	m.maskRowTo(m.mask, dst, src)
	zeros := 0
	for _, v := range dst {
		if v == 0 {
			zeros++
		}
	}
	// Binomial(n, 0.2): the rate is within 4.42 standard deviations with
	// probability 1 − 1e-5.
	p := DefaultMaskProb
	if tol := 4.42 * math.Sqrt(p*(1-p)/n); math.Abs(float64(zeros)/n-p) > tol {
		t.Errorf("masked fraction = %v, want %v ± %v", float64(zeros)/n, p, tol)
	}
}

func TestLossesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation of the BLAS calls allocates")
	}
	if b, _ := compute.Init(); b.Name != compute.NameOpenBLAS {
		t.Skip("gonum's Sgemm splits large products over goroutines, which allocates; the allocation-free path is the OpenBLAS one")
	}
	m := testModel(t, 3)
	cells := []int{1, 7, 9, 20, 33, 100, 239}
	m.trainMu = true
	for _, tc := range []struct {
		desc string
		fn   func([]int) (float64, error)
	}{{"stage 1", m.stage1Loss}, {"stage 2", m.stage2Loss}} {
		t.Run(tc.desc, func(t *testing.T) {
			allocs := testing.AllocsPerRun(20, func() {
				if _, err := tc.fn(cells); err != nil {
					t.Fatal(err)
				}
				m.ae.AccumulateGrads(0)
			})
			if allocs != 0 {
				t.Errorf("%s loss and gradient allocate %v times per call, want 0", tc.desc, allocs)
			}
		})
	}
	t.Run("recorder", func(t *testing.T) {
		p := newPrivacy(1e-5, 0)
		p.component = compStage1
		pl := plan{q: 0.1, steps: [2]int{1000, 0}}
		if err := p.setTarget(50, pl, 1); err != nil {
			t.Fatal(err)
		}
		if err := p.RecordStep(0.1, 1); err != nil { // fills the RDP cache
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if err := p.RecordStep(0.1, 1); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("RecordStep allocates %v times per step, want 0", allocs)
		}
	})
	t.Run("L_cc", func(t *testing.T) {
		if allocs := testing.AllocsPerRun(20, func() { m.ccLoss(m.dmu, 1) }); allocs != 0 {
			t.Errorf("ccLoss allocates %v times per call, want 0", allocs)
		}
	})
}

func TestStage1LossIsPerCell(t *testing.T) {
	// The loss of a chunk is the sum of the losses of its cells computed
	// alone, up to the masks: with masking off (a probability below 2⁻³²)
	// the two must agree, which fails if cells are coupled as in the
	// authors' column-wise cosine.
	m := testModel(t, 3)
	m.drop = 0
	cells := []int{3, 50, 51, 200}
	sum, err := m.stage1Loss(cells)
	if err != nil {
		t.Fatal(err)
	}
	alone := 0.0
	for _, c := range cells {
		l, err := m.stage1Loss([]int{c})
		if err != nil {
			t.Fatal(err)
		}
		alone += l
	}
	if math.Abs(sum-alone) > 1e-5*math.Abs(alone) {
		t.Errorf("chunk loss %v, sum of per-cell losses %v", sum, alone)
	}
}

// TestPCGJump checks pcgJump against stepping math/rand/v2's PCG.
func TestPCGJump(t *testing.T) {
	for _, k := range []uint64{0, 1, 2, 3, 7, 1000, 4097} {
		p := rand.NewPCG(9, 4)
		b, _ := p.MarshalBinary()
		hi, lo := binary.BigEndian.Uint64(b[4:12]), binary.BigEndian.Uint64(b[12:20])
		for range k {
			p.Uint64()
		}
		want := p.Uint64()
		q := rand.NewPCG(0, 0)
		q.Seed(pcgJump(hi, lo, k))
		if got := q.Uint64(); got != want {
			t.Errorf("after pcgJump(%d) the next draw is %#x, stepping gives %#x", k, got, want)
		}
	}
}

// TestMaskViewsMatchOnePass checks that maskViews, which splits the cells
// over two goroutines with the second half's generator jumped ahead, fills
// the views with the bits of one sequential pass, over two calls in a row
// (the stream continues), with and without denoise and an odd gene count.
func TestMaskViewsMatchOnePass(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	d := simData(t, 300, 1001, 3)
	for _, denoise := range []bool{false, true} {
		o := Options{}.withDefaults()
		o.ChunkCells = 200
		o.Denoise = denoise
		ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: nn.Tanh, MaxRows: stage1Views * o.ChunkCells, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := newModel(ae, d, 3, o, 7)
		ref := rand.New(rand.NewPCG(7, streamMask))
		want := compute.NewMatrix(stage1Views*o.ChunkCells, d.Genes, nil)
		for call := range 2 {
			cells := make([]int, 150+call*47)
			for i := range cells {
				cells[i] = (i*7 + call) % d.Cells
			}
			if len(cells)*2*d.Genes < compute.SplitMin {
				t.Fatal("the test's batch is too small to split")
			}
			r := len(cells)
			in := m.in.View(0, 0, stage1Views*r, m.g)
			m.maskViews(in, cells)
			w := want.View(0, 0, stage1Views*r, m.g)
			for i, c := range cells {
				src := m.x.RawRowView(c)
				if denoise {
					m.maskRowTo(ref, w.RawRowView(i), src)
				} else {
					copy(w.RawRowView(i), src)
				}
				m.maskRowTo(ref, w.RawRowView(r+i), src)
				m.maskRowTo(ref, w.RawRowView(2*r+i), src)
			}
			for i := range stage1Views * r {
				for j, v := range in.RawRowView(i) {
					if math.Float32bits(v) != math.Float32bits(w.RawRowView(i)[j]) {
						t.Fatalf("denoise %v, call %d: row %d gene %d = %g, one pass %g", denoise, call, i, j, v, w.RawRowView(i)[j])
					}
				}
			}
			if got, want := m.mask.Uint64(), ref.Uint64(); got != want {
				t.Fatalf("denoise %v, call %d: the stream's next draw is %#x, one pass %#x", denoise, call, got, want)
			}
		}
	}
}
