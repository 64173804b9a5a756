package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// denseToCSR builds a CSR from a dense row-major rows × cols matrix.
func denseToCSR(rows, cols int, v []float32) *CSR {
	m := &CSR{Rows: rows, Cols: cols, Indptr: []int64{0}}
	for i := range rows {
		for j := range cols {
			if x := v[i*cols+j]; x != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, x)
			}
		}
		m.Indptr = append(m.Indptr, int64(len(m.Data)))
	}
	return m
}

// testDataset wraps a dense matrix as a labelled Dataset.
func testDataset(rows, cols int, v []float32, labels []int) *Dataset {
	d := &Dataset{Name: "test", X: denseToCSR(rows, cols, v), Labels: labels}
	for j := range cols {
		d.GeneIDs = append(d.GeneIDs, fmt.Sprintf("g%d", j))
	}
	d.GeneNames = d.GeneIDs
	for i := range rows {
		d.Barcodes = append(d.Barcodes, fmt.Sprintf("c%d", i))
	}
	for _, l := range labels {
		for len(d.Classes) <= l {
			d.Classes = append(d.Classes, fmt.Sprintf("k%d", len(d.Classes)))
		}
	}
	d.ValueType = DetectValueType(d.X)
	return d
}

func TestFilterCellsAndGenes(t *testing.T) {
	// Cells detect 3, 1, 2 and 0 genes; genes are detected in 2, 2, 1, 0 cells.
	x := denseToCSR(4, 4, []float32{
		1, 2, 3, 0,
		0, 5, 0, 0,
		4, 0, 0, 0,
		0, 0, 0, 0,
	})
	x.Data[len(x.Data)-1] = 0 // keep the structure; cell 2 has an explicit zero
	tests := []struct {
		desc     string
		minGenes int
		maxLoss  float64
		want     []int
		skipped  bool
	}{
		{"filter off", 0, 0.05, []int{0, 1, 2, 3}, true},
		{"min 1", 1, 1, []int{0, 1}, false},
		{"min 2", 2, 1, []int{0}, false},
		{"too many lost", 2, 0.5, []int{0, 1, 2, 3}, true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, step := FilterCells(x, tc.minGenes, tc.maxLoss)
			if !slices.Equal(got, tc.want) || step.Skipped != tc.skipped {
				t.Errorf("FilterCells(min %d, loss %v) = %v skipped %v, want %v skipped %v", tc.minGenes, tc.maxLoss, got, step.Skipped, tc.want, tc.skipped)
			}
		})
	}
	got, _ := FilterGenes(x, []int{0, 1, 2, 3}, 2)
	if want := []int{1}; !slices.Equal(got, want) {
		t.Errorf("FilterGenes(min 2) = %v, want %v", got, want)
	}
}

func TestSizeFactorsAndNormalize(t *testing.T) {
	x := denseToCSR(4, 2, []float32{1, 1, 2, 2, 3, 5, 0, 0})
	sf, med := SizeFactors(x)
	// Totals 2, 4, 8, 0: the median of the positive ones is 4.
	if med != 4 {
		t.Fatalf("SizeFactors median = %v, want 4", med)
	}
	if want := []float64{0.5, 1, 2, 0}; !slices.Equal(sf, want) {
		t.Errorf("SizeFactors = %v, want %v", sf, want)
	}
	NormalizeTotal(x, 10)
	for i, want := range []float64{10, 10, 10, 0} {
		if got := rowTotals(x)[i]; math.Abs(got-want) > 1e-5 {
			t.Errorf("row %d total after NormalizeTotal(10) = %v, want %v", i, got, want)
		}
	}
}

func TestCutEqualWidthMatchesPandas(t *testing.T) {
	// pandas.cut([0, 0.5, 1, 0.25], 2) gives bins 0, 0, 1, 0 (right-closed,
	// lowest edge lowered by 0.1% of the range).
	if got, want := cutEqualWidth([]float64{0, 0.5, 1, 0.25}, 2), []int{0, 0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("cutEqualWidth = %v, want %v", got, want)
	}
}

