package dppca

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpscope/dpscope/datasets"
)

// PublicTarget is the total NewSource normalises every cell to in private
// preprocessing: 10⁴, Seurat's and scanpy's customary scale factor, a
// public constant where scanpy's default (the median total) is a
// statistic of the private cells. dcan-sound's start (NewSource) keeps
// it; dppca's own default is DefaultTarget (option target).
const PublicTarget = 1e4

// DefaultTarget is dppca's default total (option target), a public
// constant like PublicTarget.
//
// The rule, stated before it was measured (ninth session, issue 16.2): a
// total of 10³ becomes dppca's default only if, on fresh draws
// (TestSimDesign, DPSCOPE_DPPCA_FRESH=2) at ε 4 / 8 / 16 against 10⁴ on
// the same seeds, it wins beyond 2 SE of the paired difference at some ε
// on at least two of sim8, sim14, simsmall, simwide, simhk8, simhk8w,
// simhk14, simmb and loses beyond 2 SE on none of them at any of the
// three ε. Why: 10⁴ is above the library of most cells of droplet data
// (about 1,600 to 5,000 counts), so one count becomes log1p(10⁴/L) ≈ 1–2
// and a gene's presence or absence by sampling outweighs a type's
// log-fold change (0.5–1); a total below the library keeps log1p closer
// to linear in the counts there. (A diagnostic on the FRESH=1 draws had
// seen 10³ above 3·10³ above 10⁴ at ε 8 on sim8, sim14 and simhk8, and
// exact gene statistics change little: the noise of the preprocessing's
// releases is not what costs.)
//
// Measured (paired difference 10³ − 10⁴ ± SE, * beyond 2 SE, at ε 4 / 8
// / 16): it passed. sim8 −0.021 / +0.053* / +0.042, sim14 +0.020 /
// +0.112* / +0.097*, simhk8 −0.001 / +0.032* / +0.044*, simhk8w
// +0.011* / +0.027* / +0.075*, simwide −0.005 / +0.030 / +0.098*;
// simsmall, simhk14 and simmb level (docs/RESULTS.md, "dppca and
// mouse_bladder_2100, fourth attempt"). Adopted: 10³ (one cell's single
// count is then log1p(10³/L) ≈ 0.2–0.5 on those libraries).
const DefaultTarget = 1e3

// sdFloor is the smallest spread a gene is scaled by in private
// preprocessing: a noisy spread below it would amplify that gene's
// deviations (and its noise) instead of damping them.
const sdFloor = 0.25

// maxValue clips scaled values, as scanpy's scale(max_value=10).
const maxValue = 10

// madToSD turns a mean absolute deviation into a standard deviation
// (√(π/2), exact for a normal distribution).
var madToSD = math.Sqrt(math.Pi / 2)

// Matrix is the input of the private PCA: n rows of h scaled genes, each
// row clipped to norm R, with the cells' labels and barcodes.
type Matrix struct {
	N, H     int
	Z        []float64 // n × h row-major
	Genes    []int     // column of the raw data set of each of the h genes
	Labels   []int     // nil when the data set has none
	Barcodes []string
	// Clipped is how many rows the clip to R shortened.
	Clipped int
	// NoisyN is the released cell count (private preprocessing), or N.
	NoisyN float64
	// SelectRatios are SelectLeverage's released eigenvalues of the
	// candidates' covariance over its noise edge, decreasing (nil for the
	// other rules): how clearly that release showed any direction.
	SelectRatios []float64
	// OffsetLen is offset=dir's released mean length of the rows' unit
	// directions, |Σ̃ u_i|/ñ, and OffsetRemoved whether that direction was
	// projected out (offset.go); 0 and false without offset=dir.
	OffsetLen     float64
	OffsetRemoved bool
	// OffsetPred is offset=dir's predicted offset over R (offsetRatio),
	// 0 without offset=dir.
	OffsetPred float64
	// Rank holds the released noisy ranking sums of every gene of the raw
	// data set (private preprocessing; nil under prep=public): a release
	// the input-canary audit scores (audit_input.go).
	Rank []float64
}

