package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"
)

// SimTruth holds the parameters Simulate drew: everything needed to know the
// expected count of every cell and gene, and the true cell types.
type SimTruth struct {
	// Config is the configuration the data came from.
	Config SimConfig
	// GeneMeans holds m_j, the base mean of every gene (after outliers).
	GeneMeans []float64
	// Outliers marks the genes whose mean was replaced by an outlier mean.
	Outliers []bool
	// DEFactors[g][j] is f_gj, the differential-expression factor of gene j
	// in group g (parents' factors included); 1 for genes not DE in g.
	DEFactors [][]float64
	// GroupNorms[g] is Σ_j m_j f_gj, the normalisation of group g's means.
	GroupNorms []float64
	// BCVScatter[j] is √(BCVDF/χ²_j), the per-gene BCV scatter factor (1
	// when BCVDF is zero).
	BCVScatter []float64
	// LibSizes[i] is L_i, the library size of cell i.
	LibSizes []float64
	// Groups[i] is the 0-based group of cell i (equal to the data set's
	// Labels).
	Groups []int
}

// CellMean returns μ_ij = L_i · m_j f_gj / Σ_j' m_j' f_gj', the expected
// count of gene j in cell i before BCV and dropout (the mean of the
// negative-binomial count when dropout is off).
func (t *SimTruth) CellMean(i, j int) float64 {
	g := t.Groups[i]
	return t.LibSizes[i] * t.GeneMeans[j] * t.DEFactors[g][j] / t.GroupNorms[g]
}

// CellBCV returns φ_ij = (BCVCommon + 1/√μ_ij) · √(BCVDF/χ²_j), the
// biological coefficient of variation of gene j in cell i: the count has
// variance μ + φ²μ² when dropout is off.
func (t *SimTruth) CellBCV(i, j int) float64 {
	return (t.Config.BCVCommon + 1/math.Sqrt(t.CellMean(i, j))) * t.BCVScatter[j]
}

// Simulate draws a synthetic single-cell count data set from cfg (see
// SimConfig for the model) and returns it with the parameters drawn. It
// returns an error wrapping ErrBadGeneratorConfig when cfg is invalid.
//
// The result is a pure function of cfg: the per-gene and per-cell
// parameters come from one PCG stream of cfg.Seed, and the counts of cell i
// from a stream of its own, so the cells are generated in parallel and the
// output does not depend on GOMAXPROCS. The data set has genes "gene_0001",
// …, barcodes "cell_0001", …, classes "type_1", …, ValueType Counts, name
// "simulated" and source "simulate:seed=N".
//
// Counts with μ_ij < 10 are drawn without the gamma step, from their
// negative-binomial marginal by inversion, and λ_ij (needed only for the
// dropout of a positive count) from its posterior Gamma(r + y, r/μ + 1),
// r = 1/φ²: the same joint law of (λ, y) as the model, at about half the
// cost, since most entries are zeros.
func Simulate(cfg SimConfig) (*Dataset, *SimTruth, error) {
	return simulate(cfg, runtime.GOMAXPROCS(0), simInvertBelow)
}

func simulate(cfg SimConfig, workers int, invertBelow float64) (*Dataset, *SimTruth, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("datasets: simulate: %w", err)
	}
	cfg.Groups = append([]GroupConfig(nil), cfg.Groups...)
	truth := simParams(cfg)

	// rel[g][j] = m_j f_gj / Σ m f: the share of gene j in group g's library.
	rel := make([][]float64, len(cfg.Groups))
	for g := range rel {
		rel[g] = make([]float64, cfg.Genes)
		for j := range rel[g] {
			rel[g][j] = truth.GeneMeans[j] * truth.DEFactors[g][j] / truth.GroupNorms[g]
		}
	}
	x := simCounts(&cfg, truth, rel, workers, invertBelow)
	if cfg.Cells*cfg.Genes >= simReleaseEntries {
		// gonum's distuv builds a rand.Rand on every gamma and Poisson draw:
		// about 22 bytes of garbage per nonzero count (1.1 GB for 50,000 ×
		// 2,000), freed but still resident. Return it to the system now, so
		// the dense matrices that preprocessing allocates next do not stack
		// on top of it (peak RSS of a 50,000-cell run, docs/PERFORMANCE.md).
		debug.FreeOSMemory()
	}

	k := len(cfg.Groups)
	d := &Dataset{
		Name:      "simulated",
		Source:    fmt.Sprintf("simulate:seed=%d", cfg.Seed),
		X:         x,
		GeneIDs:   simNames("gene_", cfg.Genes, true),
		Barcodes:  simNames("cell_", cfg.Cells, true),
		Labels:    append([]int(nil), truth.Groups...),
		Classes:   simNames("type_", k, false),
		ValueType: Counts,
	}
	d.GeneNames = d.GeneIDs
	return d, truth, nil
}

