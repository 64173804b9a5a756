package dppca

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestParseDefaults: no options give METHODS.md §5's design.
func TestParseDefaults(t *testing.T) {
	o := mustParse(t, nil)
	want := Options{P: 30, PRule: PRuleEdge, T: 10, Genes: GenesAuto, Split: 0.5, Clip: 0.5, Prep: PrepPrivate, Init: InitHistogram, Select: SelectMean, Over: OverAuto, OverMax: overNoiseMax, Merge: MergeKMeans, Target: DefaultTarget, SeedGrid: SeedGridFixed, Avg: DefaultAvg, MergeStarts: DefaultMergeStarts, Floor: DefaultFloor, FloorMode: DefaultFloorMode, Offset: DefaultOffset, Centre: DefaultCentre}
	if o != want {
		t.Errorf("defaults = %v, want %v", o, want)
	}
	o = mustParse(t, map[string]string{"p": "4", "T": "3", "genes": "50", "split": "0.6", "clip": "1", "prep": "public", "init": "kmeans++", "k": "7", "select": "spread", "over": "3", "target": "500", "seedgrid": "auto"})
	want = Options{P: 4, PRule: PRuleFixed, T: 3, Genes: 50, Split: 0.6, Clip: 1, Prep: PrepPublic, Init: InitKMeansPlusPlus, K: 7, Select: SelectSpread, Over: 3, OverMax: overNoiseMax, Merge: MergeKMeans, Target: 500, SeedGrid: SeedGridAuto, Avg: DefaultAvg, MergeStarts: DefaultMergeStarts, Floor: DefaultFloor, FloorMode: DefaultFloorMode}
	if o != want {
		t.Errorf("parsed = %v, want %v", o, want)
	}
	// p=auto keeps the rule and the default cap, whatever came before; a
	// fixed p may exceed genes only under the edge rule's cap.
	if o := mustParse(t, map[string]string{"p": "auto", "genes": "10"}); o.PRule != PRuleEdge || o.P != DefaultPCap {
		t.Errorf("p=auto genes=10 = %v, want the edge rule with cap %d", o, DefaultPCap)
	}
	if o, err := (Options{P: 4}).Resolve(); err != nil || o.PRule != PRuleFixed {
		t.Errorf("Options{P: 4}.Resolve() = %v, %v; want a fixed p (callers that set P keep it)", o, err)
	}
	if o, err := (Options{PRule: PRuleFixed}).Resolve(); err != nil || o.P != DefaultP {
		t.Errorf("Options{PRule: fixed}.Resolve() = %v, %v; want p = %d", o, err, DefaultP)
	}
	// p=auto:N sets the edge rule's cap; over=auto is the default; library
	// callers that build Options get no over-clustering.
	if o := mustParse(t, map[string]string{"p": "auto:30", "over": "auto"}); o.PRule != PRuleEdge || o.P != 30 || o.Over != OverAuto {
		t.Errorf("p=auto:30 over=auto = %v, want the edge rule with cap 30 and over auto", o)
	}
	if o, err := (Options{P: 4}).Resolve(); err != nil || o.Over != 1 || o.Select != SelectMean {
		t.Errorf("Options{P: 4}.Resolve() = %v, %v; want over 1 and select mean (dcan-sound's start unchanged)", o, err)
	}
	// select=excess is an option; the default stays select=mean.
	if o := mustParse(t, map[string]string{"select": "excess"}); o.Select != SelectExcess || mustParse(t, nil).Select != SelectMean {
		t.Errorf("select=excess = %v, default %v; want excess and mean", o.Select, mustParse(t, nil).Select)
	}
	for _, bad := range []map[string]string{{"p": "many"}, {"p": "0"}, {"p": "20", "genes": "10"}, {"p": "auto:0"}, {"p": "auto:x"}, {"over": "0"}, {"over": "11"}, {"over": "some"}, {"over": "auto:0"}, {"over": "auto:-1"}, {"over": "auto:2"}, {"over": "auto:x"}, {"over": "auto:NaN"}, {"merge": "average"}, {"select": "variance"}, {"target": "0"}, {"target": "-5"}, {"target": "x"}, {"target": "1e8"}, {"target": "NaN"}} {
		if _, err := Parse(bad); !errors.Is(err, ErrOptions) || !errors.Is(err, core.ErrBadConfig) {
			t.Errorf("%v: %v, want ErrOptions", bad, err)
		}
	}
	if _, err := (Options{PRule: "guess"}).Resolve(); !errors.Is(err, ErrOptions) {
		t.Errorf("p rule guess: %v, want ErrOptions", err)
	}
	// With public preprocessing the split may go up to 1 (exclusive).
	if _, err := Parse(map[string]string{"prep": "public", "init": "random-ball", "split": "0.95"}); err != nil {
		t.Errorf("prep=public init=random-ball split=0.95: %v", err)
	}
	if _, err := Parse(map[string]string{"split": "0.95"}); !errors.Is(err, ErrOptions) {
		t.Errorf("prep=private split=0.95: %v, want ErrOptions (0.15 goes to the preprocessing and seeding)", err)
	}
}

