package sounddcan

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
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
	c := mustParse(t, map[string]string{"keep": "count"})
	if !c.KeepCount || c.KeepGate || !strings.Contains(c.String(), "keep=count") {
		t.Errorf("keep=count resolves to count %v gate %v (%s)", c.KeepCount, c.KeepGate, c)
	}
	c.KeepCount = false
	if !reflect.DeepEqual(c, def) {
		t.Errorf("keep=count changes more than KeepCount:\n%+v\nwant\n%+v", c, def)
	}
	for _, bad := range []string{"", "Gate", "on", "1", "comp", "none", "Count", "counts"} {
		if _, err := Parse(map[string]string{"keep": bad}); err == nil {
			t.Errorf("keep=%q accepted", bad)
		}
	}
	if _, err := Parse(map[string]string{"keep": "count", "start": "alone"}); err == nil {
		t.Error("keep=count with start=alone (no head round) accepted")
	}
}

// TestKeepCountLabels: keepCounts drops exactly the components whose
// released count is below 3σ (here a component of 1 cell at σ 1, beside
// 300 and 20), never the one with the largest count, and draws one normal
// per component from the stream; a cell of a dropped component goes to a
// kept one.
func TestKeepCountLabels(t *testing.T) {
	m := &mixture{k: 3, h: 4, mu: []float64{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}, a: []float64{math.Log(0.6), math.Log(0.38), math.Log(0.02)}, b: 0.5 * math.Log(10), gclip: 1}
	labels := make([]int, 321)
	for i := range labels {
		labels[i] = 0
		if i >= 300 {
			labels[i] = 1
		}
	}
	labels[320] = 2
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		m.keepCounts(labels, 1, rng)
		want := []bool{false, false, true}
		ref := rand.New(rand.NewPCG(seed, 1))
		noise := []float64{ref.NormFloat64(), ref.NormFloat64(), ref.NormFloat64()}
		if 1+noise[2] >= 3 {
			want[2] = false // the noise lifted the one cell over the bar
		}
		if !reflect.DeepEqual(m.drop, want) {
			t.Fatalf("seed %d: keepCounts dropped %v, want %v (noise %v)", seed, m.drop, want, noise)
		}
		if rng.Uint64() != ref.Uint64() {
			t.Fatalf("seed %d: keepCounts did not read exactly one normal per component", seed)
		}
	}
	x := []float64{0, 0.05, 0, 0, 0.9, 0, 0, 0, 0, 1, 0, 0} // at each mean
	m.keepCounts(labels, 1, rand.New(rand.NewPCG(0, 1)))
	if m.drop[2] {
		if got := m.labels(x, 3); got[0] != 0 || got[1] != 1 || got[2] == 2 {
			t.Errorf("labels with component 2 dropped: %v", got)
		}
	}
	m.keepCounts(labels, 1000, rand.New(rand.NewPCG(3, 4))) // every count below 3000: one kept
	kept := 0
	for _, d := range m.drop {
		if !d {
			kept++
		}
	}
	if kept != 1 {
		t.Errorf("with every count below the bar keepCounts kept %d components, want 1 (%v)", kept, m.drop)
	}
}

