package datasets

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/dpscope/dpscope/internal/errkind"
)

// GeneSelection names a way to choose the genes kept for training.
type GeneSelection string

const (
	// SelectHVG keeps the highly variable genes of scanpy's seurat flavour
	// (see HighlyVariableGenes). The default.
	SelectHVG GeneSelection = "hvg"
	// SelectZeroRate keeps the genes whose zero rate is high for their mean
	// expression, as Kobak & Berens (see ZeroRateGenes), which DP-DCAN's code
	// uses.
	SelectZeroRate GeneSelection = "zero-rate"
	// SelectAll keeps every gene that passed filtering.
	SelectAll GeneSelection = "all"
)

// PreprocessConfig holds the parameters of Preprocess. The zero value is not
// valid; start from DefaultPreprocessConfig. It is serialisable (JSON and
// TOML keys as tagged: NTopGenes is "genes", after the --genes flag), so a
// run's configuration records how its matrix was made.
type PreprocessConfig struct {
	// MinGenes drops cells with fewer detected genes (scanpy filter_cells
	// min_genes). Default 200. Zero disables the filter.
	MinGenes int `json:"min_genes" toml:"min_genes"`
	// MaxCellLoss skips the cell filter, with a stated reason, when it would
	// remove more than this fraction of the cells: data sets shipped as a
	// gene subset (2,000 preselected genes) have few genes per cell, and the
	// filter would then remove cells that are not of low quality. Default
	// 0.05, the rule of ../shared/data/BASELINES.md. 1 always filters.
	MaxCellLoss float64 `json:"max_cell_loss" toml:"max_cell_loss"`
	// MinCells drops genes detected in fewer cells (scanpy filter_genes
	// min_cells). Default 3. Zero disables the filter.
	MinCells int `json:"min_cells" toml:"min_cells"`
	// TargetSum is the total every cell is normalised to. Zero (the default)
	// means the median total over cells, as scanpy's normalize_total.
	TargetSum float64 `json:"target_sum" toml:"target_sum"`
	// Selection chooses the genes kept. Default SelectHVG.
	Selection GeneSelection `json:"selection" toml:"selection"`
	// NTopGenes is how many genes Selection keeps; all genes are kept when
	// fewer pass filtering. Default 2000.
	NTopGenes int `json:"genes" toml:"genes"`
	// MaxValue clips scaled values to [−MaxValue, MaxValue], as scanpy's
	// scale(max_value=10). Zero disables clipping. Default 10.
	MaxValue float64 `json:"max_value" toml:"max_value"`
	// Scale turns each gene to zero mean and unit variance. Default true.
	Scale bool `json:"scale" toml:"scale"`
}

// DefaultPreprocessConfig returns scanpy's usual pipeline settings.
func DefaultPreprocessConfig() PreprocessConfig {
	return PreprocessConfig{
		MinGenes:    200,
		MaxCellLoss: 0.05,
		MinCells:    3,
		Selection:   SelectHVG,
		NTopGenes:   2000,
		MaxValue:    10,
		Scale:       true,
	}
}

// Validate reports the first invalid field of c.
func (c PreprocessConfig) Validate() error {
	switch {
	case c.MinGenes < 0:
		return fmt.Errorf("datasets: min genes is %d, must be ≥ 0", c.MinGenes)
	case c.MinCells < 0:
		return fmt.Errorf("datasets: min cells is %d, must be ≥ 0", c.MinCells)
	case !(c.MaxCellLoss >= 0 && c.MaxCellLoss <= 1):
		return fmt.Errorf("datasets: max cell loss is %v, must be in [0, 1]", c.MaxCellLoss)
	case !(c.TargetSum >= 0) || math.IsInf(c.TargetSum, 0):
		return fmt.Errorf("datasets: target sum is %v, must be finite and ≥ 0 (0 means the median total)", c.TargetSum)
	case c.NTopGenes < 1:
		return fmt.Errorf("datasets: n top genes is %d, must be ≥ 1", c.NTopGenes)
	case !(c.MaxValue >= 0) || math.IsInf(c.MaxValue, 0):
		return fmt.Errorf("datasets: max value is %v, must be finite and ≥ 0 (0 disables clipping)", c.MaxValue)
	}
	switch c.Selection {
	case SelectHVG, SelectZeroRate, SelectAll:
	default:
		return fmt.Errorf("datasets: gene selection is %q, must be one of %q, %q, %q", c.Selection, SelectHVG, SelectZeroRate, SelectAll)
	}
	return nil
}

