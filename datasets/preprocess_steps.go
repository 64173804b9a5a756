package datasets

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// FilterCells returns the rows of x with at least minGenes positive entries
// (scanpy's filter_cells(min_genes)), and the summary step. When the filter
// would remove more than maxLoss of the cells it keeps them all and says why
// (see PreprocessConfig.MaxCellLoss).
func FilterCells(x *CSR, minGenes int, maxLoss float64) ([]int, Step) {
	step := Step{Name: "filter cells"}
	if minGenes == 0 {
		step.Skipped, step.Detail = true, "min genes is 0"
		return seq(x.Rows), step
	}
	keep := make([]int, 0, x.Rows)
	for i := 0; i < x.Rows; i++ {
		_, vals := x.Row(i)
		detected := 0
		for _, v := range vals {
			if v > 0 {
				detected++
			}
		}
		if detected >= minGenes {
			keep = append(keep, i)
		}
	}
	removed := x.Rows - len(keep)
	if float64(removed) > maxLoss*float64(x.Rows) {
		step.Skipped = true
		step.Detail = fmt.Sprintf("min genes %d would remove %d of %d cells (more than %.0f%%): all kept", minGenes, removed, x.Rows, 100*maxLoss)
		return seq(x.Rows), step
	}
	step.Detail = fmt.Sprintf("removed %d of %d cells with fewer than %d genes detected", removed, x.Rows, minGenes)
	return keep, step
}

// FilterGenes returns the columns of x positive in at least minCells of the
// given rows (scanpy's filter_genes(min_cells)), and the summary step.
func FilterGenes(x *CSR, rows []int, minCells int) ([]int, Step) {
	step := Step{Name: "filter genes"}
	if minCells == 0 {
		step.Skipped, step.Detail = true, "min cells is 0"
		return seq(x.Cols), step
	}
	detected := make([]int, x.Cols)
	for _, i := range rows {
		cols, vals := x.Row(i)
		for k, v := range vals {
			if v > 0 {
				detected[cols[k]]++
			}
		}
	}
	keep := make([]int, 0, x.Cols)
	for j, n := range detected {
		if n >= minCells {
			keep = append(keep, j)
		}
	}
	step.Detail = fmt.Sprintf("removed %d of %d genes detected in fewer than %d cells", x.Cols-len(keep), x.Cols, minCells)
	return keep, step
}

// SizeFactors returns s_i = t_i / median(t), t_i = Σ_j x_ij the library size
// of cell i, and the median itself, taken over the cells with t_i > 0 as
// scanpy's normalize_total does. The ZINB mean of cell i is μ_i·s_i.
func SizeFactors(x *CSR) (factors []float64, medianTotal float64) {
	return sizeFactors(rowTotals(x))
}

// sizeFactors returns SizeFactors of the cells with library sizes totals.
func sizeFactors(totals []float64) (factors []float64, medianTotal float64) {
	positive := make([]float64, 0, len(totals))
	for _, t := range totals {
		if t > 0 {
			positive = append(positive, t)
		}
	}
	med := median(positive)
	factors = make([]float64, len(totals))
	if med == 0 {
		return factors, 0
	}
	for i, t := range totals {
		factors[i] = t / med
	}
	return factors, med
}

func rowTotals(x *CSR) []float64 {
	totals := make([]float64, x.Rows)
	for i := range totals {
		_, vals := x.Row(i)
		var t float64
		for _, v := range vals {
			t += float64(v)
		}
		totals[i] = t
	}
	return totals
}

// NormalizeTotal scales each row of x in place to sum to target:
// x_ij ← x_ij · target / Σ_j x_ij. Rows that sum to zero are left as they
// are (scanpy's normalize_total).
func NormalizeTotal(x *CSR, target float64) {
	for i, t := range rowTotals(x) {
		if t == 0 {
			continue
		}
		_, vals := x.Row(i)
		f := target / t
		for k, v := range vals {
			vals[k] = float32(float64(v) * f)
		}
	}
}

// normFactors returns target/t_i for every cell, 1 for a cell with t_i = 0
// (left as it is, as NormalizeTotal does).
func normFactors(totals []float64, target float64) []float64 {
	f := make([]float64, len(totals))
	for i, t := range totals {
		f[i] = 1
		if t != 0 {
			f[i] = target / t
		}
	}
	return f
}

