package datasets

import (
	"errors"
	"fmt"
	"math"
)

// SimConfig configures Simulate, a single-cell RNA-seq count simulator in the
// spirit of Splatter (Zappia, Phipson & Oshlack 2017,
// https://doi.org/10.1186/s13059-017-1305-0). The defaults quoted below are
// Splatter's (splatParams), except where stated; DefaultSimConfig returns
// them. The model, for gene j and cell i of group g(i):
//
//	m_j   ~ Gamma(MeanShape, MeanRate)                 gene mean
//	m_j   = median(m) · LogNormal(OutlierFacLoc, OutlierFacScale)
//	                                                    with prob. OutlierProb
//	f_gj  = LogNormal(DEFacLoc_g, DEFacScale_g)^(±1)   with prob. DEProb_g
//	                                                    (−1 with prob. DEDownProb_g),
//	                                                    else 1; times f of the parent group
//	L_i   ~ LogNormal(LibLoc, LibScale)                library size
//	μ_ij  = L_i · m_j f_gj / Σ_j' m_j' f_gj'          cell mean
//	φ_ij  = (BCVCommon + 1/√μ_ij) · √(BCVDF / χ²_j),   χ²_j ~ χ²(BCVDF) per gene
//	λ_ij  ~ Gamma(shape 1/φ², scale μ_ij φ²)          true mean (mean μ_ij)
//	y_ij  ~ Poisson(λ_ij)                              count, i.e. y ~ NB
//	y_ij  = 0 with prob. 1/(1 + exp(−DropoutShape (ln λ_ij − DropoutMid)))
//	                                                    when Dropout is set
//
// A SimConfig is a plain value; JSON tags give the field names of the spec
// files in package assets.
type SimConfig struct {
	// Cells is the number of cells. Required, at least 1.
	Cells int `json:"cells"`
	// Genes is the number of genes. Required, at least 1.
	// Cells·Genes must not exceed MaxSimEntries.
	Genes int `json:"genes"`
	// Groups are the cell types. Required, at least one.
	Groups []GroupConfig `json:"groups"`

	// MeanShape and MeanRate are the shape α and rate β of the gamma
	// distribution of gene means (mean α/β). Splatter: 0.6 and 0.3.
	MeanShape float64 `json:"mean_shape"`
	MeanRate  float64 `json:"mean_rate"`
	// OutlierProb is the probability that a gene is a high-expression
	// outlier, whose mean becomes the median gene mean times a
	// LogNormal(OutlierFacLoc, OutlierFacScale) factor. Splatter: 0.05, 4
	// and 0.5. Zero turns outliers off.
	OutlierProb     float64 `json:"outlier_prob"`
	OutlierFacLoc   float64 `json:"outlier_fac_loc"`
	OutlierFacScale float64 `json:"outlier_fac_scale"`

	// LibLoc and LibScale are the location and scale of the log-normal
	// library size (total expected count) of a cell. Splatter: 11 and 0.2,
	// for 10,000 genes; 8.5 (median ≈ 5,000 UMIs) suits 2,000 genes.
	LibLoc   float64 `json:"lib_loc"`
	LibScale float64 `json:"lib_scale"`

	// BCVCommon is the common biological coefficient of variation (the
	// square root of the negative-binomial dispersion). Splatter: 0.1.
	BCVCommon float64 `json:"bcv_common"`
	// BCVDF is the degrees of freedom of the per-gene χ² scatter of the
	// BCV. Splatter: 60. Zero means no scatter (√(BCVDF/χ²) = 1).
	BCVDF float64 `json:"bcv_df"`

	// Dropout turns on logistic dropout of counts, with midpoint
	// DropoutMid (on ln λ) and shape DropoutShape (negative: low means drop
	// more). Splatter ("experiment" dropout): 0 and −1. Default: off.
	Dropout      bool    `json:"dropout"`
	DropoutMid   float64 `json:"dropout_mid"`
	DropoutShape float64 `json:"dropout_shape"`

	// Seed seeds every random draw; equal configurations give equal data.
	Seed uint64 `json:"seed"`
}

// GroupConfig is one cell type of a SimConfig.
type GroupConfig struct {
	// Prob is the relative weight of the group: a cell belongs to group g
	// with probability Prob_g / Σ Prob. Required, positive.
	Prob float64 `json:"prob"`
	// DEProb is the probability that a gene is differentially expressed in
	// the group. Splatter: 0.1.
	DEProb float64 `json:"de_prob"`
	// DEDownProb is the probability that a DE gene goes down (factor 1/f).
	// Splatter: 0.5.
	DEDownProb float64 `json:"de_down_prob"`
	// DEFacLoc and DEFacScale are the location and scale of the log-normal
	// DE factor f. Splatter: 0.1 and 0.4. DEFacScale must be positive.
	DEFacLoc   float64 `json:"de_fac_loc"`
	DEFacScale float64 `json:"de_fac_scale"`
	// Parent, when positive, is the 1-based number of an earlier group whose
	// DE factors this group inherits (multiplying its own), which makes the
	// two a weakly separated pair of subtypes. Zero means no parent.
	Parent int `json:"parent,omitempty"`
}

// MaxSimEntries bounds Cells·Genes of a SimConfig (about 200 million, e.g.
// 100,000 cells × 2,000 genes), so that a mistyped size is an error rather
// than an out-of-memory crash.
const MaxSimEntries = 200_000_000

