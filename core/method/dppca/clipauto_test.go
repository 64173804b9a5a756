package dppca

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestNormEdges: the lowest candidate is exactly DefaultClip (so the
// fallback and "all rows on the sphere" are c = 0.5 bit for bit) and the
// top edge is 4.
func TestNormEdges(t *testing.T) {
	if got := normEdge(clipEdge0); got != DefaultClip {
		t.Errorf("edge %d = %v, want DefaultClip %v", clipEdge0, got, DefaultClip)
	}
	if got := normEdge(normBins); got != 4 {
		t.Errorf("top edge %v, want 4", got)
	}
}

// scaledRows returns an n × h matrix whose row i is N(0, s_i²·I) with
// s_i lognormal of log-sd spread: row norms over √h near s_i.
func scaledRows(n, h int, spread float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float64, n*h)
	for i := range n {
		s := math.Exp(spread * rng.NormFloat64())
		for j := range h {
			z[i*h+j] = s * rng.NormFloat64()
		}
	}
	return z
}

// TestChooseClip: exact counts of rows all of norm about √h: heavy noise
// clips them all (c = 0.5, not a fallback), no noise leaves every row
// unclipped (the top edge of the occupied bins); a histogram all noise, or
// one whose noise swamps the cells, falls back to 0.5.
func TestChooseClip(t *testing.T) {
	const n, h = 2000, 100
	z := scaledRows(n, h, 0.1, 1)
	counts := normHistogram(z, n, h, 0, nil)
	if c, fell := chooseClip(counts, n, 0, 100, h, h); c != DefaultClip || fell {
		t.Errorf("heavy covariance noise: c %v fallback %v, want 0.5 chosen", c, fell)
	}
	var top float64
	for i := range n {
		var s float64
		for _, v := range z[i*h : (i+1)*h] {
			s += v * v
		}
		top = max(top, math.Sqrt(s/h))
	}
	c, fell := chooseClip(counts, n, 0, 0, h, h)
	if fell || c < top || c > top*math.Exp2(1.0/normBinsPerOctave) {
		t.Errorf("no noise: c %v fallback %v, want the edge just above the longest row %v", c, fell, top)
	}
	noisy := normHistogram(z, n, h, 1e4, rand.New(rand.NewPCG(2, 2)))
	if c, fell := chooseClip(noisy, n, 1e4, 0, h, h); c != DefaultClip || !fell {
		t.Errorf("σ = 10⁴ per bin: c %v fallback %v, want the fallback 0.5", c, fell)
	}
	if c, fell := chooseClip(make([]float64, normBins), n, 1, 0, h, h); c != DefaultClip || !fell {
		t.Errorf("empty histogram: c %v fallback %v, want the fallback 0.5", c, fell)
	}
}

// TestChooseClipMonotone: on a fixed simulated matrix (and a fixed
// released histogram of it), the radius clip=auto chooses never falls as
// ε grows (only the noise term depends on ε, falling as 1/μ), and it does
// move: all rows clipped at ε 0.25, none at ε 1,000 on matrices of
// spread-out norms.
func TestChooseClipMonotone(t *testing.T) {
	const n, h = 2000, 100
	o := mustParse(t, map[string]string{"clip": "auto", "genes": "100"})
	epsList := []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 1000}
	for seed := range uint64(6) {
		z := scaledRows(n, h, 0.1+0.1*float64(seed), seed)
		for _, sigma := range []float64{0, 10} {
			counts := normHistogram(z, n, h, sigma, rand.New(rand.NewPCG(seed, 9)))
			var cs []float64
			for _, eps := range epsList {
				pl, err := NewPlan(true, eps, 1e-5, o, h, DefaultClip*math.Sqrt(h))
				if err != nil {
					t.Fatal(err)
				}
				c, _ := chooseClip(counts, n, sigma, pl.PCA/(pl.R*pl.R), h, h)
				cs = append(cs, c)
			}
			if !slices.IsSorted(cs) {
				t.Errorf("seed %d σ %g: c over ε %v = %v, not non-decreasing", seed, sigma, epsList, cs)
			}
			if seed >= 3 && (cs[0] != DefaultClip || cs[len(cs)-1] <= 1) {
				t.Errorf("seed %d σ %g: c %v, want 0.5 at ε 0.25 and > 1 at ε 1,000", seed, sigma, cs)
			}
		}
	}
}

