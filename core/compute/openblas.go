//go:build linux

package compute

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// openBLAS is a blas.Float32 and a blas.Float64 that sends Sgemm, Sgemv,
// Ssyrk, Dgemm, Dgemv and Dsyrk to OpenBLAS, above a size threshold, and
// every other routine to the embedded gonum kernels. It is safe for concurrent use. The
// float64 methods are in openblas64.go.
//
// The calls go to the Fortran entry points sgemm_ and sgemv_ through
// purego.SyscallN: every Fortran argument is a pointer, so no float travels
// in a register, and the scalars live in one pooled block, so a call does not
// allocate. A row-major product is the column-major product of the
// transposes: C = op(A)·op(B) is computed as Cᵀ = op(B)ᵀ·op(A)ᵀ.
type openBLAS struct {
	gonum.Implementation

	path          string
	sgemm, sgemv  uintptr
	dgemm, dgemv  uintptr
	dsyrk, ssyrk  uintptr
	getNumThreads uintptr // may be 0
	setNumThreads uintptr // may be 0
	getConfig     uintptr // may be 0

	// minGemm and minGemv are the sizes (m·n·k and m·n) below which the
	// product stays in Go; see GemmThreshold and GemvThreshold.
	minGemm, minGemv int

	// minDgemm and minDgemv are the same for Dgemm and Dgemv; see
	// DgemmThreshold and DgemvThreshold.
	minDgemm, minDgemv int

	// kern, when not nil, takes the Sgemm products of at least
	// AsmGemmMin: dpscope's AVX-512 or AVX2 kernel (sgemm.go, EnvGemm).
	kern *asmKernel
}

// fortranArgs holds the arguments of one Fortran call: the scalars, whose
// addresses are handed to C, and the argument list itself. It lives on the
// heap and is recycled through argPool, so a call does not allocate (the
// variadic slice of a direct purego.SyscallN call escapes).
//
// keep holds the matrices as pointers while their addresses travel as
// uintptr: it keeps them alive and, being heap memory, forces every slice
// that reaches Sgemm or Sgemv onto the heap, where the garbage collector
// never moves it.
type fortranArgs struct {
	transA, transB byte
	m, n, k        int32
	lda, ldb, ldc  int32
	alpha, beta    uint64 // a float32 or float64 scalar, as the routine takes; see setScalars
	args           [15]uintptr
	keep           [3]unsafe.Pointer
}

func (p *fortranArgs) addr(v unsafe.Pointer) uintptr { return uintptr(v) }

// setScalars stores alpha and beta in the slots whose addresses Fortran
// reads, in the precision of the routine.
func setScalars[T float32 | float64](p *fortranArgs, alpha, beta T) {
	*(*T)(unsafe.Pointer(&p.alpha)) = alpha
	*(*T)(unsafe.Pointer(&p.beta)) = beta
}

// call calls fn with the first n entries of p.args and releases p.
func (p *fortranArgs) call(fn uintptr, n int) {
	purego.SyscallN(fn, p.args[:n]...)
	runtime.KeepAlive(p)
	*p = fortranArgs{}
	argPool.Put(p)
}

var argPool = sync.Pool{New: func() any { return new(fortranArgs) }}

// loadOpenBLAS opens the first library of names that loads and exports
// sgemm_, sgemv_, ssyrk_, dgemm_, dgemv_ and dsyrk_.
func loadOpenBLAS(names []string) (*openBLAS, error) {
	defer setThreadTimeout()()
	var errs []error
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				err = fmt.Errorf("%s: %w", name, err)
			}
			errs = append(errs, err)
			continue
		}
		lib := &openBLAS{
			path:    name,
			minGemm: GemmThreshold, minGemv: GemvThreshold,
			minDgemm: DgemmThreshold, minDgemv: DgemvThreshold,
		}
		for _, sym := range []struct {
			name string
			addr *uintptr
		}{{"sgemm_", &lib.sgemm}, {"sgemv_", &lib.sgemv}, {"dgemm_", &lib.dgemm}, {"dgemv_", &lib.dgemv}, {"dsyrk_", &lib.dsyrk}, {"ssyrk_", &lib.ssyrk}} {
			if *sym.addr, err = purego.Dlsym(h, sym.name); err != nil {
				break
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		lib.getNumThreads, _ = purego.Dlsym(h, "openblas_get_num_threads")
		lib.setNumThreads, _ = purego.Dlsym(h, "openblas_set_num_threads")
		lib.getConfig, _ = purego.Dlsym(h, "openblas_get_config")
		if p := MappedPath(lib.sgemm); p != "" {
			lib.path = p
		}
		return lib, nil
	}
	if len(errs) == 0 {
		return nil, errors.New("no library names to try")
	}
	return nil, errors.Join(errs...)
}

// EnvThreadTimeout is OpenBLAS's variable for how long (2^value cycles,
// 4 to 30) an idle worker thread spins before it sleeps; OpenBLAS reads it
// when the library is loaded.
const EnvThreadTimeout = "OPENBLAS_THREAD_TIMEOUT"