// Step is one line of the preprocessing summary: what a step did, or why it
// was skipped.
type Step struct {
	Name    string `json:"name"`    // e.g. "filter cells"
	Detail  string `json:"detail"`  // what it did, in words, with the numbers
	Skipped bool   `json:"skipped"` // true when the step did not run; Detail says why
}

// Preprocessed is a data set ready for training: the selected genes of the
// kept cells as a dense float32 matrix, with what the ZINB loss needs.
type Preprocessed struct {
	Cells, Genes int
	// X holds the model input, cells × genes row-major: log1p of normalised
	// values of the selected genes, scaled when the config says so.
	X []float32
	// RawCounts holds the raw counts of the selected genes, cells × genes
	// row-major, for the ZINB likelihood; nil when the data are not counts.
	RawCounts []float32
	// SizeFactors holds each kept cell's library size over the median library
	// size; all ones when the data are not counts.
	SizeFactors []float64
	GeneIDs     []string // the selected genes
	GeneNames   []string
	Barcodes    []string // the kept cells
	CellIndex   []int    // row of each kept cell in the input data set
	Labels      []int    // labels of the kept cells, or nil
	Classes     []string
	ValueType   ValueType
	Steps       []Step // the summary, in order
}

// Preprocess runs scanpy's usual pipeline on d:
// filter cells → filter genes → size factors → normalise total → log1p →
// gene selection → scale (with clip). Count-only steps are skipped for data
// that are not counts, with the reason in Steps: for non-count values that
// already look logarithmic (maximum ≤ 50 or any negative value) log1p is
// skipped too, as ../shared/data/BASELINES.md does for biase.
// d is not modified.
func Preprocess(d *Dataset, cfg PreprocessConfig) (*Preprocessed, error) {
	return PreprocessContext(context.Background(), d, cfg)
}

