package dppca

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestPriorWeightsVariance checks prior=counts' released inputs: counts
// below 1 weigh 1, the proportions sum to 1, and s² is the released
// second moment less the centres' weighted one, over p (0 when negative).
func TestPriorWeightsVariance(t *testing.T) {
	pi := priorWeights([]float64{300, -5, 99})
	if math.Abs(pi[0]-0.75) > 1e-12 || math.Abs(pi[1]-0.0025) > 1e-12 || math.Abs(pi[2]-0.2475) > 1e-12 {
		t.Errorf("weights %v, want 0.75 0.0025 0.2475", pi)
	}
	// eigen 30, 10 over ñ 10: second moment 4; centres (1,1) and (0,2)
	// at ½: between ½·2 + ½·4 = 3; s² (4 − 3)/2 = 0.5
	c := []float64{1, 1, 0, 2}
	if s2 := priorVariance([]float64{30, 10, 99}, 0, 10, c, []float64{0.5, 0.5}, 2); math.Abs(s2-0.5) > 1e-12 {
		t.Errorf("s² %g, want 0.5", s2)
	}
	if s2 := priorVariance([]float64{20, 5}, 0, 10, c, []float64{0.5, 0.5}, 2); s2 != 0 {
		t.Errorf("s² %g, want 0 (between above total)", s2)
	}
	// the edge 5 off each: (25 + 5)/10 = 3 − 3 = 0; edge 2: (28 + 8)/10
	// = 3.6, s² 0.3
	if s2 := priorVariance([]float64{30, 10}, 2, 10, c, []float64{0.5, 0.5}, 2); math.Abs(s2-0.3) > 1e-12 {
		t.Errorf("s² %g with edge 2, want 0.3", s2)
	}
}

// TestAssignBias checks the biased assignment: without a bias it is
// assign's; a point at the midpoint of two centres goes to the heavier
// (smaller penalty), and one a little nearer the light centre still
// goes to the heavy one when the penalty gap exceeds its distance gap.
func TestAssignBias(t *testing.T) {
	c := []float64{0, 0, 2, 0}
	x := []float64{1, 0, 0.9, 0, 0.2, 0, 1.8, 0}
	l0, c0 := assign(x, 4, 2, c)
	l1, c1 := assignBias(x, 4, 2, c, nil)
	if !slices.Equal(l0, l1) || c0 != c1 {
		t.Errorf("nil bias: %v %g, assign %v %g", l1, c1, l0, c0)
	}
	// π = (0.2, 0.8), s² = 0.5: penalties −log 0.2 = 1.609, −log 0.8 = 0.223
	b := []float64{-math.Log(0.2), -math.Log(0.8)}
	l, cost := assignBias(x, 4, 2, c, b)
	// x=0.9: 0.81+1.609 = 2.419 against 1.21+0.223 = 1.433 → 1
	// x=0.2: 0.04+1.609 = 1.649 against 3.24+0.223 = 3.463 → 0
	if want := []int{1, 1, 0, 1}; !slices.Equal(l, want) {
		t.Errorf("labels %v, want %v", l, want)
	}
	if want := 1 + 1.21 + 0.04 + 0.04; math.Abs(cost-want) > 1e-12 {
		t.Errorf("cost %g, want the plain squared distances %g", cost, want)
	}
}

// TestPriorLedger: prior=counts is post-processing. With over-clustering
// forced (over=2) its release has the default's plan, mechanisms and
// ledger exactly, at ε 2 and 8.
func TestPriorLedger(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	for _, eps := range []float64{2, 8} {
		var ledgers [2][]string
		var mus [2]float64
		var plans [2]string
		for i, v := range []string{"off", "counts"} {
			cfg := map[string]string{"genes": "100", "over": "2", "prior": v}
			e, _ := runTest(t, d, fixture.SoundConfig(eps, 1, cfg), nil)
			ledgers[i] = e.Ledger().Components()
			mus[i] = SpentMu(e.Ledger())
			out := e.Outcomes()[0]
			for _, m := range out.Plan.Mechanisms() {
				plans[i] += m.Name + " " + fmtG(m.Sigma) + " " + fmtG(m.Sens) + " " + fmtG(float64(m.Count)) + ";"
				evs := e.Ledger().Events("release 1: " + m.Name)
				if len(evs) != 1 || evs[0].Steps != m.Count || math.Abs(evs[0].NoiseMultiplier-m.Sigma/m.Sens) > 1e-12 {
					t.Errorf("prior=%s ε %g: ledger events of %q %+v, want %d steps of σ/Δ %g", v, eps, m.Name, evs, m.Count, m.Sigma/m.Sens)
				}
			}
		}
		if !slices.Equal(ledgers[0], ledgers[1]) || mus[0] != mus[1] || plans[0] != plans[1] || plans[0] == "" {
			t.Errorf("ε %g: prior=counts ledger %v μ %g plan %q, default %v μ %g plan %q", eps, ledgers[1], mus[1], plans[1], ledgers[0], mus[0], plans[0])
		}
	}
	// the default is off, and "" reads as off
	if o := mustParse(t, map[string]string{}); o.Prior == PriorCounts || o.String() != mustParse(t, map[string]string{"prior": "off"}).String() {
		t.Errorf("default prior %q", o.Prior)
	}
	if _, err := Parse(map[string]string{"prior": "yes"}); err == nil {
		t.Error("prior=yes accepted")
	}
}

// fmtG formats a float for the plan's comparison string.
func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestPriorBias checks when prior=counts applies and its penalties:
// −2s²·log π_j with s² from the released eigenvalues less the edge, the
// released count and centres; nil when off, not over-clustered, or the
// counts are not one per centre.
func TestPriorBias(t *testing.T) {
	r := &release{o: Options{Prior: PriorCounts}, over: 2, k: 2, counts: []float64{80, 20},
		pl: Plan{H: 4}, out: Outcome{Eigen: []float64{30, 10}, Matrix: &Matrix{NoisyN: 10}}}
	c := []float64{1, 1, 0, 1}
	// σ_PCA 0: edge 0; total 4, between 0.8·2 + 0.2·1 = 1.8, s² 1.1
	b := r.priorBias(c)
	if len(b) != 2 || math.Abs(b[0]+2*1.1*math.Log(0.8)) > 1e-12 || math.Abs(b[1]+2*1.1*math.Log(0.2)) > 1e-12 {
		t.Errorf("bias %v, want %g %g", b, -2*1.1*math.Log(0.8), -2*1.1*math.Log(0.2))
	}
	for name, rr := range map[string]release{
		"off":            {o: Options{Prior: PriorOff}, over: 2, k: 2, counts: r.counts, pl: r.pl, out: r.out},
		"over 1":         {o: r.o, over: 1, k: 2, counts: r.counts, pl: r.pl, out: r.out},
		"2K counts":      {o: r.o, over: 2, k: 2, counts: []float64{1, 2, 3, 4}, pl: r.pl, out: r.out},
		"edge above all": {o: r.o, over: 2, k: 2, counts: r.counts, pl: Plan{H: 4, PCA: 100}, out: r.out},
	} {
		if b := rr.priorBias(c); b != nil {
			t.Errorf("%s: bias %v, want none", name, b)
		}
	}
}
