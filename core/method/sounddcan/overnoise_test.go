package sounddcan

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestParseOverNoise: over=noise parses, prints and validates; other
// words are errors naming over.
func TestParseOverNoise(t *testing.T) {
	o := mustParse(t, map[string]string{"over": "noise"})
	if o.Over != OverNoise || !strings.Contains(o.String(), " over=noise ") {
		t.Fatalf("over=noise gives Over %d, %q", o.Over, o.String())
	}
	for _, v := range []string{"Noise", "noisy", "-2", "0", "21"} {
		if _, err := Parse(map[string]string{"over": v}); err == nil || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "over") {
			t.Errorf("over=%s: error %v, want an ErrOptions naming over", v, err)
		}
	}
}

// TestPlanOverNoise: under over=noise the plan over-clusters into 3K
// exactly when one of the stage's Lloyd rounds (planned at its
// network-on share) leaves at most stagerho of R on an average 3K
// centre's mean, else into 2K; the measure falls as ε grows; the null
// (steps=0) chooses the same; without noise it is 3K.
func TestPlanOverNoise(t *testing.T) {
	src, err := dppca.NewSource(fixture.Separated(3, 300, 600, 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{"over": "noise"}
	o := mustParse(t, vals)
	prev := math.Inf(1)
	var seen [2]bool
	for _, eps := range []float64{0.5, 2, 8, 64} {
		pl := privatePlan(t, src, vals, eps)
		want := OverCluster
		if pl.OverNoiseRho > o.StageBound {
			want = OverNoiseLow
		}
		if pl.Over != want || !(pl.OverNoiseRho > 0) || pl.OverNoiseRho >= prev {
			t.Errorf("ε %g: over %d with noise %g (previous %g), want %d", eps, pl.Over, pl.OverNoiseRho, prev, want)
		}
		seen[pl.Over-OverNoiseLow] = true
		prev = pl.OverNoiseRho
		null := privatePlan(t, src, map[string]string{"over": "noise", "steps": "0"}, eps)
		if null.Over != pl.Over || null.OverNoiseRho != pl.OverNoiseRho {
			t.Errorf("ε %g: the null chooses over %d (noise %g), the method %d (%g)", eps, null.Over, null.OverNoiseRho, pl.Over, pl.OverNoiseRho)
		}
		// the measure itself: the stage's sums noise at the on-share
		st, err := planWithCount(src, mustStageEps(t, pl.Mu, o), 1e-5, mustDPPCAOptions(t, o), pl.NoisyN, pl.CountSigma, o, pl.stageMuOn)
		if err != nil {
			t.Fatal(err)
		}
		if w := st.Sums * math.Sqrt(float64(o.P)) * float64(OverCluster*src.K) / pl.NoisyN / st.R; math.Abs(w-pl.OverNoiseRho) > 1e-9*w {
			t.Errorf("ε %g: measure %g, want %g", eps, pl.OverNoiseRho, w)
		}
	}
	if !seen[0] || !seen[1] {
		t.Errorf("the ε grid reached only one branch (2K %v, 3K %v)", seen[0], seen[1])
	}
	np, err := NewPlan(src, false, 0, 1e-5, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if np.Over != OverCluster {
		t.Errorf("without noise over %d, want %d", np.Over, OverCluster)
	}
}

func mustStageEps(t *testing.T, mu float64, o Options) float64 {
	t.Helper()
	on := o
	on.NoTrain = false
	shDP, _, _ := on.shares()
	e, err := stageEpsilon(mu, shDP, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustDPPCAOptions(t *testing.T, o Options) dppca.Options {
	t.Helper()
	do, err := o.dppcaOptions()
	if err != nil {
		t.Fatal(err)
	}
	return do
}
