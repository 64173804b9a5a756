package sounddcan

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestRoundsAuto: rounds=auto parses and prints; the plan's T is the
// largest in [1, 5] whose one-round noise on an average 3K centre's mean
// (stage at its network-on share) is at most stagerho (checked against
// the measure recomputed at T and T+1), T does not fall as ε grows and
// reaches both ends of the grid, the stage's plan runs T rounds, the
// null (steps=0) chooses the same T, and without noise T is the
// default's 5.
func TestRoundsAuto(t *testing.T) {
	vals := map[string]string{"rounds": "auto"}
	o := mustParse(t, vals)
	if o.StageT != RoundsAuto || !strings.Contains(o.String(), " rounds=auto") {
		t.Fatalf("rounds=auto gives StageT %d, %q", o.StageT, o.String())
	}
	if _, err := Parse(map[string]string{"rounds": "-2"}); err == nil {
		t.Errorf("rounds=-2 parsed")
	}
	src, err := dppca.NewSource(fixture.Separated(3, 300, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	measure := func(pl Plan, tr int) float64 {
		do := mustDPPCAOptions(t, o)
		do.T = tr
		st, err := planWithCount(src, mustStageEps(t, pl.Mu, o), 1e-5, do, pl.NoisyN, pl.CountSigma, o, pl.genesMu(o))
		if err != nil {
			t.Fatal(err)
		}
		return st.Sums * math.Sqrt(float64(o.P)) * float64(OverCluster*src.K) / pl.NoisyN / st.R
	}
	prev := 0
	seen := map[int]bool{}
	for _, eps := range []float64{0.5, 2, 4, 8, 64} {
		pl := privatePlan(t, src, vals, eps)
		tr := pl.StageRounds
		if tr < 1 || tr > dppcaStageRounds || tr < prev || pl.DPPCA.T != tr {
			t.Fatalf("ε %g: T %d (previous %d, stage plan %d)", eps, tr, prev, pl.DPPCA.T)
		}
		m := measure(pl, tr)
		if math.Abs(m-pl.RoundsNoiseRho) > 1e-9*m {
			t.Errorf("ε %g: measure %g, want %g", eps, pl.RoundsNoiseRho, m)
		}
		if tr > 1 && m > o.StageBound {
			t.Errorf("ε %g: T %d with noise %g above the bound %g", eps, tr, m, o.StageBound)
		}
		if tr < dppcaStageRounds && measure(pl, tr+1) <= o.StageBound {
			t.Errorf("ε %g: T %d, but T+1 is within the bound", eps, tr)
		}
		null := privatePlan(t, src, map[string]string{"rounds": "auto", "steps": "0"}, eps)
		if null.StageRounds != tr {
			t.Errorf("ε %g: the null chooses T %d, the method %d", eps, null.StageRounds, tr)
		}
		seen[tr], prev = true, tr
	}
	if !seen[1] || !seen[dppcaStageRounds] {
		t.Errorf("the ε grid reached %v, want both 1 and %d", seen, dppcaStageRounds)
	}
	np, err := NewPlan(src, false, 0, 1e-5, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if np.DPPCA.T != dppcaStageRounds {
		t.Errorf("without noise T %d, want %d", np.DPPCA.T, dppcaStageRounds)
	}
}

// TestRoundsAutoRun: a run under rounds=auto releases the stage's
// rounds as its plan says (the ledger holds the plan's mechanisms) and
// stays within its (ε, δ).
func TestRoundsAutoRun(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 300, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	pl := privatePlan(t, src, map[string]string{"rounds": "auto"}, 2)
	o := mustParse(t, map[string]string{"rounds": "auto"})
	var got []dppca.Mechanism
	hk := Hooks{Record: func(m dppca.Mechanism) error { got = append(got, m); return nil }}
	if _, err := Fit(context.Background(), src, pl, o, rand.New(rand.NewPCG(1, 0)), hk); err != nil {
		t.Fatal(err)
	}
	want := pl.Mechanisms()
	if len(got) != len(want) {
		t.Fatalf("recorded %d mechanisms, the plan lists %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Sigma != want[i].Sigma || got[i].Count != want[i].Count {
			t.Errorf("mechanism %d: recorded %+v, planned %+v", i, got[i], want[i])
		}
	}
}