// simParams draws the per-gene, per-group and per-cell parameters from
// stream 0 of cfg.Seed, in a fixed order.
func simParams(cfg SimConfig) *SimTruth {
	src := rand.NewPCG(cfg.Seed, simStream(0))
	rng := rand.New(src)
	G, k := cfg.Genes, len(cfg.Groups)
	t := &SimTruth{
		Config:     cfg,
		GeneMeans:  make([]float64, G),
		Outliers:   make([]bool, G),
		DEFactors:  make([][]float64, k),
		GroupNorms: make([]float64, k),
		BCVScatter: make([]float64, G),
		LibSizes:   make([]float64, cfg.Cells),
		Groups:     make([]int, cfg.Cells),
	}
	gamma := distuv.Gamma{Alpha: cfg.MeanShape, Beta: cfg.MeanRate, Src: src}
	for j := range t.GeneMeans {
		t.GeneMeans[j] = gamma.Rand()
	}
	if cfg.OutlierProb > 0 {
		sorted := append([]float64(nil), t.GeneMeans...)
		sort.Float64s(sorted)
		med := sorted[G/2]
		if G%2 == 0 {
			med = (sorted[G/2-1] + sorted[G/2]) / 2
		}
		out := distuv.LogNormal{Mu: cfg.OutlierFacLoc, Sigma: cfg.OutlierFacScale, Src: src}
		for j := range t.GeneMeans {
			if rng.Float64() < cfg.OutlierProb {
				t.Outliers[j] = true
				t.GeneMeans[j] = med * out.Rand()
			}
		}
	}
	for g, gr := range cfg.Groups {
		f := make([]float64, G)
		de := distuv.LogNormal{Mu: gr.DEFacLoc, Sigma: gr.DEFacScale, Src: src}
		for j := range f {
			f[j] = 1
			if rng.Float64() < gr.DEProb {
				f[j] = de.Rand()
				if rng.Float64() < gr.DEDownProb {
					f[j] = 1 / f[j]
				}
			}
			if gr.Parent > 0 {
				f[j] *= t.DEFactors[gr.Parent-1][j]
			}
		}
		t.DEFactors[g] = f
		var norm float64
		for j, m := range t.GeneMeans {
			norm += m * f[j]
		}
		t.GroupNorms[g] = norm
	}
	chi := distuv.Gamma{Alpha: cfg.BCVDF / 2, Beta: 0.5, Src: src}
	for j := range t.BCVScatter {
		t.BCVScatter[j] = 1
		if cfg.BCVDF > 0 {
			t.BCVScatter[j] = math.Sqrt(cfg.BCVDF / chi.Rand())
		}
	}
	cum := make([]float64, k)
	var total float64
	for g, gr := range cfg.Groups {
		total += gr.Prob
		cum[g] = total
	}
	lib := distuv.LogNormal{Mu: cfg.LibLoc, Sigma: cfg.LibScale, Src: src}
	for i := range t.Groups {
		u := rng.Float64() * total
		g := sort.SearchFloat64s(cum, u)
		if g >= k || cum[g] == u {
			g = min(g+1, k-1)
		}
		t.Groups[i] = g
		t.LibSizes[i] = lib.Rand()
	}
	return t
}

// simBlock is the number of cells one worker generates at a time.
const simBlock = 32

// simCounts draws the counts, cells in blocks of simBlock on workers
// goroutines; cell i uses its own stream, so the result does not depend on
// the number of workers or the scheduling.
//
// The blocks are appended to the matrix in order as they are done, at most
// a few per worker ahead of the one awaited, and the matrix is reserved at
// the size the first blocks predict: its storage and a handful of blocks are
// all the memory the counts take (collecting every block first and then
// copying them doubled it).
func simCounts(cfg *SimConfig, t *SimTruth, rel [][]float64, workers int, invertBelow float64) *CSR {
	nb := (cfg.Cells + simBlock - 1) / simBlock
	type block struct {
		indptr  []int64 // per cell of the block, relative
		indices []int32
		data    []float32
	}
	workers = max(1, min(workers, nb))
	done := make([]chan block, nb)
	for b := range done {
		done[b] = make(chan block, 1)
	}
	// ahead holds one token per block being drawn or waiting to be appended.
	ahead := make(chan struct{}, 4*workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ahead <- struct{}{}
				b := int(next.Add(1) - 1)
				if b >= nb {
					<-ahead
					return
				}
				lo, hi := b*simBlock, min((b+1)*simBlock, cfg.Cells)
				blk := block{indptr: make([]int64, 0, hi-lo)}
				for i := lo; i < hi; i++ {
					blk.indices, blk.data = simCell(cfg, t, rel[t.Groups[i]], i, invertBelow, blk.indices, blk.data)
					blk.indptr = append(blk.indptr, int64(len(blk.data)))
				}
				done[b] <- blk
			}
		}()
	}

	x := &CSR{Rows: cfg.Cells, Cols: cfg.Genes, Indptr: make([]int64, 1, cfg.Cells+1)}
	// After the first 1/32 of the blocks (cells are in random group order),
	// reserve their density times the cells, plus 2% and a block's worth.
	reserveAt := nb / 32
	for b := range nb {
		blk := <-done[b]
		base := int64(len(x.Data))
		for _, p := range blk.indptr {
			x.Indptr = append(x.Indptr, base+p)
		}
		x.Indices = append(x.Indices, blk.indices...)
		x.Data = append(x.Data, blk.data...)
		<-ahead
		if b == reserveAt {
			cells := min((b+1)*simBlock, cfg.Cells)
			est := int(float64(len(x.Data))*float64(cfg.Cells)/float64(cells)*1.02) + simBlock*cfg.Genes/4
			est = min(est, cfg.Cells*cfg.Genes)
			x.Indices = slices.Grow(x.Indices, est-len(x.Indices))
			x.Data = slices.Grow(x.Data, est-len(x.Data))
		}
	}
	wg.Wait()
	return x
}

