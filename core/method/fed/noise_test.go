package fed

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

func TestNoiseToSignal(t *testing.T) {
	cases := []struct {
		z                  float64
		weights, rounds, k int
		want               float64
	}{
		{2, 600, 2, 3, 20}, // 2·√(600/6)
		{1, 30, 5, 6, 1},   // the threshold
		{0.5, 4, 1, 1, 1},  // 0.5·2
		{3, 100, 0, 5, 0},  // no round: nothing to compare
		{3, 100, 4, 0, 0},  // no client
		// pbmc_4k sound at ε = 16: σ = 5.704·C, the paper's network on
		// 2,000 genes, 5 rounds, 30 clients
		{5.704, 2000*1024 + 1024 + 1024*128 + 128 + 128*1024 + 1024 + 1024*2000 + 2000, 5, 30, 5.704 * math.Sqrt((2000*1024+1024+1024*128+128+128*1024+1024+1024*2000+2000)/150.0)},
	}
	for _, c := range cases {
		if got := noiseToSignal(c.z, c.weights, c.rounds, c.k); math.Abs(got-c.want) > 1e-9*math.Max(1, c.want) {
			t.Errorf("noiseToSignal(%g, %d, %d, %d) = %g, want %g", c.z, c.weights, c.rounds, c.k, got, c.want)
		}
	}
}

// noiseWarnings returns the utility warnings of a run's events.
func noiseWarnings(evs []core.Event) []string {
	var out []string
	for _, ev := range evs {
		if w, ok := ev.(core.WarningEvent); ok && strings.HasPrefix(w.Message, "utility: the local noise") {
			out = append(out, w.Message)
		}
	}
	return out
}

func TestNoiseWarning(t *testing.T) {
	d := simData(t, 60, 40, 3)
	for _, c := range []struct {
		v    Variant
		mode core.Mode
		warn bool
	}{{FLDP, core.ModeSound, true}, {PPMLOmics, core.ModePaper, true}, {FLDP, core.ModeNonPrivate, false}} {
		t.Run(c.v.Name()+"/"+string(c.mode), func(t *testing.T) {
			cfg := baseConfig(c.v, c.mode)
			e := newEngine(t, cfg, c.v, smallParams(d))
			evs := runEngine(t, cfg, e)
			got := noiseWarnings(evs)
			if !c.warn {
				if len(got) != 0 {
					t.Fatalf("nonprivate run warned: %q", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d utility warnings, want 1: %q", len(got), got)
			}
			pr, err := newPrivacy(cfg, c.v, e.p, e.rounds, e.clients)
			if err != nil {
				t.Fatal(err)
			}
			// G genes → 32 → 8 → 32 → G, with biases
			g := d.Genes
			weights := g*32 + 32 + 32*8 + 8 + 8*32 + 32 + 32*g + g
			want := fmt.Sprintf("ρ = σ·√(P/(R·K)) = %.3g times", noiseToSignal(pr.z, weights, 3, 4))
			if !strings.Contains(got[0], want) || !strings.Contains(got[0], fmt.Sprintf("P = %d weights, K = 4 clients", weights)) {
				t.Errorf("warning %q does not contain %q and P = %d", got[0], want, weights)
			}
		})
	}
}

// A small enough σ gives no warning: ρ < 1.
func TestNoiseWarningQuiet(t *testing.T) {
	d := simData(t, 60, 40, 3)
	cfg := baseConfig(FLDP, core.ModeSound)
	cfg.Epsilon, cfg.Sigma = 0, 0.01 // ρ = 0.01·√(2,896/12) ≈ 0.16
	e := newEngine(t, cfg, FLDP, smallParams(d))
	if got := noiseWarnings(runEngine(t, cfg, e)); len(got) != 0 {
		t.Fatalf("ρ < 1 but warned: %q", got)
	}
}