// cellLog holds each cell's log-expression over every gene: a per-cell
// transform (each row depends on its own cell only), so computing it
// releases nothing.
type cellLog struct {
	x    *datasets.CSR // same pattern as the raw matrix, values replaced
	step string        // what was done, in words
}

// newCellLog normalises each cell of d to the public total target and
// takes log1p
// (counts); non-count values are log1p-transformed unless they look
// logarithmic already (any negative value, or a maximum ≤ 50, the rule of
// datasets.Preprocess).
func newCellLog(d *datasets.Dataset, target float64) cellLog {
	src := d.X
	out := &datasets.CSR{Rows: src.Rows, Cols: src.Cols, Indptr: src.Indptr, Indices: src.Indices, Data: make([]float32, len(src.Data))}
	switch {
	case d.ValueType == datasets.Counts:
		for i := range src.Rows {
			lo, hi := src.Indptr[i], src.Indptr[i+1]
			var t float64
			for _, v := range src.Data[lo:hi] {
				t += float64(v)
			}
			if t == 0 {
				continue
			}
			s := target / t
			for k := lo; k < hi; k++ {
				out.Data[k] = float32(math.Log1p(float64(src.Data[k]) * s))
			}
		}
		return cellLog{out, fmt.Sprintf("each cell normalised to the public total %g, then log1p", target)}
	case looksLogged(src):
		copy(out.Data, src.Data)
		return cellLog{out, "non-count values that look logarithmic already: used as they are"}
	default:
		for k, v := range src.Data {
			out.Data[k] = float32(math.Log1p(float64(v)))
		}
		return cellLog{out, "non-count values: log1p, no normalisation"}
	}
}

// looksLogged reports whether any value is negative or the maximum is at
// most 50.
func looksLogged(m *datasets.CSR) bool {
	var mx float32
	for _, v := range m.Data {
		if v < 0 {
			return true
		}
		mx = max(mx, v)
	}
	return mx <= 50
}