// simCell appends the non-zero counts of cell i to indices and data.
func simCell(cfg *SimConfig, t *SimTruth, rel []float64, i int, invertBelow float64, indices []int32, data []float32) ([]int32, []float32) {
	src := rand.NewPCG(cfg.Seed, simStream(uint64(i)+1))
	rng := rand.New(src)
	lib := t.LibSizes[i]
	for j, r := range rel {
		mu := lib * r
		if !(mu > 0) {
			continue
		}
		phi := (cfg.BCVCommon + 1/math.Sqrt(mu)) * t.BCVScatter[j]
		shape := 1 / (phi * phi)
		var y float64
		if mu < invertBelow {
			// y ~ NB(shape, mean μ) by inversion: P(0) = (1 + μ/r)^(−r),
			// P(k+1) = P(k)·(k + r)/(k + 1)·μ/(r + μ), with u = exp(−E),
			// E ~ Exp(1), so that y = 0 (u < P(0), i.e. E > r ln(1 + μ/r))
			// costs no exponential.
			e := rng.ExpFloat64()
			t0 := shape * math.Log1p(mu/shape)
			if e > t0 {
				continue
			}
			u := math.Exp(-e)
			q := mu / (shape + mu)
			p := math.Exp(-t0)
			for cdf := p; u >= cdf && p > 0; cdf += p {
				p *= (y + shape) / (y + 1) * q
				y++
			}
			if y == 0 { // u rounded below P(0)
				continue
			}
			if cfg.Dropout {
				// λ | y ~ Gamma(r + y, rate r/μ + 1), the posterior of the
				// gamma-Poisson pair, so (λ, y) has the model's joint law.
				lambda := distuv.Gamma{Alpha: shape + y, Beta: shape/mu + 1, Src: src}.Rand()
				if rng.Float64() < simDropProb(cfg, lambda) {
					continue
				}
			}
		} else {
			lambda := distuv.Gamma{Alpha: shape, Beta: shape / mu, Src: src}.Rand()
			if cfg.Dropout && rng.Float64() < simDropProb(cfg, lambda) {
				continue
			}
			y = distuv.Poisson{Lambda: lambda, Src: src}.Rand()
		}
		if y > 0 {
			indices = append(indices, int32(j))
			data = append(data, float32(y))
		}
	}
	return indices, data
}

// simReleaseEntries is the matrix size (cells × genes) from which Simulate
// returns its garbage to the system before it returns (one forced
// collection, ~0.1 s at that size).
const simReleaseEntries = 10_000_000

// simInvertBelow is the cell mean below which counts are drawn from their
// negative-binomial marginal by inversion (O(μ) steps, no gamma draw unless
// the count is positive and dropout is on); above it, λ then y ~ Poisson(λ).
const simInvertBelow = 10

// simDropProb returns the dropout probability
// 1/(1 + exp(−DropoutShape (ln λ − DropoutMid))).
func simDropProb(cfg *SimConfig, lambda float64) float64 {
	return 1 / (1 + math.Exp(-cfg.DropoutShape*(math.Log(lambda)-cfg.DropoutMid)))
}

// simStream maps a stream number to a well-mixed second PCG seed word
// (SplitMix64's finaliser), so that neighbouring cells get unrelated
// streams.
func simStream(s uint64) uint64 {
	z := s + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// simNames returns n names prefix+number, numbers from 1, zero-padded to
// max(4, digits of n) when pad is set.
func simNames(prefix string, n int, pad bool) []string {
	width := 0
	if pad {
		width = max(4, len(fmt.Sprint(n)))
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%0*d", prefix, width, i+1)
	}
	return names
}