// normLog1p returns ln(1 + float32(c_ij · scale_i)) of the row-major
// rows × cols counts c: the normalised, logged values NormalizeTotal then
// Log1p would give, computed for the stored (non-zero) entries only.
func normLog1p(c []float32, cols int, scale []float64) []float32 {
	out := make([]float32, len(c))
	for i, f := range scale {
		src, dst := c[i*cols:(i+1)*cols], out[i*cols:(i+1)*cols]
		for j, v := range src {
			if v != 0 {
				dst[j] = float32(math.Log1p(float64(float32(float64(v) * f))))
			}
		}
	}
	return out
}

// Log1p replaces every stored value of x by ln(1 + x); zeros stay zero.
func Log1p(x *CSR) {
	for k, v := range x.Data {
		x.Data[k] = float32(math.Log1p(float64(v)))
	}
}

// HighlyVariableGenes returns the columns (sorted) of the highly variable
// genes of the normalised matrix x, as scanpy's
// highly_variable_genes(flavor="seurat", n_top_genes=nTop, n_bins=20) on
// log1p(x). scanpy undoes the log first; here x is given before the log
// (logged false), or, when logged is true, x is taken to be log values and
// e = expm1(x) as in scanpy:
//
//	on e: m_j = mean_i e_ij, v_j = var_i e_ij (ddof 1),
//	dispersion d_j = ln(v_j / m_j) (undefined when v_j = 0), mean ln(1 + m_j);
//	genes binned by ln(1 + m_j) into 20 equal-width bins (pandas cut);
//	normalised dispersion z_j = (d_j − mean_bin d) / sd_bin d, where a bin
//	with a single gene uses mean 0 and sd d_j;
//	selected: z_j ≥ the nTop-th largest defined z (undefined z counts as 0).
//
// Ties at the cut-off can select more than nTop genes, as in scanpy.
func HighlyVariableGenes(x *CSR, nTop int, logged bool) []int {
	return highlyVariableGenes(keepAll(x), nil, nTop, logged)
}

// highlyVariableGenes is HighlyVariableGenes of the kept part of a matrix
// scaled, as it is read, by scale (per kept row, float32(x_ij · scale_i) as
// NormalizeTotal stores it; nil: no scaling). The statistics are streamed
// from the sparse entries, in the order HighlyVariableGenes reads them.
func highlyVariableGenes(x *kept, scale []float64, nTop int, logged bool) []int {
	n := float64(x.Rows())
	g := x.cols
	sum := make([]float64, g)
	sumSq := make([]float64, g)
	for r, i := range x.rows {
		cols, vals := x.x.Row(i)
		for k, c := range cols {
			j := x.col[c]
			if j < 0 {
				continue
			}
			v := vals[k]
			if scale != nil {
				v = float32(float64(v) * scale[r])
			}
			e := float64(v)
			if logged {
				e = math.Expm1(e)
			}
			sum[j] += e
			sumSq[j] += e * e
		}
	}
	means := make([]float64, g)
	disp := make([]float64, g)
	for j := range g {
		m := sum[j] / n
		v := (sumSq[j]/n - m*m) * n / (n - 1)
		if m == 0 {
			m = 1e-12
		}
		disp[j] = math.NaN()
		if d := v / m; d != 0 {
			disp[j] = math.Log(d)
		}
		means[j] = math.Log1p(m)
	}
	bins := cutEqualWidth(means, 20)
	z := normalisedDispersion(disp, bins, 20)

	defined := make([]float64, 0, g)
	for _, v := range z {
		if !math.IsNaN(v) {
			defined = append(defined, v)
		}
	}
	if len(defined) == 0 {
		return seq(min(nTop, g))
	}
	slices.Sort(defined)
	cut := defined[max(len(defined)-nTop, 0)]
	sel := make([]int, 0, nTop)
	for j, v := range z {
		if math.IsNaN(v) {
			v = 0
		}
		if v >= cut {
			sel = append(sel, j)
		}
	}
	return sel
}

// cutEqualWidth assigns each value to one of n equal-width right-closed bins
// spanning [min, max], the lowest edge lowered by 0.1% of the range (pandas
// cut with an integer number of bins).
func cutEqualWidth(v []float64, n int) []int {
	lo, hi := slices.Min(v), slices.Max(v)
	edges := make([]float64, n+1)
	for i := range edges {
		edges[i] = lo + (hi-lo)*float64(i)/float64(n)
	}
	edges[0] -= (hi - lo) * 0.001
	bins := make([]int, len(v))
	for j, x := range v {
		// The first right edge ≥ x closes x's bin.
		b := sort.SearchFloat64s(edges[1:], x)
		bins[j] = min(b, n-1)
	}
	return bins
}