// privatePrep builds the matrix from per-cell log values with every per-gene
// statistic released with the plan's noise (zero: exact), drawing from rng:
//
//  1. ranking: Σ_i v_i/‖v_i‖ per gene (Δ = 1: each cell's normalised
//     profile has unit norm), the top h by noisy sum;
//  2. count ñ (Δ = 1) and gene sums of the selected values, rows clipped to
//     C_m = 2√h; means m̂ = sums/ñ, then corrected by the noisy sums of the
//     deviations from m̂, clipped to C_m again;
//  3. gene sums of |v − m̂| of the selected values, rows clipped to
//     C_d = √h; spreads ŝ = max(√(π/2)·sums/ñ, sdFloor);
//  4. the depth cap (pl.Depth > 0, select=mean): only the genes of m̂ at
//     least meanLogFloor(λ_min, total, L̃), at least GenesAutoMin, and the
//     plan for them (Plan.withGenes; post-processing);
//  5. z = clip((v − m̂)/ŝ, ±10); under clip=auto the radius R from the
//     released histogram of the rows' norms (autoRadius); each row
//     clipped to norm R.
//
// It returns the matrix and the plan the rest of the release follows.
func privatePrep(cl cellLog, pl Plan, rng *rand.Rand) (*Matrix, Plan) {
	x := cl.x
	n, g := x.Rows, x.Cols
	h := min(pl.H, g)
	// The candidates whose statistics are released: the pool (SelectSpread)
	// or the h genes themselves. The clips follow the plan's pool, so a
	// data set with fewer genes than the pool is clipped (and noised) as
	// the plan says.
	pool := min(max(pl.pool(), h), g)
	score := rankSums(x)
	addNoise(score, pl.Rank, rng)
	genes := topByScore(score, pool)

	col := make([]int, g)
	for j := range col {
		col[j] = -1
	}
	for k, j := range genes {
		col[j] = k
	}
	y := make([]float64, n*pool)
	for i := range n {
		cols, vals := x.Row(i)
		for k, c := range cols {
			if j := col[c]; j >= 0 {
				y[i*pool+j] = float64(vals[k])
			}
		}
	}
	sh := math.Sqrt(float64(pl.pool()))
	nt := pl.NoisyN // released already when genes=auto chose h from it
	if nt == 0 {
		nt = max(float64(n)+pl.Count*rng.NormFloat64(), 1)
	}
	mean := clippedSums(y, n, pool, meanClipPerGene*sh, nil, false)
	addNoise(mean, pl.Mean, rng)
	for j := range mean {
		mean[j] /= nt
	}
	// Second pass: the clipped deviations from the first estimate, whose
	// rows are shorter than the values', so clipping biases them less.
	dev := clippedSums(y, n, pool, meanClipPerGene*sh, mean, false)
	addNoise(dev, pl.Mean2, rng)
	for j := range mean {
		mean[j] += dev[j] / nt
	}
	spread := clippedSums(y, n, pool, spreadClipPerGene*sh, mean, true)
	addNoise(spread, pl.Spread, rng)
	raw := make([]float64, pool) // released spreads before the floor
	for j := range spread {
		raw[j] = madToSD * spread[j] / nt
		spread[j] = max(raw[j], sdFloor)
	}
	var selectRatios []float64
	if pool > h {
		// SelectSpread or SelectExcess: the h candidates of largest
		// released (binned or excess) spread, in decreasing order of it
		// (post-processing of the releases).
		var keep []int
		switch pl.Select {
		case SelectExcess:
			keep = topByScore(excessSpread(mean, raw), h)
		case SelectFloor:
			keep = floorKeep(mean, raw, h, ExcessFloor)
		case SelectLeverage:
			keep, selectRatios = leverageKeep(y, n, pool, mean, spread, pl, h, rng)
		default:
			keep = topByScore(binnedZ(mean, spread, hvgBins), h)
		}
		y, mean, spread, genes = keepColumns(y, n, pool, keep, mean, spread, genes)
	}
	if pl.Depth > 0 && pool == h {
		if keep := depthKeep(mean, meanLogFloor(pl.MinCount, pl.DepthTotal, pl.Depth)); keep != nil {
			y, mean, spread, genes = keepColumns(y, n, h, keep, mean, spread, genes)
			h = len(keep)
			pl = pl.withGenes(h)
		}
	}
	for i := range n {
		row := y[i*h : (i+1)*h]
		for j, v := range row {
			row[j] = max(-maxValue, min(maxValue, (v-mean[j])/spread[j]))
		}
	}
	var offLen, offPred float64
	var offDone bool
	if pl.Offset > 0 {
		offPred = offsetRatio(pl, nt, spread[:h])
		if !offsetFires(pl, nt, spread[:h]) {
			pl = pl.withoutOffset()
		}
	}
	if pl.Offset > 0 {
		// offset=dir: the rows' common direction released and projected
		// out before any radius is read or applied (offset.go)
		offLen, offDone = removeOffset(y, n, h, nt, pl.Offset, rng)
	}
	pl = autoRadius(y, n, h, nt, pl, rng)
	m := &Matrix{N: n, H: h, Z: y, Genes: genes, NoisyN: nt, SelectRatios: selectRatios, Rank: score, OffsetLen: offLen, OffsetRemoved: offDone, OffsetPred: offPred}
	m.Clipped = clipRows(y, n, h, pl.R)
	return m, pl
}

// rankSums returns the ranking statistic of every gene before its noise:
// Σ_i v_i/‖v_i‖ over the rows v_i of x (Δ = 1: each cell's normalised
// profile has unit norm; an empty row adds nothing).
func rankSums(x *datasets.CSR) []float64 {
	score := make([]float64, x.Cols)
	for i := range x.Rows {
		cols, vals := x.Row(i)
		var s float64
		for _, v := range vals {
			s += float64(v) * float64(v)
		}
		if s == 0 {
			continue
		}
		inv := 1 / math.Sqrt(s)
		for k, c := range cols {
			score[c] += float64(vals[k]) * inv
		}
	}
	return score
}