// FuzzParse: Parse never panics; what it accepts is valid and round-trips
// through String's values.
func FuzzParse(f *testing.F) {
	f.Add("p", "10", "split", "0.5")
	f.Add("genes", "3", "p", "4")
	f.Add("prep", "public", "clip", "1e300")
	f.Add("T", "-1", "k", "0")
	f.Add("p", "auto", "genes", "3")
	f.Add("p", "auto:7", "over", "2")
	f.Add("select", "spread", "over", "auto")
	f.Add("target", "1e3", "clip", "1")
	f.Add("target", "1e-300", "p", "2")
	f.Add("target", "median", "split", "0.9")
	f.Add("target", "-1", "prep", "public")
	f.Add("mincount", "1", "target", "median")
	f.Add("mincount", "-0", "genes", "auto")
	f.Add("mincount", "Inf", "p", "3")
	f.Add("seedgrid", "auto", "init", "kmeans++")
	f.Add("seedgrid", "wide", "p", "2")
	f.Add("seedgrid", "select", "p", "3")
	f.Add("clip", "auto", "split", "0.83")
	f.Add("clip", "-1", "p", "2")
	f.Add("clip", " auto ", "prep", "public")
	f.Add("over", "auto:0.4", "merge", "ward")
	f.Add("over", "auto:1e-300", "merge", "kmeans ")
	f.Add("over", "auto:+Inf", "merge", "")
	f.Add("genes", "auto:12.5", "p", "3")
	f.Add("genes", "auto:0.5", "split", "0.4")
	f.Add("genes", "auto:NaN", "p", "auto")
	f.Add("genes", "auto:1e3", "clip", "auto")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		vals := map[string]string{k1: v1, k2: v2}
		o, err := Parse(vals)
		if err != nil {
			if !errors.Is(err, ErrOptions) {
				t.Fatalf("error %v does not wrap ErrOptions", err)
			}
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("Parse accepted %v, Validate says %v", o, err)
		}
		if (o.PRule == PRuleFixed && o.P > o.genesCap()) || o.Split <= 0 || o.Split >= 1 || !(o.Target > 0 || o.Target == TargetMedian) || o.Target > MaxTarget || !(o.MinCount >= 0 && o.MinCount <= MaxMinCount) || (o.SeedGrid != SeedGridFixed && o.SeedGrid != SeedGridAuto && o.SeedGrid != SeedGridSelect) || !(o.Clip == ClipAuto || (o.Clip > 0 && o.Clip <= 100)) || strings.TrimSpace(vals["clip"]) == "-1" || !(o.OverMax > 0 && o.OverMax <= MaxOverMax) || (o.Merge != MergeKMeans && o.Merge != MergeWard) || (o.GenesScale != 0 && (o.Genes != GenesAuto || !(o.GenesScale >= MinGenesScale && o.GenesScale <= MaxGenesScale))) {
			t.Fatalf("accepted %v", o)
		}
	})
}

// TestParseOverMerge: over=auto:τ sets over=auto with threshold τ and
// shows it in String; merge=ward is an option; absent, the threshold is
// overNoiseMax and the merge kmeans, and the default's String is
// unchanged (run records keep their form).
func TestParseOverMerge(t *testing.T) {
	o := mustParse(t, map[string]string{"over": "auto:0.4", "merge": "ward"})
	if o.Over != OverAuto || o.OverMax != 0.4 || o.Merge != MergeWard || o.overMax() != 0.4 {
		t.Errorf("over=auto:0.4 merge=ward = %v, want over auto, threshold 0.4, merge ward", o)
	}
	if s := o.String(); !strings.Contains(s, "over=auto:0.4") || !strings.Contains(s, "merge=ward") {
		t.Errorf("String() = %q, want over=auto:0.4 and merge=ward", s)
	}
	d := mustParse(t, nil)
	if d.overMax() != overNoiseMax || d.Merge != MergeKMeans {
		t.Errorf("default threshold %g, merge %q; want %g and kmeans", d.overMax(), d.Merge, overNoiseMax)
	}
	if s := d.String(); !strings.Contains(s, "over=auto ") || strings.Contains(s, "merge") {
		t.Errorf("default String() = %q, want over=auto and no merge", s)
	}
	if (Options{}).overMax() != overNoiseMax {
		t.Errorf("unresolved Options' threshold %g, want %g", (Options{}).overMax(), overNoiseMax)
	}
}

