package compute

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Products with an operand full of exact zeros, such as a ReLU layer's
// output or its masked gradient (about half zeros in the autoencoders):
// MulSparseTo and MulSparseBTo skip the zero terms. The sparse operand is
// taken as the A side, op(A), two rows at a time: for each k block
// (kernKC, as the dense kernels) each row's nonzero entries, in k order,
// are listed once per product with their k, and sparseKernelAVX2 forms a
// 2×32 tile of C from the lists, broadcasting each value and FMA-ing the
// B panel's row k (32 columns × kernKC rows, 32 KiB, read from L1). It is
// load-bound (a B load per FMA, plus an index and a broadcast per term),
// so it runs the terms it keeps slower than the dense kernel does all of
// them; SparseMaxDensity is where the two meet.
//
// When C is formed as it is stored (MulSparseTo), the rows go one at a
// time to sparseKernelRow instead: a 1×64 tile (8 accumulators), an
// index and a broadcast per term for 8 FMAs (10 loads, against the pair
// kernel's 12), and no padding. Its B panel (64 columns × kernKC rows,
// 64 KiB) does not fit L1, so each k block is done in pieces of sparseKS
// rows, every row of the range in turn per piece, the partial sums stored
// between pieces and reloaded exactly: each entry is still one chain of
// FMAs per k block. MulSparseBTo's transposed C keeps the pair kernel,
// whose transposed store writes two adjacent entries a column.
//
// Bits: the dense kernels form each entry of C as, for each k block in
// turn, a chain of FMAs from 0 over the block's terms in k order, added to
// C. Skipping a term a·b with a = ±0 and b finite leaves the chain's value
// unchanged (fma(±0, b, acc) = acc), except when acc is −0 and the term
// +0 (the dense sum gives +0): acc starts at +0 and becomes −0 only
// through a negative product that underflows to −0 (|a·b| below 2⁻¹⁵⁰),
// so on such data the sparse result can be −0 where the dense one is +0.
// The list of the row with fewer nonzeros is padded with (k 0, value +0)
// terms up to its partner's length, which the same rule makes harmless.
// A NaN or Inf in B meets a zero of A in the dense product (0·Inf = NaN)
// but not in the sparse one, and a padding term meets B's first row of the
// block where the dense product may not. With finite B and no underflow, the result is
// the dense kernels' to the bit (TestSparseMatchesDense), so the sparse
// path runs only where the dense path would run on dpscope's kernel.

// sparseEntry is one term of a pair of rows of op(A): the offset in bytes
// of B's row k (within the block) from the panel's first row, and A's
// value, for row 0 and row 1 of the pair.
type sparseEntry struct {
	k0 int32
	v0 float32
	k1 int32
	v1 float32
}

// sparseTerm is one term of a row of op(A) for sparseKernelRow: the
// offset in bytes of B's row k from the panel's first row, and A's value.
type sparseTerm struct {
	k int32
	v float32
}

// sparseRowNR is sparseKernelRow's width: 8 ymm accumulators for one row,
// each term an index, a broadcast and 8 B loads for 8 FMAs.
const sparseRowNR = 64

// sparseRow2NR is sparseKernelRow2's width: 7 ymm accumulators a row, 14
// for the tile's two rows (and two broadcasts: all 16 registers).
const sparseRow2NR = 56

// SparseRowPairs makes MulSparseTo's row path form two rows at a time
// (sparseKernelRow2, 2×56 tiles, B panels of 56 columns) instead of one
// (sparseKernelRow, 1×64) where 56-column panels fit n no worse
// (row2Fits): 14 chains of FMAs instead of 8, the same bits.
// A knob for the tests and benchmarks that compare the two; read when a
// product starts. See docs/PERFORMANCE.md, "A two-row tile for the sparse
// row kernel".
var SparseRowPairs atomic.Bool

// SparseRowPairsT makes MulSparseBTo (C formed transposed, as dW1 =
// Xᵀ·G1) take the row path's lists and panels with two rows a tile
// (sparseKernelRow2 storing its tile transposed) instead of the pair
// kernel, whose shorter list of a pair is padded to the longer, where
// 56-column panels fit no worse (row2Fits): the same
// bits. A knob for the tests and benchmarks that compare the two; read
// when a product starts. See docs/PERFORMANCE.md, "A two-row tile for the
// sparse row kernel".
var SparseRowPairsT atomic.Bool

// sparseKS is the piece of a k block (kernKC) that the row kernel does
// for a group of rows before the next: a B panel of 64 columns × kernKC
// rows is 64 KiB, more than L1; sparseKS rows of it are 32 KiB. The
// partial sums are stored and reloaded between the pieces (exact), so
// each entry is still one chain of FMAs per k block.
const sparseKS = 128

// sparseSub is the number of pieces of a k block.
const sparseSub = kernKC / sparseKS

// sparseNR is the sparse tile's width: 4 ymm registers a row, 8 chains
// for the two rows, enough for two FMA ports of 4 cycles' latency.
const sparseNR = 32

// SparseMaxDensity is the largest density of op(A) (pair terms done over
// the dense terms, see sparseJob.density) at which MulSparseTo takes the
// sparse path when the dense products run on the AVX2 kernel: the rate of
// the sparse path at density 1 (lists and packing included, every term
// done) against the dense AVX2 kernel's, 0.71–0.85 on the autoencoder's
// three products (BenchmarkSparseProduct, fastest of 80), rounded down.
// See docs/PERFORMANCE.md, "Skipping the ReLU zeros".
const SparseMaxDensity = 0.7

// SparseMaxDensity512 is SparseMaxDensity when the dense products run on
// the AVX-512 kernel: the sparse kernel is AVX2 (8 lanes an FMA against
// 16). On Y = H5·W6 it beat the AVX-512 kernel at density 0.25 (1.31×)
// and lost at 0.5 (0.79×); 0.3 stays on the winning side. The ReLU's
// density, about 0.5, is above it: on AVX-512 the products stay dense (an
// epoch took 1.17× as long with the AVX2 sparse kernel against AVX-512
// dense).
const SparseMaxDensity512 = 0.3

