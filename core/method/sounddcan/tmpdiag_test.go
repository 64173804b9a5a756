package sounddcan

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dpscope/dpscope/core/method/dppca"
)

func ne(l []int) int {
	m := map[int]bool{}
	for _, v := range l {
		m[v] = true
	}
	return len(m)
}

func TestTmpNE(t *testing.T) {
	if os.Getenv("TMPNE") == "" {
		t.Skip()
	}
	src, _ := dppca.NewSource(simData(t, 21), 0)
	o := mustParse(t, map[string]string{"start": os.Getenv("TMPNE"), "net": "0.1"})
	for _, eps := range []float64{8, 16} {
		for s := range uint64(3) {
			rng := rand.New(rand.NewPCG(s, 0))
			pl, _ := NewPlan(src, true, eps, 1e-5, o, rng)
			out, err := Fit(context.Background(), src, pl, o, rng, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("ε=%g s=%d dppca-stage ne %d (its own NonEmpty %d, over %d) start ne %d end ne %d weights %.3f", eps, s, ne(out.Start.Labels), out.Start.NonEmpty, out.Start.Over, ne(out.StartLabels), out.NonEmpty, out.Weights)
		}
	}
}