// clippedSums returns Σ_i clip(r_i) where r_i is row i of y (y_i − centre
// when centre is not nil, elementwise absolute when abs) clipped to norm c.
func clippedSums(y []float64, n, h int, c float64, centre []float64, abs bool) []float64 {
	sum := make([]float64, h)
	r := make([]float64, h)
	for i := range n {
		copy(r, y[i*h:(i+1)*h])
		for j := range r {
			if centre != nil {
				r[j] -= centre[j]
			}
			if abs {
				r[j] = math.Abs(r[j])
			}
		}
		ClipTo(r, c)
		for j, v := range r {
			sum[j] += v
		}
	}
	return sum
}

// topByScore returns the indices of the k largest scores, in decreasing
// order of score (ties to the lower index).
func topByScore(score []float64, k int) []int {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	return idx[:k]
}

// addNoise adds N(0, σ²) to every entry of v; nothing when σ is 0.
func addNoise(v []float64, sigma float64, rng *rand.Rand) {
	if sigma == 0 {
		return
	}
	for j := range v {
		v[j] += sigma * rng.NormFloat64()
	}
}

// ClipTo scales v in place to L2 norm at most r and reports whether it cut
// (dcan-sound clips its centres with it too).
func ClipTo(v []float64, r float64) bool {
	var s float64
	for _, a := range v {
		s += a * a
	}
	if s <= r*r {
		return false
	}
	f := r / math.Sqrt(s)
	for j := range v {
		v[j] *= f
	}
	return true
}

// clipRows clips every row of the n × h matrix z to norm r and returns how
// many it shortened.
func clipRows(z []float64, n, h int, r float64) int {
	c := 0
	for i := range n {
		if ClipTo(z[i*h:(i+1)*h], r) {
			c++
		}
	}
	return c
}

// publicPrep runs scanpy's preprocessing without noise (datasets.Preprocess:
// cell and gene filters, median total, log1p, 2,000 seurat HVGs), keeps the
// h of those genes with the largest mean log-expression, scales them
// (ddof 1, clip ±10) and clips each row to norm R. Every statistic it uses
// comes from the private cells: the guarantee lists them as an assumption.
func publicPrep(d *datasets.Dataset, h int, r float64) (*Matrix, []datasets.Step, error) {
	cfg := datasets.DefaultPreprocessConfig()
	cfg.Scale = false
	p, err := datasets.Preprocess(d, cfg)
	if err != nil {
		return nil, nil, err
	}
	n, g := p.Cells, p.Genes
	h = min(h, g)
	mean := make([]float64, g)
	for i := range n {
		for j, v := range p.X[i*g : (i+1)*g] {
			mean[j] += float64(v)
		}
	}
	top := topByScore(mean, h)
	sub := make([]float32, n*h)
	for i := range n {
		for k, j := range top {
			sub[i*h+k] = p.X[i*g+j]
		}
	}
	datasets.ScaleColumns(sub, n, h, maxValue)
	z := make([]float64, n*h)
	for k, v := range sub {
		z[k] = float64(v)
	}
	cols := make(map[string]int, len(d.GeneIDs))
	for j, id := range d.GeneIDs {
		cols[id] = j
	}
	genes := make([]int, h)
	for k, j := range top {
		genes[k] = cols[p.GeneIDs[j]]
	}
	m := &Matrix{N: n, H: h, Z: z, Genes: genes, Labels: p.Labels, Barcodes: p.Barcodes, NoisyN: float64(n)}
	m.Clipped = clipRows(z, n, h, r)
	return m, p.Steps, nil
}

// hvgBins is the number of equal-width bins of released mean in which
// SelectSpread standardises the released spreads: seurat's rule (20 bins,
// scanpy's highly_variable_genes flavor "seurat"), fixed in advance.
const hvgBins = 20