// maxDensity returns the density threshold for the dense kernel kern.
func maxDensity(kern *asmKernel) float64 {
	if kern == kernAVX512 {
		return SparseMaxDensity512
	}
	return SparseMaxDensity
}

// EnvSparse is the environment variable that turns the sparse path off
// ("off") or on ("on"); with any other value, or none, it is on when the
// large products run on the AVX2 kernel, except on an AMD of family 19h,
// and off otherwise (sparseOn).
// It became the default with the AVX2 kernel by a rule written before its
// measurement (docs/PERFORMANCE.md, "The sparse row kernel and the AVX2
// default"): on an Intel Xeon, with the row kernel, an epoch at two
// threads on two real cores was 1.03–1.33× the dense AVX2 one (median of
// three runs' medians 1.062, the rule's 1.05; a later repeat at a lower
// load: 1.048). On a Zen 4 the dense AVX2 epoch was faster (rule G28:
// median ratio 0.975, and the sparse transposed product 1.25× slower), so
// on AMD family 19h (Zen 3 and Zen 4) the AVX2 kernel's products stay
// dense by default.
// With the AVX-512 kernel the ReLU's density is above
// SparseMaxDensity512, so "on" changes nothing there at that density.
const EnvSparse = "DPSCOPE_SPARSE"

// The settings of the sparse path: EnvSparse's, or SetSparse's.
const (
	sparseAuto = iota // on with the AVX2 kernel only, not on AMD family 19h
	sparseForceOn
	sparseForceOff
)

// sparseMode is EnvSparse read once, or SetSparse's setting.
var sparseMode atomic.Int32

func init() { sparseMode.Store(parseSparse(os.Getenv(EnvSparse))) }

// parseSparse returns the setting EnvSparse's value v asks for.
func parseSparse(v string) int32 {
	switch strings.TrimSpace(v) {
	case "on":
		return sparseForceOn
	case "off":
		return sparseForceOff
	}
	return sparseAuto
}

// sparseOn reports whether the sparse path runs in setting mode when the
// large products run on kern (nil: OpenBLAS) on a CPU that is (amd19h) or
// is not an AMD of family 19h: never without dpscope's kernel (the bits
// are its bits); by default only with the AVX2 kernel, and not on AMD
// family 19h.
func sparseOn(mode int32, kern *asmKernel, amd19h bool) bool {
	switch {
	case kern == nil || mode == sparseForceOff:
		return false
	case mode == sparseForceOn:
		return true
	}
	return kern == kernAVX2 && !amd19h
}

// sparseNote is what the backend's description says of the sparse path
// for the setting mode and the kernel kern on a CPU that is (amd19h) or
// is not an AMD of family 19h: where it runs, the density below which a
// product takes it, and the variable that turns it off; where the AVX2
// kernel's products stay dense only because of the CPU, that they do and
// how to turn the path on; nothing otherwise.
func sparseNote(mode int32, kern *asmKernel, amd19h bool) string {
	switch {
	case !hasSparseAsm:
		return ""
	case sparseOn(mode, kern, amd19h):
		return fmt.Sprintf(", skipping exact zeros in products whose sparse operand has density at most %g (%s=off turns that off)", maxDensity(kern), EnvSparse)
	case amd19h && kern == kernAVX2 && mode == sparseAuto:
		return fmt.Sprintf(", dense products on this AMD family 19h CPU (%s=on skips exact zeros)", EnvSparse)
	}
	return ""
}

// SetSparse turns the sparse path of MulSparseTo and MulSparseBTo on or
// off for the whole process (EnvSparse sets it at start) and returns the
// function that restores the previous setting, so that a test can compare
// the two paths.
func SetSparse(on bool) (restore func()) {
	mode := int32(sparseForceOff)
	if on {
		mode = sparseForceOn
	}
	prev := sparseMode.Swap(mode)
	return func() { sparseMode.Store(prev) }
}

// sparseRuns counts the products that took the sparse path.
var sparseRuns atomic.Int64

// SparseProducts returns the number of products that took the sparse path
// of MulSparseTo or MulSparseBTo so far in the process, for tests and
// benchmarks.
func SparseProducts() int64 { return sparseRuns.Load() }

// sparseKernel returns the dense kernel the sparse path stands in for, nil
// when the sparse path is off: dpscope's kernel must be taking the large
// products (the bits are its bits) and the sparse kernel must run here.
func sparseKernel() *asmKernel {
	if !hasSparseAsm || sparseMode.Load() == sparseForceOff {
		return nil
	}
	selectOnce()
	if selected.err != nil || selected.lib == nil || !sparseOn(sparseMode.Load(), selected.lib.kern, amdFamily19h) {
		return nil
	}
	return selected.lib.kern
}

// MulSparseTo computes dst = op(a)·op(b) + beta·dst, as MulTo with alpha
// 1, skipping the exact zeros of op(a) when they are many (density at
// most SparseMaxDensity with the AVX2 kernel, SparseMaxDensity512 with
// the AVX-512 one) and the product would run on dpscope's kernel;
// otherwise it is MulTo. The result is MulTo's to the bit when op(b) is
// finite and no product of entries underflows (see above). It panics as
// MulTo.
func MulSparseTo(dst, a Matrix, transA bool, b Matrix, transB bool, beta float32) {
	if !mulSparse(dst, a, transA, b, transB, beta, false) {
		MulTo(dst, a, transA, b, transB, 1, beta)
	}
}

// MulSparseBTo is MulSparseTo with the zeros taken from op(b): it forms
// dstᵀ = op(b)ᵀ·op(a)ᵀ on the sparse kernel, writing dst transposed.
// Each entry's terms are the same products in the same order, so the bits
// are MulTo's as for MulSparseTo (when op(a) is finite). For a weight
// gradient Xᵀ·G with G masked by a ReLU.
func MulSparseBTo(dst, a Matrix, transA bool, b Matrix, transB bool, beta float32) {
	if !mulSparse(dst, a, transA, b, transB, beta, true) {
		MulTo(dst, a, transA, b, transB, 1, beta)
	}
}

