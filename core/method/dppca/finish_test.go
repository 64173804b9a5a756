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
// 5, 5, 8, 10) and the option's text in run records.
func TestMergeAt(t *testing.T) {
	for m, want := range map[string]int{"kmeans": 5, "ward": 5, "late": 8, "union": 10} {
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
	if _, err := Parse(map[string]string{"merge": "lately"}); err == nil {
		t.Error("merge=lately accepted")
	}
}

// TestLateUnionRelease: merge=late keeps 2K centres until round T − 2
// and K after it; merge=union keeps 2K to the last round and ends with K
// centres and labels < K; both find four separated populations and
// spend what merge=kmeans spends (the same ledger).
func TestLateUnionRelease(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"late", "union"} {
		o := mustParse(t, map[string]string{"genes": "100", "over": "2", "merge": m})
		rng := rand.New(rand.NewPCG(1, 0))
		pl, err := src.PlanFor(true, 50, 1e-5, o, 0, rng)
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
		p := len(r.out.Eigen)
		for i := range o.T {
			if err := r.round(background); err != nil {
				t.Fatal(err)
			}
			want := 8
			if (m == "late" && i >= o.T-2) || (m == "union" && i == o.T-1) {
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
	var ledgers [3][]string
	for i, m := range []string{"kmeans", "late", "union"} {
		e, _ := runTest(t, d, soundConfig(2, 1, map[string]string{"genes": "100", "over": "2", "merge": m}), nil)
		ledgers[i] = e.Ledger().Components()
		mu := ComposedMu(e.Outcomes()[0].Plan.Mechanisms())
		if want, _ := muOf(2, 1e-5); math.Abs(mu-want) > 1e-9 {
			t.Errorf("merge=%s: composed μ %g, want %g", m, mu, want)
		}
	}
	if len(ledgers[0]) == 0 || !slices.Equal(ledgers[0], ledgers[1]) || !slices.Equal(ledgers[0], ledgers[2]) {
		t.Errorf("ledgers differ:\nkmeans %v\nlate   %v\nunion  %v", ledgers[0], ledgers[1], ledgers[2])
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