func TestNormalisedDispersionSingleGeneBin(t *testing.T) {
	// Bin 0 holds 1, 3 (mean 2, sd √2); bin 1 one gene of 5: mean 0, sd 5.
	z := normalisedDispersion([]float64{1, 3, 5, math.NaN()}, []int{0, 0, 1, 0}, 2)
	want := []float64{-1 / math.Sqrt2, 1 / math.Sqrt2, 1}
	for j, w := range want {
		if math.Abs(z[j]-w) > 1e-12 {
			t.Errorf("z[%d] = %v, want %v", j, z[j], w)
		}
	}
	if !math.IsNaN(z[3]) {
		t.Errorf("z[3] = %v, want NaN for an undefined dispersion", z[3])
	}
}

// plantedCounts draws Poisson-like counts for cells × genes and makes the
// first planted genes bimodal (zero in half the cells, twice the mean in the
// rest): same mean, far higher dispersion.
func plantedCounts(cells, genes, planted int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float32, cells*genes)
	for j := range genes {
		mean := 0.5 + 20*r.Float64()
		if j < planted {
			mean += 5 // a bimodal gene at a tiny mean is not overdispersed enough to stand out
		}
		for i := range cells {
			m := mean
			if j < planted {
				m = 0
				if i%2 == 0 {
					m = 2 * mean
				}
			}
			// Normal approximation to Poisson(m), rounded and floored at 0.
			v[i*genes+j] = float32(max(0, math.Round(m+math.Sqrt(m)*r.NormFloat64())))
		}
	}
	return v
}

func TestHighlyVariableGenesFindsPlanted(t *testing.T) {
	const cells, genes, planted = 300, 200, 10
	x := denseToCSR(cells, genes, plantedCounts(cells, genes, planted, 7))
	_, med := SizeFactors(x)
	NormalizeTotal(x, med)
	got := HighlyVariableGenes(x, planted, false)
	if want := seq(planted); !slices.Equal(got, want) {
		t.Errorf("HighlyVariableGenes(n=%d) = %v, want the planted genes %v", planted, got, want)
	}
	if got := HighlyVariableGenes(x, 50, false); len(got) != 50 {
		t.Errorf("HighlyVariableGenes(n=50) selected %d genes, want 50", len(got))
	}
	// Given log values, it must undo the log and select the same genes.
	Log1p(x)
	if got := HighlyVariableGenes(x, planted, true); !slices.Equal(got, seq(planted)) {
		t.Errorf("HighlyVariableGenes(log values, n=%d) = %v, want %v", planted, got, seq(planted))
	}
}

func TestZeroRateGenes(t *testing.T) {
	const cells, genes = 200, 60
	r := rand.New(rand.NewPCG(3, 3))
	v := make([]float32, cells*genes)
	// Genes 0–9: detected in 20% of cells, at high level (excess zeros);
	// the rest: detected in most cells at a level matching their zero rate.
	for j := range genes {
		for i := range cells {
			switch {
			case j < 10 && r.Float64() < 0.2:
				v[i*genes+j] = float32(200 + r.IntN(100))
			case j >= 10 && r.Float64() < 0.9:
				v[i*genes+j] = float32(1 + r.IntN(3))
			}
		}
	}
	got, err := ZeroRateGenes(denseToCSR(cells, genes, v), 10, DefaultZeroRateParams())
	if err != nil {
		t.Fatal(err)
	}
	if want := seq(10); !slices.Equal(got, want) {
		t.Errorf("ZeroRateGenes(n=10) = %v, want %v", got, want)
	}
	if _, err := ZeroRateGenes(denseToCSR(2, 2, []float32{1, 0, 0, 1}), 1, DefaultZeroRateParams()); err == nil {
		t.Error("ZeroRateGenes on genes detected in 1 cell: no error, want one")
	}
}

func TestScaleColumns(t *testing.T) {
	x := []float32{1, 5, 2, 5, 3, 5, 100, 5}
	clipped := ScaleColumns(x, 4, 2, 1.2)
	// Column 1 is constant: sd 0 becomes 1, values become 0.
	for i := range 4 {
		if x[i*2+1] != 0 {
			t.Errorf("constant column scaled to %v, want 0", x[i*2+1])
		}
	}
	// Column 0: mean 26.5, sd 49.0 (ddof 1): values −0.52, −0.50, −0.48, 1.50 → last clipped.
	if clipped != 1 || x[6] != 1.2 {
		t.Errorf("ScaleColumns clipped %d values, last = %v; want 1 and 1.2", clipped, x[6])
	}
	y := []float32{1, 2, 3, 4}
	ScaleColumns(y, 4, 1, 0)
	var s, ss float64
	for _, v := range y {
		s += float64(v)
		ss += float64(v) * float64(v)
	}
	if math.Abs(s) > 1e-6 || math.Abs(ss/3-1) > 1e-6 {
		t.Errorf("scaled column sum %v, variance %v; want 0 and 1", s, ss/3)
	}
}

