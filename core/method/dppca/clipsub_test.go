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

// TestClipSubGrows: on a fixed released histogram, with h and h_ref
// following genes=auto for the same count, clip=subspace takes clip=auto's
// c at ε ≤ SubRefEpsilon, its c never falls as ε grows from
// SubRefEpsilon (below it, clip=auto's c can fall: its noise term grows
// as √μ under genes=auto), and on spread-out
// norms it passes clip=auto's at large ε (where clip=auto's stays or
// falls: its noise term grows with h).
func TestClipSubGrows(t *testing.T) {
	const n, nh = 3000, 100
	o := mustParse(t, map[string]string{"clip": "subspace", "genes": "100"})
	muRef, err := muOf(SubRefEpsilon, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	href := GenesRule(n, muRef)
	epsList := []float64{1, 2, 4, 8, 16, 32}
	grew := false
	for seed := range uint64(5) {
		z := scaledRows(n, nh, 0.2+0.1*float64(seed), seed)
		counts := normHistogram(z, n, nh, 0, nil)
		var subs, autos []float64
		for _, eps := range epsList {
			mu, err := muOf(eps, 1e-5)
			if err != nil {
				t.Fatal(err)
			}
			h := GenesRule(n, mu)
			pl, err := NewPlan(true, eps, 1e-5, o, h, DefaultClip*math.Sqrt(float64(h)))
			if err != nil {
				t.Fatal(err)
			}
			a := pl.PCA / (pl.R * pl.R)
			cs, _ := chooseClip(counts, n, 0, a, h, min(h, href))
			ca, _ := chooseClip(counts, n, 0, a, h, h)
			subs, autos = append(subs, cs), append(autos, ca)
		}
		if !slices.IsSorted(subs[slices.Index(epsList, SubRefEpsilon):]) {
			t.Errorf("seed %d: clip=subspace's c over ε %v = %v, not non-decreasing", seed, epsList, subs)
		}
		for i, eps := range epsList {
			if eps <= SubRefEpsilon && subs[i] != autos[i] {
				t.Errorf("seed %d ε %g: c %v, want clip=auto's %v below the reference ε", seed, eps, subs[i], autos[i])
			}
		}
		grew = grew || subs[len(subs)-1] > autos[len(autos)-1]
	}
	if !grew {
		t.Error("clip=subspace never took a larger radius than clip=auto at ε 32")
	}
}

// TestClipSubLedger: clip=subspace releases the norm histogram once and
// composes to the target ε (plan before and after the release, and the
// engine's ledger), with R = c·√h, c ≥ 0.5, and h_ref = genes=auto's h at
// ε 4 for the same count.
func TestClipSubLedger(t *testing.T) {
	d := fixture.Separated(4, 300, 200, 3)
	o := mustParse(t, map[string]string{"clip": "subspace"})
	src, err := NewSourceTarget(d, 0, o.sourceTarget())
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{4, 16} {
		rng := rand.New(rand.NewPCG(1, 1))
		pl, err := src.PlanFor(true, eps, 1e-5, o, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		muRef, _ := muOf(SubRefEpsilon, 1e-5)
		if !pl.AutoClip || pl.SubDim != src.Genes(GenesRule(pl.NoisyN, muRef)) {
			t.Errorf("ε %g: auto %v, h_ref %d, want true and %d", eps, pl.AutoClip, pl.SubDim, src.Genes(GenesRule(pl.NoisyN, muRef)))
		}
		found := 0
		for _, m := range pl.Mechanisms() {
			if m.Name == MechNorms {
				found++
			}
		}
		pl.NormRng = rand.New(rand.NewPCG(1, normStream(1)))
		out, err := Release(context.Background(), src, pl, o, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []Plan{pl, out.Plan} {
			got, err := EpsilonOf(ComposedMu(p.Mechanisms()), 1e-5)
			if found != 1 || err != nil || got > eps || got < eps-1e-8 {
				t.Errorf("ε %g (R = %g): %d histograms, composed ε %.12g (%v), want 1 and %g", eps, p.R, found, got, err, eps)
			}
		}
		if c := out.Plan.ClipChosen; c < DefaultClip || out.Plan.R != c*math.Sqrt(float64(out.Plan.H)) {
			t.Errorf("ε %g: c %g, R %g, h %d: want R = c·√h, c ≥ 0.5", eps, c, out.Plan.R, out.Plan.H)
		}
	}
	e, evs := runTest(t, d, fixture.SoundConfig(8, 1, map[string]string{"clip": "subspace"}), nil)
	has := false
	for _, c := range e.Ledger().Components() {
		has = has || strings.Contains(c, MechNorms)
	}
	if eps, _ := EpsilonOf(SpentMu(e.Ledger()), 1e-5); !has || eps > 8 || eps < 8-1e-8 {
		t.Errorf("engine ledger %v: histogram %v, ε %.12g, want it and 8", e.Ledger().Components(), has, eps)
	}
	if g, _ := fixture.LastOf[core.GuaranteeEvent](evs); !strings.Contains(strings.Join(g.Reasons, "\n"), "clip=subspace") {
		t.Errorf("guarantee does not name clip=subspace: %q", g.Reasons)
	}
}

// TestClipSubFallbackBits: where the released count says the histogram
// would be too noisy (600 cells at ε 0.5), clip=subspace releases none
// and the whole run is the default's (clip=0.5), bit for bit: the same
// ledger, eigenvalues, centres and labels. At ε 16 it does release one,
// so the comparison can fail.
func TestClipSubFallbackBits(t *testing.T) {
	d := fixture.Separated(4, 150, 200, 3)
	for _, tc := range []struct {
		eps  float64
		same bool
	}{{0.5, true}, {16, false}} {
		def, _ := runTest(t, d, fixture.SoundConfig(tc.eps, 3, nil), nil)
		sub, _ := runTest(t, d, fixture.SoundConfig(tc.eps, 3, map[string]string{"clip": "subspace"}), nil)
		a, b := def.Outcomes()[0], sub.Outcomes()[0]
		same := !b.Plan.AutoClip && slices.Equal(a.Labels, b.Labels) && slices.Equal(a.Centres, b.Centres) &&
			slices.Equal(a.Eigen, b.Eigen) && slices.Equal(def.Ledger().Components(), sub.Ledger().Components())
		if same != tc.same {
			t.Errorf("ε %g: clip=subspace's run the default's bit for bit: %v, want %v (histogram released: %v)", tc.eps, same, tc.same, b.Plan.AutoClip)
		}
	}
}

// TestClipSubOption: clip=subspace parses, prints and takes the
// histogram's share; a bad value names it.
func TestClipSubOption(t *testing.T) {
	o := mustParse(t, map[string]string{"clip": "subspace"})
	if o.Clip != ClipSub || !o.clipAuto() || !strings.Contains(o.String(), "clip=subspace") || o.clipShare() != ShareClip {
		t.Errorf("clip=subspace: %v (share %g)", o, o.clipShare())
	}
	if _, err := Parse(map[string]string{"clip": "sub"}); err == nil || !strings.Contains(err.Error(), "subspace") {
		t.Errorf("clip=sub: %v, want an error naming subspace", err)
	}
}
