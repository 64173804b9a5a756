package dppca

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/internal/fixture"
)

// TestGenesRuleFloor: ñ·μ/s rounded, within [f, 1000], 1000 without
// noise; GenesRuleScale is the rule at the floor of 50.
func TestGenesRuleFloor(t *testing.T) {
	for _, c := range []struct {
		n, mu, s float64
		f, want  int
	}{
		{299, 0.25, 18, 50, 50}, // pollen's shape at ε 1: 4.2 → the default's floor
		{299, 0.25, 18, 12, 12},
		{299, 0.25, 18, 2, 4},
		{3000, 0.25, 18, 12, 42}, // above this floor, under the default's
		{3000, 0.25, 18, 50, 50},
		{1e6, 2, 1, 12, GenesAutoMax},
		{10, math.Inf(1), 18, 12, GenesAutoMax},
	} {
		if got := GenesRuleFloor(c.n, c.mu, c.s, c.f); got != c.want {
			t.Errorf("GenesRuleFloor(%g, %g, %g, %d) = %d, want %d", c.n, c.mu, c.s, c.f, got, c.want)
		}
	}
	for _, n := range []float64{50, 299, 900, 2500, 20000} {
		if a, b := GenesRuleScale(n, 0.7, 18), GenesRuleFloor(n, 0.7, 18, GenesAutoMin); a != b {
			t.Errorf("ñ %g: GenesRuleScale %d, GenesRuleFloor at 50 %d", n, a, b)
		}
	}
}

// TestParseGenesMin: genesmin=F sets the floor, String shows it off the
// default only; out of [2, 1000], not an integer, or with a fixed genes
// it is refused naming the option.
func TestParseGenesMin(t *testing.T) {
	o := mustParse(t, map[string]string{"genesmin": "12"})
	if o.GenesMin != 12 || o.genesMin() != 12 || !strings.Contains(o.String(), " genesmin=12") {
		t.Errorf("genesmin=12: %d, %d, %q", o.GenesMin, o.genesMin(), o.String())
	}
	d := mustParse(t, nil)
	if d.genesMin() != GenesAutoMin || strings.Contains(d.String(), "genesmin") {
		t.Errorf("default floor %d, String %q; want %d and no genesmin", d.genesMin(), d.String(), GenesAutoMin)
	}
	if s := mustParse(t, map[string]string{"genesmin": "50"}).String(); s != d.String() {
		t.Errorf("genesmin=50's String %q, want the default's %q", s, d.String())
	}
	for _, bad := range []map[string]string{{"genesmin": "1"}, {"genesmin": "0"}, {"genesmin": "1001"}, {"genesmin": "x"}, {"genesmin": "12", "genes": "200"}} {
		if _, err := Parse(bad); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "option genesmin") {
			t.Errorf("%v: %v, want ErrOptions naming option genesmin", bad, err)
		}
	}
}

// TestPlanForGenesMin: on 300 cells at ε 1 (ñ·μ/18 ≈ 4) the default plan
// takes the floor of 50 genes and genesmin=12 takes 12, from the same
// released count; at ε 32 (ñ·μ/18 above 50) both take the rule's h.
func TestPlanForGenesMin(t *testing.T) {
	d := fixture.Separated(4, 75, 400, 3) // 300 cells
	src, err := NewSource(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	def := mustParse(t, nil)
	low := mustParse(t, map[string]string{"genesmin": "12"})
	for _, c := range []struct {
		eps           float64
		wantDef, want int
	}{{1, 50, 12}, {32, -1, -1}} {
		mu, err := muOf(c.eps, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		p0, err := src.PlanFor(true, c.eps, 1e-5, def, 0, rand.New(rand.NewPCG(3, 0)))
		if err != nil {
			t.Fatal(err)
		}
		p1, err := src.PlanFor(true, c.eps, 1e-5, low, 0, rand.New(rand.NewPCG(3, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if p0.NoisyN != p1.NoisyN {
			t.Fatalf("ε %g: released counts %g and %g, want the same", c.eps, p0.NoisyN, p1.NoisyN)
		}
		if c.want < 0 {
			r := int(math.Round(p0.NoisyN * mu / DefaultGenesScale))
			c.wantDef, c.want = r, r
			if r <= GenesAutoMin {
				t.Fatalf("ε %g: the rule's h %d is not above the floor; the case tests nothing", c.eps, r)
			}
		}
		if p0.H != c.wantDef || p1.H != c.want {
			t.Errorf("ε %g: h %d (default) and %d (genesmin=12), want %d and %d", c.eps, p0.H, p1.H, c.wantDef, c.want)
		}
		if math.Abs(p1.R-DefaultClip*math.Sqrt(float64(p1.H))) > 1e-12 {
			t.Errorf("ε %g: R %g, want c·√h = %g", c.eps, p1.R, DefaultClip*math.Sqrt(float64(p1.H)))
		}
	}
}
