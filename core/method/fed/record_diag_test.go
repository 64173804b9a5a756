package fed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// The ninth session's diagnosis of the record unit's noiseless twin
// (docs/RESULTS.md, "the noiseless twin, the lr rule and the audit") and
// the thirty-first session's front end, rule G39 ("the front end on the
// preprocessed genes"). Short forms run in CI; the figures of RESULTS.md
// come from
//
//	DPSCOPE_RECORD_DIAG=PATH|fresh:SEED go test -run TestRecordTwinDiagnosis -v ./core/method/fed/
//	DPSCOPE_RECORD_RULES=1 go test -run TestRecordFrontRule -v ./core/method/fed/

// freshSim is the ninth session's fresh simulation: 4,000 cells, 1,000
// genes, 6 types of weights 1 : 2 : 3, DE probability 0.15 and factor
// location 0.35 (enough signal that the private front end keeps some
// clusters), data seed seed.
func freshSim(t *testing.T, seed uint64) *datasets.Preprocessed {
	t.Helper()
	sc := datasets.DefaultSimConfig(4000, 1000, 6)
	for i := range sc.Groups {
		sc.Groups[i].DEProb, sc.Groups[i].DEFacLoc = 0.15, 0.35
		sc.Groups[i].Prob = float64(1 + i%3)
	}
	sc.Seed = seed
	return fixture.Simulated(t, sc)
}

