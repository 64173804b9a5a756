package sounddcan

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
	"github.com/dpscope/dpscope/internal/israce"
)

// TestKeepOptions: keep reads all (the default, written nowhere) or gate;
// keep=gate sets KeepGate and nothing else; other values are refused.
func TestKeepOptions(t *testing.T) {
	def := mustParse(t, nil)
	if def.KeepGate || strings.Contains(def.String(), "keep=") {
		t.Errorf("the default resolves to keep=gate %v (%s)", def.KeepGate, def)
	}
	if o := mustParse(t, map[string]string{"keep": "all"}); !reflect.DeepEqual(o, def) {
		t.Errorf("keep=all reads %s, want the default's %s", o, def)
	}
	o := mustParse(t, map[string]string{"keep": "gate"})
	if !o.KeepGate || !strings.Contains(o.String(), "keep=gate") {
		t.Errorf("keep=gate resolves to %v (%s)", o.KeepGate, o)
	}
	o.KeepGate = false
	if !reflect.DeepEqual(o, def) {
		t.Errorf("keep=gate changes more than KeepGate:\n%+v\nwant\n%+v", o, def)
	}
	for _, bad := range []string{"", "Gate", "on", "1", "comp", "none"} {
		if _, err := Parse(map[string]string{"keep": bad}); err == nil {
			t.Errorf("keep=%q accepted", bad)
		}
	}
}

// TestKeepLabels: keep drops exactly the components whose MeanNoise with
// their own weight exceeds the bound, never the heaviest; a cell at a
// dropped component's mean goes to a kept one under both labellings;
// without drop the labels are the old ones.
func TestKeepLabels(t *testing.T) {
	h := 4
	w := []float64{0.38, 0.6, 0.02}
	a := make([]float64, 3)
	for j, v := range w {
		a[j] = math.Log(v)
	}
	m := &mixture{k: 3, h: h, mu: []float64{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}, a: a, b: 0.5 * math.Log(10), gclip: 1}
	x := []float64{0, 0.05, 0, 0, 0.9, 0, 0, 0, 0, 1, 0, 0} // at each mean
	if got := m.labels(x, 3); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Fatalf("labels without drop %v, want [0 1 2]", got)
	}
	nt, eta, z := 1000.0, 0.06, 100.0
	// the bound in weight: MeanNoise ≤ StageRho iff π ≥ z·√(η/(2−η))·√h/(nt·StageRho)
	bar := z * math.Sqrt(eta/(2-eta)) * math.Sqrt(float64(h)) / (nt * StageRho)
	if !(w[2] < bar && bar < w[0]) {
		t.Fatalf("the weight bar %.4f does not separate the test's weights %v", bar, w)
	}
	m.keep(z, nt, eta, StageRho)
	if !reflect.DeepEqual(m.drop, []bool{false, false, true}) {
		t.Fatalf("keep dropped %v, want only the light component 2", m.drop)
	}
	for name, got := range map[string][]int{"π-weighted": m.labels(x, 3), "plain": m.plainLabels(x, 3)} {
		if got[0] != 0 || got[1] != 1 || got[2] == 2 {
			t.Errorf("%s labels with component 2 dropped: %v, want 0, 1 and a kept component", name, got)
		}
	}
	m.keep(1e6, nt, eta, StageRho) // every component too light: the heaviest stays
	if !reflect.DeepEqual(m.drop, []bool{true, false, true}) {
		t.Fatalf("keep with every component gated dropped %v, want all but the heaviest (1)", m.drop)
	}
	if got := m.labels(x, 3); !reflect.DeepEqual(got, []int{1, 1, 1}) {
		t.Errorf("labels with only component 1 kept: %v", got)
	}
}

// TestKeepRun: keep=gate is post-processing of the trained mixture: the
// same plan, means and weights to the digit; a cell whose default label
// is a kept component keeps it, one whose label was dropped moves to a
// kept component (here 3 cells at ε 16: K = 5 on four populations); the null (steps=0) is the default's; the ledger is the
// default's event for event.
func TestKeepRun(t *testing.T) {
	israce.SkipNumerics(t)
	d := fixture.Separated(4, 300, 200, 1)
	src, err := dppca.NewSource(d, 5) // K = 5 > 4 populations: a light component
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, eps := range []float64{8, 16} {
		o := mustParse(t, nil)
		def := fitOnce(t, src, true, eps, o, 1)
		kg := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"keep": "gate"}), 1)
		if len(def.Losses) == 0 {
			t.Fatalf("ε %g: the network did not run; the test needs its steps", eps)
		}
		if !reflect.DeepEqual(def.Plan, kg.Plan) || !reflect.DeepEqual(def.Centres, kg.Centres) || !reflect.DeepEqual(def.Weights, kg.Weights) {
			t.Fatalf("ε %g: keep=gate changed the plan, the trained means or the weights", eps)
		}
		drop := make([]bool, src.K)
		heavy := 0
		for j, w := range def.Weights {
			drop[j] = MeanNoise(def.Plan.Z, o.rulesClip(), 1, def.Start.Matrix.NoisyN*w, o.LR, def.Start.Matrix.H) > StageRho
			if w > def.Weights[heavy] {
				heavy = j
			}
		}
		drop[heavy] = false
		for i, l := range def.Labels {
			if drop[kg.Labels[i]] {
				t.Fatalf("ε %g: cell %d labelled by dropped component %d", eps, i, kg.Labels[i])
			}
			if !drop[l] && kg.Labels[i] != l {
				t.Fatalf("ε %g: cell %d moved from kept component %d to %d", eps, i, l, kg.Labels[i])
			}
			if drop[l] {
				moved++
			}
		}
		n0 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0"}), 1)
		n1 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0", "keep": "gate"}), 1)
		if !reflect.DeepEqual(n0.Labels, n1.Labels) {
			t.Errorf("ε %g: keep=gate changed the null's labels", eps)
		}
	}
	if moved == 0 {
		t.Error("no cell's component was dropped at ε 8 or 16: the test cannot tell keep=gate from the default")
	}
	checkSameReleases(t, map[string]string{"keep": "gate"}, nil)
}