// normalisedDispersion standardises d within bins, skipping NaN, with
// pandas' sample standard deviation and scanpy's single-gene-bin rule.
func normalisedDispersion(d []float64, bins []int, n int) []float64 {
	cnt := make([]float64, n)
	sum := make([]float64, n)
	for j, v := range d {
		if !math.IsNaN(v) {
			cnt[bins[j]]++
			sum[bins[j]] += v
		}
	}
	mean := make([]float64, n)
	for b := range n {
		mean[b] = sum[b] / cnt[b]
	}
	ss := make([]float64, n)
	for j, v := range d {
		if !math.IsNaN(v) {
			dv := v - mean[bins[j]]
			ss[bins[j]] += dv * dv
		}
	}
	sd := make([]float64, n)
	for b := range n {
		if cnt[b] > 1 {
			sd[b] = math.Sqrt(ss[b] / (cnt[b] - 1))
		} else {
			sd[b], mean[b] = mean[b], 0
		}
	}
	z := make([]float64, len(d))
	for j, v := range d {
		z[j] = (v - mean[bins[j]]) / sd[bins[j]]
	}
	return z
}

// ZeroRateParams holds the parameters of ZeroRateGenes, named as in
// Kobak & Berens' geneSelection.
type ZeroRateParams struct {
	Threshold float64 // a value > Threshold counts as detected. Default 0.
	AtLeast   int     // genes detected in fewer cells are never selected. Default 10.
	YOffset   float64 // Default 0.02.
	XOffset   float64 // starting offset of the search. Default 5.
	Decay     float64 // Default 1.5.
}

// DefaultZeroRateParams returns the defaults of Kobak & Berens' code.
func DefaultZeroRateParams() ZeroRateParams {
	return ZeroRateParams{AtLeast: 10, YOffset: 0.02, XOffset: 5, Decay: 1.5}
}

// ZeroRateGenes returns the columns (sorted) of about n genes whose zero rate
// is high for their mean log expression, the selection of Kobak & Berens,
// "The art of using t-SNE for single-cell transcriptomics", Nat. Commun. 2019
// (https://doi.org/10.1038/s41467-019-13056-x), used by DP-DCAN's code:
//
//	zero rate r_j = fraction of cells with x_ij ≤ threshold,
//	mean expression m_j = mean of log2 x_ij over the cells where x_ij > threshold,
//	selected: r_j > exp(−decay·(m_j − x₀)) + y₀, genes detected in fewer than
//	AtLeast cells excluded,
//
// with x₀ found by bisection (100 steps, as the original) so that n genes are
// selected; when no x₀ gives exactly n, the last one tried is used.
func ZeroRateGenes(x *CSR, n int, p ZeroRateParams) ([]int, error) {
	return zeroRateGenes(keepAll(x), n, p)
}

// zeroRateGenes is ZeroRateGenes of the kept part of a matrix.
func zeroRateGenes(x *kept, n int, p ZeroRateParams) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("datasets: zero-rate genes: n is %d, must be ≥ 1", n)
	}
	g := x.cols
	detected := make([]int, g)
	logSum := make([]float64, g)
	for _, i := range x.rows {
		cols, vals := x.x.Row(i)
		for k, c := range cols {
			j := x.col[c]
			if j < 0 {
				continue
			}
			if v := float64(vals[k]); v > p.Threshold {
				detected[j]++
				logSum[j] += math.Log2(v)
			}
		}
	}
	cells := float64(x.Rows())
	rate := make([]float64, g)
	meanExpr := make([]float64, g)
	for j := range g {
		if detected[j] < p.AtLeast || detected[j] == 0 {
			rate[j] = math.NaN()
			continue
		}
		rate[j] = 1 - float64(detected[j])/cells
		meanExpr[j] = logSum[j] / float64(detected[j])
	}
	count := func(x0 float64) int {
		c := 0
		for j, r := range rate {
			if !math.IsNaN(r) && r > math.Exp(-p.Decay*(meanExpr[j]-x0))+p.YOffset {
				c++
			}
		}
		return c
	}
	low, up, x0 := 0.0, 10.0, p.XOffset
	for range 100 {
		c := count(x0)
		if c == n {
			break
		}
		if c < n {
			up, x0 = x0, (x0+low)/2
		} else {
			low, x0 = x0, (x0+up)/2
		}
	}
	sel := make([]int, 0, n)
	for j, r := range rate {
		if !math.IsNaN(r) && r > math.Exp(-p.Decay*(meanExpr[j]-x0))+p.YOffset {
			sel = append(sel, j)
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("datasets: zero-rate genes: no gene detected in at least %d cells", p.AtLeast)
	}
	return sel, nil
}

