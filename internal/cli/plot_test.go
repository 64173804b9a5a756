package cli

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/reference"
	"github.com/dpscope/dpscope/internal/fixture"
)

// gradedSweep runs test-graded (ARI = ε/(ε+1) + seed/100, 0.9 + seed/100
// non-private; NMI = ARI + 0.1) over ε 1 and 3 and seeds 0–2 into a folder.
func gradedSweep(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep")
	code, _, stderr := run(t, "sweep", "--method", "test-graded", "--mode", "sound,nonprivate", "--epsilon", "1,3", "--seeds", "0-2", "--out", dir)
	if code != ExitOK {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	return dir
}

func close9(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestTradeOffFromSweepFolder checks the data-to-figure mapping: the
// groups of the saved runs become the curve, the non-private point and
// the reference lines.
func TestTradeOffFromSweepFolder(t *testing.T) {
	sf, err := readSweepFolder(gradedSweep(t))
	if err != nil {
		t.Fatal(err)
	}
	if sf.done != 9 {
		t.Fatalf("%d runs read, want 9", sf.done)
	}
	refs := &references{PCAKMeans: &reference.Line{ARI: 0.7, ARISD: 0.05, NMI: 0.8, NMISD: 0.01, Seeds: 5}}
	groups := groupsOf(sf.groups)
	for i := range groups {
		groups[i].Null = &reference.Line{ARI: 0.02, NMI: 0.03}
	}
	for _, tc := range []struct {
		metric       string
		at1, at3, np float64
		b1, null     float64
	}{
		{"ari", 0.51, 0.76, 0.91, 0.7, 0.02},
		{"nmi", 0.61, 0.86, 1.01, 0.8, 0.03},
	} {
		tr := tradeOff("data", groups, tc.metric, refs)
		if len(tr.Curves) != 1 || tr.Curves[0].Label != "test-graded sound" || len(tr.Curves[0].Points) != 2 {
			t.Fatalf("%s: curves %+v, want one of two points", tc.metric, tr.Curves)
		}
		p := tr.Curves[0].Points
		if p[0].Epsilon != 1 || !close9(p[0].Mean, tc.at1) || !close9(p[0].SD, 0.01) || p[0].N != 3 || p[1].Epsilon != 3 || !close9(p[1].Mean, tc.at3) {
			t.Errorf("%s: points %+v, want ε 1 → %v ± 0.01 (3 runs), ε 3 → %v", tc.metric, p, tc.at1, tc.at3)
		}
		if len(tr.NonPrivate) != 1 || !close9(tr.NonPrivate[0].Mean, tc.np) || tr.NonPrivate[0].Method != "test-graded" {
			t.Errorf("%s: non-private %+v, want %v", tc.metric, tr.NonPrivate, tc.np)
		}
		if len(tr.References) != 2 || tr.References[0].Mean != tc.b1 || tr.References[1].Mean != tc.null {
			t.Errorf("%s: references %+v, want B1 %v and null %v", tc.metric, tr.References, tc.b1, tc.null)
		}
	}
}

// TestTradeOffNullFollowsEpsilon: a null that is a private run at each ε
// becomes a curve of its own beside its method's, one point per ε, and
// not a horizontal line; a null that does not follow ε stays one line per
// method, however many groups carry it.
func TestTradeOffNullFollowsEpsilon(t *testing.T) {
	sf, err := readSweepFolder(gradedSweep(t))
	if err != nil {
		t.Fatal(err)
	}
	groups := groupsOf(sf.groups)
	for i := range groups {
		// The null at ε 1 and 3: 0.3 and 0.5 (the non-private group's
		// null is not drawn as a point of the curve).
		groups[i].Null = &reference.Line{ARI: 0.2 + groups[i].Epsilon/10, ARISD: 0.05, NMI: 0.5, Seeds: 5}
		groups[i].nullFollows = true
	}
	tr := tradeOff("data", groups, "ari", nil)
	if len(tr.References) != 0 {
		t.Errorf("references %+v: a null that follows ε drawn as a line", tr.References)
	}
	if len(tr.Curves) != 2 || tr.Curves[1].Label != "test-graded sound null (no learning)" {
		t.Fatalf("curves %+v, want the run's and its null's", tr.Curves)
	}
	p := tr.Curves[1].Points
	if len(p) != 2 || p[0].Epsilon != 1 || !close9(p[0].Mean, 0.3) || p[1].Epsilon != 3 || !close9(p[1].Mean, 0.5) || p[0].SD != 0.05 || p[0].N != 5 {
		t.Errorf("null points %+v, want ε 1 → 0.3 ± 0.05 and ε 3 → 0.5 (5 seeds)", p)
	}
	if _, err := tr.Plot(); err != nil {
		t.Fatal(err)
	}
	for i := range groups {
		groups[i].nullFollows = false
	}
	if tr := tradeOff("data", groups, "ari", nil); len(tr.Curves) != 1 || len(tr.References) != 1 || tr.References[0].Label != "null test-graded (no learning)" {
		t.Errorf("a fixed null: curves %d, references %+v, want one curve and one line", len(tr.Curves), tr.References)
	}
}

// svgTextCount counts the text elements of an SVG equal to s.
func svgTextCount(t *testing.T, b []byte, s string) int {
	t.Helper()
	n := 0
	for _, x := range fixture.SVGTexts(t, b) {
		if x == s {
			n++
		}
	}
	return n
}

func TestPlotSweepFolder(t *testing.T) {
	dir := gradedSweep(t)
	// One run lost: the figures show what is there.
	if err := os.Remove(filepath.Join(dir, "runs", "test-graded_sound_eps3_seed2.json")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "plot", dir, "--no-reference", "--metric", "ari")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	figs := filepath.Join(dir, "figures")
	var want []string
	for _, f := range []string{"png", "svg", "pdf"} {
		want = append(want, filepath.Join(figs, "tradeoff_ari."+f))
	}
	if got := strings.Fields(stdout); !slices.Equal(got, want) {
		t.Errorf("wrote %q, want %q", got, want)
	}
	b, err := os.ReadFile(filepath.Join(figs, "tradeoff_ari.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() != 1050 {
		t.Errorf("PNG %v, %v: want 1050 px wide (3.5 in at 300 dpi)", img.Bounds(), err)
	}
	svg, _ := os.ReadFile(filepath.Join(figs, "tradeoff_ari.svg"))
	for _, s := range []string{"test-graded sound", "test-graded nonprivate"} {
		if n := svgTextCount(t, svg, s); n != 1 {
			t.Errorf("SVG legend names %q %d times, want once", s, n)
		}
	}
	pdf, _ := os.ReadFile(filepath.Join(figs, "tradeoff_ari.pdf"))
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("PDF starts %q", pdf[:min(8, len(pdf))])
	}
	// Plotting again replaces the figures; the sweep still resumes.
	if code, _, stderr := run(t, "plot", dir, "--no-reference", "--width", "double", "--format", "png"); code != ExitOK {
		t.Fatalf("second plot: exit %d: %s", code, stderr)
	}
	b, _ = os.ReadFile(filepath.Join(figs, "tradeoff_nmi.png"))
	if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 2100 {
		t.Errorf("double-width PNG %v, %v: want 2100 px", img.Bounds(), err)
	}
	if code, _, stderr := run(t, "sweep", "--method", "test-graded", "--mode", "sound,nonprivate", "--epsilon", "1,3", "--seeds", "0-2", "--out", dir); code != ExitOK {
		t.Errorf("the sweep no longer resumes into its folder after plot: %s", stderr)
	}
}

func TestPlotRunFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := run(t, "run", "--method", "test-scripted", "--no-reference", "--out", dir); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	rf, err := readRunFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := rf.trace
	if len(tr.loss) != 11 || tr.lossSteps[10] != 11 || tr.loss[3] != 0.25 { // 10 + seed (1) steps
		t.Errorf("loss %v at %v, want 1/step for steps 1…11", tr.loss, tr.lossSteps)
	}
	if !slices.Equal(tr.accountants, []string{"RDP"}) || len(tr.eps["RDP"]) != 11 || !close9(tr.eps["RDP"][4], 0.5) || tr.epsSteps["RDP"][4] != 5 {
		t.Errorf("ε %v, want 0.1 × step for RDP", tr.eps)
	}
	if !slices.Equal(rf.emb.barcodes, []string{"a", "b"}) || !slices.Equal(rf.emb.data, []float64{1, 2, 3, 4}) || !slices.Equal(rf.clusters, []string{"0", "1"}) {
		t.Errorf("embedding %+v, clusters %q", rf.emb, rf.clusters)
	}
	code, stdout, stderr := run(t, "plot", dir, "--no-labels", "--format", "svg")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := filepath.Join(dir, "figures", "training.svg") + "\n" + filepath.Join(dir, "figures", "embedding.svg") + "\n"; stdout != want {
		t.Errorf("wrote %q, want %q", stdout, want)
	}
	// The run folder with its figures may still be replaced by --force.
	if code, _, stderr := run(t, "run", "--method", "test-scripted", "--no-reference", "--out", dir, "--force"); code != ExitOK {
		t.Errorf("run --force over a folder with figures: %s", stderr)
	}
}

func TestPlotErrors(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(empty, "f.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"plot", empty}, ExitUsage, "neither summary.json"},
		{[]string{"plot", file}, ExitUsage, "is a file"},
		{[]string{"plot", filepath.Join(empty, "none")}, ExitUsage, "none"},
		{[]string{"plot", empty, "--width", "poster"}, ExitUsage, "--width"},
		{[]string{"plot", empty, "--format", "gif"}, ExitUsage, "--format"},
		{[]string{"plot", empty, "--metric", "acc"}, ExitUsage, "--metric"},
		{[]string{"plot"}, ExitUsage, "run or sweep folder"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
	// A summary from a newer dpscope is refused, not misread.
	newer := t.TempDir()
	os.WriteFile(filepath.Join(newer, "summary.json"), []byte(`{"type":"summary","schema":99,"method":"x"}`), 0o644)
	if code, _, stderr := run(t, "plot", newer); code != ExitRuntime || !strings.Contains(stderr, "newer") {
		t.Errorf("newer schema: exit %d, %q", code, stderr)
	}
}
