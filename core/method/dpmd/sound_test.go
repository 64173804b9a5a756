package dpmd

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestOverlap checks K on a hand-made line and the bound it certifies:
// for random queries and random points y, Σ_q α̃_q(y)² ≤ K.
func TestOverlap(t *testing.T) {
	// h = 0.3, 2h = 0.6: 0 sees {0, 0.5}, 0.5 sees {0, 0.5, 1}, 1 sees
	// {0.5, 1}, 5 sees itself.
	if K := Overlap([]float64{0, 0.5, 1, 5}, 4, 1, 0.3); K != 3 {
		t.Errorf("K = %d, want 3", K)
	}
	if K := Overlap([]float64{0, 10, 20}, 3, 1, 0.3); K != 1 {
		t.Errorf("K of isolated queries = %d, want 1", K)
	}
	const m, D, h, d = 60, 2, 0.4, 1
	rng := rand.New(rand.NewPCG(3, 3))
	xs := make([]float64, m*D)
	for i := range xs {
		xs[i] = 2 * rng.Float64()
	}
	K := Overlap(xs, m, D, h)
	if K >= m || K < 2 {
		t.Fatalf("K = %d for %d queries spread on [0, 2]², want between 2 and m", K, m)
	}
	for range 20000 {
		y := []float64{2 * rng.Float64(), 2 * rng.Float64()}
		var s float64
		for q := range m {
			dx, dy := xs[q*D]-y[0], xs[q*D+1]-y[1]
			a := ipow(max(0, 1-(dx*dx+dy*dy)/(h*h)), d+2)
			s += a * a
		}
		if s > float64(K)+1e-12 {
			t.Fatalf("Σα̃² = %g at y = %v exceeds K = %d", s, y, K)
		}
	}
}

// TestSoundNoiseKeepsRho checks that the joint release spends what the
// budget planned: K·Δ²/(2ς_K²) = m·Δ²/(2ς²) for every release.
func TestSoundNoiseKeepsRho(t *testing.T) {
	p, _ := Params{}.Resolve()
	const m, K = 100, 7
	b, err := NewBudget(core.ModeSound, 1, 1e-5, m, 1, p, 30000, 0.6, 2)
	if err != nil {
		t.Fatal(err)
	}
	if b.Noise.Tangents || b.Noise.Projector != 0 {
		t.Fatalf("default sound budget releases a second moment: %+v", b.Noise)
	}
	// Numerator and mass each get ρ_q/2: ρ_q = ρ_tot/m = 0.0208199/100.
	if got, want := b.SensS*b.SensS/(2*b.Noise.Mass*b.Noise.Mass), 0.0208199/m/2; math.Abs(got-want) > 1e-6*want*10 {
		t.Errorf("mass ρ = %.7g, want %.7g", got, want)
	}
	nz := SoundNoise(b, p, K, m)
	for _, c := range []struct {
		name        string
		joint, per  float64
		sensitivity float64
	}{{"numerator", nz.Mean, b.Noise.Mean, b.SensM}, {"mass", nz.Mass, b.Noise.Mass, b.SensS}} {
		rhoJoint := K * c.sensitivity * c.sensitivity / (2 * c.joint * c.joint)
		rhoPer := m * c.sensitivity * c.sensitivity / (2 * c.per * c.per)
		if math.Abs(rhoJoint-rhoPer) > 1e-12*rhoPer {
			t.Errorf("%s: joint ρ = %.10g, planned %.10g", c.name, rhoJoint, rhoPer)
		}
	}
	if want := max(1, 3*nz.Mass); nz.SMin != want {
		t.Errorf("s_min = %g, want 3ς_S = %g", nz.SMin, want)
	}
	if nz := SoundNoise(b, p, 2*m, m); nz.Mass != b.Noise.Mass {
		t.Errorf("K > m scales the noise up to %g from %g; K is at most m", nz.Mass, b.Noise.Mass)
	}
}