// diagData reads DPSCOPE_RECORD_DIAG: fresh:SEED or a data set path.
func diagData(t *testing.T, spec string) *datasets.Preprocessed {
	t.Helper()
	if s, ok := strings.CutPrefix(spec, "fresh:"); ok {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return freshSim(t, seed)
	}
	raw, _, err := datasets.Load(spec, datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Preprocess(raw, datasets.DefaultPreprocessConfig())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// diagRun is one record-unit fl-dp run on d; it returns the final ARI.
// eps 0 is the nonprivate twin; sigma > 0 sets σ of both mechanisms (no ε
// target); rounds < 0 keeps the default schedule; lr 0 the default.
func diagRun(t *testing.T, d *datasets.Preprocessed, eps, sigma float64, rounds int, lr float64, seed uint64) float64 {
	t.Helper()
	cfg := core.Config{Data: "diag", Method: testMethod, Mode: core.ModeSound, Epsilon: eps, Sigma: sigma, Delta: 1e-5,
		Seed: seed, SampleRate: 1, Clip: DefaultCellClip, LearningRate: lr}
	if eps == 0 && sigma == 0 {
		cfg.Mode, cfg.Delta, cfg.Clip = core.ModeNonPrivate, 0, 0
	}
	if rounds >= 0 {
		cfg.Epochs = []int{rounds}
	}
	ari, ok := lastMetric(runEngine(t, cfg, newEngine(t, cfg, FLDP, Params{Data: d, Unit: UnitRecord, EvalEvery: 100})), "ARI")
	if !ok {
		t.Fatal("no ARI")
	}
	return ari
}

// frontARI is k-means (the evaluation's: 3 restarts, its seed) on the
// front end's features themselves, no network: exact (eps 0) or private.
func frontARI(t *testing.T, d *datasets.Preprocessed, eps float64, seed uint64) float64 {
	t.Helper()
	cfg := core.Config{Data: "diag", Method: testMethod, Mode: core.ModeSound, Epsilon: eps, Delta: 1e-5, Seed: seed, SampleRate: 1, Clip: DefaultCellClip}
	if eps == 0 {
		cfg.Mode, cfg.Delta, cfg.Clip = core.ModeNonPrivate, 0, 0
	}
	e := newEngine(t, cfg, FLDP, Params{Data: d, Unit: UnitRecord})
	s := &sim{e: e, d: d, x: dataMatrix(d)}
	var err error
	if s.rp, err = newRecPrivacy(e.cfg, e.rounds, e.p.LocalEpochs, e.p.CellClip); err != nil {
		t.Fatal(err)
	}
	f, err := s.front()
	if err != nil {
		t.Fatal(err)
	}
	emb := make([]float64, f.Rows*f.Cols)
	for i := range f.Rows {
		for k, v := range f.RawRowView(i) {
			emb[i*f.Cols+k] = float64(v)
		}
	}
	res, err := cluster.KMeans(context.Background(), emb, f.Rows, f.Cols, cluster.KMeansConfig{K: len(d.Classes), NInit: kmeansInit, Seed: seed + uint64(streamKMeans)})
	if err != nil {
		t.Fatal(err)
	}
	ari, err := cluster.ARI(d.Labels, res.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return ari
}

// TestSpectrumScale checks the front end's scaling (rule G39): one
// factor √(p·n/Σλ_k) for every component, negative released eigenvalues
// counted as 0, and 1 when nothing positive was released.
func TestSpectrumScale(t *testing.T) {
	for _, c := range []struct {
		vals  []float64
		cells int
		want  float64
	}{
		{[]float64{300, 100, -50, 0}, 4, 0.2}, // √(4·4/400)
		{[]float64{8, 8}, 2, 0.5},             // √(2·2/16)
		{[]float64{-1, 0}, 10, 1},             // nothing released
	} {
		if got := spectrumScale(c.vals, c.cells); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("spectrumScale(%v, %d) = %g, want %g", c.vals, c.cells, got, c.want)
		}
	}
}

// TestFrontInputCentred checks rule G39's input: the model input's
// columns of the 200 genes of largest mean log-expression, each centred at
// its mean over all cells.
func TestFrontInputCentred(t *testing.T) {
	d := simData(t, 300, 400, 3)
	s := &sim{d: d, x: dataMatrix(d)}
	in := s.frontInput()
	if in.Rows != d.Cells || in.Cols != frontGenes {
		t.Fatalf("front input %d × %d, want %d × %d", in.Rows, in.Cols, d.Cells, frontGenes)
	}
	for k := range in.Cols {
		sum, ss := 0.0, 0.0
		for i := range in.Rows {
			v := float64(in.RawRowView(i)[k])
			sum, ss = sum+v, ss+v*v
		}
		if m := sum / float64(in.Rows); math.Abs(m) > 1e-4 {
			t.Errorf("column %d: mean %g, want 0", k, m)
		}
		if ss == 0 {
			t.Errorf("column %d is all zero", k)
		}
	}
	// every column is one of the model input's, shifted by a constant
	for k := range 3 {
		found := false
		for j := 0; j < d.Genes && !found; j++ {
			diff := float64(in.RawRowView(0)[k]) - float64(d.X[j])
			ok := true
			for i := 1; i < d.Cells && ok; i++ {
				ok = math.Abs(float64(in.RawRowView(i)[k])-float64(d.X[i*d.Genes+j])-diff) < 1e-4
			}
			found = ok
		}
		if !found {
			t.Errorf("front input column %d is no column of the model input", k)
		}
	}
}

// TestRecordTwinDiagnosis: the noiseless twin is the same pipeline as
// sound mode — at σ = 1e-4 in both mechanisms the ARI is the twin's within
// 0.05 (pbmc_4k seed 0: 0.393 vs 0.391). Short form: the 2,000-cell test
// simulation. With DPSCOPE_RECORD_DIAG=PATH|fresh:SEED (and
// DPSCOPE_RECORD_DIAG_SEED) it also prints the diagnosis table of
// RESULTS.md: ε = 16, the untrained network on the exact front end,
// k-means on the exact and private front ends.
func TestRecordTwinDiagnosis(t *testing.T) {
	spec := os.Getenv("DPSCOPE_RECORD_DIAG")
	var d *datasets.Preprocessed
	if spec == "" {
		d = simData(t, recordSimCells, 400, 4)
	} else {
		d = diagData(t, spec)
	}
	seed := uint64(0)
	if s := os.Getenv("DPSCOPE_RECORD_DIAG_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	twin, tiny := diagRun(t, d, 0, 0, -1, 0, seed), diagRun(t, d, 0, 1e-4, -1, 0, seed)
	t.Logf("nonprivate twin %.3f, sound at σ = 1e-4 %.3f", twin, tiny)
	if math.Abs(twin-tiny) > 0.05 {
		t.Errorf("twin %.3f, sound at σ = 1e-4 %.3f: want the same pipeline (within 0.05)", twin, tiny)
	}
	if spec == "" {
		return
	}
	fmt.Printf("%s seed %d: twin %.3f | σ 1e-4 %.3f | ε 16 %.3f | untrained on exact front %.3f | k-means on exact front %.3f | on private front ε 4 %.3f, ε 16 %.3f\n",
		spec, seed, twin, tiny, diagRun(t, d, 16, 0, -1, 0, seed), diagRun(t, d, 0, 0, 0, 0, seed),
		frontARI(t, d, 0, seed), frontARI(t, d, 4, seed), frontARI(t, d, 16, seed))
}

// TestRecordFrontRule is rule G39's pipeline (docs/RESULTS.md, "the
// front end on the preprocessed genes") on the ninth session's fresh
// simulation. Short form: data seed 201, run seed 1, the nonprivate twin
// and ε = 8 (measured 0.808 and 0.988; 1.000 and 0.993 since G42's
// identity start; before G39 the twin read 0.985):
// the twin must not collapse (≥ 0.7; the two combinations G39 rejected,
// scaled genes with whitening and uncentred genes with one scale, gave
// 0.13 and 0.09 or less on this family) and ε = 8 must keep the types
// (≥ 0.9). With DPSCOPE_RECORD_RULES=1 it prints G39's arm on the
// draws that judged it: builtin:default:7101–7105 and fresh:271–275, run
// seed i for a family's i-th draw, the twin and ε = 2, 4, 8, 16 (the
// rule's table, which ran at lr 10: since rule G41 the private columns
// run at its rate; the arm G39 was judged against is at commit 70bcdf3).
func TestRecordFrontRule(t *testing.T) {
	if os.Getenv("DPSCOPE_RECORD_RULES") == "" {
		d := freshSim(t, 201)
		twin, e8 := diagRun(t, d, 0, 0, -1, 0, 1), diagRun(t, d, 8, 0, -1, 0, 1)
		t.Logf("fresh:201 seed 1: twin %.3f, ε 8 %.3f", twin, e8)
		if twin < 0.7 || e8 < 0.9 {
			t.Errorf("fresh:201 seed 1: twin %.3f, ε 8 %.3f: want ≥ 0.7 and ≥ 0.9", twin, e8)
		}
		return
	}
	for _, fam := range [][]string{
		{"builtin:default:7101", "builtin:default:7102", "builtin:default:7103", "builtin:default:7104", "builtin:default:7105"},
		{"fresh:271", "fresh:272", "fresh:273", "fresh:274", "fresh:275"},
	} {
		for i, spec := range fam {
			d, seed := diagData(t, spec), uint64(i+1)
			fmt.Printf("%s seed %d: twin %.3f", spec, seed, diagRun(t, d, 0, 0, -1, 0, seed))
			for _, eps := range []float64{2, 4, 8, 16} {
				fmt.Printf(" | ε %g %.3f", eps, diagRun(t, d, eps, 0, -1, 0, seed))
			}
			fmt.Println()
		}
	}
}

// TestThinQ: the columns thinQ leaves are orthonormal and span the input's
// columns (QQᵀa = a), for a tall matrix and a square one.
func TestThinQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{300, 12}, {7, 7}} {
		g, b := sz[0], sz[1]
		a := mat.NewDense(g, b, nil)
		for i := range g {
			for j := range b {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		q := mat.DenseCopyOf(a)
		thinQ(q.RawMatrix(), make([]float64, b), nil)
		var qtq, proj, back mat.Dense
		qtq.Mul(q.T(), q)
		proj.Mul(q.T(), a)
		back.Mul(q, &proj)
		if !mat.EqualApprox(&qtq, eye(b), 1e-10) {
			t.Errorf("%d × %d: QᵀQ is not the identity", g, b)
		}
		if !mat.EqualApprox(&back, a, 1e-9) {
			t.Errorf("%d × %d: QQᵀa differs from a", g, b)
		}
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}
