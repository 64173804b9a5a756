package dpmd

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestOverlap checks K on hand-made lines and the bound it certifies:
// for random queries and random points y, Σ_q k_q(y)²(‖y − x_q‖² + λ²) ≤
// K·s²h² (SoundSensitivity), so the joint release's sensitivity is √K·s·h.
func TestOverlap(t *testing.T) {
	// h = 0.3, 2h = 0.6: 0.5 is within 2h of 0 and of 1, but 0 and 1 are
	// not within 2h of each other, so no ball of radius h holds all three:
	// the path 0–0.5–1 has degeneracy 1, K = 2 (the largest 2h-neighbourhood
	// would give 3).
	if K := Overlap([]float64{0, 0.5, 1, 5}, 4, 1, 0.3); K != 2 {
		t.Errorf("K = %d, want 2", K)
	}
	if K := Overlap([]float64{0, 0.1, 0.2, 0.3, 5}, 5, 1, 0.3); K != 4 {
		t.Errorf("K of four queries within 2h = %d, want 4", K)
	}
	if K := Overlap([]float64{0, 10, 20}, 3, 1, 0.3); K != 1 {
		t.Errorf("K of isolated queries = %d, want 1", K)
	}
	const m, D, h = 60, 2, 0.4
	mu, s := SoundSensitivity(D, 1)
	lam := mu * h
	rng := rand.New(rand.NewPCG(3, 3))
	xs := make([]float64, m*D)
	for i := range xs {
		xs[i] = 2 * rng.Float64()
	}
	K := Overlap(xs, m, D, h)
	if K >= m || K < 2 {
		t.Fatalf("K = %d for %d queries spread on [0, 2]², want between 2 and m", K, m)
	}
	var worst float64
	for range 50000 {
		y := []float64{2 * rng.Float64(), 2 * rng.Float64()}
		var sum float64
		for q := range m {
			dx, dy := xs[q*D]-y[0], xs[q*D+1]-y[1]
			r2 := dx*dx + dy*dy
			a := ipow(max(0, 1-r2/(h*h)), SoundBeta(1))
			sum += a * a * (r2 + lam*lam)
		}
		worst = max(worst, sum)
	}
	if bound := float64(K) * s * s * h * h; worst > bound*(1+1e-12) {
		t.Fatalf("Σ k²(r² + λ²) = %g exceeds K·s²h² = %g", worst, bound)
	}
}

// TestSoundSensitivity checks SoundBeta and SoundSensitivity: over a fine
// grid of t, (1 − t²)^β√(t² + μ²) peaks at s (not above, and within 1e-6 of
// it), μ minimises (D + 1/μ²)s(μ)² against its neighbours, β = 1 keeps
// the closed form, and removing one reference changes the released (N, λS)
// of every query of a real Denoiser jointly by at most √K·s·h.
func TestSoundSensitivity(t *testing.T) {
	for _, want := range [][2]int{{1, 1}, {2, 1}, {3, 2}, {4, 3}, {10, 9}} { // the flattest kernel with E[r²] ≤ h²/3
		if b := SoundBeta(want[0]); b != want[1] {
			t.Errorf("SoundBeta(%d) = %d, want %d", want[0], b, want[1])
		}
	}
	for _, c := range [][2]int{{2, 1}, {3, 2}, {20, 2}, {50, 10}} {
		D, d := c[0], c[1]
		beta := SoundBeta(d)
		mu, s := SoundSensitivity(D, d)
		peak := 0.0
		for i := range 1000001 {
			u := float64(i) / 1e6
			peak = max(peak, ipow(1-u*u, beta)*math.Sqrt(u*u+mu*mu))
		}
		if peak > s*(1+1e-12) || peak < s*(1-1e-6) {
			t.Errorf("D = %d, d = %d: max (1 − t²)^β√(t² + μ²) = %.9g, formula s = %.9g", D, d, peak, s)
		}
		obj := func(mu float64) float64 { return (float64(D) + 1/(mu*mu)) * soundS2(beta, mu) }
		if obj(mu) > obj(mu*1.01) || obj(mu) > obj(mu*0.99) {
			t.Errorf("D = %d, d = %d: μ = %g does not minimise (D + 1/μ²)s²", D, d, mu)
		}
		if beta == 1 {
			v := (math.Sqrt(1+3*float64(D)) - 1) / (3 * float64(D))
			if math.Abs(mu*mu-v) > 1e-6 {
				t.Errorf("D = %d: μ² = %.8g, closed form %.8g", D, mu*mu, v)
			}
		}
	}
	if mu, s := SoundSensitivity(3, 2); math.Abs(mu-0.4902) > 1e-3 || math.Abs(s-0.5317) > 1e-3 {
		t.Errorf("D = 3: μ = %.4f, s = %.4f, want 0.4902, 0.5317", mu, s)
	}
	// Neighbouring reference sets: y and y without reference j, on the
	// circle (β = 1) and on the sphere S⁴ in R⁵ (d = 4, β = 3).
	for _, p := range []Params{
		{Manifold: "circle", N: 400, Queries: 40, T: 1, Sigma: 0.1},
		{Manifold: "sphere", D: 5, N: 1500, Queries: 40, T: 1, Sigma: 0.3},
	} {
		p, err := p.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		checkRemoval(t, p)
	}
}