// PreprocessContext is Preprocess stopped between its steps once ctx is
// done, returning ctx's error.
func PreprocessContext(ctx context.Context, d *Dataset, cfg PreprocessConfig) (*Preprocessed, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	p := &Preprocessed{ValueType: d.ValueType, Classes: d.Classes}
	x := d.X

	cellKeep, step := FilterCells(x, cfg.MinGenes, cfg.MaxCellLoss)
	p.Steps = append(p.Steps, step)
	geneKeep, step := FilterGenes(x, cellKeep, cfg.MinCells)
	p.Steps = append(p.Steps, step)
	if len(cellKeep) == 0 || len(geneKeep) == 0 {
		return nil, errkind.Wrapf(ErrEmpty, "datasets: %s: filtering left an empty matrix (%d cells × %d genes)", d.Name, len(cellKeep), len(geneKeep))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The kept cells and genes are read in place from x: no filtered or
	// normalised copy of the sparse matrix is made (at 50,000 cells such a
	// copy is the size of the dense output). Normalised values are formed as
	// they are read, float32(x_ij · target/t_i), the same numbers an
	// in-place NormalizeTotal of a copy holds.
	raw := newKept(x, cellKeep, geneKeep)
	totals := raw.totals()

	counts := d.ValueType == Counts
	var scale []float64 // per kept cell: the normalisation factor, nil when none
	if counts {
		var target, med float64
		p.SizeFactors, med = sizeFactors(totals)
		target = med
		if cfg.TargetSum > 0 {
			target = cfg.TargetSum
		}
		scale = normFactors(totals, target)
		p.Steps = append(p.Steps,
			Step{Name: "size factors", Detail: fmt.Sprintf("library size / median library size (median %.4g)", med)},
			Step{Name: "normalise total", Detail: fmt.Sprintf("each cell scaled to total %.4g", target)})
	} else {
		p.SizeFactors = ones(raw.Rows())
		reason := "values are not counts (" + nonCountReason(x) + "): no library size to normalise; ZINB not applicable"
		p.Steps = append(p.Steps,
			Step{Name: "size factors", Skipped: true, Detail: reason + "; all set to 1"},
			Step{Name: "normalise total", Skipped: true, Detail: reason})
	}

	// log1p is applied to the selected genes only, after selection: seurat
	// HVG statistics are taken on the values before the log (scanpy takes
	// expm1 of the logged values, the same numbers), so no stored value of
	// an unselected gene needs a log.
	logStep := Step{Name: "log1p", Detail: "x ← ln(1 + x)"}
	logged := false
	if !counts {
		if like, why := looksLogged(x); like {
			logStep = Step{Name: "log1p", Skipped: true, Detail: "values look log-transformed already (" + why + ")"}
			logged = true
		}
	}
	p.Steps = append(p.Steps, logStep)

	sel, step, err := selectGenes(raw, scale, logged, cfg)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: %w", d.Name, err)
	}
	p.Steps = append(p.Steps, step)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Everything still needed from d is taken before the dense matrices are
	// built, so that a caller that drops d lets its sparse matrix go.
	p.CellIndex = cellKeep
	p.Barcodes = pick(d.Barcodes, cellKeep)
	if d.Labels != nil {
		p.Labels = make([]int, len(cellKeep))
		for i, c := range cellKeep {
			p.Labels[i] = d.Labels[c]
		}
	}
	genes := make([]int, len(sel))
	for i, g := range sel {
		genes[i] = geneKeep[g]
	}
	p.GeneIDs = pick(d.GeneIDs, genes)
	p.GeneNames = pick(d.GeneNames, genes)

	p.Cells, p.Genes = raw.Rows(), len(sel)
	if counts {
		// The model input is computed from the dense counts (the values it
		// would read from x), so x is no longer needed once they are built.
		p.RawCounts = raw.densify(sel, false)
		p.X = normLog1p(p.RawCounts, p.Genes, scale)
	} else {
		p.X = raw.densify(sel, !logged)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cfg.Scale {
		clipped := ScaleColumns(p.X, p.Cells, p.Genes, cfg.MaxValue)
		detail := "each gene to zero mean and unit variance"
		if cfg.MaxValue > 0 {
			detail += fmt.Sprintf(", clipped to ±%g (%d values clipped)", cfg.MaxValue, clipped)
		}
		p.Steps = append(p.Steps, Step{Name: "scale", Detail: detail})
	} else {
		p.Steps = append(p.Steps, Step{Name: "scale", Skipped: true, Detail: "disabled"})
	}
	return p, nil
}

// selectGenes returns the kept genes of raw (indices into them) chosen by
// cfg.Selection, sorted increasingly. The normalised values are raw's
// scaled by scale (per cell; nil: raw's own), already log-transformed when
// logged is true.
func selectGenes(raw *kept, scale []float64, logged bool, cfg PreprocessConfig) ([]int, Step, error) {
	n := raw.cols
	if cfg.Selection == SelectAll || n <= cfg.NTopGenes {
		why := "all genes kept"
		if cfg.Selection != SelectAll {
			why = fmt.Sprintf("all %d genes kept: no more than the %d asked for", n, cfg.NTopGenes)
		}
		return seq(n), Step{Name: "gene selection", Detail: why, Skipped: cfg.Selection != SelectAll}, nil
	}
	switch cfg.Selection {
	case SelectZeroRate:
		sel, err := zeroRateGenes(raw, cfg.NTopGenes, DefaultZeroRateParams())
		if err != nil {
			return nil, Step{}, err
		}
		return sel, Step{Name: "gene selection", Detail: fmt.Sprintf("%d of %d genes by zero rate against mean expression (Kobak & Berens)", len(sel), n)}, nil
	default:
		sel := highlyVariableGenes(raw, scale, cfg.NTopGenes, logged)
		return sel, Step{Name: "gene selection", Detail: fmt.Sprintf("%d of %d highly variable genes (seurat flavour, 20 bins)", len(sel), n)}, nil
	}
}

// looksLogged reports whether non-count values look log-transformed already:
// any negative value, or a maximum of at most 50 (ln(1+x) ≤ 50 means x below
// 5·10²¹, beyond any expression level).
func looksLogged(m *CSR) (bool, string) {
	maxV := float32(0)
	for _, v := range m.Data {
		if v < 0 {
			return true, fmt.Sprintf("negative value %g", v)
		}
		maxV = max(maxV, v)
	}
	if maxV <= 50 {
		return true, fmt.Sprintf("maximum %.4g ≤ 50", maxV)
	}
	return false, ""
}

// nonCountReason names the first value that is not a non-negative integer.
func nonCountReason(m *CSR) string {
	for i := 0; i < m.Rows; i++ {
		cols, vals := m.Row(i)
		for k, v := range vals {
			if v < 0 || v != float32(int64(v)) {
				return fmt.Sprintf("cell %d gene %d holds %g", i+1, cols[k]+1, v)
			}
		}
	}
	return "declared non-counts"
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func ones(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func pick(names []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = names[j]
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