// ThreadTimeout is the EnvThreadTimeout dpscope loads OpenBLAS with when
// the variable is not set: 2^ThreadTimeout cycles. OpenBLAS's default, 28
// (about 0.07 s), keeps the idle worker spinning through the elementwise
// work between two products, on the core compute.Split's helper goroutine
// wants (docs/PERFORMANCE.md); 4 makes it sleep at once, at the cost of
// a wake-up (a few µs) at the start of the next threaded product. Set it
// before the first product: the library reads it once. Linux only, like
// the OpenBLAS backend.
var ThreadTimeout = 28

// setThreadTimeout sets EnvThreadTimeout to ThreadTimeout when it is not
// set, for the library's constructor, and returns the function that
// unsets it again, so that child processes see the environment as given.
func setThreadTimeout() (restore func()) {
	if _, ok := os.LookupEnv(EnvThreadTimeout); ok {
		return func() {}
	}
	if os.Setenv(EnvThreadTimeout, strconv.Itoa(ThreadTimeout)) != nil {
		return func() {}
	}
	return func() { _ = os.Unsetenv(EnvThreadTimeout) }
}

// MappedPath returns the path of the mapped file that holds address addr,
// read from /proc/self/maps, or "" if it is not found. Given the address of
// a symbol it names the library file behind a soname and its symlinks (the
// OpenBLAS and libhdf5 loaders both report it).
func MappedPath(addr uintptr) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && uint64(addr) >= start && uint64(addr) < end {
			return fields[len(fields)-1]
		}
	}
	return ""
}

func (o *openBLAS) threads() int {
	if o.getNumThreads == 0 {
		return 1
	}
	r, _, _ := purego.SyscallN(o.getNumThreads)
	return int(int32(r))
}

func (o *openBLAS) setThreads(n int) {
	if o.setNumThreads != 0 {
		purego.SyscallN(o.setNumThreads, uintptr(n))
	}
}

func (o *openBLAS) config() string {
	if o.getConfig == 0 {
		return "OpenBLAS"
	}
	r, _, _ := purego.SyscallN(o.getConfig)
	if r == 0 {
		return "OpenBLAS"
	}
	// The config string is static storage inside the library.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&r))
	var b []byte
	for ; *(*byte)(p) != 0 && len(b) < 512; p = unsafe.Add(p, 1) {
		b = append(b, *(*byte)(p))
	}
	return strings.TrimSpace(string(b))
}

func transChar(t blas.Transpose) (byte, bool) {
	switch t {
	case blas.NoTrans:
		return 'N', false
	case blas.Trans, blas.ConjTrans:
		return 'T', true
	}
	panic("blas: illegal transpose")
}

// Sgemm performs C = alpha * op(A) * op(B) + beta * C with op(A) m×k and
// op(B) k×n, like gonum's Sgemm: on dpscope's kernel when it is in use
// and m·n·k is at least AsmGemmMin, else on OpenBLAS when m·n·k is at
// least GemmThreshold. It panics with gonum's messages on bad arguments.
func (o *openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if o.kern != nil && asmGemm(o.kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		return
	}
	if !gemm(o.sgemm, o.minGemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		o.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// Dgemm is Sgemm in float64, on OpenBLAS's dgemm_ when m·n·k is at least
// DgemmThreshold.
func (o *openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !gemm(o.dgemm, o.minDgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// gemm calls the Fortran xGEMM at fn and reports true, or reports false
// without doing anything when gonum should take the call: sizes below threshold,
// degenerate or out of int32 range, or arguments gonum must reject with its
// own messages. It panics with gonum's messages on bad leading dimensions
// or lengths. It computes the row-major product as the column-major
// Cᵀ = op(B)ᵀ·op(A)ᵀ and does not allocate.
func gemm[T float32 | float64](fn uintptr, threshold int, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) bool {
	if !validTrans(tA) || !validTrans(tB) {
		return false
	}
	ca, aTrans := transChar(tA)
	cb, bTrans := transChar(tB)
	if m < 0 || n < 0 || k < 0 || m > math.MaxInt32 || n > math.MaxInt32 || k > math.MaxInt32 ||
		lda > math.MaxInt32 || ldb > math.MaxInt32 || ldc > math.MaxInt32 ||
		m == 0 || n == 0 || k == 0 || alpha == 0 || m*n*k < threshold {
		return false
	}
	ar, ac := m, k // stored shape of A
	if aTrans {
		ar, ac = k, m
	}
	br, bc := k, n
	if bTrans {
		br, bc = n, k
	}
	if lda < ac {
		panic("blas: bad leading dimension of A")
	}
	if ldb < bc {
		panic("blas: bad leading dimension of B")
	}
	if ldc < n {
		panic("blas: bad leading dimension of C")
	}
	if len(a) < (ar-1)*lda+ac {
		panic("blas: insufficient length of a")
	}
	if len(b) < (br-1)*ldb+bc {
		panic("blas: insufficient length of b")
	}
	if len(c) < (m-1)*ldc+n {
		panic("blas: insufficient length of c")
	}
	raceReadRows(a, ar, ac, lda)
	raceReadRows(b, br, bc, ldb)
	raceWriteRows(c, m, n, ldc)

	p := argPool.Get().(*fortranArgs)
	// Column-major Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m).
	*p = fortranArgs{
		transA: cb, transB: ca,
		m: int32(n), n: int32(m), k: int32(k),
		lda: int32(ldb), ldb: int32(lda), ldc: int32(ldc),
	}
	setScalars(p, alpha, beta)
	p.keep = [3]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0])}
	p.args = [15]uintptr{
		p.addr(unsafe.Pointer(&p.transA)), p.addr(unsafe.Pointer(&p.transB)),
		p.addr(unsafe.Pointer(&p.m)), p.addr(unsafe.Pointer(&p.n)), p.addr(unsafe.Pointer(&p.k)),
		p.addr(unsafe.Pointer(&p.alpha)),
		p.addr(p.keep[1]), p.addr(unsafe.Pointer(&p.lda)),
		p.addr(p.keep[0]), p.addr(unsafe.Pointer(&p.ldb)),
		p.addr(unsafe.Pointer(&p.beta)),
		p.addr(p.keep[2]), p.addr(unsafe.Pointer(&p.ldc)),
		1, 1, // hidden lengths of the two character arguments
	}
	p.call(fn, 15)
	return true
}

// Sgemv performs y = alpha * op(A) * x + beta * y with A m×n, like gonum's
// Sgemv, on OpenBLAS when m·n is at least GemvThreshold. It panics with
// gonum's messages on bad arguments.
func (o *openBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	if !gemv(o.sgemv, o.minGemv, tA, m, n, alpha, a, lda, x, incX, beta, y, incY) {
		o.Implementation.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
	}
}

// Dgemv is Sgemv in float64, on OpenBLAS's dgemv_ when m·n is at least
// DgemvThreshold.
func (o *openBLAS) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if !gemv(o.dgemv, o.minDgemv, tA, m, n, alpha, a, lda, x, incX, beta, y, incY) {
		o.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
	}
}