// mulSparse runs the sparse product and reports true, or reports false
// having done nothing (the caller runs MulTo, which also reports bad
// shapes).
func mulSparse(dst, a Matrix, transA bool, b Matrix, transB bool, beta float32, sparseB bool) bool {
	kern := sparseKernel()
	if kern == nil {
		return false
	}
	m, k := opDims(a, transA)
	kb, n := opDims(b, transB)
	if k != kb || dst.Rows != m || dst.Cols != n || m == 0 || n == 0 || k == 0 || overlaps(dst, a) || overlaps(dst, b) {
		return false
	}
	// Only where the dense path runs on the kernel (asmGemm's conditions).
	if m*n*k < AsmGemmMin || 4*m*n < 3*roundUp(m, kern.mr)*roundUp(n, kern.nr) {
		return false
	}
	if a.Stride < a.Cols || b.Stride < b.Cols || dst.Stride < dst.Cols {
		return false
	}
	// A look at a few rows first: a dense operand (a data matrix) is
	// turned away for a few µs, not the price of its lists.
	if sparseB {
		if sampleDensity(b, !transB, n, k) > maxDensity(kern) {
			return false
		}
	} else if sampleDensity(a, transA, m, k) > maxDensity(kern) {
		return false
	}
	s := getSparseJob()
	defer putSparseJob(s)
	if sparseB {
		// dstᵀ = op(b)ᵀ·op(a)ᵀ: A is b read the other way, B is a.
		s.setup(kern, n, m, k, b, !transB, a, !transA, dst, true, beta)
	} else {
		s.setup(kern, m, n, k, a, transA, b, transB, dst, false, beta)
	}
	s.maxDens = maxDensity(kern)
	return s.run()
}

// sampleDensity returns the fraction of nonzeros in up to 8 rows of op(a)
// (m×k), spread over its rows.
func sampleDensity(a Matrix, tA bool, m, k int) float64 {
	rows := min(8, m)
	nonzero := 0
	for r := range rows {
		i := r * m / rows
		if tA {
			for kk := range k {
				nonzero += nz(a.Data[kk*a.Stride+i])
			}
		} else {
			for _, v := range a.Data[i*a.Stride:][:k] {
				nonzero += nz(v)
			}
		}
	}
	return float64(nonzero) / float64(rows*k)
}

// sparseJob is one sparse product C = op(A)·op(B) + beta·C (C transposed
// in memory when tC), op(A) m×k in pairs of rows, op(B) k×n in panels of
// sparseNR columns.
type sparseJob struct {
	tA, tC   bool
	m, n, k  int
	a, c     []float32
	lda      int
	ldc      int
	beta     float32
	pairs    int // ⌈m/2⌉
	nkb      int // k blocks of kernKC
	ents     []sparseEntry
	cnt      []int32    // terms of pair p in block kb at kb·pairs + p
	bj       sgemmJob   // B's panels: layout, packing (packB)
	pb       []float32  // packed B panels
	phase    int        // 0: lists, 1: packing B, 2: tiles
	byPanels bool       // phase 2 shares out B panels, else pairs
	kern     *asmKernel // the dense kernel, for the columns past nd
	nd       int        // columns of C the sparse kernel forms
	bstride  int        // bytes between B's rows as the kernel reads them
	maxDens  float64    // maxDensity; tests raise it
	// The row kernel (sparseKernelRow, C not transposed): each row's
	// terms per k block at terms[(kb·m + i)·kernKC:], and at
	// starts[(kb·m + i)·(sparseSub+1) + p] the number of them before
	// piece p (the last entry: all of them).
	rowMode bool
	rowNR   int  // the row path's panel width
	row2    bool // rows two at a time (SparseRowPairs)
	terms   []sparseTerm
	starts  []int32
	// With row2 and C not transposed, the rows of k block kb by their
	// number of terms at order[kb·m:], so that a tile's two rows have
	// lists of about the same length (the longer one's rest runs on half
	// the chains): a ReLU layer's units range from dead to always on.
	order []int32
}

// sparseDirectB is false: B's panels are packed. Read in place, an epoch
// of BenchmarkDPSGDEpochSparse (AVX2, one thread) gained 1.01–1.04× (min)
// over the dense products instead of 1.09–1.15× packed: the kernel reads a
// panel's rows in the lists' order, and rows thousands of bytes apart
// span hundreds of pages (W6's 256 rows 2 MB), more than the L1 TLB
// holds, while a packed panel is 8 pages.
const sparseDirectB = false

// sparseStride is the room of one pair's list in one k block: kernKC
// terms and the one the branch-free build writes past the last.
const sparseStride = kernKC + 1

// sparseFree holds idle jobs with their buffers, as sgemmFree.
var sparseFree = make(chan *sparseJob, 4)

func getSparseJob() *sparseJob {
	select {
	case s := <-sparseFree:
		return s
	default:
		return new(sparseJob)
	}
}

func putSparseJob(s *sparseJob) {
	ents, cnt, pb, terms, starts, order := s.ents, s.cnt, s.pb, s.terms, s.starts, s.order
	*s = sparseJob{ents: ents[:0], cnt: cnt[:0], pb: pb[:0], terms: terms[:0], starts: starts[:0], order: order[:0]}
	select {
	case sparseFree <- s:
	default:
	}
}

