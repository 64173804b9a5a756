package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
	"gonum.org/v1/gonum/mat"
)

// TestTopEigenSym: subspace iteration finds the top eigenpairs of a
// matrix with a clear gap as the exact decomposition does.
func TestTopEigenSym(t *testing.T) {
	const m, b = 120, 4
	rng := rand.New(rand.NewPCG(3, 3))
	// Noise of spectrum within ±2√m·0.1 ≈ ±2.2 plus four spikes 50..20.
	c := make([]float64, m*m)
	addGOE(c, m, 0.1*math.Sqrt2, rng)
	spikes := []float64{50, 40, 30, 20}
	vecs := make([][]float64, b)
	for k := range b {
		v := make([]float64, m)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		vecs[k] = v
	}
	for k := range b { // Gram–Schmidt so the spikes are orthogonal
		for j := range k {
			var d float64
			for i := range m {
				d += vecs[k][i] * vecs[j][i]
			}
			for i := range m {
				vecs[k][i] -= d * vecs[j][i]
			}
		}
		var s float64
		for _, a := range vecs[k] {
			s += a * a
		}
		for i := range m {
			vecs[k][i] /= math.Sqrt(s)
		}
	}
	for k, th := range spikes {
		for i := range m {
			for j := i; j < m; j++ {
				c[i*m+j] += th * vecs[k][i] * vecs[k][j]
			}
		}
	}
	full := append([]float64(nil), c...)
	vals, got := topEigenSym(c, m, b, rng)
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(m, full), true) {
		t.Fatal("exact eigendecomposition failed")
	}
	all := es.Values(nil)
	var ev mat.Dense
	es.VectorsTo(&ev)
	for k := range b {
		if want := all[m-1-k]; math.Abs(vals[k]-want) > 1e-6*want {
			t.Errorf("eigenvalue %d = %.9g, want %.9g", k, vals[k], want)
		}
		var d float64
		for i := range m {
			d += got[i*b+k] * ev.At(i, m-1-k)
		}
		if math.Abs(math.Abs(d)-1) > 1e-6 {
			t.Errorf("eigenvector %d: |overlap| with the exact one %.9f, want 1", k, math.Abs(d))
		}
	}
}

// TestLeverage: directions below the edge count for nothing; above it,
// each weighs 1 − s²/θ² and its squared loadings sum to that weight.
func TestLeverage(t *testing.T) {
	// 4 genes, 2 directions: e0 on genes 0,1; e1 on gene 2; eigenvalues
	// 10 and 1, edge 2 (s = 1): only the first passes, θ = 5 + √21.
	r := 1 / math.Sqrt2
	vecs := []float64{r, 0, r, 0, 0, 1, 0, 0}
	score, q := leverage([]float64{10, 1}, vecs, 4, 2, 1)
	theta := (10 + math.Sqrt(96)) / 2
	w := 1 - 1/(theta*theta)
	if q != 1 || math.Abs(score[0]-w/2) > 1e-12 || math.Abs(score[1]-w/2) > 1e-12 || score[2] != 0 || score[3] != 0 {
		t.Errorf("leverage = %v, q = %d; want [%g %g 0 0], 1", score, q, w/2, w/2)
	}
	// Without noise every direction passes with weight 1.
	if score, q := leverage([]float64{10, 1}, vecs, 4, 0, 0); q != 2 || score[2] != 1 || math.Abs(score[0]-0.5) > 1e-12 {
		t.Errorf("leverage without noise = %v, q = %d; want [0.5 0.5 1 0], 2", score, q)
	}
}