// checkRemoval removes references one at a time from p's problem and
// checks that the joint release of all queries moves by at most √K·s·h,
// and by a visible fraction of it somewhere.
func checkRemoval(t *testing.T, p Params) {
	t.Helper()
	pr, err := Synthetic(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	mu, s := SoundSensitivity(pr.D, pr.Dim)
	lam := mu * pr.H
	K := Overlap(pr.Z, pr.M, pr.D, pr.H)
	release := func(y []float64, n int) []float64 {
		dn, err := NewDenoiser(y, n, pr.D, pr.H, pr.Dim, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := dn.NewWorker()
		var out []float64
		for q := range pr.M {
			x := pr.Z[q*pr.D : (q+1)*pr.D]
			idx, d2, err := w.s.Radius(x, pr.H)
			if err != nil {
				t.Fatal(err)
			}
			S, _ := w.kernel(d2, SoundBeta(pr.Dim))
			w.soundSums(x, idx)
			out = append(out, w.b[:pr.D]...)
			out = append(out, lam*S)
		}
		return out
	}
	full := release(pr.Y, pr.N)
	var worst float64
	for j := 0; j < pr.N; j += 7 {
		y := append(append([]float64(nil), pr.Y[:j*pr.D]...), pr.Y[(j+1)*pr.D:]...)
		var d2 float64
		for i, v := range release(y, pr.N-1) {
			d2 += (v - full[i]) * (v - full[i])
		}
		worst = max(worst, math.Sqrt(d2))
	}
	bound := math.Sqrt(float64(K)) * s * pr.H
	if worst > bound*(1+1e-9) {
		t.Errorf("%s d = %d: removing one reference moves the joint release by %.4g, above √K·s·h = %.4g", p.Manifold, pr.Dim, worst, bound)
	}
	if worst < 0.05*bound {
		t.Errorf("%s: largest change %.4g is below 5%% of the bound %.4g: the test reaches no reference near the queries", p.Manifold, worst, bound)
	}
}

// TestSoundNoiseKeepsRho checks that the joint release spends what the
// budget planned: K·Δ²/(2ς_K²) = m·Δ²/(2ς²), ρ_q for one query's release.
func TestSoundNoiseKeepsRho(t *testing.T) {
	p, _ := Params{}.Resolve()
	const m, K = 100, 7
	b, err := NewBudget(core.ModeSound, 1, 1e-5, m, 1, p, 30000, 0.6, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if b.Noise.Tangents || b.Noise.Projector != 0 {
		t.Fatalf("default sound budget releases a second moment: %+v", b.Noise)
	}
	// One release of (N, λS) per query with ρ_q = ρ_tot/m = 0.0208199/100.
	if got, want := b.SensM*b.SensM/(2*b.Noise.Mean*b.Noise.Mean), 0.0208199/m; math.Abs(got-want) > 1e-5*want {
		t.Errorf("joint release ρ = %.7g, want %.7g", got, want)
	}
	mu, s := SoundSensitivity(3, 2)
	if math.Abs(b.SensM-s*0.6) > 1e-12 || math.Abs(b.Noise.Mass-b.Noise.Mean/(mu*0.6)) > 1e-9 {
		t.Errorf("sensitivity %g, mass noise %g: want s·h = %g and ς/λ = %g", b.SensM, b.Noise.Mass, s*0.6, b.Noise.Mean/(mu*0.6))
	}
	nz := SoundNoise(b, p, K, m)
	for _, c := range []struct {
		name        string
		joint, per  float64
		sensitivity float64
	}{{"numerator", nz.Mean, b.Noise.Mean, b.SensM}, {"mass", nz.Mass, b.Noise.Mass, 1 / mu / 0.6 * b.SensM}} {
		rhoJoint := K * c.sensitivity * c.sensitivity / (2 * c.joint * c.joint)
		rhoPer := m * c.sensitivity * c.sensitivity / (2 * c.per * c.per)
		if math.Abs(rhoJoint-rhoPer) > 1e-12*rhoPer {
			t.Errorf("%s: joint ρ = %.10g, planned %.10g", c.name, rhoJoint, rhoPer)
		}
	}
	if want := max(3, 3*nz.Mass); nz.SMin != want { // d + 1 = 3
		t.Errorf("s_min = %g, want max(d + 1, 3ς_S) = %g", nz.SMin, want)
	}
	if b.Dim != 2 {
		t.Errorf("budget records d = %d, want 2", b.Dim)
	}
	if nz := SoundNoise(b, p, 2*m, m); nz.Mass != b.Noise.Mass {
		t.Errorf("K > m scales the noise up to %g from %g; K is at most m", nz.Mass, b.Noise.Mass)
	}
}

// TestSoundReducesDistance: in the judged setting of DECISIONS.md
// (n = 30,000, m = 100, T = 1, δ = 1e-5, seed 0) sound mode must remove at
// least half of what non-private removes at ε = 1. Circle: non-private
// reaches 0.021 from 0.122, so the bar is 0.072 (measured 0.038 at ε = 1
// and 8). Torus and Swiss roll: the bar is the midpoint of this seed's
// start and the 5-seed non-private mean of docs/RESULTS.md (0.0281,
// 0.0108): torus 0.1190 → bar 0.0736 (measured 0.039), Swiss roll
// 0.1182 → bar 0.0645 (measured 0.039).
func TestSoundReducesDistance(t *testing.T) {
	before, _, s := soundEval(t, "circle", 30000, 0, []float64{1, 8}, false)
	if s[0] > 0.072 || s[1] > 0.072 {
		t.Errorf("circle: mean distance to M %.4f before, sound %.4f at ε = 1 and %.4f at ε = 8, want ≤ 0.072", before, s[0], s[1])
	}
	for _, c := range []struct {
		kind    string
		nonpriv float64
	}{{"torus", 0.0281}, {"swissroll", 0.0108}} {
		before, _, s := soundEval(t, c.kind, 30000, 0, []float64{1}, false)
		if bar := (before + c.nonpriv) / 2; s[0] > bar {
			t.Errorf("%s: mean distance to M %.4f before, sound %.4f at ε = 1, want ≤ %.4f (half the non-private reduction)", c.kind, before, s[0], bar)
		}
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
		b, err := NewBudget(core.ModePaper, 1, 1e-5, 100, 1, p, tc.n, tc.h, tc.d, tc.d+1)
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
// second moment (two ledger components: it and the joint numerator and
// mass, not one) and still spends
// exactly the budget (ε = 1 by the classic conversion).
func TestSoundTangentsOption(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		comps int
	}{{"manifold:circle?n=500&queries=20&sigma=0.1", 1}, {"manifold:circle?n=500&queries=20&sigma=0.1&tangents=true", 2}} {
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