// setup fills s for op(A)·op(B) with op(A) m×k from a (transposed when
// tA) and op(B) from b, into c (transposed when tC).
func (s *sparseJob) setup(kern *asmKernel, m, n, k int, a Matrix, tA bool, b Matrix, tB bool, c Matrix, tC bool, beta float32) {
	s.kern, s.tA, s.tC, s.m, s.n, s.k, s.maxDens = kern, tA, tC, m, n, k, SparseMaxDensity
	s.a, s.lda, s.c, s.ldc, s.beta = a.Data, ld(a), c.Data, ld(c), beta
	s.pairs, s.nkb = (m+1)/2, (k+kernKC-1)/kernKC
	s.order = s.order[:0] // run sorts the rows again if it needs them
	s.rowMode = (!tC && sparseRows) || (tC && SparseRowPairsT.Load() && row2Fits(n))
	if s.rowMode {
		s.setupRows(b, tB)
		return
	}
	if need := s.nkb * s.pairs * sparseStride; cap(s.ents) < need {
		s.ents = make([]sparseEntry, need+need/4) // room for larger batches
	}
	s.ents = s.ents[:s.nkb*s.pairs*sparseStride]
	if need := s.nkb * s.pairs; cap(s.cnt) < need {
		s.cnt = make([]int32, need+need/4)
	}
	s.cnt = s.cnt[:s.nkb*s.pairs]
	ldb := ld(b)
	// B's panels may be read where they lie, as the dense kernels' are,
	// when its rows are in order and not a multiple of 1 KiB apart
	// (sgemmAsm): the lists then hold offsets k·ldb·4, and the columns
	// past the last full panel go to the dense kernel (edge), which gives
	// the same bits. Otherwise every panel is packed (zero columns past n)
	// and the offsets are k·128. sparseDirectB says which.
	direct := sparseDirectB && !tB && ldb%256 != 0 && n >= sparseNR && (kernKC-1)*ldb*4 < 1<<31
	s.nd, s.bstride = n, sparseNR*4
	if direct {
		s.nd, s.bstride = n-n%sparseNR, ldb*4
	}
	np := (s.nd + sparseNR - 1) / sparseNR
	s.bj = sgemmJob{nr: sparseNR, tB: tB, n: s.nd, k: k, np: np, b: b.Data, ldb: ldb}
	s.bj.b0, s.bj.nb = 0, np
	if direct {
		s.bj.b0, s.bj.nb = np, 0
	}
	if need := s.bj.nb * sparseNR * k; cap(s.pb) < need {
		s.pb = make([]float32, need+need/4)
	}
	s.pb = s.pb[:s.bj.nb*sparseNR*k]
	s.bj.pb = s.pb
}

// sparseRows says whether products with C not transposed take the row
// kernel (sparseKernelRow) instead of the pair kernel; a variable for the
// benchmarks that compare them.
var sparseRows = true

// setupRows is setup's part for the row kernel: the lists' room and B's
// panels of sparseRowNR columns, all packed.
func (s *sparseJob) setupRows(b Matrix, tB bool) {
	if need := s.nkb * s.m * kernKC; cap(s.terms) < need {
		s.terms = make([]sparseTerm, need+need/4)
	}
	s.terms = s.terms[:s.nkb*s.m*kernKC]
	if need := s.nkb * s.m * (sparseSub + 1); cap(s.starts) < need {
		s.starts = make([]int32, need+need/4)
	}
	s.starts = s.starts[:s.nkb*s.m*(sparseSub+1)]
	s.row2 = (SparseRowPairs.Load() && row2Fits(s.n)) || s.tC // tilesRows forms C as stored only
	nr := sparseRowNR
	if s.row2 {
		nr = sparseRow2NR
	}
	s.rowNR = nr
	np := (s.n + nr - 1) / nr
	s.nd, s.bstride = s.n, nr*4
	s.bj = sgemmJob{nr: nr, tB: tB, n: s.n, k: s.k, np: np, b: b.Data, ldb: ld(b), b0: 0, nb: np}
	if need := np * nr * s.k; cap(s.pb) < need {
		s.pb = make([]float32, need+need/4)
	}
	s.pb = s.pb[:np*nr*s.k]
	s.bj.pb = s.pb
}

// listRows writes the terms of rows [i0, i1) of op(A) for every k block
// (sparseJob.terms), branch-free as list; transposed A is read 8 rows at
// a time along its stored rows.
func (s *sparseJob) listRows(i0, i1 int) {
	for kb := range s.nkb {
		k0 := kb * kernKC
		kc := min(kernKC, s.k-k0)
		if !s.tA {
			for i := i0; i < i1; i++ {
				e := s.terms[(kb*s.m+i)*kernKC:][:kernKC]
				st := s.starts[(kb*s.m+i)*(sparseSub+1):][:sparseSub+1]
				src := s.a[i*s.lda+k0:][:kc]
				n := 0
				for lo := 0; lo < kc; lo += sparseKS {
					st[lo/sparseKS] = int32(n)
					n = listTerms(e, n, src[lo:min(lo+sparseKS, kc)], lo, s.bstride)
				}
				for p := (kc-1)/sparseKS + 1; p <= sparseSub; p++ {
					st[p] = int32(n)
				}
			}
			continue
		}
		for g := i0; g < i1; g += 8 {
			rows := min(8, i1-g)
			var n [8]int
			for kk := range kc {
				r := s.a[(k0+kk)*s.lda+g:][:rows]
				if kk%sparseKS == 0 {
					for x := range rows {
						s.starts[(kb*s.m+g+x)*(sparseSub+1)+kk/sparseKS] = int32(n[x])
					}
				}
				for x, v := range r {
					s.terms[(kb*s.m+g+x)*kernKC+n[x]] = sparseTerm{int32(kk * s.bstride), v}
					n[x] += nz(v)
				}
			}
			for x := range rows {
				st := s.starts[(kb*s.m+g+x)*(sparseSub+1):][:sparseSub+1]
				for p := (kc-1)/sparseKS + 1; p <= sparseSub; p++ {
					st[p] = int32(n[x])
				}
			}
		}
	}
}

// listTerms appends the terms of src, entries lo… of a row of op(A) in
// a k block, to the n already in e and returns the new count: each
// nonzero entry (NaN included) as {offset of B's row, value}, in k order.
// listNonzeros does the leading multiple of 4 where the CPU has AVX2 (4–5×
// as fast as the loop, which was 4 % of a sparse epoch); it and the loop
// write e only below lo + len(src), which the caller keeps within the
// row's room (n ≤ lo).
func listTerms(e []sparseTerm, n int, src []float32, lo, stride int) int {
	done := 0
	if g := len(src) &^ 3; hasSparseAsm && g > 0 {
		_ = e[n+g-1]
		n += listNonzeros(&e[n], &src[0], g, int32(lo*stride), int32(stride))
		done = g
	}
	return listTermsGo(e, n, src[done:], lo+done, stride)
}

