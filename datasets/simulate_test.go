package datasets

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The statistical checks below use bounds of 5 standard errors (false
// failure below 6e-7 each, normal approximation) unless stated otherwise.

func TestSimConfigValidate(t *testing.T) {
	ok := DefaultSimConfig(100, 50, 3)
	for _, tc := range []struct {
		desc    string
		edit    func(c *SimConfig)
		wantErr bool
	}{
		{"defaults", func(c *SimConfig) {}, false},
		{"one cell one gene", func(c *SimConfig) { c.Cells, c.Genes = 1, 1 }, false},
		{"zero cells", func(c *SimConfig) { c.Cells = 0 }, true},
		{"negative genes", func(c *SimConfig) { c.Genes = -1 }, true},
		{"too many entries", func(c *SimConfig) { c.Cells, c.Genes = 1_000_000, 1_000 }, true},
		{"entries at the bound", func(c *SimConfig) { c.Cells, c.Genes = MaxSimEntries/1000, 1000 }, false},
		{"no groups", func(c *SimConfig) { c.Groups = nil }, true},
		{"NaN mean shape", func(c *SimConfig) { c.MeanShape = math.NaN() }, true},
		{"zero mean shape", func(c *SimConfig) { c.MeanShape = 0 }, true},
		{"Inf mean rate", func(c *SimConfig) { c.MeanRate = math.Inf(1) }, true},
		{"negative mean rate", func(c *SimConfig) { c.MeanRate = -0.3 }, true},
		{"outlier prob 1", func(c *SimConfig) { c.OutlierProb = 1 }, false},
		{"outlier prob above 1", func(c *SimConfig) { c.OutlierProb = 1.01 }, true},
		{"outlier scale 0", func(c *SimConfig) { c.OutlierFacScale = 0 }, false},
		{"lib loc -Inf", func(c *SimConfig) { c.LibLoc = math.Inf(-1) }, true},
		{"lib loc too large", func(c *SimConfig) { c.LibLoc = 699 }, true},
		{"lib scale 0", func(c *SimConfig) { c.LibScale = 0 }, false},
		{"negative bcv", func(c *SimConfig) { c.BCVCommon = -0.1 }, true},
		{"bcv df 0", func(c *SimConfig) { c.BCVDF = 0 }, false},
		{"NaN dropout mid", func(c *SimConfig) { c.DropoutMid = math.NaN() }, true},
		{"group prob 0", func(c *SimConfig) { c.Groups[1].Prob = 0 }, true},
		{"group de prob NaN", func(c *SimConfig) { c.Groups[0].DEProb = math.NaN() }, true},
		{"group de prob 1", func(c *SimConfig) { c.Groups[0].DEProb = 1 }, false},
		{"group down prob negative", func(c *SimConfig) { c.Groups[2].DEDownProb = -0.1 }, true},
		{"group fac scale 0", func(c *SimConfig) { c.Groups[0].DEFacScale = 0 }, true},
		{"parent earlier", func(c *SimConfig) { c.Groups[2].Parent = 2 }, false},
		{"parent itself", func(c *SimConfig) { c.Groups[1].Parent = 2 }, true},
		{"parent later", func(c *SimConfig) { c.Groups[0].Parent = 3 }, true},
		{"parent negative", func(c *SimConfig) { c.Groups[0].Parent = -1 }, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			c := ok
			c.Groups = slices.Clone(ok.Groups)
			tc.edit(&c)
			err := c.Validate()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadGeneratorConfig) {
				t.Errorf("Validate() = %v, want it to wrap ErrBadGeneratorConfig", err)
			}
			if err != nil {
				if _, _, err2 := Simulate(c); err2 == nil {
					t.Errorf("Simulate accepted a config Validate rejects")
				}
			}
		})
	}
}

