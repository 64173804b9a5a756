package compute

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// EnvBLAS is the environment variable that chooses the BLAS backend: "auto"
// (the default when unset or empty), "go" or "openblas".
const EnvBLAS = "DPSCOPE_BLAS"

// Backend names reported in Backend.Name.
const (
	NameOpenBLAS = "openblas"
	NameGonum    = "gonum"
)

// Modes accepted in EnvBLAS.
const (
	ModeAuto     = "auto"
	ModeGo       = "go"
	ModeOpenBLAS = "openblas"
)

// ErrNoOpenBLAS is wrapped by the error of Init when DPSCOPE_BLAS=openblas
// and no OpenBLAS library could be opened.
var ErrNoOpenBLAS = errors.New("compute: OpenBLAS is not available")

// OpenBLASNames are the library names tried, in order, when opening OpenBLAS.
var OpenBLASNames = []string{"libopenblas.so.0", "libopenblas.so"}

// Backend describes the BLAS implementation in use, for `dpscope version` and
// the TUI header.
type Backend struct {
	// Name is NameOpenBLAS or NameGonum.
	Name string
	// Mode is the mode that was asked for: ModeAuto, ModeGo or ModeOpenBLAS.
	Mode string
	// Library is the path of the opened OpenBLAS library, or its name when
	// the path cannot be found. Empty for gonum.
	Library string
	// Config is openblas_get_config() (version, build options, core), or the
	// gonum module version.
	Config string
	// Threads is the number of threads a product may use: OpenBLAS's
	// openblas_get_num_threads(), or at least 2 (at most GOMAXPROCS) when
	// dpscope's sgemm kernel (AVX-512 or AVX2) takes the large products
	// (it splits them over two goroutines), or runtime.GOMAXPROCS(0) for gonum, whose Sgemm splits
	// work across that many goroutines.
	Threads int
	// Reason says why this backend was chosen, e.g. why auto fell back to
	// gonum.
	Reason string
}

// String returns a one-line description such as
// "openblas (OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell
// MAX_THREADS=64, 2 threads, /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so)"
// or "gonum (gonum v0.17.0 pure Go, 2 threads)".
func (b Backend) String() string {
	unit := "threads"
	if b.Threads == 1 {
		unit = "thread"
	}
	s := fmt.Sprintf("%s (%s, %d %s", b.Name, b.Config, b.Threads, unit)
	if b.Library != "" {
		s += ", " + b.Library
	}
	return s + ")"
}

// Hint says, when auto fell back to gonum because OpenBLAS is missing, how
// much faster products would run with it and how to get it; "" otherwise.
func (b Backend) Hint() string {
	if b.Name != NameGonum || b.Mode != ModeAuto {
		return ""
	}
	return "OpenBLAS not found: matrix products run on gonum's pure-Go kernels, about 8× slower on a 2-core machine " +
		"(docs/PERFORMANCE.md); install it for speed: apt-get install libopenblas0 (Debian/Ubuntu), dnf install openblas " +
		"(Fedora), brew install openblas (macOS)"
}

var selected struct {
	once sync.Once
	impl blas.Float32
	lib  *openBLAS // nil unless the OpenBLAS backend is in use
	info Backend
	err  error
}

// Init selects the BLAS backend from DPSCOPE_BLAS, once per process, and
// returns its description. It is safe for concurrent use; later calls return
// the first result. Every product calls it, so calling it is optional, but
// the program should call it at start-up to report its error.
//
// The error is not nil when DPSCOPE_BLAS holds an unknown value, or when it
// is "openblas" and OpenBLAS cannot be opened (the error wraps ErrNoOpenBLAS).
// After an error, products run on gonum's native kernels.
func Init() (Backend, error) {
	selectOnce()
	info := selected.info
	if selected.lib != nil {
		info.Threads = selected.lib.threadsForProducts()
	}
	return info, selected.err
}

// selectOnce chooses the backend on the first call.
func selectOnce() {
	selected.once.Do(func() {
		impl, lib, info, err := selectBackend(os.Getenv(EnvBLAS), OpenBLASNames)
		selected.impl, selected.lib, selected.info, selected.err = impl, lib, info, err
	})
}

// Impl returns the blas.Float32 implementation chosen by Init, calling Init
// if needed. After an Init error it is gonum's native implementation. The
// OpenBLAS implementation is safe for concurrent use, like gonum's.
func Impl() blas.Float32 {
	// Not Init: its thread query is a C call, too dear for every product.
	selectOnce()
	if selected.err != nil {
		return gonum.Implementation{}
	}
	return selected.impl
}

// SetThreads sets the number of threads OpenBLAS uses for a product, for
// instance 1 when many goroutines multiply at once. It returns an error if n
// is less than 1. With the gonum backend it does nothing: gonum's Sgemm uses
// runtime.GOMAXPROCS(0) goroutines.
func SetThreads(n int) error {
	if n < 1 {
		return fmt.Errorf("compute: SetThreads: n is %d, must be at least 1", n)
	}
	if _, err := Init(); err == nil && selected.lib != nil {
		selected.lib.setThreads(n)
	}
	return nil
}