// binnedZ returns each gene's spread standardised within its bin of mean
// ((s − bin mean)/bin sd; 0 in a bin of one gene or of no spread): a
// gene's spread is compared with genes of like mean only, since sampling
// noise alone makes the log spread of a gene depend on its mean.
func binnedZ(mean, spread []float64, bins int) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range mean {
		lo, hi = min(lo, m), max(hi, m)
	}
	bin := make([]int, len(mean))
	if hi > lo {
		for j, m := range mean {
			bin[j] = min(bins-1, int(float64(bins)*(m-lo)/(hi-lo)))
		}
	}
	sum, sum2, cnt := make([]float64, bins), make([]float64, bins), make([]float64, bins)
	for j, s := range spread {
		b := bin[j]
		sum[b] += s
		sum2[b] += s * s
		cnt[b]++
	}
	z := make([]float64, len(spread))
	for j, s := range spread {
		b := bin[j]
		if cnt[b] < 2 {
			continue
		}
		m := sum[b] / cnt[b]
		v := (sum2[b] - cnt[b]*m*m) / (cnt[b] - 1)
		if v > 0 {
			z[j] = (s - m) / math.Sqrt(v)
		}
	}
	return z
}

// excessSpread returns each gene's spread minus the median spread of the
// max(11, len/20) genes nearest to it in the order of mean, itself
// included (SelectExcess): the part of its spread its mean alone does not
// give it, in log units. The window is shifted inward at either end so it
// always holds that many genes (all of them when there are fewer).
func excessSpread(mean, spread []float64) []float64 {
	base := neighbourQuantile(mean, spread, 0.5)
	for j, s := range spread {
		base[j] = s - base[j]
	}
	return base
}

// neighbourQuantile returns, for each gene, the q-quantile (the median
// for q = 0.5: the average of the two middle values of an even window;
// else the rank ⌊q·w⌋ of w) of the spreads of the max(11, len/20) genes
// nearest to it in the order of mean, itself included, the window shifted
// inward at either end.
func neighbourQuantile(mean, spread []float64, q float64) []float64 {
	g := len(mean)
	order := make([]int, g)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(mean[a], mean[b]) })
	w := min(g, max(excessWindowMin, g/excessWindows))
	ex := make([]float64, g)
	win := make([]float64, w)
	for r, j := range order {
		lo := max(0, min(r-w/2, g-w))
		for k := range w {
			win[k] = spread[order[lo+k]]
		}
		slices.Sort(win)
		med := win[min(w-1, int(q*float64(w)))]
		if q == 0.5 && w%2 == 0 {
			med = (win[w/2-1] + win[w/2]) / 2
		}
		ex[j] = med
	}
	return ex
}

// Window of excessSpread, fixed in advance: twenty windows of equal count
// (as seurat's twenty bins), at least eleven genes for a stable median.
const (
	excessWindows   = 20
	excessWindowMin = 11
)

// floorKeep is SelectFloor's choice among the pool's candidates, given in
// decreasing order of ranking score with their released means and spreads
// (before the floor on spreads): the h of largest excess spread among
// those of released mean ≥ floor, filled up, when fewer are above it, with
// the first below it in ranking order.
func floorKeep(mean, raw []float64, h int, floor float64) []int {
	ex := excessSpread(mean, raw)
	keep := make([]int, 0, h)
	for _, j := range topByScore(ex, len(ex)) {
		if len(keep) < h && mean[j] >= floor {
			keep = append(keep, j)
		}
	}
	for j := 0; len(keep) < h && j < len(mean); j++ {
		if mean[j] < floor {
			keep = append(keep, j)
		}
	}
	return keep
}

// keepColumns narrows the n×width matrix y, and the genes' released means,
// spreads and raw columns, to the columns keep names, in keep's order.
func keepColumns(y []float64, n, width int, keep []int, mean, spread []float64, genes []int) ([]float64, []float64, []float64, []int) {
	h := len(keep)
	sub := make([]float64, n*h)
	for i := range n {
		for k, j := range keep {
			sub[i*h+k] = y[i*width+j]
		}
	}
	m2, s2, g2 := make([]float64, h), make([]float64, h), make([]int, h)
	for k, j := range keep {
		m2[k], s2[k], g2[k] = mean[j], spread[j], genes[j]
	}
	return sub, m2, s2, g2
}