// listTermsGo is listTerms in Go, branch-free (a branch on ReLU zeros
// mispredicts half the time): every entry is written at the next free
// place and the count advanced by nz. The tests' reference for
// listNonzeros.
func listTermsGo(e []sparseTerm, n int, src []float32, lo, stride int) int {
	for kk, v := range src {
		e[n] = sparseTerm{int32((lo + kk) * stride), v}
		n += nz(v)
	}
	return n
}

// tilesRows forms rows [i0, i1) × B panels [q0, q1) of C on the row
// kernel: for each k block and panel, the k block's pieces in turn, each
// over all the rows (the piece of the panel, 32 KiB, stays in L1 while
// the rows' lists stream), the partial sums kept in part between pieces.
func (s *sparseJob) tilesRows(i0, i1, q0, q1 int) {
	if s.row2 {
		s.tilesRows2(i0, i1, q0, q1)
		return
	}
	part := getRowPart((i1 - i0) * sparseRowNR)
	defer putRowPart(part)
	bj := &s.bj
	const nr = sparseRowNR
	for kb := range s.nkb {
		k0 := kb * kernKC
		kc := min(kernKC, s.k-k0)
		pieces := (kc + sparseKS - 1) / sparseKS
		add := kb > 0 || s.beta != 0
		pb := bj.pb[k0*bj.nb*nr:]
		for q := q0; q < q1; q++ {
			c0 := q * nr
			cols := min(nr, s.n-c0)
			bp := &pb[q*kc*nr]
			for p := range pieces {
				last := p == pieces-1
				flags := 0
				if p > 0 {
					flags = 1
				}
				for i := i0; i < i1; i++ {
					row := kb*s.m + i
					st := s.starts[row*(sparseSub+1):][:sparseSub+1]
					lo, hi := int(st[p]), int(st[p+1])
					if last {
						hi = int(st[sparseSub])
					}
					e := &s.terms[row*kernKC+min(lo, kernKC-1)]
					pr := &part[(i-i0)*nr]
					switch {
					case !last || cols < nr:
						sparseRow(hi-lo, e, bp, pr, pr, flags)
						if last {
							dst := s.c[i*s.ldc+c0:][:cols]
							src := part[(i-i0)*nr:][:cols]
							if add {
								for x, v := range src {
									dst[x] += v
								}
							} else {
								copy(dst, src)
							}
						}
					case add:
						sparseRow(hi-lo, e, bp, pr, &s.c[i*s.ldc+c0], flags|2)
					default:
						sparseRow(hi-lo, e, bp, pr, &s.c[i*s.ldc+c0], flags)
					}
				}
			}
		}
	}
}

// row2Fits reports whether n columns take no more panels' room at the
// two-row tile's width than at the one-row kernel's: 2000 columns do
// (2016 against 2048), the small layers' 64 or 256 do not (112 against
// 64, 280 against 256: a panel mostly past n is formed in full).
func row2Fits(n int) bool { return roundUp(n, sparseRow2NR) <= roundUp(n, sparseRowNR) }

// tilesRows2 is tilesRows with the rows two at a time on
// sparseKernelRow2 (SparseRowPairs), the last one alone when they are
// odd; i0, i1 are places in s.order when it is set (the rows paired by
// their lists' lengths), rows otherwise. With a transposed C
// (SparseRowPairsT) the kernel stores a pair's tile transposed, and a row
// alone or a panel short of columns goes through part.
func (s *sparseJob) tilesRows2(i0, i1, q0, q1 int) {
	part := getRowPart((i1 - i0) * sparseRow2NR)
	defer putRowPart(part)
	bj := &s.bj
	const nr = sparseRow2NR
	for kb := range s.nkb {
		k0 := kb * kernKC
		kc := min(kernKC, s.k-k0)
		pieces := (kc + sparseKS - 1) / sparseKS
		add := kb > 0 || s.beta != 0
		pb := bj.pb[k0*bj.nb*nr:]
		var order []int32
		if len(s.order) > 0 {
			order = s.order[kb*s.m:][:s.m]
		}
		for q := q0; q < q1; q++ {
			c0 := q * nr
			cols := min(nr, s.n-c0)
			bp := &pb[q*kc*nr]
			for p := range pieces {
				last := p == pieces-1
				flags := 0
				if p > 0 {
					flags = 1
				}
				for j := i0; j < i1; j += 2 {
					rows := min(2, i1-j)
					var n [2]int
					var e [2]*sparseTerm
					ri := [2]int{j, j + 1}
					for r := range rows {
						if order != nil {
							ri[r] = int(order[j+r])
						}
						row := kb*s.m + ri[r]
						st := s.starts[row*(sparseSub+1):][:sparseSub+1]
						lo, hi := int(st[p]), int(st[p+1])
						if last {
							hi = int(st[sparseSub])
						}
						n[r], e[r] = hi-lo, &s.terms[row*kernKC+min(lo, kernKC-1)]
					}
					f := flags
					if rows == 1 {
						f, e[1], ri[1] = f|4, e[0], ri[0]
					}
					i, pr := ri[0], &part[(j-i0)*nr]
					// Row 1 of C at c + dr·ldc: the rows of a pair are
					// adjacent when C is transposed (not sorted).
					dr := (ri[1] - i) * s.ldc
					switch {
					case !last || cols < nr || (s.tC && rows == 1):
						sparseRow2(n[0], n[1], e[0], e[1], bp, pr, pr, nr, f)
						if last {
							for r := range rows {
								s.storeRow2(part[(j-i0+r)*nr:][:cols], ri[r], c0, add)
							}
						}
					case s.tC && add:
						sparseRow2(n[0], n[1], e[0], e[1], bp, pr, &s.c[c0*s.ldc+i], s.ldc, f|8|2)
					case s.tC:
						sparseRow2(n[0], n[1], e[0], e[1], bp, pr, &s.c[c0*s.ldc+i], s.ldc, f|8)
					case add:
						sparseRow2(n[0], n[1], e[0], e[1], bp, pr, &s.c[i*s.ldc+c0], dr, f|2)
					default:
						sparseRow2(n[0], n[1], e[0], e[1], bp, pr, &s.c[i*s.ldc+c0], dr, f)
					}
				}
			}
		}
	}
}

