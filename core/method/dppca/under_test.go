package dppca

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// underSets are the simulations added for under=auto (the seventeenth
// attempt, before its rule was committed): simpollen has pollen's public
// shape only — 299 cells, 23,794 genes, K = 11 — and nothing read from
// its labels: the 11 types of equal share (class sizes are label facts)
// and simsmall's Splatter settings (DE probability 0.1, dropout). It is
// the one small-cell family with about as many types as pollen, whose
// clusters at K = 11 hold about 27 cells each.
//
// Amended before the rule (base draws only): at Splatter's marker
// location 0.1 dppca scored 0.000–0.010 at every ε up to 16 on its base
// draws (seeds 0–4), a set where nothing is learnable cannot say whether
// fewer centres help. Its markers' location is then set as the nested and
// lineage families' were, for B1 on its own truth in [0.5, 0.7] (a house
// convention, not read from pollen): the first of 0.3, 0.5, 0.8, 1.2,
// 1.6, 2.0 in range (DPSCOPE_DPPCA_POLLENLOC overrides it for that
// search). None was (B1 0.005, 0.024, 0.217, 0.711, 0.890, 0.903, seeds
// 0–4, `DPSCOPE_DPPCA_B1=1 DPSCOPE_DPPCA_EPS=0`); the rule, amended after
// that search and before any variant ran on it, takes the nearest to the
// range: 1.2 (B1 0.711 ± 0.067; dppca without noise 1.000).
func underSets() map[string]datasets.SimConfig {
	probs := make([]float64, 11)
	for g := range probs {
		probs[g] = 1
	}
	c := datasets.DefaultSimConfig(299, 23794, len(probs))
	for g, p := range probs {
		c.Groups[g].Prob, c.Groups[g].DEProb = p, 0.1
		c.Groups[g].DEFacLoc = 1.2
	}
	c.Dropout, c.DropoutMid, c.DropoutShape = true, -1, -1.5
	c.Seed = 61
	if v := os.Getenv("DPSCOPE_DPPCA_POLLENLOC"); v != "" {
		loc, err := strconv.ParseFloat(v, 64)
		if err != nil {
			panic(err)
		}
		for g := range c.Groups {
			c.Groups[g].DEFacLoc = loc
		}
	}
	return map[string]datasets.SimConfig{"simpollen": c}
}