// TestParseGenesScale: genes=auto:S sets genes=auto with scale S, which
// PlanFor's h follows (ñ·μ/S at a stated ñ and μ) and String shows;
// absent, the scale is DefaultGenesScale and the default's String keeps
// its form; S out of [1, 1000] or not a number is refused naming the
// option.
func TestParseGenesScale(t *testing.T) {
	o := mustParse(t, map[string]string{"genes": "auto:12.5"})
	if o.Genes != GenesAuto || o.GenesScale != 12.5 || o.genesScale() != 12.5 {
		t.Errorf("genes=auto:12.5 = %v, want genes auto with scale 12.5", o)
	}
	if s := o.String(); !strings.Contains(s, "genes=auto:12.5 ") {
		t.Errorf("String() = %q, want genes=auto:12.5", s)
	}
	d := mustParse(t, nil)
	if d.genesScale() != DefaultGenesScale || !strings.Contains(d.String(), "genes=auto ") {
		t.Errorf("default scale %g, String %q; want %d and genes=auto", d.genesScale(), d.String(), DefaultGenesScale)
	}
	// h at ñ = 3,000, μ = 1.666 (4,998): 200 at the default's 25, 400 at
	// 12.5, 800 at 6.25, the cap at 4, the floor at 200.
	for _, c := range []struct {
		s    float64
		want int
	}{{25, 200}, {12.5, 400}, {6.25, 800}, {4, 1000}, {200, 50}} {
		if got := GenesRuleScale(3000, 1.666, c.s); got != c.want {
			t.Errorf("GenesRuleScale(3000, 1.666, %g) = %d, want %d", c.s, got, c.want)
		}
	}
	if GenesRuleScale(10, math.Inf(1), 50) != GenesAutoMax {
		t.Errorf("no noise: %d, want %d", GenesRuleScale(10, math.Inf(1), 50), GenesAutoMax)
	}
	for _, bad := range []string{"auto:0", "auto:0.5", "auto:-3", "auto:1001", "auto:x", "auto:NaN", "auto:Inf", "auto:"} {
		_, err := Parse(map[string]string{"genes": bad})
		if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "option genes") || !strings.Contains(err.Error(), "auto:S") {
			t.Errorf("genes=%s: %v, want ErrOptions naming option genes and auto:S", bad, err)
		}
	}
	if _, err := (Options{Genes: 300, GenesScale: 10}).Resolve(); !errors.Is(err, ErrOptions) {
		t.Errorf("a scale with a fixed genes: %v, want ErrOptions", err)
	}
}

// TestPlanForGenesScale: a private plan under genes=auto:S takes h =
// ñ·μ/S from its released count, the same count as the default's on the
// same stream.
func TestPlanForGenesScale(t *testing.T) {
	d := fixture.Separated(4, 1000, 1200, 3)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	mu, err := muOf(8, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	def := mustParse(t, nil)
	sc := mustParse(t, map[string]string{"genes": "auto:9"})
	p0, err := src.PlanFor(true, 8, 1e-5, def, 0, rand.New(rand.NewPCG(3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	p1, err := src.PlanFor(true, 8, 1e-5, sc, 0, rand.New(rand.NewPCG(3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if p0.NoisyN != p1.NoisyN {
		t.Fatalf("released counts %g and %g, want the same", p0.NoisyN, p1.NoisyN)
	}
	want := int(math.Round(p1.NoisyN * mu / 9))
	if p1.H != want || p1.H >= GenesAutoMax || p0.H != GenesRule(p0.NoisyN, mu) || p1.H <= p0.H {
		t.Errorf("h %d at scale 9 (want %d), %d at the default (want %d)", p1.H, want, p0.H, GenesRule(p0.NoisyN, mu))
	}
}

// TestGenesRuleScale checks the rule of genes=auto:S (dppca's, and dcan-sound's with its own S): ñ·μ/S rounded, within
// dppca's [GenesAutoMin, GenesAutoMax], and the maximum without noise.
func TestGenesRuleScale(t *testing.T) {
	for _, c := range []struct {
		n, mu, s float64
		want     int
	}{
		{2000, 1, 10, 200},
		{2000, 0.65, 6.5, 200},
		{4271, 1.13, 6.5, 742},
		{100, 0.1, 10, GenesAutoMin},
		{1e6, 2, 1, GenesAutoMax},
		{300, math.Inf(1), 6.5, GenesAutoMax},
	} {
		if got := GenesRuleScale(c.n, c.mu, c.s); got != c.want {
			t.Errorf("GenesRuleScale(%g, %g, %g) = %d, want %d", c.n, c.mu, c.s, got, c.want)
		}
	}
}
