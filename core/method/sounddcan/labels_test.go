package sounddcan

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"

	"github.com/dpscope/dpscope/internal/israce"
)

// TestLabelsOptions: labels reads pi (the default, written nowhere) or
// means, weights reads learn (the default) or fixed; other values are
// refused and the defaults' string is unchanged.
func TestLabelsOptions(t *testing.T) {
	def := mustParse(t, nil)
	if def.Labels != "" || def.WeightsFixed || strings.Contains(def.String(), "labels=") || strings.Contains(def.String(), "weights=") {
		t.Errorf("the default resolves to labels %q weights fixed %v (%s)", def.Labels, def.WeightsFixed, def)
	}
	if o := mustParse(t, map[string]string{"labels": "pi", "weights": "learn"}); o.String() != def.String() {
		t.Errorf("labels=pi;weights=learn reads %s, want the default's %s", o, def)
	}
	if o := mustParse(t, map[string]string{"labels": "means"}); o.Labels != LabelsMeans || !strings.Contains(o.String(), "labels=means") {
		t.Errorf("labels=means resolves to %q (%s)", o.Labels, o)
	}
	if o := mustParse(t, map[string]string{"weights": "fixed"}); !o.WeightsFixed || !strings.Contains(o.String(), "weights=fixed") {
		t.Errorf("weights=fixed resolves to %v (%s)", o.WeightsFixed, o)
	}
	for _, bad := range []string{"", "nearest", "PI", "1"} {
		if _, err := Parse(map[string]string{"labels": bad}); err == nil {
			t.Errorf("labels=%q accepted", bad)
		}
		if _, err := Parse(map[string]string{"weights": bad}); err == nil {
			t.Errorf("weights=%q accepted", bad)
		}
	}
}

// TestPlainLabels: a cell nearer to a light component's mean goes to the
// heavy one under the π-weighted labels and to its nearest mean under
// plainLabels; where the weights are equal the two agree.
func TestPlainLabels(t *testing.T) {
	h := 4
	m := &mixture{k: 2, h: h, mu: []float64{0, 0, 0, 0, 1, 0, 0, 0}, a: []float64{math.Log(0.98), math.Log(0.02)}, b: 0.5 * math.Log(10)}
	x := []float64{0.6, 0, 0, 0, 1.2, 0, 0, 0} // both nearer to mean 1; v = 0.1
	if got := m.labels(x, 2); got[0] != 0 || got[1] != 1 {
		t.Fatalf("π-weighted labels %v, want [0 1] (the heavy component takes the near-midpoint cell)", got)
	}
	if got := m.plainLabels(x, 2); got[0] != 1 || got[1] != 1 {
		t.Errorf("plain labels %v, want [1 1] (the nearest mean)", got)
	}
	m.a = []float64{0, 0}
	rng := rand.New(rand.NewPCG(2, 2))
	y := make([]float64, 50*h)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	if a, b := m.labels(y, 50), m.plainLabels(y, 50); !reflect.DeepEqual(a, b) {
		t.Errorf("equal weights: π-weighted %v and plain %v differ", a, b)
	}
}

// TestLabelsMeansRun: labels=means is post-processing of the trained
// mixture: the same plan, the same trained means and weights to the
// digit, its labels the nearest trained mean; its null (steps=0) is the
// default's null. weights=fixed keeps π at its start through the steps
// (the plan and so the ledger unchanged) and its means move.
func TestLabelsMeansRun(t *testing.T) {
	israce.SkipNumerics(t)
	d := fixture.Separated(4, 300, 200, 1)
	src, err := dppca.NewSource(d, 8) // K = 8 > 4 populations: light components
	if err != nil {
		t.Fatal(err)
	}
	def := fitOnce(t, src, true, 16, mustParse(t, nil), 1)
	lm := fitOnce(t, src, true, 16, mustParse(t, map[string]string{"labels": "means"}), 1)
	if len(def.Losses) == 0 {
		t.Fatal("the network did not run; the test needs its steps")
	}
	if !reflect.DeepEqual(def.Plan, lm.Plan) || !reflect.DeepEqual(def.Centres, lm.Centres) || !reflect.DeepEqual(def.Weights, lm.Weights) {
		t.Fatal("labels=means changed the plan, the trained means or the weights")
	}
	h := def.Start.Matrix.H
	mu := make([]float64, len(def.Centres))
	for i, v := range def.Centres {
		mu[i] = float64(v)
	}
	want := (&mixture{k: src.K, h: h, mu: mu, a: make([]float64, src.K)}).plainLabels(def.Start.Matrix.Z, def.Start.Matrix.N)
	// float32 centres: allow a handful of near-ties to differ
	diff := 0
	for i := range want {
		if want[i] != lm.Labels[i] {
			diff++
		}
	}
	if diff > len(want)/100 {
		t.Errorf("labels=means: %d of %d labels are not the nearest trained mean", diff, len(want))
	}
	other := 0
	for i := range want {
		if want[i] != def.Labels[i] {
			other++
		}
	}
	if other == 0 {
		t.Error("the π-weighted labels are the nearest mean everywhere: the test cannot tell the options apart")
	}
	n0 := fitOnce(t, src, true, 16, mustParse(t, map[string]string{"steps": "0"}), 1)
	n1 := fitOnce(t, src, true, 16, mustParse(t, map[string]string{"steps": "0", "labels": "means"}), 1)
	if !reflect.DeepEqual(n0.Labels, n1.Labels) {
		t.Error("labels=means changed the null's labels")
	}
	wf := fitOnce(t, src, true, 16, mustParse(t, map[string]string{"weights": "fixed"}), 1)
	if !reflect.DeepEqual(def.Plan, wf.Plan) {
		t.Fatal("weights=fixed changed the plan")
	}
	tw := sum(wf.StartWeights)
	var moved float64
	for j, w := range wf.Weights {
		moved += math.Abs(w - def.Weights[j])
	}
	// π at its start: the weights are the start's shares (floored, renormalised)
	ws := make([]float64, src.K)
	var z float64
	for j := range ws {
		ws[j] = math.Max(wf.StartWeights[j]/tw, freqFloor/float64(src.K))
		z += ws[j]
	}
	for j := range ws {
		if math.Abs(wf.Weights[j]-ws[j]/z) > 1e-12 {
			t.Errorf("weights=fixed: π_%d = %.6f after the steps, want its start %.6f", j, wf.Weights[j], ws[j]/z)
		}
	}
	if moved == 0 {
		t.Error("the default's weights equal weights=fixed's: the test cannot tell them apart")
	}
	if reflect.DeepEqual(wf.Centres, n0.Centres) {
		t.Error("weights=fixed: the means did not move")
	}
}