// sortRows fills s.order: each k block's rows by their number of terms
// (a counting sort, stable).
func (s *sparseJob) sortRows() {
	if need := s.nkb * s.m; cap(s.order) < need {
		s.order = make([]int32, need+need/4)
	}
	s.order = s.order[:s.nkb*s.m]
	for kb := range s.nkb {
		var at [kernKC + 2]int32
		cnt := func(i int) int { return int(s.starts[(kb*s.m+i)*(sparseSub+1)+sparseSub]) }
		for i := range s.m {
			at[cnt(i)+1]++
		}
		for c := 1; c < len(at); c++ {
			at[c] += at[c-1]
		}
		order := s.order[kb*s.m:][:s.m]
		for i := range s.m {
			c := cnt(i)
			order[at[c]] = int32(i)
			at[c]++
		}
	}
}

// storeRow2 moves row i of C, columns c0… (len(src) of them), from src
// into C, transposed when s.tC, added to it when add.
func (s *sparseJob) storeRow2(src []float32, i, c0 int, add bool) {
	if s.tC {
		for x, v := range src {
			d := &s.c[(c0+x)*s.ldc+i]
			if add {
				v += *d
			}
			*d = v
		}
		return
	}
	dst := s.c[i*s.ldc+c0:][:len(src)]
	if add {
		for x, v := range src {
			dst[x] += v
		}
	} else {
		copy(dst, src)
	}
}

// rowParts holds idle buffers of partial sums for tilesRows, as
// sgemmFree (one per goroutine forming tiles at once).
var rowParts = make(chan []float32, 4)

