package dppca

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestMergeAt pins the round of the merge for each merge option (T = 10:
// 5, 5, 8, 10, 5, 5, 5), merge=early's rounds, and the option's text in
// run records.
func TestMergeAt(t *testing.T) {
	for m, want := range map[string]int{"kmeans": 5, "ward": 5, "late": 8, "union": 10, "mean": 5, "overlap": 5, "early": 5} {
		o := mustParse(t, map[string]string{"merge": m})
		if got := o.mergeAt(); got != want {
			t.Errorf("merge=%s: merge at round %d, want %d", m, got, want)
		}
		if s := o.String(); strings.Contains(s, "merge=") != (m != "kmeans") {
			t.Errorf("merge=%s: String %q", m, s)
		}
	}
	if o := mustParse(t, map[string]string{"merge": "late", "T": "2"}); o.mergeAt() != 1 {
		t.Errorf("merge=late, T 2: merge at %d, want 1", o.mergeAt())
	}
	// merge=early: ⌊T/2⌋ + avg + 2 rounds (at least T) when over-clustering
	for _, c := range []struct {
		T, avg string
		want   int
	}{{"10", "5", 12}, {"10", "1", 10}, {"10", "3", 10}, {"14", "5", 14}, {"20", "5", 20}, {"6", "5", 10}, {"2", "5", 8}} {
		o := mustParse(t, map[string]string{"merge": "early", "T": c.T, "avg": c.avg})
		if got := o.roundsFor(2); got != c.want {
			t.Errorf("merge=early, T %s, avg %s: %d rounds, want %d", c.T, c.avg, got, c.want)
		}
		if got := o.roundsFor(1); got != o.T {
			t.Errorf("merge=early, T %s, no over-clustering: %d rounds, want T", c.T, got)
		}
	}
	if o := mustParse(t, map[string]string{"T": "10"}); o.roundsFor(2) != 10 {
		t.Errorf("merge=kmeans: %d rounds, want 10", o.roundsFor(2))
	}
	if _, err := Parse(map[string]string{"merge": "lately"}); err == nil {
		t.Error("merge=lately accepted")
	}
}

// TestLateUnionRelease: merge=late keeps 2K centres until round T − 2
// and K after it; merge=union keeps 2K to the last round and ends with K
// centres and labels < K; merge=overlap merges where merge=kmeans does,
// at round T/2; each finds four separated populations and spends what
// merge=kmeans spends (the same ledger).
func TestLateUnionRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"late", "union", "overlap", "early"} {
		o := mustParse(t, map[string]string{"genes": "100", "over": "2", "merge": m})
		r := preparedRelease(t, src, o, 50, 1)
		p := len(r.out.Eigen)
		for i := 0; i < r.rounds(); i++ {
			if err := r.round(background); err != nil {
				t.Fatal(err)
			}
			want := 8
			if (m == "late" && i >= o.T-2) || (m == "union" && i == o.T-1) || (m == "overlap" && i >= o.T/2) || (m == "early" && i >= o.T/2) {
				want = 4
			}
			if len(r.out.Centres) != want*p {
				t.Errorf("merge=%s round %d: %d centres, want %d", m, i, len(r.out.Centres)/p, want)
			}
		}
		if slices.Max(r.out.Labels) >= 4 || r.out.NonEmpty != 4 {
			t.Errorf("merge=%s: max label %d, %d non-empty, want < 4 and 4", m, slices.Max(r.out.Labels), r.out.NonEmpty)
		}
		if ari, _ := releaseARI(t, src, true, 50, o, 1); ari <= 0.9 {
			t.Errorf("merge=%s: ARI %.3f, want > 0.9", m, ari)
		}
	}
	merges := []string{"kmeans", "late", "union", "overlap"}
	ledgers := make([][]string, len(merges))
	for i, m := range merges {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "over": "2", "merge": m}), nil)
		ledgers[i] = e.Ledger().Components()
		mu := ComposedMu(e.Outcomes()[0].Plan.Mechanisms())
		if want, _ := muOf(2, 1e-5); math.Abs(mu-want) > 1e-9 {
			t.Errorf("merge=%s: composed μ %g, want %g", m, mu, want)
		}
	}
	for i, m := range merges[1:] {
		if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[i+1]) {
			t.Errorf("ledgers differ:\nkmeans %v\n%s %v", ledgers[0], m, ledgers[i+1])
		}
	}
}