// TestKeepCountRun: keep=count's plan takes the final count's share from
// the head's (its σ the head round's count noise, the head's sums and
// counts noise up by √(1 + 1/(p+1)), everything else the default's) and
// composes to the target within 1 %; the ledger is the default's
// components plus exactly one event of MechFinalCounts with that σ; the
// labels are those of the same trained mixture with the components
// dropped whose count, noised by the stream's next normals, is below 3σ
// (recomputed here from the outcome); the null is the default's null.
func TestKeepCountRun(t *testing.T) {
	israce.SkipNumerics(t)
	d := fixture.Separated(4, 300, 200, 1)
	src, err := dppca.NewSource(d, 5) // K = 5 > 4 populations: a light component
	if err != nil {
		t.Fatal(err)
	}
	oc, oa := mustParse(t, map[string]string{"keep": "count"}), mustParse(t, nil)
	moved := 0
	for _, eps := range []float64{8, 16} {
		pcg := rand.NewPCG(1, 0)
		rng := rand.New(pcg)
		pl, err := NewPlan(src, true, eps, 1e-5, oc, rng)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := NewPlan(src, true, eps, 1e-5, oa, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		p := float64(oc.P)
		f := math.Sqrt(1 + 1/(p+1))
		if pl.Steps == 0 || pl.FinalCounts != pl.Counts || math.Abs(pl.Counts/pd.Counts-f) > 1e-12 || math.Abs(pl.Sums/pd.Sums-f) > 1e-12 {
			t.Fatalf("ε %g: keep=count's plan steps %d, final %g, counts %g (default %g), sums %g (default %g); want the ratio %g", eps, pl.Steps, pl.FinalCounts, pl.Counts, pd.Counts, pl.Sums, pd.Sums, f)
		}
		q := pl
		q.Sums, q.Counts, q.FinalCounts = pd.Sums, pd.Counts, 0
		if !reflect.DeepEqual(q, pd) {
			t.Fatalf("ε %g: keep=count changed more of the plan than the head's noise", eps)
		}
		if mu := dppca.ComposedMu(pl.Mechanisms()); mu > pl.Mu || mu < 0.99*pl.Mu {
			t.Fatalf("ε %g: the plan composes to μ %g, want at most %g and within 1 %%", eps, mu, pl.Mu)
		}
		// the same plan and stream with the option off: the same trained
		// mixture; the stream's next K normals are the counts' noise
		b, err := pcg.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var twin rand.PCG
		if err := twin.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		ref := rand.New(&twin)
		all, err := Fit(context.Background(), src, pl, oa, ref, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Fit(context.Background(), src, pl, oc, rng, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(all.Centres, got.Centres) || !reflect.DeepEqual(all.Weights, got.Weights) {
			t.Fatalf("ε %g: keep=count changed the trained mixture", eps)
		}
		c := make([]float64, src.K)
		for _, l := range all.Labels {
			c[l]++
		}
		drop := make([]bool, src.K)
		best := 0
		for j := range c {
			c[j] += pl.FinalCounts * ref.NormFloat64()
			drop[j] = c[j] < max(1, minCountSigmas*pl.FinalCounts)
			if c[j] > c[best] {
				best = j
			}
		}
		drop[best] = false
		moved += checkDropped(t, eps, drop, all.Labels, got.Labels)
		n0 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0"}), 1)
		n1 := fitOnce(t, src, true, eps, mustParse(t, map[string]string{"steps": "0", "keep": "count"}), 1)
		if !reflect.DeepEqual(n0.Labels, n1.Labels) || !reflect.DeepEqual(n0.Plan, n1.Plan) {
			t.Errorf("ε %g: keep=count changed the null", eps)
		}
	}
	if moved == 0 {
		t.Error("no cell's component was dropped at ε 8 or 16: the test cannot tell keep=count from the default")
	}
	for _, eps := range []float64{4, 8} {
		ec, _ := runTest(t, d, fixture.SoundConfig(eps, variantSeed, map[string]string{"keep": "count"}))
		ed, _ := runTest(t, d, fixture.SoundConfig(eps, variantSeed, nil))
		lc, ld := ec.Ledger(), ed.Ledger()
		if len(ld.Events(MechSGD)) == 0 {
			t.Fatalf("ε %g: the default's network did not run", eps)
		}
		if want := append(slices.Clone(ld.Components()), MechFinalCounts); !slices.Equal(lc.Components(), want) {
			t.Errorf("ε %g: keep=count's ledger %v, want %v", eps, lc.Components(), want)
		}
		for _, c := range ld.Components() {
			if len(lc.Events(c)) != len(ld.Events(c)) {
				t.Errorf("ε %g: %s has %d events, the default's %d", eps, c, len(lc.Events(c)), len(ld.Events(c)))
			}
		}
		want, err := dppca.Mechanism{Name: MechFinalCounts, Sens: 1, Sigma: ec.Outcome().Plan.FinalCounts, Count: 1}.Event()
		if err != nil {
			t.Fatal(err)
		}
		if evs := lc.Events(MechFinalCounts); len(evs) != 1 || !reflect.DeepEqual(evs[0], want) || ec.Outcome().Plan.FinalCounts <= 0 {
			t.Errorf("ε %g: the final counts' events %v, want one of σ %g", eps, evs, ec.Outcome().Plan.FinalCounts)
		}
		if _, got := ledgerBudget(t, ec); got > eps || got < 0.99*eps {
			t.Errorf("ε %g: the ledger composes to ε %.9g, want at most the target and within 1 %%", eps, got)
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
// kept component (here 3 cells at ε 16: K = 5 on four populations); the
// null (steps=0) is the default's; the ledger is the default's event for
// event.
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
		moved += checkDropped(t, eps, drop, def.Labels, kg.Labels)
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

// checkDropped fails t unless no cell of after is labelled by a dropped
// component and every cell whose label in before is kept keeps it; it
// returns how many cells before had a dropped label (they moved).
func checkDropped(t *testing.T, eps float64, drop []bool, before, after []int) (moved int) {
	t.Helper()
	for i, l := range before {
		if drop[after[i]] {
			t.Fatalf("ε %g: cell %d labelled by dropped component %d", eps, i, after[i])
		}
		if !drop[l] && after[i] != l {
			t.Fatalf("ε %g: cell %d moved from kept component %d to %d", eps, i, l, after[i])
		}
		if drop[l] {
			moved++
		}
	}
	return moved
}
