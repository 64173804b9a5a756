package dcan

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// utilitySeeds are the seeds of issue 4 point 8's comparison, the ten
// docs/RESULTS.md reports: with three, the baseline's two unlucky seeds
// (1 and 10) decide the outcome.
var utilitySeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// TestDefaultDataUtility is issue 4 point 8 on the embedded default data
// set: non-private DCAN at the trainer's defaults beats k-means (10
// restarts) on the top 50 principal components of the same preprocessed
// data in mean ARI over utilitySeeds. It trains ten full runs (about
// 2 minutes each on a quiet two-core machine, several times that under
// load), so it runs only with DPSCOPE_DCAN_UTILITY=1:
//
//	DPSCOPE_DCAN_UTILITY=1 go test -run TestDefaultDataUtility -v -timeout 120m ./core/method/dcan/
//
// DPSCOPE_DCAN_UTILITY=sound also trains sound DP-DCAN at ε = 8 on the
// same seeds and logs the share of DCAN's gain over chance it keeps
// (reported, not asserted: docs/RESULTS.md explains why it is about 0).
func TestDefaultDataUtility(t *testing.T) {
	which := os.Getenv("DPSCOPE_DCAN_UTILITY")
	if which == "" {
		t.Skip("set DPSCOPE_DCAN_UTILITY=1 (or =sound) to run; it takes several minutes")
	}
	d := resultsData(t)
	pca := top50PCs(t, d)
	base := 0.0
	for _, seed := range utilitySeeds {
		sc := baselineScores(t, d, pca, seed)
		t.Logf("k-means on 50 PCs, seed %d: ARI %.4f NMI %.4f", seed, sc.ARI, sc.NMI)
		base += sc.ARI / float64(len(utilitySeeds))
	}
	run := func(mode core.Mode, seed uint64) float64 {
		cfg := core.Config{Data: "builtin:default", Method: testMethod, Mode: mode, Epsilon: 8, Delta: 1e-5,
			Clip: 0.1, SampleRate: 0.1, Seed: seed}
		r, _ := start(t, context.Background(), cfg, Options{Data: d, NoPLD: true})
		evs := collect(r)
		if err := lastErr(evs); err != nil {
			t.Fatalf("%s seed %d: %v", mode, seed, err)
		}
		ari, nmi := metrics(evs, "ARI"), metrics(evs, "NMI")
		if len(ari) == 0 {
			t.Fatalf("%s seed %d: no metrics", mode, seed)
		}
		t.Logf("%s seed %d: ARI %.4f NMI %.4f (last epoch)", mode, seed, ari[len(ari)-1], nmi[len(nmi)-1])
		return ari[len(ari)-1]
	}
	dcan := 0.0
	for _, seed := range utilitySeeds {
		dcan += run(core.ModeNonPrivate, seed) / float64(len(utilitySeeds))
	}
	t.Logf("mean ARI over seeds %v: DCAN %.4f, k-means on 50 PCs %.4f", utilitySeeds, dcan, base)
	if !(dcan > base) {
		t.Errorf("DCAN's mean ARI %.4f does not beat k-means on 50 PCs (%.4f)", dcan, base)
	}
	if which == "sound" {
		sound := 0.0
		for _, seed := range utilitySeeds {
			sound += run(core.ModeSound, seed) / float64(len(utilitySeeds))
		}
		t.Logf("sound DP-DCAN at ε = 8: mean ARI %.4f, %.0f%% of DCAN's (ARI 0 is chance)", sound, 100*math.Max(sound, 0)/dcan)
	}
}