// TestSoundReducesDistance: on the circle of DECISIONS.md's judged
// setting (n = 30,000, m = 100, T = 1, δ = 1e-5, seed 0) sound mode must
// remove at least half of what non-private removes at ε = 1 (non-private
// reaches 0.021 from 0.122 here, so the bar is 0.072; measured 0.024) and
// reduce the distance at ε = 8 too.
func TestSoundReducesDistance(t *testing.T) {
	before, _, s := soundEval(t, "circle", 30000, 0, []float64{1, 8}, false)
	if s[0] > 0.072 || s[1] > 0.072 {
		t.Errorf("circle: mean distance to M %.4f before, sound %.4f at ε = 1 and %.4f at ε = 8, want ≤ 0.072", before, s[0], s[1])
	}
	// Torus at ε = 8 (measured 0.058 from 0.119, non-private 0.027; the
	// per-query split with tangents gave 0.078): at least 40 % off.
	before, _, s = soundEval(t, "torus", 30000, 0, []float64{8}, false)
	if s[0] > before*0.6 {
		t.Errorf("torus: mean distance to M %.4f before, sound %.4f at ε = 8, want ≤ %.4f", before, s[0], before*0.6)
	}
}

// TestSoundLightQueryStays: a released mass below s_min leaves the query
// where it was, and a query whose step is pure noise (ς_N/S̃ far above the
// distance to move) moves by at most a bounded multiple of that noise.
func TestSoundLightQueryStays(t *testing.T) {
	p, _ := Params{Manifold: "circle", N: 2000, Queries: 50, T: 1}.Resolve()
	pr, err := Synthetic(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	dn, err := NewDenoiser(pr.Y, pr.N, pr.D, pr.H, pr.Dim, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := append([]float64(nil), pr.Z...)
	if _, err := dn.Iterate(context.Background(), x, pr.M, StepSound, Noise{Mean: 1, Mass: 1e-9, SMin: 1e12}, 4, 1, 0); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if x[i] != pr.Z[i] {
			t.Fatalf("query %d moved from %g to %g with its mass below s_min", i/pr.D, pr.Z[i], x[i])
		}
	}
	// No noise at all: the step is the non-private mean shift, which must
	// bring the queries closer to the circle.
	if _, err := dn.Iterate(context.Background(), x, pr.M, StepSound, Noise{SMin: 1}, 4, 1, 0); err != nil {
		t.Fatal(err)
	}
	if b, a := meanDistToM(t, pr, pr.Z), meanDistToM(t, pr, x); a > b/2 {
		t.Errorf("noiseless mean shift: mean distance %.4f → %.4f, want at least halved", b, a)
	}
}

// TestPaperGuaranteeStatesNoise: paper mode's guarantee gives the noise
// and calls it negligible when it is (n = 5,000, h = 8, d = 10: Δ_P ≈ 2e-13),
// and does not when it is not (n = 100, h = 0.1, d = 1).
func TestPaperGuaranteeStatesNoise(t *testing.T) {
	p, _ := Params{}.Resolve()
	for _, tc := range []struct {
		n          int
		h          float64
		d          int
		negligible bool
	}{{5000, 8, 10, true}, {100, 0.1, 1, false}} {
		b, err := NewBudget(core.ModePaper, 1, 1e-5, 100, 1, p, tc.n, tc.h, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		g := guarantee(core.ModePaper, p, true, false, 1, 1e-5, tc.n, &b)
		r := g.Reasons[0]
		if !strings.Contains(r, "not a guarantee") || !strings.Contains(r, "ς_P =") {
			t.Errorf("n = %d: first reason %q does not state the paper's noise", tc.n, r)
		}
		if got := strings.Contains(r, "negligible"); got != tc.negligible {
			t.Errorf("n = %d, h = %g, d = %d (ς_m = %.3g): says negligible = %v, want %v", tc.n, tc.h, tc.d, b.Noise.Mean, got, tc.negligible)
		}
	}
}

// TestSoundTangentsOption: with tangents=true sound mode also releases the
// second moment (three ledger components, not two) and still spends
// exactly the budget (ε = 1 by the classic conversion).
func TestSoundTangentsOption(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		comps int
	}{{"manifold:circle?n=500&queries=20&sigma=0.1", 2}, {"manifold:circle?n=500&queries=20&sigma=0.1&tangents=true", 3}} {
		e, evs := runEvents(t, context.Background(), core.ModeSound, tc.spec, 2, nil)
		rep, err := e.Ledger().Report(1e-5, accountantOpts())
		if err != nil || len(rep.Components) != tc.comps {
			t.Errorf("%s: ledger %+v, %v: want %d components", tc.spec, rep, err, tc.comps)
		}
		var last *core.BudgetEvent
		for _, ev := range evs {
			if b, ok := ev.(core.BudgetEvent); ok {
				last = &b
			}
		}
		if last == nil || math.Abs(last.Spent[0].Epsilon-1) > 1e-9 {
			t.Errorf("%s: final budget %+v, want ε = 1", tc.spec, last)
		}
	}
}
