package compute

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
)

// A float32 GEMM of our own for CPUs with AVX-512 or AVX2 and FMA
// (sgemm_amd64.s), used in place of OpenBLAS's sgemm_ for products of at
// least AsmGemmMin multiply-adds (see openBLAS.Sgemm and EnvGemm).
// Debian's OpenBLAS 0.3.21 picks its AVX2 (Haswell) kernels on Zen 5, and
// the machine's environment pins them (OPENBLAS_CORETYPE=Haswell); 512-bit
// FMAs do twice the work per instruction. On AVX2-only CPUs the AVX2
// kernel does what OpenBLAS's does on one core, without its thread spin
// on two. The layout is the classic one (Goto & van de Geijn 2008): op(A)
// is taken in panels of mr rows and op(B) in panels of nr columns (the
// kernel's tile, asmKernel), kernKC of k at a time, and the kernel forms
// an mr×nr tile of C from one panel of each, with the B panel (32 or 16
// KiB) in L1 while the A panels stream from L2. A panel is read where it lies
// when the kernel can (sgemmAsm says when) and packed, k-major, otherwise.
//
// Every entry of C is formed by one goroutine in one order whatever the
// number of goroutines (the k blocks in turn, each a chain of FMAs from 0,
// added to C), so the result does not depend on the thread count, unlike
// OpenBLAS's. It differs in the last bits from OpenBLAS's and gonum's.
const (
	kernMR = 12
	kernNR = 32
	kernKC = 256
)

// asmKernel is one tile kernel with its tile: the driver below (packing,
// in-place reads, the split over goroutines, the pieces of large
// products) takes the tile from it, so both kernels share it.
type asmKernel struct {
	name   string // for Backend.Config
	mr, nr int    // tile rows (at most kernMR) and columns (at most kernNR)
	tile   func(k int, a *float32, arow, astep int, b *float32, bstep int, c *float32, ldc int, add bool)
	gather bool // packGather (AVX-512) may pack strided panels
}

// The two kernels: AVX-512 with 12×32 tiles (24 zmm accumulators), and
// for CPUs with AVX2 and FMA only, 6×16 (12 ymm accumulators, OpenBLAS's
// Haswell blocking). A 6×16 B panel of kernKC rows is 16 KiB, in L1.
var (
	kernAVX512 = &asmKernel{name: "AVX-512", mr: kernMR, nr: kernNR, tile: sgemmKernel, gather: true}
	kernAVX2   = &asmKernel{name: "AVX2", mr: 6, nr: 16, tile: sgemmKernelAVX2}
)

// hostKernel is the kernel "auto" picks on this CPU, nil when it has none.
func hostKernel(has512, has2 bool) *asmKernel {
	switch {
	case has512:
		return kernAVX512
	case has2:
		return kernAVX2
	}
	return nil
}

// AsmGemmMin is the least m·n·k for which Sgemm runs on dpscope's kernel
// instead of OpenBLAS. It is OpenBLAS's own threshold for splitting a
// product between its threads (2¹⁸ multiply-adds): with the kernel in use
// OpenBLAS runs one thread (selectBackend), so that its worker never spins
// on a core the kernel's goroutines need, and every product it would have
// split goes to the kernel.
const AsmGemmMin = 1 << 18

// EnvGemm is the environment variable that chooses, with the OpenBLAS
// backend, who multiplies large float32 matrices: "auto" (the default when
// unset or empty: the AVX-512 kernel when the CPU has it, else the AVX2
// one when it has AVX2 and FMA, else OpenBLAS), "avx2" (the AVX2 kernel
// even on an AVX-512 CPU, to test and time it; core/dpsgd's noise and dot
// kernels then take their AVX2 versions too, so that a DP-SGD step runs as
// on a CPU without AVX-512) or "openblas" (OpenBLAS's sgemm_ always, as
// before the kernels existed).
const EnvGemm = "DPSCOPE_SGEMM"

// gemmAVX2 is EnvGemm's value that forces the AVX2 kernel.
const gemmAVX2 = "avx2"