// ScaleColumns turns each column of the row-major rows × cols matrix x to
// zero mean and unit variance in place, x_ij ← (x_ij − m_j)/s_j with s_j the
// sample standard deviation (ddof 1; 1 when it is 0, as scanpy's scale), then
// clips to [−maxValue, maxValue] unless maxValue is 0. It returns how many
// values were clipped. Statistics are accumulated in float64.
func ScaleColumns(x []float32, rows, cols int, maxValue float64) int {
	mean := make([]float64, cols)
	sq := make([]float64, cols)
	for i := range rows {
		for j, v := range x[i*cols : (i+1)*cols] {
			mean[j] += float64(v)
		}
	}
	n := float64(rows)
	for j := range mean {
		mean[j] /= n
	}
	for i := range rows {
		for j, v := range x[i*cols : (i+1)*cols] {
			d := float64(v) - mean[j]
			sq[j] += d * d
		}
	}
	inv := make([]float64, cols)
	for j := range inv {
		sd := 0.0
		if rows > 1 {
			sd = math.Sqrt(sq[j] / (n - 1))
		}
		if sd == 0 {
			sd = 1
		}
		inv[j] = 1 / sd
	}
	clipped := 0
	for i := range rows {
		row := x[i*cols : (i+1)*cols]
		for j, v := range row {
			s := (float64(v) - mean[j]) * inv[j]
			if maxValue > 0 && (s > maxValue || s < -maxValue) {
				s = math.Copysign(maxValue, s)
				clipped++
			}
			row[j] = float32(s)
		}
	}
	return clipped
}

// kept is the part of a matrix that filtering keeps, read in place: rows
// rows of x (sorted) and the columns j with col[j] ≥ 0, renumbered to
// col[j] ∈ [0, cols).
type kept struct {
	x    *CSR
	rows []int
	col  []int32
	cols int
}

// newKept returns the rows and columns (both sorted) of x.
func newKept(x *CSR, rows, cols []int) *kept {
	col := make([]int32, x.Cols)
	for j := range col {
		col[j] = -1
	}
	for k, j := range cols {
		col[j] = int32(k)
	}
	return &kept{x: x, rows: rows, col: col, cols: len(cols)}
}

// keepAll returns the whole of x.
func keepAll(x *CSR) *kept {
	all := seq(x.Cols)
	return newKept(x, seq(x.Rows), all)
}

// Rows returns the number of kept rows.
func (s *kept) Rows() int { return len(s.rows) }

// totals returns the sum of the kept entries of every kept row, accumulated
// in float64 in column order.
func (s *kept) totals() []float64 {
	totals := make([]float64, len(s.rows))
	for r, i := range s.rows {
		cols, vals := s.x.Row(i)
		var t float64
		for k, c := range cols {
			if s.col[c] >= 0 {
				t += float64(vals[k])
			}
		}
		totals[r] = t
	}
	return totals
}

// densify returns the kept columns sel (indices into the kept columns,
// sorted) of the kept rows as a dense row-major matrix, with ln(1 + x) taken
// of each stored value when log1p is true.
func (s *kept) densify(sel []int, log1p bool) []float32 {
	pos := make([]int32, len(s.col))
	for j := range pos {
		pos[j] = -1
	}
	at := make([]int32, s.cols)
	for k := range at {
		at[k] = -1
	}
	for k, j := range sel {
		at[j] = int32(k)
	}
	for j, c := range s.col {
		if c >= 0 {
			pos[j] = at[c]
		}
	}
	w := len(sel)
	out := make([]float32, len(s.rows)*w)
	for r, i := range s.rows {
		cols, vals := s.x.Row(i)
		row := out[r*w : (r+1)*w]
		for k, j := range cols {
			if p := pos[j]; p >= 0 {
				v := vals[k]
				if log1p {
					v = float32(math.Log1p(float64(v)))
				}
				row[p] = v
			}
		}
	}
	return out
}