func TestSimulateDataset(t *testing.T) {
	cfg := DefaultSimConfig(300, 120, 4)
	d, truth, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("Simulate: invalid data set: %v", err)
	}
	if d.Cells() != 300 || d.Genes() != 120 {
		t.Errorf("Simulate: %d×%d, want 300×120", d.Cells(), d.Genes())
	}
	if got := DetectValueType(d.X); got != Counts || d.ValueType != Counts {
		t.Errorf("value type detected %v, stored %v, want counts", got, d.ValueType)
	}
	for _, tc := range []struct{ got, want string }{
		{d.GeneIDs[0], "gene_0001"}, {d.GeneNames[119], "gene_0120"},
		{d.Barcodes[299], "cell_0300"}, {strings.Join(d.Classes, ","), "type_1,type_2,type_3,type_4"},
		{d.Source, "simulate:seed=1"},
	} {
		if tc.got != tc.want {
			t.Errorf("name = %q, want %q", tc.got, tc.want)
		}
	}
	if !slices.Equal(d.Labels, truth.Groups) {
		t.Errorf("Labels differ from SimTruth.Groups")
	}
	if got := simNames("cell_", 12345, true)[0]; got != "cell_00001" {
		t.Errorf("simNames(cell_, 12345)[0] = %q, want cell_00001", got)
	}
}

// TestSimulateDeterministic checks that the counts are a function of the
// configuration only: not of the number of workers, nor of the call.
func TestSimulateDeterministic(t *testing.T) {
	cfg := DefaultSimConfig(150, 80, 3)
	cfg.Dropout = true
	a, _, _ := simulate(cfg, 1, simInvertBelow)
	for _, w := range []int{2, 5} {
		b, _, _ := simulate(cfg, w, simInvertBelow)
		if !slices.Equal(a.X.Indptr, b.X.Indptr) || !slices.Equal(a.X.Indices, b.X.Indices) ||
			!slices.Equal(a.X.Data, b.X.Data) || !slices.Equal(a.Labels, b.Labels) {
			t.Errorf("simulate with %d workers differs from 1 worker", w)
		}
	}
	cfg.Seed = 2
	c, _, _ := Simulate(cfg)
	if slices.Equal(a.X.Data, c.X.Data) {
		t.Errorf("seeds 1 and 2 give equal counts")
	}
}

// TestSimulateMoments checks the counts against the truth: given the drawn
// parameters, y_ij is negative binomial with mean μ_ij and variance
// μ + φ²μ², independent over cells, so z_j = Σ_i (y_ij − μ_ij)/√(Σ_i var)
// is close to N(0, 1) for every gene with a large expected total. Over the
// G such genes, mean z has standard error 1/√G and mean z² ≈ 1 with
// standard error √(2/G) (with a margin for the skew of small totals).
func TestSimulateMoments(t *testing.T) {
	cfg := DefaultSimConfig(1500, 300, 2)
	cfg.Seed = 7
	d, truth, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum := make([]float64, cfg.Genes)
	for i := range d.Cells() {
		cols, vals := d.X.Row(i)
		for k, j := range cols {
			sum[j] += float64(vals[k])
		}
	}
	var zs []float64
	for j := range cfg.Genes {
		var mu, v float64
		for i := range cfg.Cells {
			m, phi := truth.CellMean(i, j), truth.CellBCV(i, j)
			mu += m
			v += m + phi*phi*m*m
		}
		if mu >= 100 {
			zs = append(zs, (sum[j]-mu)/math.Sqrt(v))
		}
	}
	G := float64(len(zs))
	if G < 100 {
		t.Fatalf("only %v genes with expected total ≥ 100, want ≥ 100", G)
	}
	var mz, mz2 float64
	for _, z := range zs {
		mz += z / G
		mz2 += z * z / G
	}
	if tol := 5 / math.Sqrt(G); math.Abs(mz) > tol {
		t.Errorf("mean z over %v genes = %.3f, want 0 ± %.3f", G, mz, tol)
	}
	if tol := 6 * math.Sqrt(2/G); math.Abs(mz2-1) > tol {
		t.Errorf("mean z² over %v genes = %.3f, want 1 ± %.3f", G, mz2, tol)
	}

	// Entry by entry, for μ ≥ 1: r = (y − μ)²/var has mean 1; its standard
	// error is estimated from the sample itself (independent entries).
	var rs []float64
	row := make([]float64, cfg.Genes)
	for i := range cfg.Cells {
		clear(row)
		cols, vals := d.X.Row(i)
		for k, j := range cols {
			row[j] = float64(vals[k])
		}
		for j, y := range row {
			m, phi := truth.CellMean(i, j), truth.CellBCV(i, j)
			if m >= 1 {
				rs = append(rs, (y-m)*(y-m)/(m+phi*phi*m*m))
			}
		}
	}
	N := float64(len(rs))
	var mr, sr float64
	for _, r := range rs {
		mr += r / N
	}
	for _, r := range rs {
		sr += (r - mr) * (r - mr) / (N - 1)
	}
	if tol := 5 * math.Sqrt(sr/N); math.Abs(mr-1) > tol {
		t.Errorf("mean (y−μ)²/(μ+φ²μ²) over %v entries = %.4f, want 1 ± %.4f", N, mr, tol)
	}
}

