package tui

import (
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// numberRe matches the numbers a lesson writes: 54.6, 1.97, 434, 1e-05.
var numberRe = regexp.MustCompile(`[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// lessonEpsilons span 0.01–1000 on a log grid, with the float64 edge of
// e^ε (709.78) on both sides.
var lessonEpsilons = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300, 709, 710, 1000}

// TestLessonFiguresFinite renders every lesson, and its presenter chart,
// at ε from 0.01 to 1000 with σ solved as the Run pane would, and parses
// every number it shows: each must be a finite float, and no lesson may
// print NaN or Inf or fail its template.
func TestLessonFiguresFinite(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	lp := m.Pane(TabLearn).(*learnPane)
	if len(lp.lessons) < 12 {
		t.Fatalf("%d lessons, want at least 12", len(lp.lessons))
	}
	base := lp.params
	for _, eps := range lessonEpsilons {
		pr := base
		pr.Epsilon = eps
		pr.Fed.Epsilon = eps
		pr = resolve(soundDCAN(pr))
		lp.params = pr
		for i, l := range lp.lessons {
			lp.index = i
			out := stripANSI(lp.Lesson())
			for _, bad := range []string{"NaN", "Inf", "{{", "lesson:", "<no value>"} {
				if strings.Contains(out, bad) {
					t.Errorf("ε %g, lesson %s shows %q:\n%s", eps, l.slug, bad, out)
				}
			}
			for _, num := range numberRe.FindAllString(out, -1) {
				v, err := strconv.ParseFloat(num, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("ε %g, lesson %s: %q is not a finite number (%v)", eps, l.slug, num, err)
				}
			}
			pc := lessonChart(lp.c, l.slug, pr, 60, 15)
			if pc.xy.Empty() {
				t.Errorf("ε %g, lesson %s: presenter chart has no finite point", eps, l.slug)
			}
			for _, s := range pc.xy.AllSeries() {
				for _, pt := range s.Points() {
					if math.IsNaN(pt.X+pt.Y) || math.IsInf(pt.X+pt.Y, 0) {
						t.Errorf("ε %g, lesson %s: chart point %+v", eps, l.slug, pt)
					}
				}
			}
		}
	}
	// At ε = 1000 the odds are written from log10, not e^1000 (= +Inf).
	lp.params = base
	lp.params.Epsilon = 1000
	lp.index = 0
	if out := stripANSI(lp.Lesson()); !strings.Contains(out, "e^ε ≈ 1.97×10^434") || !strings.Contains(out, "> 99.99 %") {
		t.Errorf("lesson 1 at ε 1000 lacks e^ε ≈ 1.97×10^434 and > 99.99 %%:\n%s", out)
	}
}

func TestFiniteFormatters(t *testing.T) {
	for _, c := range []struct {
		eps  float64
		want string
	}{
		{0.01, "e^ε ≈ 1.01"}, {1, "e^ε ≈ 2.718"}, {4, "e^ε ≈ 54.6"}, {9, "e^ε ≈ 8103"},
		{10, "e^ε ≈ 2.2×10^4"}, {709.78, "e^ε ≈ 1.79×10^308"}, {1000, "e^ε ≈ 1.97×10^434"},
		{math.Inf(1), "e^ε ≈ more than 10^(10^15)"}, {math.NaN(), "e^ε ≈ —"},
	} {
		if got := fmtExpOdds(c.eps); got != c.want {
			t.Errorf("fmtExpOdds(%g) = %q, want %q", c.eps, got, c.want)
		}
	}
	// 10^2.99999 rounds its mantissa up: 1×10^3 style, never 10.0×10^k.
	if got := fmtPow10(5.99999); got != "1×10^6" {
		t.Errorf("fmtPow10(5.99999) = %q, want 1×10^6", got)
	}
	for eps, want := range map[float64]string{1: "73.11 %", 8: "99.97 %", 1000: "> 99.99 %", 0.01: "50.25 %"} {
		if got := fmtPosterior(eps); got != want {
			t.Errorf("fmtPosterior(%g) = %q, want %q", eps, got, want)
		}
	}
	// β at α = 5 %: ε = 1, δ = 0 → max(1 − e·0.05, e^−1·0.95) = 0.8641.
	if got := betaBound(1, 0, 0.05); math.Abs(got-(1-math.E*0.05)) > 1e-12 {
		t.Errorf("betaBound(1, 0, 0.05) = %v, want %v", got, 1-math.E*0.05)
	}
	if got := betaBound(1000, 1e-5, 0.05); got != 0 {
		t.Errorf("betaBound(1000, …) = %v, want 0", got)
	}
	if got := fmtEpsFinite(math.Inf(1), nil); got != "—" {
		t.Errorf("fmtEpsFinite(+Inf) = %q, want —", got)
	}
}

// TestEveryLessonHasAnExperiment checks each lesson's experiment: it
// exists, opens a real screen, gives settings the engine accepts
// (core.Config.Validate, with the variant's own engine), and names the
// right privacy unit.
func TestEveryLessonHasAnExperiment(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	lp := m.Pane(TabLearn).(*learnPane)
	base := defaultParams("builtin:default", 1, [2]int{20, 20})
	for _, l := range lp.lessons {
		ex, ok := experiments[l.slug]
		if !ok {
			t.Errorf("lesson %s has no experiment", l.slug)
			continue
		}
		if ex.tab < TabRun || ex.tab > TabAudit || ex.desc == "" {
			t.Errorf("lesson %s: experiment tab %d desc %q", l.slug, ex.tab, ex.desc)
		}
		pr := ex.set(base)
		if err := pr.Config("").Validate(); err != nil {
			t.Errorf("lesson %s: settings do not validate: %v", l.slug, err)
		}
		if accountingLessons[l.slug] && !usesPoisson(pr) {
			t.Errorf("lesson %s: experiment picks %s, which does not read σ, q and C", l.slug, pr.V().Label)
		}
		if pr.dpsgd() {
			if e, err := lessonEpsilon(pr.SampleRate, pr.Sigma, pr.Steps(), pr.Delta); err != nil || e > pr.Epsilon*(1+1e-3) {
				t.Errorf("lesson %s: σ %v projects ε %v over the target %v (%v)", l.slug, pr.Sigma, e, pr.Epsilon, err)
			}
		}
	}
	if len(experiments) != len(lp.lessons) {
		t.Errorf("%d experiments for %d lessons", len(experiments), len(lp.lessons))
	}
	fed := experiments["federated"].set(base)
	if fed.V().Method != "fl-dp" || !strings.Contains(privacyUnit(fed), "client") {
		t.Errorf("federated lesson picks %s with unit %q, want fl-dp, one client", fed.V().Method, privacyUnit(fed))
	}
	if pr := experiments["paper-vs-sound"].set(base); pr.V().Mode != core.ModePaper || pr.EffectiveLayers().Last != 3 {
		t.Errorf("paper-vs-sound picks %s layers %s, want paper mode, layers 1-3", pr.V().Label, pr.EffectiveLayers())
	}
	// Same ε and epochs: smaller batches need less noise per step (σ 2.49
	// at q 0.1 → 1.01 at q 0.01), larger ones more.
	if pr := experiments["sampling"].set(base); pr.SampleRate != 0.01 || pr.Sigma >= base.Sigma {
		t.Errorf("sampling: q %v σ %v, want q 0.01 and a σ below %v", pr.SampleRate, pr.Sigma, base.Sigma)
	}
	if pr := experiments["noise-vs-batch"].set(base); pr.SampleRate != 0.5 || pr.Sigma <= base.Sigma {
		t.Errorf("noise-vs-batch: q %v σ %v, want q 0.5 and a σ above %v", pr.SampleRate, pr.Sigma, base.Sigma)
	}
}

// FuzzLessonFormatters feeds any float64 to the lesson formatters: none
// may write NaN or Inf, and every number they write parses as finite.
func FuzzLessonFormatters(f *testing.F) {
	for _, v := range []float64{0, 0.01, 1, 709.78, 1000, 1e308, -5, math.Inf(1), math.NaN()} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, eps float64) {
		out := strings.Join([]string{fmtExpOdds(eps), fmtPosterior(eps), fmtFinite(eps), fmtEpsFinite(eps, nil),
			fmtFinite(100 * betaBound(eps, 1e-5, 0.05))}, " ")
		if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Fatalf("ε %v: %q", eps, out)
		}
		for _, num := range numberRe.FindAllString(out, -1) {
			if v, err := strconv.ParseFloat(num, 64); err != nil || math.IsInf(v, 0) {
				t.Fatalf("ε %v: %q in %q is not finite", eps, num, out)
			}
		}
	})
}

// TestBasisNote checks that an accounting lesson says so when the current
// method does not use σ, q and C, and stays quiet when it does.
func TestBasisNote(t *testing.T) {
	m := sized(t, testModel(t, fakeFast), 120, 40)
	lp := m.Pane(TabLearn).(*learnPane)
	for i, l := range lp.lessons {
		if l.slug == "sampling" {
			lp.index = i
		}
	}
	lp.params = pick(lp.params, func(v Variant) bool { return v.Method == "dpmd" && v.Mode == core.ModeSound })
	if lp.params.V().Method != "dpmd" {
		t.Fatal("dpmd sound is not registered in the tests")
	}
	if out := stripANSI(lp.Lesson()); !strings.Contains(out, "does not use σ, q and C") {
		t.Errorf("sampling lesson under DP-MD lacks the note:\n%s", out)
	}
	lp.params = poissonDPSGD(lp.params)
	if out := stripANSI(lp.Lesson()); strings.Contains(out, "does not use σ, q and C") || !usesPoisson(lp.params) {
		t.Errorf("sampling lesson under %s shows the note:\n%s", lp.params.V().Label, out)
	}
}

// TestMeasuredFiguresAreResults holds the figures the lessons and the
// presenter quote to the trade-off table of docs/RESULTS.md: the means of
// dcan-sound's default row, dppca's row and B1 on builtin:default.
func TestMeasuredFiguresAreResults(t *testing.T) {
	raw, err := os.ReadFile("../docs/RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 10 || strings.TrimSpace(cells[1]) != "builtin:default" {
			continue
		}
		method := strings.TrimSpace(cells[3])
		if _, seen := rows[method]; seen {
			continue // the trade-off table comes first
		}
		b1, err := strconv.ParseFloat(strings.TrimSpace(cells[2]), 64)
		if err != nil {
			continue
		}
		means := []float64{b1}
		if slices.ContainsFunc(cells[4:10], func(c string) bool { return strings.TrimSpace(c) == "" }) {
			continue // a row of another table, with cells left empty (not the trade-off table's)
		}
		for _, c := range cells[4:10] {
			m, err := strconv.ParseFloat(strings.Trim(strings.Fields(c)[0], "*"), 64)
			if err != nil {
				t.Fatalf("row %q: cell %q: %v", method, c, err)
			}
			means = append(means, m)
		}
		rows[method] = means
	}
	for name, want := range map[string][]float64{
		"dcan-sound (default, handoff=off)": measuredDCAN,
		"dppca":                             measuredDPPCA,
	} {
		got, ok := rows[name]
		if !ok {
			t.Fatalf("no row %q for builtin:default in docs/RESULTS.md", name)
		}
		if math.Abs(got[0]-measuredB1) > 5e-4 {
			t.Errorf("B1: RESULTS.md %.3f, measuredB1 %.3f", got[0], measuredB1)
		}
		for i, e := range measuredEps {
			if math.Abs(got[i+1]-want[i]) > 5e-4 {
				t.Errorf("%s at ε %g: RESULTS.md %.3f, quoted %.3f", name, e, got[i+1], want[i])
			}
		}
	}
}
