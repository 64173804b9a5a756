package dppca

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestHeldRound: a centre with no cells keeps its position (lloydRound
// moves it to the origin, its zero sum over max(0, 1)), a centre whose
// noisy count is below the bar keeps it too, and the others take
// lloydRound's update.
func TestHeldRound(t *testing.T) {
	x := []float64{0, 0, 0.2, 0, 0, 0.2, 5, 5, 5.2, 5}
	init := []float64{0.1, 0.1, 5, 5, -9, 9}
	c := append([]float64(nil), init...)
	all := []bool{true, true, true}
	counts := heldRound(x, 5, 2, c, 100, 0, 0, 1, all, rand.New(rand.NewPCG(1, 1)))
	want := []float64{0.2 / 3, 0.2 / 3, 5.1, 5, -9, 9}
	for i, v := range want {
		if math.Abs(c[i]-v) > 1e-12 {
			t.Fatalf("σ 0: centres %v, want %v (the empty third held)", c, want)
		}
	}
	if counts[0] != 3 || counts[1] != 2 || counts[2] != 0 {
		t.Errorf("σ 0: counts %v, want [3 2 0]", counts)
	}
	// A bar above every count holds every centre.
	c = append([]float64(nil), init...)
	heldRound(x, 5, 2, c, 100, 0.01, 0.01, 10, all, rand.New(rand.NewPCG(1, 1)))
	for i, v := range init {
		if c[i] != v {
			t.Fatalf("bar 10: centres %v, want all held at %v", c, init)
		}
	}
	// A centre outside hold (not seen populated) moves even when light:
	// the empty third goes to the origin, its zero sum over max(0, 1).
	c = append([]float64(nil), init...)
	heldRound(x, 5, 2, c, 100, 0, 0, 1, []bool{true, true, false}, rand.New(rand.NewPCG(1, 1)))
	if c[4] != 0 || c[5] != 0 || math.Abs(c[2]-5.1) > 1e-12 {
		t.Fatalf("unseen third: centres %v, want it at the origin and the second at (5.1, 5)", c)
	}
}

// TestReleaseHeld: on well-separated populations the held release finds
// them with and without noise, with the plan's rounds; it refuses the
// seeding from private rows.
func TestReleaseHeld(t *testing.T) {
	d := fixture.Separated(4, 100, 300, 5)
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, over := range []string{"1", "2"} {
		o := mustParse(t, map[string]string{"genes": "100", "over": over})
		for _, private := range []bool{false, true} {
			for _, rel := range []func(context.Context, *Source, Plan, Options, float64, *rand.Rand) (*Outcome, error){ReleaseHeld, ReleaseHeldSeen, ReleaseHeldFirst} {
				rng := rand.New(rand.NewPCG(1, 0))
				pl, err := src.PlanFor(private, 50, 1e-5, o, 0, rng)
				if err != nil {
					t.Fatal(err)
				}
				out, err := rel(context.Background(), src, pl, o, 3, rng)
				if err != nil {
					t.Fatal(err)
				}
				ari, err := cluster.ARI(out.Matrix.Labels, out.Labels)
				if err != nil {
					t.Fatal(err)
				}
				if ari <= 0.9 || out.NonEmpty != 4 || len(out.Centres) != 4*len(out.Eigen) || len(out.Inertia) != o.T {
					t.Errorf("over=%s private %v: ARI %.3f, %d non-empty, %d centre values, %d rounds; want > 0.9, 4, 4·p, %d", over, private, ari, out.NonEmpty, len(out.Centres), len(out.Inertia), o.T)
				}
			}
		}
	}
	o := mustParse(t, map[string]string{"genes": "100", "init": string(InitKMeansPlusPlus)})
	pl, err := src.PlanFor(true, 8, 1e-5, o, 0, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReleaseHeld(context.Background(), src, pl, o, 3, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Error("init=kmeans++: no error")
	}
	if _, err := ReleaseHeldSeen(context.Background(), src, pl, o, 3, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Error("init=kmeans++, seen: no error")
	}
}
