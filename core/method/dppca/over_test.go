package dppca

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestLloydRoundMatchesDPKMeans: one round of lloydRound is DPKMeans's
// update (the same noise in the same order: sums then count per cluster).
func TestLloydRoundMatchesDPKMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, p, k := 200, 3, 4
	x := make([]float64, n*p)
	for i := range x {
		x[i] = rng.NormFloat64() + float64(i%(p*k))/3
	}
	init := append([]float64(nil), x[:k*p]...)
	for _, sig := range []float64{0, 0.5} {
		c := append([]float64(nil), init...)
		labels, counts, _ := lloydRound(x, n, p, c, 2, sig, sig, rand.New(rand.NewPCG(9, 9)))
		res, err := cluster.DPKMeans(context.Background(), x, n, p, cluster.DPKMeansConfig{K: k, Iterations: 1, ClipNorm: 2, SigmaSum: sig, SigmaCount: sig, Init: cluster.DPInitGiven, Centroids: init}, rand.New(rand.NewPCG(9, 9)))
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range res.Centroids {
			if math.Abs(v-c[j]) > 1e-12 {
				t.Fatalf("σ %g: centre coordinate %d = %g, DPKMeans %g", sig, j, c[j], v)
			}
		}
		var tot float64
		for _, v := range counts {
			tot += v
		}
		if len(labels) != n || (sig == 0 && tot != float64(n)) {
			t.Errorf("σ %g: %d labels, counts sum %g, want %d and %d", sig, len(labels), tot, n, n)
		}
	}
}

// TestMergeCentres: eight released centres in four tight pairs merge into
// the four pair means (weighted by the counts); centres whose released
// count is below one weigh nothing.
func TestMergeCentres(t *testing.T) {
	c := []float64{0, 0, 0.1, 0, 10, 0, 10.1, 0, 0, 10, 0, 10.1, 10, 10, 10.1, 10.1, 50, 50}
	w := []float64{1, 3, 2, 2, 5, 5, 4, 4, 0.5}
	out := mergeCentres(c, w, 2, 4, rand.New(rand.NewPCG(1, 1)))
	want := [][2]float64{{0.075, 0}, {10.05, 0}, {0, 10.05}, {10.05, 10.05}}
	for _, wc := range want {
		found := false
		for j := range 4 {
			if math.Hypot(out[2*j]-wc[0], out[2*j+1]-wc[1]) < 1e-9 {
				found = true
			}
		}
		if !found {
			t.Errorf("merged centres %v lack %v", out, wc)
		}
	}
	// Fewer weighted centres than k: the first k centres are kept.
	if out := mergeCentres(c[:4], []float64{0, 0}, 2, 2, rand.New(rand.NewPCG(1, 1))); len(out) != 4 || out[2] != 0.1 {
		t.Errorf("unweighted merge = %v, want the centres themselves", out)
	}
}

// TestOverRule: without noise the release over-clusters; with the noise of
// a small ε on a small set it does not; the relative noise falls as ε grows.
func TestOverRule(t *testing.T) {
	o := mustParse(t, nil)
	eigen := []float64{400, 300, 200}
	pl, err := NewPlan(false, 0, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := overRule(pl, 1000, 8, eigen, overNoiseMax); got != 2 {
		t.Errorf("nonprivate: over %d, want 2", got)
	}
	var prev float64 = math.Inf(1)
	for _, eps := range []float64{0.5, 2, 8, 64} {
		pl, err := NewPlan(true, eps, 1e-5, o, 100, 5)
		if err != nil {
			t.Fatal(err)
		}
		pl = pl.WithP(3)
		rho := centreNoise(pl, 1000, 16, eigen)
		if !(rho < prev) {
			t.Errorf("ε %g: relative centre noise %g, not below %g at the smaller ε", eps, rho, prev)
		}
		prev = rho
		if want := map[bool]int{true: 2, false: 1}[rho <= overNoiseMax]; overRule(pl, 1000, 8, eigen, overNoiseMax) != want {
			t.Errorf("ε %g: ρ %g, over %d, want %d", eps, rho, overRule(pl, 1000, 8, eigen, overNoiseMax), want)
		}
	}
	if pl, _ := NewPlan(true, 0.5, 1e-5, o, 100, 5); overRule(pl.WithP(3), 100, 8, eigen, overNoiseMax) != 1 {
		t.Errorf("ε 0.5 on 100 cells over-clusters")
	}
}

// TestOverClusteringRelease: a release with over=2 finds four separated
// populations without noise and at a generous ε, uses K clusters at the
// end, and spends exactly what over=1 spends (each round is the same two
// releases whatever the number of centres).
func TestOverClusteringRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, over := range []string{"1", "2", "auto"} {
		o := mustParse(t, map[string]string{"genes": "100", "over": over})
		for _, private := range []bool{false, true} {
			ari, out := releaseARI(t, src, private, 50, o, 1)
			if ari <= 0.9 || out.NonEmpty != 4 || len(out.Centres) != 4*len(out.Eigen) {
				t.Errorf("over=%s private %v: ARI %.3f, %d non-empty, %d centre values, want > 0.9, 4, 4·p", over, private, ari, out.NonEmpty, len(out.Centres))
			}
			if over == "2" && out.Over != 2 || over == "1" && out.Over != 1 {
				t.Errorf("over=%s: release used %d", over, out.Over)
			}
		}
	}
	for _, over := range []string{"1", "2"} {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "over": over}), nil)
		if n, want := len(e.Ledger().Components()), len(e.Outcomes()[0].Plan.Mechanisms()); n != want {
			t.Errorf("over=%s: ledger has %d components, want the plan's %d", over, n, want)
		}
		mu := ComposedMu(e.Outcomes()[0].Plan.Mechanisms())
		if want, _ := muOf(2, 1e-5); math.Abs(mu-want) > 1e-9 {
			t.Errorf("over=%s: composed μ %g, want %g", over, mu, want)
		}
	}
}