// TestClipAutoLedger: clip=auto's plan lists the norm histogram once (Δ =
// 1, σ = 1/(μ·√ShareClip)) and its mechanisms compose to the target ε,
// before and after the release chose R; the engine's ledger reaches the
// target ε too and names the histogram.
func TestClipAutoLedger(t *testing.T) {
	d := fixture.Separated(4, 150, 200, 3)
	for _, opts := range []map[string]string{{"clip": "auto"}, {"clip": "auto", "target": "median", "init": "random-ball", "prep": "public"}} {
		o := mustParse(t, opts)
		src, err := NewSourceTarget(d, 0, o.sourceTarget())
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0.5, 4, 16} {
			rng := rand.New(rand.NewPCG(1, 1))
			pl, err := src.PlanFor(true, eps, 1e-5, o, 0, rng)
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, m := range pl.Mechanisms() {
				if m.Name == MechNorms {
					found++
					if want := 1 / (pl.Mu * math.Sqrt(ShareClip)); m.Sens != 1 || math.Abs(m.Sigma-want) > 1e-12*want {
						t.Errorf("%v ε %g: histogram Δ %g σ %g, want 1 and %g", opts, eps, m.Sens, m.Sigma, want)
					}
				}
			}
			if found != 1 {
				t.Errorf("%v ε %g: %d norm histograms in the plan, want 1", opts, eps, found)
			}
			pl.NormRng = rand.New(rand.NewPCG(1, normStream(1)))
			out, err := Release(context.Background(), src, pl, o, rng)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []Plan{pl, out.Plan} {
				got, err := EpsilonOf(ComposedMu(p.Mechanisms()), 1e-5)
				if err != nil || got > eps || got < eps-1e-8 {
					t.Errorf("%v ε %g (R = %g): composed ε %.12g (%v), want %g", opts, eps, p.R, got, err, eps)
				}
			}
		}
	}
	e, evs := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"clip": "auto", "genes": "100"}), nil)
	has := false
	for _, c := range e.Ledger().Components() {
		has = has || strings.Contains(c, MechNorms)
	}
	if eps, _ := EpsilonOf(SpentMu(e.Ledger()), 1e-5); !has || eps > 2 || eps < 2-1e-8 {
		t.Errorf("engine ledger %v: histogram %v, ε %.12g, want it and 2", e.Ledger().Components(), has, eps)
	}
	g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
	if !strings.Contains(strings.Join(g.Reasons, "\n"), "clip radius (clip=auto)") {
		t.Errorf("guarantee does not state the norm histogram: %q", g.Reasons)
	}
	if out := e.Outcomes()[0]; !out.Plan.AutoClip || out.Plan.ClipChosen < DefaultClip || out.Plan.R != out.Plan.ClipChosen*math.Sqrt(float64(out.Plan.H)) {
		t.Errorf("engine release: auto %v, c %g, R %g, h %d: want R = c·√h with c ≥ 0.5", out.Plan.AutoClip, out.Plan.ClipChosen, out.Plan.R, out.Plan.H)
	}
}

// TestClipAutoPatchedRadius: an absolute radius (a live patch) releases
// no norm histogram: the plan lists none and composes to less than the
// target's μ by exactly its share.
func TestClipAutoPatchedRadius(t *testing.T) {
	d := fixture.Separated(4, 150, 200, 3)
	o := mustParse(t, map[string]string{"clip": "auto"})
	src, err := NewSourceTarget(d, 0, o.sourceTarget())
	if err != nil {
		t.Fatal(err)
	}
	pl, err := src.PlanFor(true, 4, 1e-5, o, 3, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range pl.Mechanisms() {
		if m.Name == MechNorms {
			t.Errorf("patched radius lists %s", m.Name)
		}
	}
	got, want := ComposedMu(pl.Mechanisms()), pl.Mu*math.Sqrt(1-ShareClip)
	if pl.AutoClip || pl.R != 3 || math.Abs(got-want) > 1e-9*want {
		t.Errorf("auto %v, R %g, composed μ %.12g, want false, 3, %.12g", pl.AutoClip, pl.R, got, want)
	}
}

// TestClipAutoFallbackBits: a release whose histogram falls back (its
// noise forced far above the cells) is, bit for bit, the release of the
// same plan at the fixed radius 0.5·√h: the histogram draws from its own
// stream, and the fallback's radius is the plan's own.
func TestClipAutoFallbackBits(t *testing.T) {
	d := fixture.Separated(4, 150, 200, 3)
	o := mustParse(t, map[string]string{"clip": "auto"})
	src, err := NewSourceTarget(d, 0, o.sourceTarget())
	if err != nil {
		t.Fatal(err)
	}
	rel := func(auto bool) *Outcome {
		rng := rand.New(rand.NewPCG(5, 0))
		pl, err := src.PlanFor(true, 4, 1e-5, o, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		pl.Norms = 1e9 // too noisy to read: the fallback
		pl.NormRng = rand.New(rand.NewPCG(5, normStream(1)))
		pl.AutoClip = auto
		out, err := Release(context.Background(), src, pl, o, rng)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := rel(true), rel(false)
	if !a.Plan.ClipFellBack || a.Plan.R != b.Plan.R || a.Plan.R != DefaultClip*math.Sqrt(float64(a.Plan.H)) {
		t.Fatalf("fallback %v, R %v against %v (0.5·√h = %v)", a.Plan.ClipFellBack, a.Plan.R, b.Plan.R, DefaultClip*math.Sqrt(float64(a.Plan.H)))
	}
	if !slices.Equal(a.Labels, b.Labels) || !slices.Equal(a.Centres, b.Centres) || !slices.Equal(a.Eigen, b.Eigen) || !slices.Equal(a.Matrix.Z, b.Matrix.Z) {
		t.Error("the fallback's release differs from the fixed radius 0.5·√h")
	}
}

// TestClipAutoOption: clip=auto parses, prints and validates; a bad value
// names auto.
func TestClipAutoOption(t *testing.T) {
	o := mustParse(t, map[string]string{"clip": "auto"})
	if o.Clip != ClipAuto || !strings.Contains(o.String(), "clip=auto") || o.clipShare() != ShareClip {
		t.Errorf("clip=auto: %v (share %g)", o, o.clipShare())
	}
	if got := mustParse(t, nil).String(); !strings.Contains(got, "clip=0.5 ") {
		t.Errorf("default string %q lost clip=0.5", got)
	}
	if _, err := Parse(map[string]string{"clip": "wide"}); err == nil || !strings.Contains(err.Error(), "auto") {
		t.Errorf("clip=wide: %v, want an error naming auto", err)
	}
	def, auto := mustParse(t, nil), o
	if d := def.kmShare() - auto.kmShare(); math.Abs(d-ShareClip) > 1e-15 {
		t.Errorf("k-means share %g against %g: the histogram takes %g, want %g", auto.kmShare(), def.kmShare(), d, ShareClip)
	}
}