// getRowPart returns a buffer of at least n floats. New buffers hold at
// least 512 rows (a chunk of the autoencoders' steps), so that the
// buffers in the free list serve every product of a training run.
func getRowPart(n int) []float32 {
	select {
	case b := <-rowParts:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	return make([]float32, n, max(n+n/4, 512*sparseRowNR))
}

func putRowPart(b []float32) {
	select {
	case rowParts <- b:
	default:
	}
}

// sparseRow runs the row kernel: the assembly where the CPU has it, else
// sparseRowGo.
func sparseRow(n int, e *sparseTerm, b, in, c *float32, flags int) {
	if hasSparseAsm {
		sparseKernelRow(n, e, b, in, c, flags)
		return
	}
	sparseRowGo(n, e, b, in, c, flags)
}

// sparseRowGo is sparseKernelRow in Go, with the same arithmetic (fma32)
// and order: for builds without the assembly, and the tests' reference.
func sparseRowGo(n int, e *sparseTerm, b, in, c *float32, flags int) {
	var acc [sparseRowNR]float32
	if flags&1 != 0 {
		acc = *(*[sparseRowNR]float32)(unsafe.Pointer(in))
	}
	for _, t := range unsafe.Slice(e, n) {
		row := (*[sparseRowNR]float32)(unsafe.Add(unsafe.Pointer(b), int(t.k)))
		for x, w := range row {
			acc[x] = fma32(t.v, w, acc[x])
		}
	}
	dst := (*[sparseRowNR]float32)(unsafe.Pointer(c))
	if flags&2 != 0 {
		for x := range acc {
			acc[x] += dst[x]
		}
	}
	*dst = acc
}

// sparseRow2 runs the two-row kernel: the assembly where the CPU has it,
// else sparseRow2Go.
func sparseRow2(n0, n1 int, e0, e1 *sparseTerm, b, in, c *float32, ldc, flags int) {
	if hasSparseAsm {
		sparseKernelRow2(n0, n1, e0, e1, b, in, c, ldc, flags)
		return
	}
	sparseRow2Go(n0, n1, e0, e1, b, in, c, ldc, flags)
}

// sparseRow2Go is sparseKernelRow2 in Go, with the same arithmetic
// (fma32) and order: each row on its own, its terms in list order, as
// the assembly's chains take them. For builds without the assembly, and
// the tests' reference.
func sparseRow2Go(n0, n1 int, e0, e1 *sparseTerm, b, in, c *float32, ldc, flags int) {
	rows := 2
	if flags&4 != 0 {
		rows = 1
	}
	ns, es := [2]int{n0, n1}, [2]*sparseTerm{e0, e1}
	for r := range rows {
		var acc [sparseRow2NR]float32
		if flags&1 != 0 {
			acc = *(*[sparseRow2NR]float32)(unsafe.Add(unsafe.Pointer(in), r*sparseRow2NR*4))
		}
		for _, t := range unsafe.Slice(es[r], ns[r]) {
			row := (*[sparseRow2NR]float32)(unsafe.Add(unsafe.Pointer(b), int(t.k)))
			for x, w := range row {
				acc[x] = fma32(t.v, w, acc[x])
			}
		}
		if flags&8 != 0 {
			for x, v := range acc {
				dst := (*float32)(unsafe.Add(unsafe.Pointer(c), (x*ldc+r)*4))
				if flags&2 != 0 {
					v += *dst
				}
				*dst = v
			}
			continue
		}
		dst := (*[sparseRow2NR]float32)(unsafe.Add(unsafe.Pointer(c), r*ldc*4))
		if flags&2 != 0 {
			for x := range acc {
				acc[x] += dst[x]
			}
		}
		*dst = acc
	}
}

// run forms the lists, gives up (false) if op(A) is too dense, else
// packs B, scales C by beta and forms the tiles.
func (s *sparseJob) run() bool {
	br, bc := s.k, s.n
	if s.bj.tB {
		br, bc = bc, br
	}
	ar, ac := s.m, s.k
	if s.tA {
		ar, ac = ac, ar
	}
	cr, cc := s.m, s.n
	if s.tC {
		cr, cc = cc, cr
	}
	raceReadRows(s.a, ar, ac, s.lda)
	raceReadRows(s.bj.b, br, bc, s.bj.ldb)
	raceWriteRows(s.c, cr, cc, s.ldc)
	split := s.m*s.n*s.k >= asmSplitFLOP && asmSingle.Load() == 0
	s.phase = 0
	switch {
	case s.rowMode && split:
		Split(s.m, 8, s.k, s)
	case s.rowMode:
		s.Run(0, s.m)
	case split:
		Split(s.pairs, 1, 2*s.k, s)
	default:
		s.Run(0, s.pairs)
	}
	if s.density() > s.maxDens {
		return false
	}
	sparseRuns.Add(1)
	if s.rowMode && s.row2 && !s.tC {
		s.sortRows()
	}
	s.phase = 1
	if s.bj.nb > 0 {
		if total := s.bj.np * s.bj.nr; split && s.bj.nb*s.bj.nr*s.k >= SplitMin {
			Split(total, 4, SplitMin, s)
		} else {
			s.Run(0, total)
		}
	}
	if s.beta != 0 && s.beta != 1 {
		// The sparse kernel's part of C: columns [0, nd), rows of the
		// stored C when it is transposed.
		rows, cols := s.m, s.nd
		if s.tC {
			rows, cols = s.nd, s.m
		}
		for i := range rows {
			row := s.c[i*s.ldc : i*s.ldc+cols]
			for x := range row {
				row[x] *= s.beta
			}
		}
	}
	// The tiles are shared out by B panels, as sgemmAsm's (each goroutine
	// reads half of B and every list), or by pairs when the panels are
	// too few to share.
	s.phase = 2
	s.byPanels = s.bj.np >= 4
	parts := s.pairs
	if s.rowMode {
		parts = s.m
	}
	if s.byPanels {
		parts = s.bj.np
	}
	if split {
		Split(parts, 1, SplitMin, s)
	} else {
		s.Run(0, parts)
	}
	if e := s.n - s.nd; e > 0 {
		// The columns past the last full panel (B read in place), on the
		// dense kernel: C[:, nd:] = op(A)·B[:, nd:] + beta·C[:, nd:], or
		// for a transposed C its rows nd… = B[:, nd:]ᵀ·op(A)ᵀ.
		bj := &s.bj
		if s.tC {
			sgemmAsm(s.kern, true, !s.tA, e, s.m, s.k, 1, bj.b[s.nd:], bj.ldb, s.a, s.lda, s.beta, s.c[s.nd*s.ldc:], s.ldc)
		} else {
			sgemmAsm(s.kern, s.tA, false, s.m, e, s.k, 1, s.a, s.lda, bj.b[s.nd:], bj.ldb, s.beta, s.c[s.nd:], s.ldc)
		}
	}
	return true
}

// density is the sparse kernel's work relative to the dense one's: the
// pairs' terms (the longer list of each pair) over pairs·k.
func (s *sparseJob) density() float64 {
	if s.rowMode {
		t := 0
		for r := range s.nkb * s.m {
			t += int(s.starts[r*(sparseSub+1)+sparseSub])
		}
		return float64(t) / float64(s.m*s.k)
	}
	t := 0
	for _, c := range s.cnt {
		t += int(c)
	}
	return float64(t) / float64(s.pairs*s.k)
}

// Run implements RangeJob for the three phases (pairs of rows for 0, B's
// index range for 1, as sgemmJob.pack, B panels or pairs for 2).
func (s *sparseJob) Run(lo, hi int) {
	switch s.phase {
	case 0:
		if s.rowMode {
			s.listRows(lo, hi)
			return
		}
		for p := lo; p < hi; p++ {
			s.list(p)
		}
	case 1:
		s.bj.pack(lo, hi)
	default:
		switch {
		case s.rowMode && s.byPanels:
			s.tilesRows(0, s.m, lo, hi)
		case s.rowMode:
			s.tilesRows(lo, hi, 0, s.bj.np)
		case s.byPanels:
			s.tiles(0, s.pairs, lo, hi)
		default:
			s.tiles(lo, hi, 0, s.bj.np)
		}
	}
}

// nz is 1 when v is not zero (NaN included), else 0, without a branch: a
// branch on ReLU zeros mispredicts half the time.
func nz(v float32) int {
	b := 0
	if v != 0 {
		b = 1
	}
	return b
}

// list writes pair p's terms for every k block: each row's nonzeros in k
// order, the shorter list padded with (0, +0) terms. Every entry is
// written and the count advanced by nz, so the loop has no branch on the
// data.
func (s *sparseJob) list(p int) {
	i0 := 2 * p
	has1 := i0+1 < s.m
	for kb := range s.nkb {
		k0 := kb * kernKC
		kc := min(kernKC, s.k-k0)
		e := s.ents[(kb*s.pairs+p)*sparseStride:][:sparseStride]
		n0, n1 := 0, 0
		switch {
		case !s.tA:
			for kk, v := range s.a[i0*s.lda+k0:][:kc] {
				e[n0].k0, e[n0].v0 = int32(kk*s.bstride), v
				n0 += nz(v)
			}
			if has1 {
				for kk, v := range s.a[(i0+1)*s.lda+k0:][:kc] {
					e[n1].k1, e[n1].v1 = int32(kk*s.bstride), v
					n1 += nz(v)
				}
			}
		case has1:
			for kk := range kc {
				r := s.a[(k0+kk)*s.lda+i0:][:2]
				e[n0].k0, e[n0].v0 = int32(kk*s.bstride), r[0]
				n0 += nz(r[0])
				e[n1].k1, e[n1].v1 = int32(kk*s.bstride), r[1]
				n1 += nz(r[1])
			}
		default:
			for kk := range kc {
				v := s.a[(k0+kk)*s.lda+i0]
				e[n0].k0, e[n0].v0 = int32(kk*s.bstride), v
				n0 += nz(v)
			}
		}
		for t := n0; t < n1; t++ {
			e[t].k0, e[t].v0 = 0, 0
		}
		for t := n1; t < n0; t++ {
			e[t].k1, e[t].v1 = 0, 0
		}
		s.cnt[kb*s.pairs+p] = int32(max(n0, n1))
	}
}

// tiles forms the tiles of pairs [p0, p1) × B panels [q0, q1), every k
// block in turn; each B panel stays in L1 while the pairs' lists stream.
func (s *sparseJob) tiles(p0, p1, q0, q1 int) {
	var buf [2 * sparseNR]float32
	bj := &s.bj
	for kb := range s.nkb {
		k0 := kb * kernKC
		kc := min(kernKC, s.k-k0)
		add := kb > 0 || s.beta != 0
		pb := bj.pb[k0*bj.nb*sparseNR:]
		for q := q0; q < q1; q++ {
			c0 := q * sparseNR
			cols := min(sparseNR, s.nd-c0)
			var bp *float32
			if q >= bj.b0 {
				bp = &pb[(q-bj.b0)*kc*sparseNR]
			} else {
				bp = &bj.b[k0*bj.ldb+c0]
			}
			for p := p0; p < p1; p++ {
				idx := kb*s.pairs + p
				n := int(s.cnt[idx])
				e := &s.ents[idx*sparseStride]
				i0 := 2 * p
				rows := min(2, s.m-i0)
				switch {
				case rows < 2 || cols < sparseNR:
				case s.tC:
					sparseTileT(n, e, bp, &s.c[c0*s.ldc+i0], s.ldc, add)
					continue
				default:
					sparseTile(n, e, bp, &s.c[i0*s.ldc+c0], s.ldc, add)
					continue
				}
				sparseTile(n, e, bp, &buf[0], sparseNR, false)
				s.store(&buf, i0, rows, c0, cols, add)
			}
		}
	}
}

// store moves a tile short of rows or columns, or of a transposed C, from
// buf into C.
func (s *sparseJob) store(buf *[2 * sparseNR]float32, i0, rows, c0, cols int, add bool) {
	if !s.tC {
		for r := range rows {
			dst := s.c[(i0+r)*s.ldc+c0:][:cols]
			src := buf[r*sparseNR:][:cols]
			if add {
				for x, v := range src {
					dst[x] += v
				}
			} else {
				copy(dst, src)
			}
		}
		return
	}
	// C's row c0+x holds column x of the tile: the pair's two entries
	// side by side.
	r0, r1 := buf[:cols], buf[sparseNR:][:cols]
	switch {
	case rows == 2 && add:
		for x, v := range r0 {
			d := s.c[(c0+x)*s.ldc+i0:][:2]
			d[0] += v
			d[1] += r1[x]
		}
	case rows == 2:
		for x, v := range r0 {
			d := s.c[(c0+x)*s.ldc+i0:][:2]
			d[0], d[1] = v, r1[x]
		}
	case add:
		for x, v := range r0 {
			s.c[(c0+x)*s.ldc+i0] += v
		}
	default:
		for x, v := range r0 {
			s.c[(c0+x)*s.ldc+i0] = v
		}
	}
}

// sparseTile runs the sparse kernel: the assembly where the CPU has it,
// else sparseTileGo.
func sparseTile(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool) {
	if hasSparseAsm {
		sparseKernelAVX2(n, e, b, c, ldc, add)
		return
	}
	sparseTileGo(n, e, b, c, ldc, add, false)
}

// SparsePairDisp makes the transposed pair kernel (dW1 = Xᵀ·G1 on the
// AVX2 path) sparseKernelAVX2TD, whose FMAs' memory operands are base plus
// displacement, instead of sparseKernelAVX2T, whose are indexed: the same
// bits; a knob for the tests and benchmarks that compare the two. On by
// default, by the rule of docs/PERFORMANCE.md's speed12 section (dW1 at
// one thread median 1.10× as fast, DP-SGD epochs median 1.03×).
var SparsePairDisp = func() *atomic.Bool {
	var on atomic.Bool
	on.Store(true)
	return &on
}()

// sparseTileT is sparseTile writing the tile transposed (column x at
// c + x·ldc).
func sparseTileT(n int, e *sparseEntry, b *float32, c *float32, ldc int, add bool) {
	if hasSparseAsm {
		if SparsePairDisp.Load() {
			sparseKernelAVX2TD(n, e, b, c, ldc, add)
			return
		}
		sparseKernelAVX2T(n, e, b, c, ldc, add)
		return
	}
	sparseTileGo(n, e, b, c, ldc, add, true)
}

// sparseTileGo is sparseKernelAVX2 in Go, with the same arithmetic (fma32)
// and order: for builds without the assembly, and the tests' reference.
// With trans it writes the tile transposed, as sparseKernelAVX2T.
func sparseTileGo(n int, e *sparseEntry, b *float32, c *float32, ldc int, add, trans bool) {
	var acc [2][sparseNR]float32
	for _, t := range unsafe.Slice(e, n) {
		for r, kv := range [2]struct {
			k int32
			v float32
		}{{t.k0, t.v0}, {t.k1, t.v1}} {
			row := (*[sparseNR]float32)(unsafe.Add(unsafe.Pointer(b), int(kv.k)))
			for x, w := range row {
				acc[r][x] = fma32(kv.v, w, acc[r][x])
			}
		}
	}
	for r := range 2 {
		for x, v := range acc[r] {
			off := r*ldc + x
			if trans {
				off = x*ldc + r
			}
			dst := (*float32)(unsafe.Add(unsafe.Pointer(c), off*4))
			if add {
				*dst += v
			} else {
				*dst = v
			}
		}
	}
}

// fma32 returns a·b + c rounded once to float32, as VFMADD231PS does. The
// product is exact in float64 (48 bits); the sum there rounds once, and
// rounding that to float32 could round twice wrongly when it lands exactly
// halfway between two float32s: the sum's error (TwoSum) then says on which
// side the exact sum lies, and the float64 is nudged one unit that way.
// (The halfway test is for float32 results in the normal range; subnormal
// results, below 2⁻¹²⁶, may still round twice.)
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb)
	if e != 0 {
		bits := math.Float64bits(s)
		if bits&(1<<29-1) == 1<<28 {
			if (e > 0) == (s > 0) {
				bits++
			} else {
				bits--
			}
			s = math.Float64frombits(bits)
		}
	}
	return float32(s)
}