// TestGenesRule: h = ñ·μ/18 within [50, 1000], 1000 without noise.
func TestGenesRule(t *testing.T) {
	for _, c := range []struct {
		n, mu float64
		want  int
	}{{3000, 1.666, 278}, {3000, 0.268, 50}, {3000, 0.3, 50}, {3000, 0.31, 52}, {100, 8, 50}, {50000, 3, 1000}, {10, math.Inf(1), 1000}} {
		if got := GenesRule(c.n, c.mu); got != c.want {
			t.Errorf("GenesRule(%g, %g) = %d, want %d", c.n, c.mu, got, c.want)
		}
	}
}

// TestPlanForGenesAuto: under genes=auto a private plan carries the
// released cell count (drawn with the plan's own count noise) and h from
// it; prep=public reads the cell count as public; a fixed genes is kept;
// an engine run records the count once.
func TestPlanForGenesAuto(t *testing.T) {
	d := fixture.Separated(4, 500, 1200, 3)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, nil)
	pl, err := src.PlanFor(true, 8, 1e-5, o, 0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	mu, _ := muOf(8, 1e-5)
	noise := rand.New(rand.NewPCG(1, 2)).NormFloat64() * pl.Count
	if math.Abs(pl.NoisyN-(2000+noise)) > 1e-9 || pl.H != GenesRule(pl.NoisyN, mu) || pl.H < 100 || pl.R != 0.5*math.Sqrt(float64(pl.H)) {
		t.Errorf("private plan: ñ %g (want 2000 + %g), h %d (want %d), R %g", pl.NoisyN, noise, pl.H, GenesRule(pl.NoisyN, mu), pl.R)
	}
	pub := mustParse(t, map[string]string{"prep": "public"})
	if pl, _ := src.PlanFor(true, 8, 1e-5, pub, 0, rand.New(rand.NewPCG(1, 2))); pl.NoisyN != 0 || pl.H != GenesRule(2000, mu) {
		t.Errorf("public plan: ñ %g, h %d, want 0 and %d", pl.NoisyN, pl.H, GenesRule(2000, mu))
	}
	if pl, _ := src.PlanFor(false, 0, 1e-5, o, 3, nil); pl.H != 1000 || pl.R != 3 || pl.Private() {
		t.Errorf("nonprivate plan: h %d, R %g, want 1000 genes and the given radius", pl.H, pl.R)
	}
	fixed := mustParse(t, map[string]string{"genes": "60"})
	if pl, _ := src.PlanFor(true, 8, 1e-5, fixed, 0, rand.New(rand.NewPCG(1, 2))); pl.H != 60 || pl.NoisyN != 0 {
		t.Errorf("genes=60: h %d, ñ %g", pl.H, pl.NoisyN)
	}
	e, _ := runTest(t, d, fixture.SoundConfig(8, 1, nil), nil)
	n := 0
	for _, c := range e.Ledger().Components() {
		if strings.Contains(c, MechCount) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("ledger %v: the cell count recorded %d times, want once", e.Ledger().Components(), n)
	}
}