// TestSimulateDropout checks the dropout rate where counts are large (huge
// libraries, so λ ≈ μ and Poisson zeros are impossible): the zero count is
// Σ p_ij, p_ij = logistic(shape (ln μ_ij − mid)), up to a binomial error
// √(Σ p(1−p)); the BCV spread of λ around μ (φ ≈ 0.01) moves it by far less.
func TestSimulateDropout(t *testing.T) {
	cfg := DefaultSimConfig(400, 50, 1)
	cfg.LibLoc, cfg.LibScale = 14, 0.1
	cfg.MeanShape, cfg.MeanRate = 5, 5 // gene means within a factor of a few
	cfg.OutlierProb = 0
	cfg.BCVCommon, cfg.BCVDF = 0.01, 0
	cfg.Dropout, cfg.DropoutShape = true, -2
	_, truth, err := Simulate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ps []float64
	for i := range cfg.Cells {
		for j := range cfg.Genes {
			ps = append(ps, truth.CellMean(i, j))
		}
	}
	slices.Sort(ps)
	cfg.DropoutMid = math.Log(ps[len(ps)/2]) // half the entries drop
	d, truth, _ := Simulate(cfg)
	var want, v float64
	for i := range cfg.Cells {
		for j := range cfg.Genes {
			p := 1 / (1 + math.Exp(-cfg.DropoutShape*(math.Log(truth.CellMean(i, j))-cfg.DropoutMid)))
			want += p
			v += p * (1 - p)
		}
	}
	zeros := float64(cfg.Cells*cfg.Genes - d.X.NNZ())
	if tol := 5 * math.Sqrt(v); math.Abs(zeros-want) > tol {
		t.Errorf("dropped entries = %v, want %.0f ± %.0f", zeros, want, tol)
	}
}

// TestSimulateParams checks the distributions of the drawn parameters.
func TestSimulateParams(t *testing.T) {
	cfg := DefaultSimConfig(4000, 2000, 3)
	cfg.Cells, cfg.Genes = 4000, 2000
	cfg.OutlierProb = 0
	cfg.Groups[0].Prob = 2                                    // probabilities 1/2, 1/4, 1/4
	cfg.Groups[1].DEProb, cfg.Groups[1].DEDownProb = 0.3, 0.2 // mostly up
	cfg.Groups[1].DEFacLoc = 3                                // ln f > 0 but with prob. Φ(−7.5)
	cfg.Groups[2].Parent, cfg.Groups[2].DEProb = 2, 0.05      // subtype of group 2
	truth := simParams(cfg)
	n, G := float64(cfg.Cells), float64(cfg.Genes)
	within := func(desc string, got, want, se float64) {
		t.Helper()
		if math.Abs(got-want) > 5*se {
			t.Errorf("%s = %.4f, want %.4f ± %.4f", desc, got, want, 5*se)
		}
	}
	var cnt [3]float64
	var logLib float64
	for i, g := range truth.Groups {
		cnt[g]++
		logLib += math.Log(truth.LibSizes[i]) / n
	}
	for g, p := range []float64{0.5, 0.25, 0.25} {
		within(fmt.Sprintf("share of group %d", g+1), cnt[g]/n, p, math.Sqrt(p*(1-p)/n))
	}
	within("mean ln L", logLib, cfg.LibLoc, cfg.LibScale/math.Sqrt(n))
	var mean float64
	for _, m := range truth.GeneMeans {
		mean += m / G
	}
	within("mean gene mean", mean, cfg.MeanShape/cfg.MeanRate, math.Sqrt(cfg.MeanShape)/cfg.MeanRate/math.Sqrt(G))
	var de, up, own float64
	for j, f := range truth.DEFactors[1] {
		if f != 1 {
			de++
			if f > 1 {
				up++
			}
		}
		if truth.DEFactors[2][j] != f {
			own++
		}
	}
	within("DE share of group 2", de/G, 0.3, math.Sqrt(0.3*0.7/G))
	within("up share of DE genes", up/de, 0.8, math.Sqrt(0.8*0.2/de))
	within("extra DE share of subtype 3", own/G, 0.05, math.Sqrt(0.05*0.95/G))
	for g := range truth.GroupNorms {
		var norm float64
		for j, m := range truth.GeneMeans {
			norm += m * truth.DEFactors[g][j]
		}
		if math.Abs(norm-truth.GroupNorms[g]) > 1e-9*norm {
			t.Errorf("GroupNorms[%d] = %g, want Σ m f = %g", g, truth.GroupNorms[g], norm)
		}
	}
}

