package dppca

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// libraries returns a one-gene count data set whose cells' totals are tots.
func libraries(tots []float32) *datasets.Dataset {
	x := &datasets.CSR{Rows: len(tots), Cols: 1, Indptr: make([]int64, len(tots)+1)}
	for i, t := range tots {
		x.Indices = append(x.Indices, 0)
		x.Data = append(x.Data, t)
		x.Indptr[i+1] = int64(i + 1)
	}
	return &datasets.Dataset{Name: "libs", X: x, ValueType: datasets.Counts}
}

// TestMedianTargetParses: target=median parses, prints back and takes
// ShareMedian from the k-means under private preprocessing only; a
// negative number is still refused.
func TestMedianTargetParses(t *testing.T) {
	o := mustParse(t, map[string]string{"target": "median"})
	if o.Target != TargetMedian || !strings.Contains(o.String(), "target=median") || o.sourceTarget() != DefaultTarget {
		t.Fatalf("target=median parsed to %v (%s)", o.Target, o)
	}
	d := mustParse(t, nil)
	if got := d.kmShare() - o.kmShare(); math.Abs(got-ShareMedian) > 1e-15 {
		t.Errorf("k-means share falls by %g, want ShareMedian %g", got, ShareMedian)
	}
	pub := mustParse(t, map[string]string{"target": "median", "prep": "public"})
	if pub.prepShare() != 0 {
		t.Errorf("prep=public target=median takes %g of μ², want 0", pub.prepShare())
	}
	for _, bad := range []string{"-1", "Median", "0"} {
		if _, err := Parse(map[string]string{"target": bad}); !errors.Is(err, ErrOptions) {
			t.Errorf("target=%s: err %v, want ErrOptions", bad, err)
		}
	}
}

// TestMedianTargetLedgerExact: with target=median the plan lists the
// histogram (Δ = 1, σ = 1/(μ·√ShareMedian)) and its mechanisms still
// compose to exactly μ; without private preprocessing it lists none.
func TestMedianTargetLedgerExact(t *testing.T) {
	for _, eps := range []float64{0.5, 4, 16} {
		for _, opts := range []map[string]string{{"target": "median"}, {"target": "median", "init": "random-ball", "select": "leverage"}} {
			o := mustParse(t, opts)
			pl, err := NewPlan(true, eps, 1e-5, o, 200, 7)
			if err != nil {
				t.Fatal(err)
			}
			var found int
			for _, m := range pl.Mechanisms() {
				if m.Name == MechMedian {
					found++
					if want := 1 / (pl.Mu * math.Sqrt(ShareMedian)); m.Sens != 1 || math.Abs(m.Sigma-want) > 1e-12*want {
						t.Errorf("ε %g: histogram Δ %g σ %g, want 1 and %g", eps, m.Sens, m.Sigma, want)
					}
				}
			}
			if got := ComposedMu(pl.Mechanisms()); found != 1 || math.Abs(got-pl.Mu) > 1e-9*pl.Mu {
				t.Errorf("ε %g %v: %d histograms, composed μ %.12g, plan μ %.12g", eps, opts, found, got, pl.Mu)
			}
		}
	}
	o := mustParse(t, map[string]string{"target": "median", "prep": "public"})
	pl, _ := NewPlan(true, 4, 1e-5, o, 200, 7)
	for _, m := range pl.Mechanisms() {
		if m.Name == MechMedian {
			t.Errorf("prep=public lists %s", m.Name)
		}
	}
}

// TestMedianTotal: without noise the released median is the geometric
// centre of the true median's bin; with noise of σ = 2 on 2,001 cells it
// stays within two bins; an all-noise histogram gives the fallback.
func TestMedianTotal(t *testing.T) {
	var tots []float32
	for i := range 2001 {
		tots = append(tots, float32(200+i)) // median 1,200
	}
	d := libraries(tots)
	got := medianTotal(d, 0, nil, 7)
	if want := math.Pow(10, 3.05); math.Abs(got-want) > 1e-9 {
		t.Errorf("exact median %g, want %g (the bin 10^3.0–10^3.1 of 1,200)", got, want)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		if got := medianTotal(d, 2, rng, 7); got < 1200/math.Pow(10, 0.2) || got > 1200*math.Pow(10, 0.2) {
			t.Fatalf("noisy median %g, want within two bins of 1,200", got)
		}
	}
	if got := medianTotal(libraries([]float32{5}), 1e6, rand.New(rand.NewPCG(1, 2)), 7); got != 7 && got <= 0 {
		t.Errorf("all-noise median %g, want the fallback 7 or a positive bin", got)
	}
}

// TestEngineMedianTarget: a sound run with target=median has the
// histogram in its ledger, its audited ε meets the target, and its
// release normalises to a total read from the data.
func TestEngineMedianTarget(t *testing.T) {
	d := fixture.Separated(4, 60, 200, 2)
	e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "target": "median"}), nil)
	var has bool
	for _, c := range e.Ledger().Components() {
		has = has || strings.Contains(c, MechMedian)
	}
	out := e.Outcomes()[0]
	// 11: offset=dir's direction (rule G19) fires on these 240 cells at ε 2
	if n, want := len(e.Ledger().Components()), len(out.Plan.Mechanisms()); !has || n != want || want != 11 || out.Plan.Offset == 0 {
		t.Errorf("ledger %v: histogram %v, %d components, want the plan's %d (11, the offset's among them)", e.Ledger().Components(), has, n, want)
	}
	mu := SpentMu(e.Ledger())
	if eps, _ := EpsilonOf(mu, 1e-5); eps > 2 || eps < 2-1e-8 {
		t.Errorf("ledger ε %.12g, want 2", eps)
	}
	if !(out.Plan.Target > 0) {
		t.Errorf("release total %g, want the released median > 0", out.Plan.Target)
	}
}