// TestEarlyRelease: merge=early, over-clustering, runs ⌊T/2⌋ = 5 rounds
// with 2K centres and 7 with K (12 in all), each with the k-means share
// over 12 (σ √(12/10) of merge=kmeans's); the ledger holds 12 sums and 12
// counts at that σ, and its composition is the target μ exactly, as
// merge=kmeans's; without over-clustering it is merge=kmeans bit for bit.
func TestEarlyRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := muOf(2, 1e-5)
	var sums, counts [2]float64
	for i, m := range []string{"kmeans", "early"} {
		cfg := map[string]string{"genes": "100", "over": "2", "merge": m}
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, cfg), nil)
		out := e.Outcomes()[0]
		n := 10 + 2*i
		if out.Plan.T != n || len(out.Inertia) != n {
			t.Errorf("merge=%s: plan T %d, %d rounds, want %d", m, out.Plan.T, len(out.Inertia), n)
		}
		sums[i], counts[i] = out.Plan.Sums, out.Plan.Counts
		if mu := ComposedMu(out.Plan.Mechanisms()); math.Abs(mu-want) > 1e-9 {
			t.Errorf("merge=%s: plan's composed μ %g, want %g", m, mu, want)
		}
		if mu := SpentMu(e.Ledger()); math.Abs(mu-want) > 1e-9 {
			t.Errorf("merge=%s: the ledger's μ %g, want %g", m, mu, want)
		}
		for _, c := range []struct {
			name        string
			sens, sigma float64
		}{{MechSums, out.Plan.R, out.Plan.Sums}, {MechCounts, 1, out.Plan.Counts}} {
			evs := e.Ledger().Events("release 1: " + c.name)
			if len(evs) != 1 || evs[0].Steps != n || math.Abs(evs[0].NoiseMultiplier-c.sigma/c.sens) > 1e-12 {
				t.Errorf("merge=%s: ledger events of %q %+v, want %d steps of σ/Δ %g", m, c.name, evs, n, c.sigma/c.sens)
			}
		}
		if ari, _ := releaseARI(t, src, true, 50, mustParse(t, cfg), 1); ari <= 0.9 {
			t.Errorf("merge=%s: ARI %.3f, want > 0.9", m, ari)
		}
	}
	f := math.Sqrt(12.0 / 10)
	if math.Abs(sums[1]/sums[0]-f) > 1e-9 || math.Abs(counts[1]/counts[0]-f) > 1e-9 {
		t.Errorf("merge=early: σ_sums %g, σ_counts %g, want √1.2 × %g, %g", sums[1], counts[1], sums[0], counts[0])
	}
	// no over-clustering: the default's release, labels and ledger
	var labels [2][]int
	var ledgers [2][]string
	for i, m := range []string{"kmeans", "early"} {
		cfg := map[string]string{"genes": "100", "over": "1", "merge": m}
		_, out := releaseARI(t, src, true, 2, mustParse(t, cfg), 3)
		labels[i] = out.Labels
		if len(out.Inertia) != 10 {
			t.Errorf("merge=%s over=1: %d rounds, want 10", m, len(out.Inertia))
		}
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, cfg), nil)
		ledgers[i] = e.Ledger().Components()
	}
	if !slices.Equal(labels[0], labels[1]) || !slices.Equal(ledgers[0], ledgers[1]) {
		t.Error("merge=early without over-clustering differs from merge=kmeans")
	}
}

// TestPieceGroups: each piece goes to its nearest merged centre.
func TestPieceGroups(t *testing.T) {
	pieces := []float64{0, 0, 0.2, 0, 5, 5, 5.3, 5, 0.1, 0.1}
	merged := []float64{5, 5, 0, 0}
	if got := pieceGroups(pieces, merged, 2); !slices.Equal(got, []int{1, 1, 0, 0, 1}) {
		t.Errorf("pieceGroups %v, want [1 1 0 0 1]", got)
	}
}

// TestAvgOption: avg parses 1..MaxAvg only, defaults to 5 and shows in
// run records when not the default.
func TestAvgOption(t *testing.T) {
	if o := mustParse(t, map[string]string{"avg": "3"}); o.Avg != 3 || !strings.Contains(o.String(), " avg=3") {
		t.Errorf("avg=3: %d, %q", o.Avg, o.String())
	}
	if o := mustParse(t, map[string]string{}); o.Avg != 5 || strings.Contains(o.String(), "avg") {
		t.Errorf("default avg %d (want 5), String %q (want no avg)", o.Avg, o.String())
	}
	if o := mustParse(t, map[string]string{"avg": "1"}); o.Avg != 1 || !strings.Contains(o.String(), " avg=1") {
		t.Errorf("avg=1: %d, String %q", o.Avg, o.String())
	}
	for _, bad := range []string{"0", "11", "x", "2.5"} {
		if _, err := Parse(map[string]string{"avg": bad}); err == nil {
			t.Errorf("avg=%s accepted", bad)
		}
	}
}