// TestSelectLeverageSkipsHousekeeping: on hkMarkers (select_test.go) with
// h = 40, where select=mean keeps at most 5 markers, the leverage rule
// keeps markers without noise and at ε = 16 (measured 25 of 40): the
// housekeeping block co-varies only through each cell's size, one
// direction over 40 genes. At ε = 0.1 no direction of the 160 candidates
// covariance passes its noise edge on 400 cells, and the rule keeps the
// first 40 in ranking order: select=mean's genes (the ranking's noise is
// drawn first, so with the same generator they are the same genes).
func TestSelectLeverageSkipsHousekeeping(t *testing.T) {
	cl := newCellLog(hkMarkers(3), PublicTarget)
	for _, c := range []struct {
		private  bool
		eps      float64
		min, max int // markers among the 40 kept
	}{{false, 0, 20, 40}, {true, 16, 20, 40}, {true, 0.1, 0, 40}} {
		o := mustParse(t, map[string]string{"genes": "40", "select": "leverage", "k": "4"})
		eps := c.eps
		if !c.private {
			eps = 1 // not read: no noise
		}
		pl, err := NewPlan(c.private, eps, 1e-5, o, 40, 3)
		if err != nil {
			t.Fatal(err)
		}
		pl.SelectQ = 4
		m, _ := privatePrep(cl, pl, rand.New(rand.NewPCG(1, 1)))
		markers := countBelow(m.Genes, 40)
		if markers < c.min || markers > c.max || m.H != 40 {
			t.Errorf("private=%v ε=%g: %d of %d genes kept are markers, want %d to %d", c.private, c.eps, markers, m.H, c.min, c.max)
		}
		if c.eps != 0.1 {
			continue
		}
		om := mustParse(t, map[string]string{"genes": "40", "k": "4"})
		plm, err := NewPlan(true, 0.1, 1e-5, om, 40, 3)
		if err != nil {
			t.Fatal(err)
		}
		mm, _ := privatePrep(cl, plm, rand.New(rand.NewPCG(1, 1)))
		if !slices.Equal(mm.Genes, m.Genes) {
			t.Errorf("ε=0.1: leverage kept %v, want mean's genes %v", m.Genes, mm.Genes)
		}
	}
}

// TestSelectLeveragePlan: select=leverage adds one mechanism, the
// candidates' covariance (Δ = (2R)² for 4h candidates, ShareSelectPCA of
// μ²), takes it from the split, and still composes to the target ε at
// every ε; the engine records every mechanism once.
func TestSelectLeveragePlan(t *testing.T) {
	for _, eps := range []float64{0.5, 4, 16} {
		o := mustParse(t, map[string]string{"select": "leverage"})
		pl, err := NewPlan(true, eps, 1e-5, o, 100, 5)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range pl.Mechanisms() {
			if m.Name == MechSelectPCA {
				found = true
				if math.Abs(m.Sens-100) > 1e-9 || math.Abs(math.Pow(m.Mu()/pl.Mu, 2)-ShareSelectPCA) > 1e-9 {
					t.Errorf("ε=%g: candidates' covariance Δ = %g (want (2·5)² = 100), share of μ² %g (want %g)", eps, m.Sens, math.Pow(m.Mu()/pl.Mu, 2), ShareSelectPCA)
				}
			}
			if m.Name == MechPCA {
				if w := math.Pow(m.Mu()/pl.Mu, 2); math.Abs(w-(o.Split-ShareSelectPCA)) > 1e-9 {
					t.Errorf("ε=%g: kept genes' covariance share %g, want %g", eps, w, o.Split-ShareSelectPCA)
				}
			}
		}
		if !found {
			t.Errorf("ε=%g: no %q among the plan's mechanisms", eps, MechSelectPCA)
		}
		got, err := EpsilonOf(ComposedMu(pl.Mechanisms()), 1e-5)
		if err != nil || got > eps || got < eps*(1-1e-9) {
			t.Errorf("ε=%g: composed ε = %.12g, %v; want %g", eps, got, err, eps)
		}
	}
	if _, err := Parse(map[string]string{"select": "leverage", "split": "0.1"}); err == nil {
		t.Error("select=leverage with split=0.1 accepted, want an error (its covariance takes 0.1)")
	}
	d := hkMarkers(4)
	e, _ := runTest(t, d, fixture.SoundConfig(4, 1, map[string]string{"select": "leverage", "k": "4"}), nil)
	mu := ComposedMu(e.Outcomes()[0].Plan.Mechanisms())
	if got := SpentMu(e.Ledger()); got > mu*(1+1e-12) || got < mu*(1-1e-9) {
		t.Errorf("ledger μ = %.12g, plan μ = %.12g", got, mu)
	}
	// 11 with offset=dir's direction (rule G19), which fires here
	if n, want := len(e.Ledger().Components()), len(e.Outcomes()[0].Plan.Mechanisms()); n != want || want != 10+boolInt(e.Outcomes()[0].Plan.Offset > 0) {
		t.Errorf("ledger has %d components, plan %d mechanisms, want 10 each (11 with the offset)", n, want)
	}
	if eps, err := EpsilonOf(SpentMu(e.Ledger()), 1e-5); err != nil || eps > 4 {
		t.Errorf("spent ε = %g, %v; want ≤ 4", eps, err)
	}
}