// TestWardMerge: Ward linkage of released centres on constructed cases.
// Four tight pairs merge into the pair means (counts as weights, a count
// below one weighs nothing). On a line, a heavy type in four pieces at 0,
// 1, 2, 3 (weight 100 each) and a light one at 10 (weight 10) merge into
// the heavy type's mean 1.5 (weight 400) and 10: the adjacent pieces cost
// 50 each, the pairs' pair 400, while joining 2.5 (weight 200) to 10
// would cost 200·10/210·56.25 ≈ 536. With fewer weighted centres than k
// the first k centres are kept.
func TestWardMerge(t *testing.T) {
	c := []float64{0, 0, 0.1, 0, 10, 0, 10.1, 0, 0, 10, 0, 10.1, 10, 10, 10.1, 10.1, 50, 50}
	w := []float64{1, 3, 2, 2, 5, 5, 4, 4, 0.5}
	out := wardMerge(c, w, 2, 4)
	want := [][2]float64{{0.075, 0}, {10.05, 0}, {0, 10.05}, {10.05, 10.05}}
	if len(out) != 8 {
		t.Fatalf("%d coordinates, want 8", len(out))
	}
	for _, wc := range want {
		found := false
		for j := range 4 {
			if math.Hypot(out[2*j]-wc[0], out[2*j+1]-wc[1]) < 1e-9 {
				found = true
			}
		}
		if !found {
			t.Errorf("merged centres %v lack %v", out, wc)
		}
	}
	line := wardMerge([]float64{0, 1, 2, 3, 10}, []float64{100, 100, 100, 100, 10}, 1, 2)
	if len(line) != 2 || math.Abs(line[0]-1.5) > 1e-12 || line[1] != 10 {
		t.Errorf("line: merged centres %v, want [1.5 10]", line)
	}
	// the same three merges whatever the order of the centres
	rev := wardMerge([]float64{10, 3, 2, 1, 0}, []float64{10, 100, 100, 100, 100}, 1, 2)
	if len(rev) != 2 || math.Abs(min(rev[0], rev[1])-1.5) > 1e-12 || max(rev[0], rev[1]) != 10 {
		t.Errorf("line reversed: merged centres %v, want 1.5 and 10", rev)
	}
	if out := wardMerge(c[:4], []float64{0, 0}, 2, 2); len(out) != 4 || out[2] != 0.1 {
		t.Errorf("unweighted merge = %v, want the centres themselves", out)
	}
}

// TestOverRuleThreshold: overRule over-clusters exactly when the relative
// centre noise at 2K clusters is at most the threshold it is given, and a
// release reads Options.OverMax (over=auto:τ) for it.
func TestOverRuleThreshold(t *testing.T) {
	o := mustParse(t, nil)
	eigen := []float64{400, 300, 200}
	pl, err := NewPlan(true, 2, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	pl = pl.WithP(3)
	rho := centreNoise(pl, 1000, 16, eigen)
	if !(rho > 0) || math.IsInf(rho, 0) {
		t.Fatalf("ρ %g, want a finite positive noise", rho)
	}
	for _, c := range []struct {
		tau  float64
		want int
	}{{rho, 2}, {rho * 1.0001, 2}, {rho * 0.9999, 1}, {2 * rho, 2}, {rho / 2, 1}} {
		if got := overRule(pl, 1000, 8, eigen, c.tau); got != c.want {
			t.Errorf("ρ %g, τ %g: over %d, want %d", rho, c.tau, got, c.want)
		}
	}
	// A release: the same data and noise seed at a threshold just above
	// and just below the release's own ρ.
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, out := releaseARI(t, src, true, 2, mustParse(t, map[string]string{"genes": "100"}), 1)
	r := centreNoise(out.Plan, out.Matrix.NoisyN, 2*src.K, out.Eigen)
	for _, c := range []struct {
		tau  float64
		want int
	}{{min(r*1.01, MaxOverMax), 2}, {r * 0.99, 1}} {
		if r*1.01 > MaxOverMax && c.want == 2 {
			t.Fatalf("release ρ %g above the largest threshold %g: no test", r, float64(MaxOverMax))
		}
		o := mustParse(t, map[string]string{"genes": "100", "over": fmt.Sprintf("auto:%g", c.tau)})
		if _, out := releaseARI(t, src, true, 2, o, 1); out.Over != c.want {
			t.Errorf("release ρ %g, over=auto:%g: over %d, want %d", r, c.tau, out.Over, c.want)
		}
	}
}

// TestWardMergeRelease: merge=ward finds four separated populations with
// over=2, without noise and at a generous ε, ends with K centres, and
// spends what merge=kmeans spends: the same ledger (the merge is
// post-processing of released centres and counts).
func TestWardMergeRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"genes": "100", "over": "2", "merge": "ward"})
	for _, private := range []bool{false, true} {
		ari, out := releaseARI(t, src, private, 50, o, 1)
		if ari <= 0.9 || out.Over != 2 || len(out.Centres) != 4*len(out.Eigen) {
			t.Errorf("merge=ward private %v: ARI %.3f, over %d, %d centre values, want > 0.9, 2, 4·p", private, ari, out.Over, len(out.Centres))
		}
	}
	var ledgers [2][]string
	for i, m := range []string{"kmeans", "ward"} {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "over": "2", "merge": m}), nil)
		ledgers[i] = e.Ledger().Components()
		mu := ComposedMu(e.Outcomes()[0].Plan.Mechanisms())
		if want, _ := muOf(2, 1e-5); math.Abs(mu-want) > 1e-9 {
			t.Errorf("merge=%s: composed μ %g, want %g", m, mu, want)
		}
	}
	if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[1]) {
		t.Errorf("ledgers differ:\nkmeans %v\nward   %v", ledgers[0], ledgers[1])
	}
}
