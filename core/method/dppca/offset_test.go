package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestRemoveOffset: rows sharing a long common direction lose it (exactly,
// without noise), rows around the origin are left as they are.
func TestRemoveOffset(t *testing.T) {
	// 40 rows (5, ±1, 0): the unit directions' mean is (5/√26, 0, 0).
	n, h := 40, 3
	z := make([]float64, n*h)
	for i := range n {
		z[i*h] = 5
		z[i*h+1] = float64(1 - 2*(i%2))
	}
	l, done := removeOffset(z, n, h, float64(n), 0, rand.New(rand.NewPCG(1, 2)))
	if want := 5 / math.Sqrt(26); !done || math.Abs(l-want) > 1e-12 {
		t.Fatalf("length %g removed %v, want %g true", l, done, want)
	}
	for i := range n {
		if math.Abs(z[i*h]) > 1e-12 || math.Abs(math.Abs(z[i*h+1])-1) > 1e-12 || z[i*h+2] != 0 {
			t.Fatalf("row %d after removal %v, want (0, ±1, 0)", i, z[i*h:(i+1)*h])
		}
	}
	// rows (±1, ±1, 0) in balance: mean direction 0, below offsetMinCos
	for i := range n {
		z[i*h], z[i*h+1] = float64(1-2*(i%2)), float64(1-2*((i/2)%2))
	}
	before := slices.Clone(z)
	if l, done := removeOffset(z, n, h, float64(n), 0, rand.New(rand.NewPCG(1, 2))); done || l > 1e-12 || !slices.Equal(z, before) {
		t.Fatalf("balanced rows: length %g removed %v, rows changed %v", l, done, !slices.Equal(z, before))
	}
}

// TestOffsetFires: the switch fires when the means' predicted offset,
// √Σ (σ_mean2/(ñ ŝ_j))², reaches 2R, and not below.
func TestOffsetFires(t *testing.T) {
	// e = 10/10 = 1: 12 genes of ŝ 1 add 12, 16 of ŝ 2 add 4: norm 4
	var spread []float64
	for j := range 28 {
		spread = append(spread, float64(1+min(j/12, 1)))
	}
	pl := Plan{Mean2: 10, R: 2}
	if !offsetFires(pl, 10, spread) {
		t.Error("predicted offset 4 at R 2 did not fire")
	}
	pl.R = 2.001
	if offsetFires(pl, 10, spread) {
		t.Error("predicted offset 4 at R 2.001 fired")
	}
	// without offset=dir's σ back with the k-means: the default's km
	def, _ := NewPlan(true, 1, 1e-5, mustParse(t, map[string]string{"offset": "off"}), 50, 3.5)
	off, _ := NewPlan(true, 1, 1e-5, mustParse(t, map[string]string{"offset": "dir"}), 50, 3.5)
	back := off.withoutOffset()
	if back.Offset != 0 || back.Sums != def.Sums || back.Counts != def.Counts || !slices.Equal(back.Mechanisms(), def.Mechanisms()) {
		t.Errorf("withoutOffset: σ_offset %g, sums %g counts %g, want 0, %g, %g and the default's mechanisms", back.Offset, back.Sums, back.Counts, def.Sums, def.Counts)
	}
}

// TestOffsetPlan: offset=dir adds one Gaussian of Δ = 1 at ShareOffset of
// μ², taken from the k-means share, and the plan still composes to the
// target μ; without it the plan is the default's.
func TestOffsetPlan(t *testing.T) {
	for _, eps := range []float64{1, 8} {
		mu, _ := muOf(eps, 1e-5)
		def, err := NewPlan(true, eps, 1e-5, mustParse(t, map[string]string{"offset": "off"}), 200, 7)
		if err != nil {
			t.Fatal(err)
		}
		off, err := NewPlan(true, eps, 1e-5, mustParse(t, map[string]string{"offset": "dir"}), 200, 7)
		if err != nil {
			t.Fatal(err)
		}
		if def.Offset != 0 || slices.ContainsFunc(def.Mechanisms(), func(m Mechanism) bool { return m.Name == MechOffset }) {
			t.Errorf("ε %g: offset=off's plan has offset σ %g", eps, def.Offset)
		}
		if want := 1 / (mu * math.Sqrt(ShareOffset)); math.Abs(off.Offset-want) > 1e-9*want {
			t.Errorf("ε %g: σ_offset %g, want %g", eps, off.Offset, want)
		}
		i := slices.IndexFunc(off.Mechanisms(), func(m Mechanism) bool { return m.Name == MechOffset })
		if i < 0 || off.Mechanisms()[i].Sens != 1 || off.Mechanisms()[i].Count != 1 {
			t.Errorf("ε %g: offset mechanism %v", eps, off.Mechanisms())
		}
		for _, pl := range []Plan{def, off} {
			if got := ComposedMu(pl.Mechanisms()); math.Abs(got-mu) > 1e-9 {
				t.Errorf("ε %g: composed μ %g, want %g", eps, got, mu)
			}
		}
		// the k-means share 0.35 → 0.30: each round's σ × √(0.35/0.30)
		f := math.Sqrt(0.35 / 0.30)
		if math.Abs(off.Sums/def.Sums-f) > 1e-9 || math.Abs(off.Counts/def.Counts-f) > 1e-9 {
			t.Errorf("ε %g: σ_sums ratio %g, σ_counts ratio %g, want %g", eps, off.Sums/def.Sums, off.Counts/def.Counts, f)
		}
	}
	if _, err := Parse(map[string]string{"offset": "dir", "prep": "public"}); err == nil {
		t.Error("offset=dir with prep=public parsed")
	}
	if _, err := Parse(map[string]string{"offset": "on"}); err == nil {
		t.Error("offset=on parsed")
	}
	// the default (rule G19) is dir and not named; off is; prep=public
	// and library callers' Options are off
	if o := mustParse(t, map[string]string{"offset": "off"}); !strings.HasSuffix(o.String(), " offset=off") {
		t.Errorf("String %q", o.String())
	}
	if o := mustParse(t, map[string]string{}); o.Offset != OffsetDir || strings.Contains(o.String(), "offset") {
		t.Errorf("default %q, String %q names offset", o.Offset, o.String())
	}
	if o := mustParse(t, map[string]string{"prep": "public"}); o.Offset == OffsetDir {
		t.Error("prep=public took offset=dir")
	}
	if o, err := (Options{P: 4}).Resolve(); err != nil || o.Offset == OffsetDir || o.offsetShare() != 0 {
		t.Errorf("library callers' Options: offset %q, share %g", o.Offset, o.offsetShare())
	}
}

// TestOffsetRelease runs the engine with offset=dir: the ledger holds the
// plan's mechanisms exactly (the offset release once, Δ = 1, at the plan's
// σ; the k-means rounds at theirs), composes to the target μ, and the
// clustering still finds four separated populations; without it the
// release, labels and ledger are the default's.
func TestOffsetRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	want, _ := muOf(2, 1e-5)
	cfg := map[string]string{"genes": "100", "offset": "dir"}
	e, _ := runTest(t, d, fixture.SoundConfig(2, 1, cfg), nil)
	out := e.Outcomes()[0]
	if mu := SpentMu(e.Ledger()); math.Abs(mu-want) > 1e-9 {
		t.Errorf("the ledger's μ %g, want %g", mu, want)
	}
	for _, m := range out.Plan.Mechanisms() {
		evs := e.Ledger().Events("release 1: " + m.Name)
		if len(evs) != 1 || evs[0].Steps != m.Count || math.Abs(evs[0].NoiseMultiplier-m.Sigma/m.Sens) > 1e-12 {
			t.Errorf("ledger events of %q %+v, want %d steps of σ/Δ %g", m.Name, evs, m.Count, m.Sigma/m.Sens)
		}
	}
	if evs := e.Ledger().Events("release 1: " + MechOffset); len(evs) != 1 || math.Abs(evs[0].NoiseMultiplier-out.Plan.Offset) > 1e-12 {
		t.Errorf("offset release in the ledger: %+v, want one of σ/Δ %g", evs, out.Plan.Offset)
	}
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ari, _ := releaseARI(t, src, true, 50, mustParse(t, cfg), 1); ari <= 0.9 {
		t.Errorf("offset=dir: ARI %.3f at ε 50, want > 0.9", ari)
	}
	if !out.Matrix.OffsetRemoved || out.Matrix.OffsetLen < offsetMinCos {
		t.Errorf("ε 2: offset removed %v, length %g", out.Matrix.OffsetRemoved, out.Matrix.OffsetLen)
	}
	// the default is offset=dir (rule G19), and offset=dir where its
	// prediction does not fire (ε 200) is offset=off bit for bit
	for _, c := range []struct {
		eps  float64
		a, b string
	}{{2, "", "dir"}, {200, "off", "dir"}} {
		var labels [2][]int
		var ledgers [2][]string
		for i, v := range []string{c.a, c.b} {
			cfg := map[string]string{"genes": "100"}
			if v != "" {
				cfg["offset"] = v
			}
			_, o := releaseARI(t, src, true, c.eps, mustParse(t, cfg), 3)
			labels[i] = o.Labels
			if c.eps == 200 && o.Plan.Offset != 0 {
				t.Errorf("offset=%s at ε 200: σ_offset %g, want 0 (not fired)", v, o.Plan.Offset)
			}
			e, _ := runTest(t, d, fixture.SoundConfig(c.eps, 1, cfg), nil)
			ledgers[i] = e.Ledger().Components()
		}
		if !slices.Equal(labels[0], labels[1]) || !slices.Equal(ledgers[0], ledgers[1]) {
			t.Errorf("offset=%q and offset=%s at ε %g differ", c.a, c.b, c.eps)
		}
	}
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