// gemv calls the Fortran xGEMV at fn and reports true, or reports false
// when gonum should take the call (see gemm).
func gemv[T float32 | float64](fn uintptr, threshold int, tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, incX int, beta T, y []T, incY int) bool {
	if !validTrans(tA) {
		return false
	}
	_, trans := transChar(tA)
	if m < 0 || n < 0 || m > math.MaxInt32 || n > math.MaxInt32 || lda > math.MaxInt32 ||
		incX == 0 || incY == 0 || incX > math.MaxInt32 || incY > math.MaxInt32 ||
		incX < -math.MaxInt32 || incY < -math.MaxInt32 ||
		m == 0 || n == 0 || alpha == 0 || m*n < threshold {
		return false
	}
	if lda < n {
		panic("blas: bad leading dimension of A")
	}
	lenX, lenY := n, m
	if trans {
		lenX, lenY = m, n
	}
	if (lenX-1)*abs(incX) >= len(x) {
		panic("blas: insufficient length of x")
	}
	if (lenY-1)*abs(incY) >= len(y) {
		panic("blas: insufficient length of y")
	}
	if len(a) < (m-1)*lda+n {
		panic("blas: insufficient length of a")
	}
	raceReadRows(a, m, n, lda)
	raceReadRows(x, 1, (lenX-1)*abs(incX)+1, 1)
	raceWriteRows(y, 1, (lenY-1)*abs(incY)+1, 1)

	// Row-major A (m×n) is column-major Aᵀ (n×m): flip the transpose.
	fc := byte('T')
	if trans {
		fc = 'N'
	}
	p := argPool.Get().(*fortranArgs)
	*p = fortranArgs{
		transA: fc,
		m:      int32(n), n: int32(m),
		lda: int32(lda), ldb: int32(incX), ldc: int32(incY),
	}
	setScalars(p, alpha, beta)
	p.keep = [3]unsafe.Pointer{unsafe.Pointer(&a[0]), unsafe.Pointer(&x[0]), unsafe.Pointer(&y[0])}
	p.args = [15]uintptr{
		p.addr(unsafe.Pointer(&p.transA)),
		p.addr(unsafe.Pointer(&p.m)), p.addr(unsafe.Pointer(&p.n)),
		p.addr(unsafe.Pointer(&p.alpha)),
		p.addr(p.keep[0]), p.addr(unsafe.Pointer(&p.lda)),
		p.addr(p.keep[1]), p.addr(unsafe.Pointer(&p.ldb)),
		p.addr(unsafe.Pointer(&p.beta)),
		p.addr(p.keep[2]), p.addr(unsafe.Pointer(&p.ldc)),
		1, // hidden length of the character argument
	}
	p.call(fn, 12)
	return true
}

// validTrans reports whether t is a transpose value transChar accepts; the
// others go to gonum, which panics with its own message.
func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