func TestBuiltin(t *testing.T) {
	if names := BuiltinNames(); !slices.Contains(names, "default") {
		t.Fatalf("BuiltinNames() = %v, want it to contain default", names)
	}
	d, err := Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Cells() != 2000 || d.Genes() != 2000 || len(d.Classes) != 8 || d.Source != "builtin:default" || d.Name != "default" {
		t.Errorf("Builtin(default) = %s %s %d×%d, %d classes, want default builtin:default 2000×2000, 8 classes",
			d.Name, d.Source, d.Cells(), d.Genes(), len(d.Classes))
	}
	sizes := d.ClassCounts()
	if slices.Min(sizes) < 50 || slices.Max(sizes) < 2*slices.Min(sizes) {
		t.Errorf("Builtin(default) class sizes %v, want unequal sizes of at least 50", sizes)
	}
	for _, name := range []string{"nope", "", "../default", "default.json"} {
		_, err := Builtin(name)
		if !errors.Is(err, ErrUnknownBuiltin) || !strings.Contains(err.Error(), "default") {
			t.Errorf("Builtin(%q) = %v, want ErrUnknownBuiltin listing default", name, err)
		}
	}
}

// TestSimulateRoutesAgree checks that the two sampling routes — NB
// inversion with the posterior λ | y (μ < 10) and gamma then Poisson — give
// the same distribution of counts with dropout, in the small-mean regime
// where most counts are drawn by inversion: the shares of zeros, ones and
// of counts ≥ 2 and the mean count (two-sample z-tests at 5 standard errors).
func TestSimulateRoutesAgree(t *testing.T) {
	cfg := DefaultSimConfig(1000, 200, 1)
	cfg.LibLoc = math.Log(200) // mean μ ≈ 1 per entry, spread by the gamma means
	cfg.Dropout, cfg.DropoutMid, cfg.DropoutShape = true, 0, -1
	stats := func(invertBelow float64) (shares [3]float64, mean, meanSq float64) {
		d, _, err := simulate(cfg, 2, invertBelow)
		if err != nil {
			t.Fatal(err)
		}
		n := float64(cfg.Cells * cfg.Genes)
		shares[0] = n - float64(d.X.NNZ())
		for _, v := range d.X.Data {
			shares[min(int(v), 2)]++
			mean += float64(v)
			meanSq += float64(v) * float64(v)
		}
		for k := range shares {
			shares[k] /= n
		}
		return shares, mean / n, meanSq / n
	}
	sa, ma, qa := stats(simInvertBelow)
	sb, mb, qb := stats(0) // gamma-Poisson for every entry
	n := float64(cfg.Cells * cfg.Genes)
	for k := range sa {
		p := (sa[k] + sb[k]) / 2
		if se := math.Sqrt(2 * p * (1 - p) / n); math.Abs(sa[k]-sb[k]) > 5*se {
			t.Errorf("share of counts %s: inversion %.4f, gamma-Poisson %.4f, want equal ± %.4f",
				[]string{"0", "1", "≥ 2"}[k], sa[k], sb[k], 5*se)
		}
	}
	v := ((qa - ma*ma) + (qb - mb*mb)) / 2
	if se := math.Sqrt(2 * v / n); math.Abs(ma-mb) > 5*se {
		t.Errorf("mean count: inversion %.4f, gamma-Poisson %.4f, want equal ± %.4f", ma, mb, 5*se)
	}
}