// ErrBadGeneratorConfig is returned (wrapped) by SimConfig.Validate and
// ManifoldConfig.Validate for every rejected parameter.
var ErrBadGeneratorConfig = errors.New("datasets: bad generator configuration")

// DefaultSimConfig returns Splatter's default parameters for cells × genes
// with groups equally likely cell types, library sizes scaled for 2,000
// genes (LibLoc 8.5), dropout off and seed 1.
func DefaultSimConfig(cells, genes, groups int) SimConfig {
	gs := make([]GroupConfig, groups)
	for g := range gs {
		gs[g] = GroupConfig{Prob: 1, DEProb: 0.1, DEDownProb: 0.5, DEFacLoc: 0.1, DEFacScale: 0.4}
	}
	return SimConfig{
		Cells: cells, Genes: genes, Groups: gs,
		MeanShape: 0.6, MeanRate: 0.3,
		OutlierProb: 0.05, OutlierFacLoc: 4, OutlierFacScale: 0.5,
		LibLoc: 8.5, LibScale: 0.2,
		BCVCommon: 0.1, BCVDF: 60,
		DropoutMid: 0, DropoutShape: -1,
		Seed: 1,
	}
}

// Validate returns an error wrapping ErrBadGeneratorConfig that names the first
// parameter of c out of its range, or nil.
func (c SimConfig) Validate() error {
	if c.Cells < 1 {
		return simBadf("cells is %d, must be at least 1", c.Cells)
	}
	if c.Genes < 1 {
		return simBadf("genes is %d, must be at least 1", c.Genes)
	}
	if float64(c.Cells)*float64(c.Genes) > MaxSimEntries {
		return simBadf("cells×genes is %d×%d, must be at most %d", c.Cells, c.Genes, MaxSimEntries)
	}
	if len(c.Groups) == 0 {
		return simBadf("groups is empty, must hold at least one group")
	}
	checks := []struct {
		name     string
		v        float64
		min, max float64
		openMin  bool
	}{
		{"mean_shape", c.MeanShape, 0, math.Inf(1), true},
		{"mean_rate", c.MeanRate, 0, math.Inf(1), true},
		{"outlier_prob", c.OutlierProb, 0, 1, false},
		{"outlier_fac_loc", c.OutlierFacLoc, math.Inf(-1), math.Inf(1), false},
		{"outlier_fac_scale", c.OutlierFacScale, 0, math.Inf(1), false},
		{"lib_loc", c.LibLoc, math.Inf(-1), math.Inf(1), false},
		{"lib_scale", c.LibScale, 0, math.Inf(1), false},
		{"bcv_common", c.BCVCommon, 0, math.Inf(1), false},
		{"bcv_df", c.BCVDF, 0, math.Inf(1), false},
		{"dropout_mid", c.DropoutMid, math.Inf(-1), math.Inf(1), false},
		{"dropout_shape", c.DropoutShape, math.Inf(-1), math.Inf(1), false},
	}
	for _, k := range checks {
		if err := simCheckRange(k.name, k.v, k.min, k.max, k.openMin); err != nil {
			return err
		}
	}
	// LibLoc and LibScale within float64 range, so library sizes stay finite.
	if c.LibLoc+8*c.LibScale > 700 {
		return simBadf("lib_loc+8·lib_scale is %g, must be at most 700", c.LibLoc+8*c.LibScale)
	}
	for g, gr := range c.Groups {
		if err := gr.validate(g); err != nil {
			return err
		}
	}
	return nil
}

func (gr *GroupConfig) validate(g int) error {
	name := func(f string) string { return fmt.Sprintf("groups[%d].%s", g, f) }
	if err := simCheckRange(name("prob"), gr.Prob, 0, math.Inf(1), true); err != nil {
		return err
	}
	if err := simCheckRange(name("de_prob"), gr.DEProb, 0, 1, false); err != nil {
		return err
	}
	if err := simCheckRange(name("de_down_prob"), gr.DEDownProb, 0, 1, false); err != nil {
		return err
	}
	if err := simCheckRange(name("de_fac_loc"), gr.DEFacLoc, -50, 50, false); err != nil {
		return err
	}
	if err := simCheckRange(name("de_fac_scale"), gr.DEFacScale, 0, 10, true); err != nil {
		return err
	}
	if gr.Parent < 0 || gr.Parent > g {
		return simBadf("%s is %d, must be 0 (none) or an earlier group in [1, %d]", name("parent"), gr.Parent, g)
	}
	return nil
}

// simCheckRange checks that v is finite (unless a bound is infinite and v equal
// to it, which is still rejected) and lies in [min, max], or (min, max] when
// openMin is set.
func simCheckRange(name string, v, min, max float64, openMin bool) error {
	switch {
	case math.IsNaN(v):
		return simBadf("%s is NaN, must be a number", name)
	case math.IsInf(v, 0):
		return simBadf("%s is %v, must be finite", name, v)
	case openMin && v <= min, !openMin && v < min, v > max:
		lo, hi := "[", "]"
		if openMin {
			lo = "("
		}
		return simBadf("%s is %v, must be in %s%v, %v%s", name, v, lo, min, max, hi)
	}
	return nil
}

func simBadf(format string, args ...any) error {
	return fmt.Errorf("datasets: "+format+": %w", append(args, ErrBadGeneratorConfig)...)
}