// parseGemm returns the kernel EnvGemm's value v asks for on a CPU with
// AVX-512 (has512) or AVX2 and FMA (has2), nil for OpenBLAS, or an error
// naming the value.
func parseGemm(v string, has512, has2 bool) (*asmKernel, error) {
	switch strings.TrimSpace(v) {
	case "", ModeAuto:
		return hostKernel(has512, has2), nil
	case ModeOpenBLAS:
		return nil, nil
	case gemmAVX2:
		if !has2 {
			return nil, fmt.Errorf("compute: %s is %q, but the CPU lacks AVX2 or FMA", EnvGemm, v)
		}
		return kernAVX2, nil
	}
	return nil, fmt.Errorf("compute: %s is %q, must be %q, %q or %q", EnvGemm, v, ModeAuto, gemmAVX2, ModeOpenBLAS)
}

// roundUp returns x rounded up to a multiple of q.
func roundUp(x, q int) int { return (x + q - 1) / q * q }

// transOK reports whether t is a transposition gonum accepts.
func transOK(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

// threadsForProducts is Backend.Threads for OpenBLAS: its own thread
// count, or the kernel's two goroutines when it takes the large products.
func (o *openBLAS) threadsForProducts() int {
	n := o.threads()
	if o.kern != nil {
		n = max(n, min(2, runtime.GOMAXPROCS(0)))
	}
	return n
}

// asmGemmFromEnv is parseGemm on the process's environment.
func asmGemmFromEnv() (*asmKernel, error) {
	return parseGemm(os.Getenv(EnvGemm), hasAsmGemm, hasAVX2Gemm)
}

// asmGemm runs C = alpha·op(A)·op(B) + beta·C on kernel kern and
// reports true, or reports false without doing anything when the caller
// should take the call: products below AsmGemmMin, degenerate ones, alpha
// 0, or arguments gonum must reject with its own messages. It panics with
// gonum's messages on bad leading dimensions or lengths.
func asmGemm(kern *asmKernel, tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) bool {
	return asmGemmBias(kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// asmGemmBias is asmGemm with C's rows starting from bias instead of
// beta·C when bias is not nil (len(bias) ≥ n; beta is then ignored).
func asmGemmBias(kern *asmKernel, tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32) bool {
	if !transOK(tA) || !transOK(tB) || m <= 0 || n <= 0 || k <= 0 || alpha == 0 || m*n*k < AsmGemmMin {
		return false
	}
	// Thin products (a few rows or columns) would fill tiles of 12×32
	// (6×16) mostly with padding: OpenBLAS's kernels for them are faster.
	if tiles := roundUp(m, kern.mr) * roundUp(n, kern.nr); 4*m*n < 3*tiles {
		return false
	}
	aT, bT := tA != blas.NoTrans, tB != blas.NoTrans
	ar, ac := m, k // stored shape of A
	if aT {
		ar, ac = k, m
	}
	br, bc := k, n
	if bT {
		br, bc = n, k
	}
	switch {
	case lda < ac:
		panic("blas: bad leading dimension of A")
	case ldb < bc:
		panic("blas: bad leading dimension of B")
	case ldc < n:
		panic("blas: bad leading dimension of C")
	case len(a) < (ar-1)*lda+ac:
		panic("blas: insufficient length of a")
	case len(b) < (br-1)*ldb+bc:
		panic("blas: insufficient length of b")
	case len(c) < (m-1)*ldc+n:
		panic("blas: insufficient length of c")
	}
	// The kernel and the gathers read and write in assembly, which the
	// race detector does not see.
	raceReadRows(a, ar, ac, lda)
	raceReadRows(b, br, bc, ldb)
	raceWriteRows(c, m, n, ldc)
	// Products beyond asmMaxM×asmMaxN×asmMaxK go in pieces, so that the
	// packed panels stay within 17 MB each whatever the matrices' sizes.
	for k0 := 0; k0 < k; k0 += asmMaxK {
		kc := min(asmMaxK, k-k0)
		bt, bs := beta, bias
		if k0 > 0 {
			bt, bs = 1, nil
		}
		for i0 := 0; i0 < m; i0 += asmMaxM {
			mc := min(asmMaxM, m-i0)
			ao := i0*lda + k0
			if aT {
				ao = k0*lda + i0
			}
			for j0 := 0; j0 < n; j0 += asmMaxN {
				bo := k0*ldb + j0
				if bT {
					bo = j0*ldb + k0
				}
				var bj []float32
				if bs != nil {
					bj = bs[j0:]
				}
				sgemmAsmBias(kern, aT, bT, mc, min(asmMaxN, n-j0), kc, alpha, a[ao:], lda, b[bo:], ldb, bt, c[i0*ldc+j0:], ldc, bj)
			}
		}
	}
	return true
}

// The largest pieces of a product for sgemmAsm: 170 A panels, 64 B panels
// and 8 k blocks of the AVX-512 kernel (the autoencoders' products are one
// piece); multiples of the AVX2 kernel's tile too.
const (
	asmMaxM = 170 * kernMR
	asmMaxN = 64 * kernNR
	asmMaxK = 8 * kernKC
)

// asmSplitFLOP is the least number of multiply-adds of a product whose
// tiles are shared with compute.Split's helper goroutine: a hand-off
// costs a few µs, 2²² multiply-adds about 40 µs on one core.
const asmSplitFLOP = 1 << 22

// sgemmBufs holds the packed panels and the job of one product. They are
// kept in sgemmFree, not a sync.Pool: the garbage collector empties pools,
// and the panels of the autoencoder's products are megabytes.
type sgemmBufs struct {
	a, b []float32
	job  sgemmJob
}

// sgemmFree holds the idle buffers: one per product running at once is
// made, and up to its capacity are kept.
var sgemmFree = make(chan *sgemmBufs, 8)

// packedPanels returns the first packed panel and how many there are, of
// panels in all: every one, or with direct access only a short last one.
func packedPanels(direct bool, panels int, shortLast bool) (first, count int) {
	switch {
	case !direct:
		return 0, panels
	case shortLast:
		return panels - 1, 1
	}
	return panels, 0
}

func getSgemmBufs() *sgemmBufs {
	select {
	case b := <-sgemmFree:
		return b
	default:
		return new(sgemmBufs)
	}
}

func putSgemmBufs(b *sgemmBufs) {
	b.job = sgemmJob{}
	select {
	case sgemmFree <- b:
	default:
	}
}

// sgemmJob is one product, shared by the packing and the tile phases.
type sgemmJob struct {
	kern          *asmKernel
	mr, nr        int // kern's tile
	tA, tB        bool
	m, n, k       int
	mp, np        int // panels of A (mr rows) and B (nr columns)
	a0, na        int // A panels a0 … a0+na−1 are packed in pa (the rest read in place)
	b0, nb        int // likewise for B in pb
	alpha, beta   float32
	a, b, c       []float32
	lda, ldb, ldc int
	pa, pb        []float32
	byRows        bool // the tile phase splits the A panels (else the B panels)
	gather        bool // strided rows may be packed by packGather (offsets fit in int32)
	directA       bool // the kernel reads A's full panels in place (alpha is 1)
	directB       bool // the kernel reads B's full panels in place
	phase         int  // 0: packing, 1: tiles, 2: tiles dealt in chunks (deal)
	deal          panelDeal
	bias          []float32 // when not nil, C's rows start from it (sgemmAsmBias)
}

// asmDeal says whether sgemmAsm deals its panels in chunks (panelDeal)
// rather than in two halves; a variable for the benchmarks that compare
// the two.
var asmDeal = true

// panelDeal shares a range of panels between the goroutines of a Split in
// chunks taken in turn, so that a helper goroutine that starts late (its
// wake-up, or a core busy with another process) takes fewer panels
// instead of holding the caller up at the end; each tile is still formed
// by one goroutine with the same arithmetic, so the bits do not change.
type panelDeal struct {
	next         atomic.Int64
	total, chunk int
}

// DenseDealChunks is the number of chunks sgemmAsm deals a product's
// panels in (0: the default, defaultDealChunks). More chunks balance the
// two goroutines better when one of them starts late; fewer let a packed
// B panel serve more tiles before the next one comes from L2 (at 32, X·W1
// at a batch of 427 takes its A panels two at a time, and each of the 36
// chunks streams all 2 MB of the packed W1). The tiles' sums are the same
// whatever the chunks. A variable for the benchmarks that compare them.
var DenseDealChunks atomic.Int64

// defaultDealChunks is DenseDealChunks' default (docs/PERFORMANCE.md,
// speed12).
const defaultDealChunks = 32

// reset deals panels [0, total) in chunks of about total/DenseDealChunks
// (the last chunk can leave one goroutine idle for that part of the work).
func (d *panelDeal) reset(total int) {
	d.next.Store(0)
	chunks := int(DenseDealChunks.Load())
	if chunks <= 0 {
		chunks = defaultDealChunks
	}
	d.total, d.chunk = total, max(1, total/chunks)
}

// run calls f on chunks [lo, hi) until the panels are dealt.
func (d *panelDeal) run(f func(lo, hi int)) {
	for {
		lo := int(d.next.Add(int64(d.chunk))) - d.chunk
		if lo >= d.total {
			return
		}
		f(lo, min(lo+d.chunk, d.total))
	}
}

// sgemmAsm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices
// (op(A) m×k, op(B) k×n) with kernel kern. The caller has checked the
// arguments as gonum does, and that m, n, k > 0 and alpha ≠ 0.
func sgemmAsm(kern *asmKernel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmAsmBias(kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

// sgemmAsmBias is sgemmAsm with C's rows starting from bias (its first n
// entries) instead of beta·C when bias is not nil: each goroutine writes
// the bias into the rows of its panels just before their first k block,
// so that the tiles read it from cache, and C = bias + Σ blocks as if C
// had been filled with bias and beta were 1 (the same bits).
func sgemmAsmBias(kern *asmKernel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, bias []float32) {
	kernMR, kernNR := kern.mr, kern.nr
	mp, np := (m+kernMR-1)/kernMR, (n+kernNR-1)/kernNR
	bufs := getSgemmBufs()
	j := &bufs.job
	// A transposed with rows of 1024 floats or more is packed: read
	// in place, every k is a new 4 KiB page (dW1 = Xᵀ·G1 on the AVX2
	// kernel: 7.17 ms in place, 6.33 packed, OpenBLAS 5.42–5.53).
	// Packing A, one copy of each entry, was a fifth of the CPU time
	// of the autoencoder's products; the kernel reads A where it is,
	// down the rows (transposed) or across 12 rows at once, unless the
	// rows are a multiple of 1 KiB (transposed: a new row every k,
	// in 4 of L1's 64 sets) or 4 KiB apart (12 rows in one set). B's panels
	// are packed unless its rows are in order and not a multiple of
	// 1 KiB apart (a 32-column panel of 256 rows 1 KiB apart falls in
	// 8 of L1's 64 sets and thrashes it).
	directA := alpha == 1 && (tA && lda%256 != 0 && lda < 1024 || !tA && lda%1024 != 0)
	*j = sgemmJob{kern: kern, mr: kernMR, nr: kernNR, tA: tA, tB: tB, m: m, n: n, k: k, mp: mp, np: np, alpha: alpha, beta: beta,
		a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, byRows: mp >= np,
		gather:  kern.gather && kernMR*lda < 1<<31 && kernNR*ldb < 1<<31,
		directA: directA,
		directB: !tB && ldb%256 != 0 && !avx2PacksB(kern, directA && !tA, n)}
	if bias != nil {
		j.bias, j.beta = bias[:n], 0
	}
	// Only the panels not read in place are packed: with a direct A, the
	// last one if it is short of kernMR rows (the kernel would read past
	// m); likewise for B.
	j.a0, j.na = packedPanels(j.directA, mp, m%kernMR != 0)
	j.b0, j.nb = packedPanels(j.directB, np, n%kernNR != 0)
	if need := j.na * kernMR * k; cap(bufs.a) < need {
		bufs.a = make([]float32, need)
	}
	if need := j.nb * kernNR * k; cap(bufs.b) < need {
		bufs.b = make([]float32, need)
	}
	j.pa, j.pb = bufs.a[:j.na*kernMR*k], bufs.b[:j.nb*kernNR*k]
	if j.beta != 0 && j.beta != 1 {
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			for x := range row {
				row[x] *= beta
			}
		}
	}
	flop := m * n * k
	// Packing: the packed A panels occupy [0, na·kernMR) of the index
	// range and the packed B panels the nb·kernNR after, so that a split
	// at the middle gives each goroutine about half of the entries to copy.
	j.phase = 0
	total := j.na*kernMR + j.nb*kernNR
	if !PackSplitPacked.Load() {
		total = mp*kernMR + np*kernNR
	}
	packed := 0
	if !j.directA {
		packed += m * k
	}
	if !j.directB {
		packed += n * k
	}
	split := flop >= asmSplitFLOP && asmSingle.Load() == 0
	if split && packed >= SplitMin {
		Split(total, 4, SplitMin, j)
	} else {
		j.Run(0, total)
	}
	j.phase = 1
	panels := np
	if j.byRows {
		panels = mp
	}
	if split && asmDeal {
		// Two workers, each taking chunks of panels (panelDeal).
		j.deal.reset(panels)
		j.phase = 2
		Split(2, 1, SplitMin, j)
	} else if split {
		Split(panels, 1, SplitMin, j)
	} else {
		j.Run(0, panels)
	}
	putSgemmBufs(bufs)
}

// Run implements RangeJob for both phases.
func (j *sgemmJob) Run(lo, hi int) {
	switch j.phase {
	case 0:
		j.pack(lo, hi)
		return
	case 2:
		j.deal.run(j.tilePanels)
		return
	}
	j.tilePanels(lo, hi)
}

// tilePanels forms the tiles of panels [lo, hi): of A when byRows, else
// of B.
func (j *sgemmJob) tilePanels(lo, hi int) {
	if j.byRows {
		j.fillBias(lo*j.mr, min(hi*j.mr, j.m), 0, j.n)
		j.tiles(lo, hi, 0, j.np)
	} else {
		j.fillBias(0, j.m, lo*j.nr, min(hi*j.nr, j.n))
		j.tiles(0, j.mp, lo, hi)
	}
}

// fillBias writes the bias into columns [c0, c1) of C's rows [r0, r1),
// when the product has one.
func (j *sgemmJob) fillBias(r0, r1, c0, c1 int) {
	if j.bias == nil {
		return
	}
	src := j.bias[c0:c1]
	for r := r0; r < r1; r++ {
		copy(j.c[r*j.ldc+c0:][:len(src)], src)
	}
}

// pack packs the panels whose start index falls in [lo, hi) (see
// sgemmAsm). Block p of the k range (kc entries from k0) of A panel i sits
// at pa[k0·na·kernMR + (i−a0)·kc·kernMR:], k-major; B likewise.
func (j *sgemmJob) pack(lo, hi int) {
	kernMR, kernNR := j.mr, j.nr
	a0, aEnd, b0 := j.a0, j.na*kernMR, j.b0
	if !PackSplitPacked.Load() {
		a0, aEnd, b0 = 0, j.mp*kernMR, 0
	}
	for i := j.a0; i < j.a0+j.na; i++ {
		if s := (i - a0) * kernMR; s >= lo && s < hi {
			j.packA(i)
		}
	}
	q0, q1 := j.b0+j.nb, j.b0
	for q := j.b0; q < j.b0+j.nb; q++ {
		if s := aEnd + (q-b0)*kernNR; s >= lo && s < hi {
			q0, q1 = min(q0, q), max(q1, q+1)
		}
	}
	if q0 >= q1 {
		return
	}
	if !j.tB && asmPackBRows && (hasAVX2Gemm || hasAsmGemm) {
		// The full panels a few rows of B at a time, across every panel:
		// B's rows are read in order, not one panel's 64 or 128 bytes of
		// each row, a new cache line every 1 KiB (W1's 2000 × 256 in the
		// forward pass, out of cache after Adam: packRows took 3.6 % of a
		// sparse AVX2 epoch's CPU time, panel by panel).
		full := min(q1, j.n/kernNR)
		if full > q0 {
			j.packBRows(q0, full)
		}
		q0 = max(q0, full)
	}
	for q := q0; q < q1; q++ {
		j.packB(q)
	}
}

// PackSplitPacked says whether a product's packing phase cuts its two
// goroutines' halves among the panels to be packed only, so that each
// copies about half of the entries (the bits do not depend on it); a knob
// for the benchmark that compares it with the cut among all panels of A,
// then of B, under which a product reading A in place (X·W1, G6·W6ᵀ) left
// the helper's half empty while the caller packed all of B: the helper
// idled 0.4–1.0 ms of a 15 ms DP-SGD step (docs/PERFORMANCE.md, rule
// G29).
var PackSplitPacked = func() *atomic.Bool {
	var on atomic.Bool
	on.Store(true)
	return &on
}()

// asmPackTrans says whether packB packs a transposed B's 16-column
// panels with packTrans16 (else one entry at a time in Go); a variable
// for the test and benchmark that compare the two.
var asmPackTrans = true

// asmPackBRows says whether pack packs a B stored in order (not
// transposed) across its panels, asmPackRowGroup rows at a time
// (packBRows), rather than panel by panel (packB); a variable for the
// benchmark that compares the two.
var asmPackBRows = true

// asmPackRowGroup is the number of B's rows packBRows copies into each
// panel before it moves to the next panel: each row is read in order,
// eight streams at once.
const asmPackRowGroup = 8

// packBRows writes the full B panels [q0, q1) as packB does, B not
// transposed, asmPackRowGroup rows at a time across the panels.
func (j *sgemmJob) packBRows(q0, q1 int) {
	kernNR := j.nr
	_ = j.b[(j.k-1)*j.ldb+q1*kernNR-1]
	for k0 := 0; k0 < j.k; k0 += kernKC {
		kc := min(kernKC, j.k-k0)
		pb := j.pb[k0*j.nb*kernNR:]
		for kk := 0; kk < kc; kk += asmPackRowGroup {
			rows := min(asmPackRowGroup, kc-kk)
			src := (k0+kk)*j.ldb + q0*kernNR
			for q := q0; q < q1; q++ {
				dst := pb[(q-j.b0)*kc*kernNR+kk*kernNR:][:rows*kernNR]
				packRows(&dst[0], &j.b[src], rows, j.ldb, kernNR)
				src += kernNR
			}
		}
	}
}

// packA writes A panel i (rows i·kernMR on, alpha applied, zero rows past m).
func (j *sgemmJob) packA(i int) {
	kernMR := j.mr
	r0 := i * kernMR
	rows := min(kernMR, j.m-r0)
	var idx [16]int32
	for r := range rows {
		idx[r] = int32(r * j.lda)
	}
	for k0 := 0; k0 < j.k; k0 += kernKC {
		kc := min(kernKC, j.k-k0)
		dst := j.pa[k0*j.na*kernMR+(i-j.a0)*kc*kernMR:][:kc*kernMR]
		if rows < kernMR {
			clear(dst)
		}
		switch {
		case j.tA && rows == kernMR && j.alpha == 1:
			// op(A)[r][kk] = A[kk][r]: kernMR contiguous entries per kk,
			// in assembly (a fixed-size array copy is a call to memmove).
			_ = j.a[(k0+kc-1)*j.lda+r0+kernMR-1]
			packRows(&dst[0], &j.a[k0*j.lda+r0], kc, j.lda, kernMR)
		case j.tA:
			for kk := range kc {
				src := j.a[(k0+kk)*j.lda+r0:][:rows]
				d := dst[kk*kernMR:][:rows]
				for x, v := range src {
					d[x] = j.alpha * v
				}
			}
		case j.alpha == 1 && j.gather:
			// Rows of A are strided: gather one entry of each per kk.
			_ = j.a[(r0+rows-1)*j.lda+k0+kc-1]
			packGather(&dst[0], &j.a[r0*j.lda+k0], &idx, kc, kernMR, uint16(1)<<rows-1)
		default:
			for r := range rows {
				src := j.a[(r0+r)*j.lda+k0:][:kc]
				for kk, v := range src {
					dst[kk*kernMR+r] = j.alpha * v
				}
			}
		}
	}
}

// packB writes B panel q (columns q·kernNR on, zero columns past n).
func (j *sgemmJob) packB(q int) {
	kernNR := j.nr
	c0 := q * kernNR
	cols := min(kernNR, j.n-c0)
	var idx [2][16]int32
	if j.gather {
		for col := range cols {
			idx[col/16][col%16] = int32(col % 16 * j.ldb)
		}
	}
	for k0 := 0; k0 < j.k; k0 += kernKC {
		kc := min(kernKC, j.k-k0)
		dst := j.pb[k0*j.nb*kernNR+(q-j.b0)*kc*kernNR:][:kc*kernNR]
		if cols < kernNR {
			clear(dst)
		}
		switch {
		case !j.tB && cols == kernNR && (hasAVX2Gemm || hasAsmGemm):
			// A block of rows at once: a fixed-size array copy in Go is
			// a call to memmove per row (the pointers may overlap), most
			// of packB's time and 6 % of a sparse DP-SGD epoch.
			_ = j.b[(k0+kc-1)*j.ldb+c0+kernNR-1]
			packRows(&dst[0], &j.b[k0*j.ldb+c0], kc, j.ldb, kernNR)
		case !j.tB:
			for kk := range kc {
				copy(dst[kk*kernNR:][:cols], j.b[(k0+kk)*j.ldb+c0:][:cols])
			}
		case cols == 16 && kernNR == 16 && asmPackTrans && hasAVX2Gemm:
			// op(B)[kk][col] = B[col][kk], 8×8 blocks transposed in
			// assembly (one entry at a time in Go below: 1.3 % of a
			// sparse AVX2 epoch's CPU time, dX = G6·W6ᵀ), the last kc
			// mod 8 in Go.
			_ = j.b[(c0+cols-1)*j.ldb+k0+kc-1]
			k8 := kc &^ 7
			if k8 > 0 {
				packTrans16(&dst[0], &j.b[c0*j.ldb+k0], k8, j.ldb)
			}
			for col := range cols {
				src := j.b[(c0+col)*j.ldb+k0+k8 : (c0+col)*j.ldb+k0+kc]
				for kk, v := range src {
					dst[(k8+kk)*kernNR+col] = v
				}
			}
		case j.gather:
			// op(B)[kk][col] = B[col][kk]: gather 16 columns at a time.
			_ = j.b[(c0+cols-1)*j.ldb+k0+kc-1]
			for h := 0; h < cols; h += 16 {
				packGather(&dst[h], &j.b[(c0+h)*j.ldb+k0], &idx[h/16], kc, kernNR, uint16(1)<<min(16, cols-h)-1)
			}
		default:
			for col := range cols {
				src := j.b[(c0+col)*j.ldb+k0:][:kc]
				for kk, v := range src {
					dst[kk*kernNR+col] = v
				}
			}
		}
	}
}

// tiles forms the tiles of A panels [i0, i1) × B panels [q0, q1), every k
// block in turn.
// edgeTile runs the kernel on a tile short of rows or columns into edge,
// j.nr floats a row. It calls the kernel directly, not through
// kern.tile: through a func value the compiler cannot see that edge does
// not escape (the kernels are go:noescape), and tiles' stack array would be
// moved to the heap on every call.
func (j *sgemmJob) edgeTile(kc int, ap *float32, arow, astep int, bp *float32, bstep int, edge *[kernMR * kernNR]float32) {
	if j.kern == kernAVX512 {
		sgemmKernel(kc, ap, arow, astep, bp, bstep, &edge[0], j.nr, false)
		return
	}
	sgemmKernelAVX2(kc, ap, arow, astep, bp, bstep, &edge[0], j.nr, false)
}

func (j *sgemmJob) tiles(i0, i1, q0, q1 int) {
	var edge [kernMR * kernNR]float32 // the largest tile
	kernMR, kernNR := j.mr, j.nr
	const f32 = 4 // bytes
	for k0 := 0; k0 < j.k; k0 += kernKC {
		kc := min(kernKC, j.k-k0)
		add := k0 > 0 || j.beta != 0 || j.bias != nil
		pa := j.pa[k0*j.na*kernMR:]
		pb := j.pb[k0*j.nb*kernNR:]
		// The A panels in blocks of about asmBlockA bytes, each block
		// going by every B panel while it stays in L2 (a k block of
		// dW1's 2000 packed rows is 2 MB, all of L2 on this Xeon; as
		// OpenBLAS blocks m by GEMM_P). The order of the tiles does not
		// change any entry's sums.
		ablk := max(1, asmBlockA/(kernMR*kernKC*f32))
		for ib := i0; ib < i1; ib += ablk {
			ie := min(ib+ablk, i1)
			j.tilesBlock(k0, kc, add, pa, pb, ib, ie, q0, q1, &edge)
		}
	}
}

// AVX2Unroll says whether the AVX2 products' full tiles with A read along
// its rows and B packed go to sgemmKernelAVX2U4 (the same bits as
// sgemmKernelAVX2); a knob for the tests and benchmarks that compare the
// two. On by default, by the rule of docs/PERFORMANCE.md's speed12
// section: X·W1 and G6·W6ᵀ at one thread 1.06–1.19× as fast (median
// 1.11), whole DP-SGD epochs median 1.06×.
var AVX2Unroll = func() *atomic.Bool {
	var on atomic.Bool
	on.Store(true)
	return &on
}()

// AVX2PackB says whether the AVX2 products with at least
// avx2PackBMinCols columns pack B even where its rows could be read in
// place, when A is read in place along its rows: the full tiles then go
// to the unrolled kernel (AVX2Unroll), which reads B packed only. H5·W6
// of the peers' autoencoder (B = W6, rows of 2000 floats) ran 1.003–1.104×
// as fast with B packed in six alternated runs at one thread and two;
// packing B for every such product lost about 2 % an epoch (the small
// layers' weights packed each step), and limited to products of 1,024
// columns or more it gained 0.6 % (docs/PERFORMANCE.md, rules G37 and
// G38). A knob for the test and benchmark that compare the two; the bits
// do not depend on it.
var AVX2PackB = func() *atomic.Bool {
	var on atomic.Bool
	on.Store(true)
	return &on
}()

// avx2PackBMinCols is the fewest columns of a product that AVX2PackB
// packs B for: the long rows of an output layer, not the small layers'
// products, whose B is cheap to read in place and costly to pack a step.
const avx2PackBMinCols = 1024

// avx2PacksB reports whether a product on kern with n columns packs B for
// AVX2PackB: A read in place along its rows (alongRows: sgemmAsmBias's
// directA with A not transposed), n at least avx2PackBMinCols and the
// unrolled kernel on.
func avx2PacksB(kern *asmKernel, alongRows bool, n int) bool {
	return kern == kernAVX2 && AVX2PackB.Load() && AVX2Unroll.Load() && alongRows && n >= avx2PackBMinCols
}

// asmBlockA is the size in bytes of the block of A panels that tiles runs
// past every B panel in turn: a quarter of a 2 MB L2.
const asmBlockA = 512 << 10

// tilesBlock forms the tiles of A panels [i0, i1) × B panels [q0, q1) of k
// block k0 (kc long).
func (j *sgemmJob) tilesBlock(k0, kc int, add bool, pa, pb []float32, i0, i1, q0, q1 int, edge *[kernMR * kernNR]float32) {
	kernMR, kernNR, tile := j.mr, j.nr, j.kern.tile
	const f32 = 4 // bytes
	// The AVX2 kernel unrolled by four k takes the full tiles whose A is
	// read along its rows (astep 4) from a packed B panel (bstep 64).
	unroll := j.kern == kernAVX2 && AVX2Unroll.Load()
	{
		for q := q0; q < q1; q++ {
			c0 := q * kernNR
			cols := min(kernNR, j.n-c0)
			var bp *float32
			bstep := kernNR * f32
			if q >= j.b0 {
				bp = &pb[(q-j.b0)*kc*kernNR]
			} else {
				bp, bstep = &j.b[k0*j.ldb+c0], j.ldb*f32
			}
			for i := i0; i < i1; i++ {
				r0 := i * kernMR
				rows := min(kernMR, j.m-r0)
				var ap *float32
				arow, astep := f32, kernMR*f32
				switch {
				case i >= j.a0:
					ap = &pa[(i-j.a0)*kc*kernMR]
				case j.tA:
					ap, astep = &j.a[k0*j.lda+r0], j.lda*f32
				default:
					ap, arow, astep = &j.a[r0*j.lda+k0], j.lda*f32, f32
				}
				if rows == kernMR && cols == kernNR {
					if unroll && astep == f32 && bstep == kernNR*f32 {
						sgemmKernelAVX2U4(kc, ap, arow, bp, &j.c[r0*j.ldc+c0], j.ldc, add)
						continue
					}
					tile(kc, ap, arow, astep, bp, bstep, &j.c[r0*j.ldc+c0], j.ldc, add)
					continue
				}
				j.edgeTile(kc, ap, arow, astep, bp, bstep, edge)
				for r := range rows {
					dst := j.c[(r0+r)*j.ldc+c0:][:cols]
					src := edge[r*kernNR:][:cols]
					if add {
						for x, v := range src {
							dst[x] += v
						}
					} else {
						copy(dst, src)
					}
				}
			}
		}
	}
}