// TestUnderRule: the number of centres on constructed numbers. With
// ñ = 1,000 cells, eigenvalues summing to 900 (rms row norm 0.949) and a
// plan of R·σ_count = 5·σ_count, centreNoise(m) = m·R·σ_count/(ñ·rms);
// the rule keeps the largest m ≤ K with that ≤ τ, at least 2, and K
// without noise, when off, or for K ≤ 2.
func TestUnderRule(t *testing.T) {
	o := mustParse(t, nil)
	eigen := []float64{400, 300, 200}
	nonpriv, err := NewPlan(false, 0, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := underRule(nonpriv, 1000, 11, eigen, 0.5); got != 11 {
		t.Errorf("nonprivate: %d centres, want 11", got)
	}
	pl, err := NewPlan(true, 1, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	pl = pl.WithP(3)
	rms := math.Sqrt(900.0 / 1000)
	per := pl.R * pl.Counts / 1000 / rms // centreNoise of one cluster
	if got := centreNoise(pl, 1000, 1, eigen); math.Abs(got-per) > 1e-12 {
		t.Fatalf("centreNoise(1) %g, want %g", got, per)
	}
	for _, c := range []struct {
		k    int
		tau  float64
		want int
	}{
		{11, 0, 11},                    // off
		{11, 11.5 * per, 11},           // all K within the bound
		{11, 7.5 * per, 7},             // the largest m with m·per ≤ τ
		{11, 7 * per * (1 + 1e-12), 7}, // on the bound: kept
		{11, 7 * per * (1 - 1e-9), 6},  // just under it: not
		{11, 0.5 * per, 2},             // even 2 too noisy: 2
		{2, 0.5 * per, 2},              // K ≤ 2 untouched
		{1, 0.5 * per, 1},              // K ≤ 2 untouched
		{5, 100 * per, 5},              // never more than K
	} {
		if got := underRule(pl, 1000, c.k, eigen, c.tau); got != c.want {
			t.Errorf("K %d, τ %.4g (= %.3g·ρ(1)): %d centres, want %d", c.k, c.tau, c.tau/per, got, c.want)
		}
	}
	// more cells, less noise per centre: at least as many centres
	prev := 0
	for _, n := range []float64{100, 300, 1000, 3000, 10000} {
		k := underRule(pl, n, 11, eigen, 0.5)
		if k < prev {
			t.Errorf("ñ %g: %d centres, fewer than %d at fewer cells", n, k, prev)
		}
		prev = k
	}
}

// TestUnderOption: parsing, the string and validation of under.
func TestUnderOption(t *testing.T) {
	for v, want := range map[string]float64{"off": 0, "auto": underNoiseMax, "auto:0.8": 0.8, "auto:4": 4} {
		o := mustParse(t, map[string]string{"under": v})
		if o.Under != want {
			t.Errorf("under=%s: %g, want %g", v, o.Under, want)
		}
		if want != DefaultUnder && !strings.Contains(o.String(), "under="+v) {
			t.Errorf("under=%s: String %q does not say so", v, o.String())
		}
	}
	if o := mustParse(t, nil); o.Under != DefaultUnder || strings.Contains(o.String(), "under=") != (DefaultUnder != 0) {
		t.Errorf("default: under %g, String %q", o.Under, o.String())
	}
	for _, v := range []string{"on", "auto:0", "auto:-1", "auto:5", "auto:x", "2"} {
		if _, err := Parse(map[string]string{"under": v}); err == nil {
			t.Errorf("under=%s accepted", v)
		}
	}
}

// TestUnderRelease: on a small set at a small budget under=auto (and
// under=count:3) keeps
// fewer centres than K, every label lies in [0, K'), the run says "the
// budget supports K' of K centres" in its warnings and guarantee, and the
// ledger and the ε spent are those of under=off, to the bit.
func TestUnderRelease(t *testing.T) {
	d := fixture.Separated(8, 30, 400, 4)
	const eps = 0.5
	var spent [3]float64
	var comps [3]string
	for i, under := range []string{"off", "auto", "count:3"} {
		e, evs := runTest(t, d, fixture.SoundConfig(eps, 3, map[string]string{"under": under}), nil)
		outs := e.Outcomes()
		out := outs[len(outs)-1]
		k := out.K
		for _, l := range out.Labels {
			if l < 0 || l >= k {
				t.Fatalf("under=%s: label %d outside [0, %d)", under, l, k)
			}
		}
		if len(out.Centres) != k*len(out.Eigen) {
			t.Errorf("under=%s: %d centre values, want %d·p", under, len(out.Centres), k)
		}
		said := false
		for _, ev := range evs {
			if w, ok := ev.(core.WarningEvent); ok && strings.Contains(w.Message, "the budget supports") {
				said = true
			}
		}
		g, _ := fixture.LastOf[core.GuaranteeEvent](evs)
		inPanel := strings.Contains(strings.Join(g.Reasons, "\n"), "the budget supports")
		switch under {
		case "off":
			if k != 8 || said || inPanel {
				t.Errorf("under=off: %d centres, said %v, panel %v; want 8, no message", k, said, inPanel)
			}
		case "auto":
			rho := centreNoise(out.Plan, out.Matrix.NoisyN, 8, out.Eigen)
			if want := underRule(out.Plan, out.Matrix.NoisyN, 8, out.Eigen, underNoiseMax); k != want || k >= 8 {
				t.Errorf("under=auto: %d centres (ρ(K) %.3g), want the rule's %d < 8", k, rho, want)
			}
			if !said || !inPanel {
				t.Errorf("under=auto with %d of 8 centres: warning %v, guarantee panel %v, want both", k, said, inPanel)
			}
			if 2*out.NonEmpty < 8 && !strings.Contains(collapseMessage(out, 8), "the budget supports") {
				t.Errorf("collapse message %q does not give under's reason", collapseMessage(out, 8))
			}
		case "count:3":
			if want := underCountRule(out.Plan, out.Matrix.NoisyN, 8, 3); k != want || k >= 8 {
				t.Errorf("under=count:3: %d centres (ñ %.0f, σ_count %.3g), want the rule's %d < 8", k, out.Matrix.NoisyN, out.Plan.Counts, want)
			}
			if !said || !inPanel {
				t.Errorf("under=count:3 with %d of 8 centres: warning %v, guarantee panel %v, want both", k, said, inPanel)
			}
		}
		b, _ := fixture.LastOf[core.BudgetEvent](evs)
		spent[i] = b.Spent[0].Epsilon
		comps[i] = strings.Join(e.Ledger().Components(), ",")
	}
	if spent[0] != spent[1] || comps[0] != comps[1] || spent[0] != spent[2] || comps[0] != comps[2] {
		t.Errorf("ε spent %v, ledger %q; want identical with and without under", spent, comps)
	}
}

// TestUnderCountRule: under=count:F keeps the largest m ≤ K whose clusters
// of average size ñ/m hold at least F·σ_count cells (at least 2), and K
// without noise, when off, or for K ≤ 2; it reads no eigenvalue.
func TestUnderCountRule(t *testing.T) {
	o := mustParse(t, nil)
	nonpriv, err := NewPlan(false, 0, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := underCountRule(nonpriv, 300, 11, 3); got != 11 {
		t.Errorf("nonprivate: %d centres, want 11", got)
	}
	pl, err := NewPlan(true, 1, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	s := pl.Counts
	if !(s > 1) {
		t.Fatalf("σ_count %g at ε 1, want a private plan's", s)
	}
	for _, c := range []struct {
		n    float64
		k    int
		f    float64
		want int
	}{
		{300, 11, 0, 11},                   // off
		{7 * 3 * s, 11, 3, 7},              // exactly 7 clusters of 3σ
		{7 * 3 * s * (1 - 1e-9), 11, 3, 6}, // just under: 6
		{7 * 3 * s * (1 + 1e-9), 11, 3, 7}, // just over: 7
		{100 * s, 11, 3, 11},               // never more than K
		{s, 11, 3, 2},                      // even 2 too small: 2
		{1000 * s, 2, 3, 2},                // K ≤ 2 untouched
		{0.1 * s, 1, 3, 1},                 // K ≤ 2 untouched
		{7 * 2 * s * (1 + 1e-9), 11, 2, 7}, // the factor scales it
	} {
		if got := underCountRule(pl, c.n, c.k, c.f); got != c.want {
			t.Errorf("ñ %.4g (%.3g σ), K %d, F %g: %d centres, want %d", c.n, c.n/s, c.k, c.f, got, c.want)
		}
	}
	// more cells or more budget: at least as many centres
	prev := 0
	for _, n := range []float64{100, 300, 1000, 3000} {
		k := underCountRule(pl, n, 11, 3)
		if k < prev {
			t.Errorf("ñ %g: %d centres, fewer than %d at fewer cells", n, k, prev)
		}
		prev = k
	}
	pl8, err := NewPlan(true, 8, 1e-5, o, 100, 5)
	if err != nil {
		t.Fatal(err)
	}
	// pollen's shape (300 cells, K 11, p = 2 as at ε 1) at ε 1 and 8,
	// F = 3: two clusters where 3σ_count exceeds a third of the cells, all
	// eleven where it is at most an eleventh of them. σ_count is read after
	// p is chosen (WithP re-splits each round's share).
	p1, p8 := pl.WithP(2), pl8.WithP(2)
	if p1.Counts >= pl.Counts {
		t.Errorf("σ_count %g at p = 2, %g at p = 30: fewer components should leave the counts more", p1.Counts, pl.Counts)
	}
	if a, b := underCountRule(p1, 300, 11, 3), underCountRule(p8, 300, 11, 3); a != 2 || b != 11 || 9*p1.Counts <= 300 || 33*p8.Counts > 300 {
		t.Errorf("300 cells, K 11, F 3: %d centres at ε 1 (σ_count %.3g), %d at ε 8 (σ_count %.3g); want 2 and 11", a, p1.Counts, b, p8.Counts)
	}
}

// TestUnderCountOption: under=count:F parses, says so in String, excludes
// under=auto's bound, and refuses a factor outside (0, MaxUnderCount].
func TestUnderCountOption(t *testing.T) {
	o := mustParse(t, map[string]string{"under": "count:3"})
	if o.UnderCount != 3 || o.Under != 0 || !strings.Contains(o.String(), "under=count:3") {
		t.Errorf("under=count:3: count %g, τ %g, String %q", o.UnderCount, o.Under, o.String())
	}
	for _, v := range []string{"count:0", "count:-1", "count:21", "count:x", "count"} {
		if _, err := Parse(map[string]string{"under": v}); err == nil {
			t.Errorf("under=%s accepted", v)
		}
	}
	o.Under = 0.5
	if err := o.Validate(); err == nil {
		t.Errorf("under=count:3 with under=auto's bound accepted")
	}
}