// SingleThreaded sets OpenBLAS to one thread, and keeps dpscope's sgemm
// kernel's products on their caller's goroutine, for a stretch of code
// whose own goroutines (one per core) each call BLAS — a second thread
// would only contend with them — and returns the function that restores
// the previous state (once, however often it is called). The setting is
// process-wide. With the gonum backend, or when OpenBLAS already runs one
// thread, it leaves OpenBLAS as it is.
func SingleThreaded() (restore func()) {
	asmSingle.Add(1)
	undo := func() {}
	if _, err := Init(); err == nil && selected.lib != nil {
		if n := selected.lib.threads(); n > 1 {
			selected.lib.setThreads(1)
			undo = func() { selected.lib.setThreads(n) }
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			asmSingle.Add(-1)
			undo()
		})
	}
}

// asmSingle counts the SingleThreaded stretches in force: while it is
// positive dpscope's sgemm kernel does not hand half a product to Split's
// helper goroutine.
var asmSingle atomic.Int32

// ParseMode validates a DPSCOPE_BLAS value and returns the mode it names; the
// empty string means ModeAuto. Surrounding spaces are ignored.
func ParseMode(s string) (string, error) {
	switch m := strings.TrimSpace(s); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeGo, ModeOpenBLAS:
		return m, nil
	default:
		return "", fmt.Errorf("compute: %s is %q, must be one of %q, %q or %q", EnvBLAS, s, ModeAuto, ModeGo, ModeOpenBLAS)
	}
}

// selectBackend picks the implementation for a DPSCOPE_BLAS value, trying the
// library names in order. It always returns a usable implementation: gonum
// when the result is an error.
func selectBackend(env string, names []string) (blas.Float32, *openBLAS, Backend, error) {
	native := gonumBackend()
	mode, err := ParseMode(env)
	if err != nil {
		native.Mode = strings.TrimSpace(env)
		native.Reason = "invalid " + EnvBLAS
		return gonum.Implementation{}, nil, native, err
	}
	native.Mode = mode
	if mode == ModeGo {
		native.Reason = EnvBLAS + "=" + ModeGo
		return gonum.Implementation{}, nil, native, nil
	}
	kern, err := asmGemmFromEnv()
	if err != nil {
		native.Reason = "invalid " + EnvGemm
		return gonum.Implementation{}, nil, native, err
	}
	lib, err := loadOpenBLAS(names)
	if err != nil {
		native.Reason = "OpenBLAS not loaded: " + err.Error()
		if mode == ModeOpenBLAS {
			return gonum.Implementation{}, nil, native, fmt.Errorf("compute: %s is %q, but %w: %w", EnvBLAS, ModeOpenBLAS, ErrNoOpenBLAS, err)
		}
		return gonum.Implementation{}, nil, native, nil
	}
	lib.kern = kern
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		if kern != nil {
			// The kernel splits its products over two goroutines; what
			// stays in OpenBLAS (gemv, small products) is not worth a
			// second thread, whose spin after each call would take a
			// core from the kernel's goroutines.
			lib.setThreads(1)
		} else {
			lib.setThreads(defaultThreads())
		}
	}
	info := Backend{
		Name:    NameOpenBLAS,
		Mode:    mode,
		Library: lib.path,
		Config:  lib.config(),
		Threads: lib.threadsForProducts(),
		Reason:  EnvBLAS + "=" + mode,
	}
	if kern != nil {
		info.Config += fmt.Sprintf("; sgemm from %d multiply-adds on dpscope's %s kernel, %d goroutines", AsmGemmMin, kern.name, min(2, runtime.GOMAXPROCS(0)))
		info.Config += sparseNote(sparseMode.Load(), kern, amdFamily19h)
	}
	return lib, lib, info, nil
}

// gonumBackend describes gonum's native implementation.
func gonumBackend() Backend {
	cfg := "gonum pure Go"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "gonum.org/v1/gonum" {
				cfg = "gonum " + dep.Version + " pure Go"
			}
		}
	}
	return Backend{Name: NameGonum, Config: cfg, Threads: runtime.GOMAXPROCS(0)}
}

// defaultThreads is the OpenBLAS thread count when OPENBLAS_NUM_THREADS is
// not set: one per processor Go may use.
func defaultThreads() int { return runtime.GOMAXPROCS(0) }

// SetGemm sets who multiplies large float32 matrices for the whole
// process, as EnvGemm's value v does at start ("auto", "avx2" or
// "openblas"), with OpenBLAS's thread count as selectBackend sets it
// (unless OPENBLAS_NUM_THREADS is set), and returns the function that
// restores the previous choice. It is for benchmarks that alternate the
// kernels in one process; no product may run while it is called. With the
// gonum backend it does nothing.
func SetGemm(v string) (restore func(), err error) {
	selectOnce()
	lib := selected.lib
	if selected.err != nil || lib == nil {
		return func() {}, nil
	}
	kern, err := parseGemm(v, hasAsmGemm, hasAVX2Gemm)
	if err != nil {
		return func() {}, err
	}
	set := func(k *asmKernel) {
		lib.kern = k
		if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
			if k != nil {
				lib.setThreads(1)
			} else {
				lib.setThreads(defaultThreads())
			}
		}
	}
	prev := lib.kern
	set(kern)
	return func() { set(prev) }, nil
}