// TestAvgRelease: with avg=3 the final centres are the mean of the last
// three K-centre rounds' released centres (with and without
// over-clustering), every cell is labelled by its nearest averaged
// centre, four separated populations are found, and the ledger is
// merge=kmeans' own.
func TestAvgRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, over := range []string{"1", "2"} {
		o := mustParse(t, map[string]string{"genes": "100", "over": over, "avg": "3"})
		r := preparedRelease(t, src, o, 8, 2)
		p := len(r.out.Eigen)
		var last [][]float64
		for i := range o.T {
			if err := r.round(background); err != nil {
				t.Fatal(err)
			}
			if i < o.T-1 && len(r.out.Centres) == 4*p {
				last = append(last, append([]float64(nil), r.out.Centres...))
			}
		}
		// the last round's own centres are in hist; the two before it here
		want := make([]float64, 4*p)
		tail := append(last[len(last)-2:], r.hist[len(r.hist)-1])
		for _, c := range tail {
			for i, v := range c {
				want[i] += v / 3
			}
		}
		for i, v := range want {
			if math.Abs(v-r.out.Centres[i]) > 1e-12 {
				t.Fatalf("over=%s: centre value %d is %g, want the 3-round mean %g", over, i, r.out.Centres[i], v)
			}
		}
		labels, _ := assign(r.out.Proj, r.out.Matrix.N, p, r.out.Centres)
		if !slices.Equal(labels, r.out.Labels) {
			t.Errorf("over=%s: labels are not the nearest averaged centres", over)
		}
		if ari, _ := releaseARI(t, src, true, 8, o, 2); ari <= 0.9 {
			t.Errorf("over=%s avg=3: ARI %.3f, want > 0.9", over, ari)
		}
	}
	var ledgers [2][]string
	for i, a := range []string{"1", "3"} {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "avg": a}), nil)
		ledgers[i] = e.Ledger().Components()
	}
	if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[1]) {
		t.Errorf("ledgers differ:\navg=1 %v\navg=3 %v", ledgers[0], ledgers[1])
	}
}

// TestMeanPieces: merge=mean merges the mean of the last three
// over-clustered rounds' centres and counts, and a release with it ends
// with K centres, finds four separated populations and keeps the ledger.
func TestMeanPieces(t *testing.T) {
	r := &release{phist: [][2][]float64{
		{{9, 9}, {9}}, {{0, 3}, {1}}, {{3, 0}, {4}}, {{6, 6}, {7}},
	}}
	c, w := r.meanPieces()
	if !slices.Equal(c, []float64{3, 3}) || !slices.Equal(w, []float64{4}) {
		t.Errorf("meanPieces %v %v, want [3 3] [4]", c, w)
	}
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParse(t, map[string]string{"genes": "100", "over": "2", "merge": "mean"})
	ari, out := releaseARI(t, src, true, 8, o, 3)
	if ari <= 0.9 || len(out.Centres) != 4*len(out.Eigen) {
		t.Errorf("merge=mean: ARI %.3f, %d centre values, want > 0.9 and 4·p", ari, len(out.Centres))
	}
	var ledgers [2][]string
	for i, m := range []string{"kmeans", "mean"} {
		e, _ := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "over": "2", "merge": m}), nil)
		ledgers[i] = e.Ledger().Components()
	}
	if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[1]) {
		t.Errorf("ledgers differ:\nkmeans %v\nmean   %v", ledgers[0], ledgers[1])
	}
}

// TestNonEmptyIsFinal: after the last round the release's count of
// non-empty clusters is that of its final labels, with and without
// over-clustering and with avg=5 (whose mean centres relabel the cells
// after the last round's own labels were counted), at an ε small enough
// that noise empties clusters.
func TestNonEmptyIsFinal(t *testing.T) {
	d := fixture.Separated(6, 40, 200, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, over := range []string{"1", "2"} {
		for _, eps := range []float64{0.5, 2, 50} {
			o := mustParse(t, map[string]string{"genes": "100", "over": over})
			r := preparedRelease(t, src, o, eps, 3)
			for range o.T {
				if err := r.round(background); err != nil {
					t.Fatal(err)
				}
			}
			distinct := map[int]bool{}
			for _, l := range r.out.Labels {
				distinct[l] = true
			}
			if r.out.NonEmpty != len(distinct) {
				t.Errorf("over=%s ε %g: NonEmpty %d, final labels take %d values", over, eps, r.out.NonEmpty, len(distinct))
			}
		}
	}
}

// preparedRelease plans a private release of src at ε eps (δ 1e-5) with
// the generator PCG(seed, 0), as the engine does, and runs its
// preprocessing and PCA, leaving its rounds to the caller.
func preparedRelease(t *testing.T, src *Source, o Options, eps float64, seed uint64) *release {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	pl, err := src.PlanFor(true, eps, 1e-5, o, 0, rng)
	if err != nil {
		t.Fatal(err)
	}
	r := newRelease(src, pl, o, rng)
	if err := r.prep(); err != nil {
		t.Fatal(err)
	}
	if err := r.pca(); err != nil {
		t.Fatal(err)
	}
	return r
}