func TestPreprocessCounts(t *testing.T) {
	const cells, genes = 120, 300
	v := plantedCounts(cells, genes, 5, 11)
	labels := make([]int, cells)
	for i := range labels {
		labels[i] = i % 3
	}
	d := testDataset(cells, genes, v, labels)
	cfg := DefaultPreprocessConfig()
	cfg.NTopGenes = 100
	p, err := Preprocess(d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cells != cells || p.Genes < 100 || len(p.X) != p.Cells*p.Genes || len(p.RawCounts) != len(p.X) {
		t.Fatalf("Preprocess shapes: %d×%d, len X %d, raw %d", p.Cells, p.Genes, len(p.X), len(p.RawCounts))
	}
	if med := median(p.SizeFactors); math.Abs(med-1) > 1e-12 {
		t.Errorf("median size factor = %v, want 1", med)
	}
	// Raw counts must be the input values of the selected genes.
	col := slices.Index(d.GeneIDs, p.GeneIDs[3])
	for i := range cells {
		if got, want := p.RawCounts[i*p.Genes+3], v[i*genes+col]; got != want {
			t.Fatalf("RawCounts[%d, %s] = %v, want %v", i, p.GeneIDs[3], got, want)
		}
	}
	var names []string
	for _, s := range p.Steps {
		names = append(names, s.Name)
	}
	want := "filter cells,filter genes,size factors,normalise total,log1p,gene selection,scale"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("steps = %s, want %s", got, want)
	}
	if !slices.Equal(p.Labels, labels) {
		t.Error("labels not carried over")
	}
}

func TestPreprocessNonCounts(t *testing.T) {
	const cells, genes = 30, 40
	r := rand.New(rand.NewPCG(5, 5))
	v := make([]float32, cells*genes)
	for k := range v {
		v[k] = float32(r.Float64() * 8) // log-scale values
	}
	d := testDataset(cells, genes, v, nil)
	cfg := DefaultPreprocessConfig()
	cfg.MinGenes, cfg.MinCells = 0, 0
	p, err := Preprocess(d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.RawCounts != nil {
		t.Error("RawCounts set for non-count data")
	}
	skipped := map[string]bool{}
	for _, s := range p.Steps {
		if s.Skipped {
			skipped[s.Name] = true
		}
	}
	for _, name := range []string{"size factors", "normalise total", "log1p"} {
		if !skipped[name] {
			t.Errorf("step %q ran on log-scale non-count data, want it skipped with a reason", name)
		}
	}
}

func TestPreprocessConfigValidate(t *testing.T) {
	mod := func(f func(*PreprocessConfig)) PreprocessConfig {
		c := DefaultPreprocessConfig()
		f(&c)
		return c
	}
	tests := []struct {
		desc    string
		cfg     PreprocessConfig
		wantErr bool
	}{
		{"default", DefaultPreprocessConfig(), false},
		{"negative min genes", mod(func(c *PreprocessConfig) { c.MinGenes = -1 }), true},
		{"NaN loss", mod(func(c *PreprocessConfig) { c.MaxCellLoss = math.NaN() }), true},
		{"loss above 1", mod(func(c *PreprocessConfig) { c.MaxCellLoss = 1.5 }), true},
		{"infinite target", mod(func(c *PreprocessConfig) { c.TargetSum = math.Inf(1) }), true},
		{"zero top genes", mod(func(c *PreprocessConfig) { c.NTopGenes = 0 }), true},
		{"NaN clip", mod(func(c *PreprocessConfig) { c.MaxValue = math.NaN() }), true},
		{"unknown selection", mod(func(c *PreprocessConfig) { c.Selection = "pca" }), true},
		{"zero-rate", mod(func(c *PreprocessConfig) { c.Selection = SelectZeroRate }), false},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err != nil) != tc.wantErr {
				t.Errorf("Validate() = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestPreprocessEmptyAfterFilter(t *testing.T) {
	d := testDataset(3, 3, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, nil)
	cfg := DefaultPreprocessConfig()
	cfg.MinGenes, cfg.MinCells = 0, 2
	if _, err := Preprocess(d, cfg); err == nil {
		t.Error("Preprocess with every gene filtered out: no error")
	}
}
