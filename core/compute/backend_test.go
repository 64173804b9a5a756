package compute

import (
	"errors"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/gonum"
)

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		desc, in, want string
		wantErr        bool
	}{
		{desc: "unset", in: "", want: ModeAuto},
		{desc: "auto", in: "auto", want: ModeAuto},
		{desc: "go with spaces", in: " go ", want: ModeGo},
		{desc: "openblas", in: "openblas", want: ModeOpenBLAS},
		{desc: "capitalised", in: "OpenBLAS", wantErr: true},
		{desc: "gonum is not a mode", in: "gonum", wantErr: true},
		{desc: "unknown", in: "mkl", wantErr: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := ParseMode(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseMode(%q) = %q, %v, want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), EnvBLAS) {
				t.Errorf("ParseMode(%q) error %q does not name %s", tc.in, err, EnvBLAS)
			}
		})
	}
}

func TestSelectBackendWithoutLibrary(t *testing.T) {
	missing := []string{"libdpscope-no-such-blas.so.0"}
	for _, tc := range []struct {
		desc, env  string
		wantErr    error
		wantReason string
	}{
		{desc: "go", env: "go", wantReason: EnvBLAS + "=go"},
		{desc: "auto falls back", env: "", wantReason: "OpenBLAS not loaded"},
		{desc: "openblas missing", env: "openblas", wantErr: ErrNoOpenBLAS},
		{desc: "unknown value", env: "fast", wantReason: "invalid " + EnvBLAS},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			impl, lib, info, err := selectBackend(tc.env, missing)
			if _, ok := impl.(gonum.Implementation); !ok || lib != nil || info.Name != NameGonum {
				t.Errorf("selectBackend(%q) = %T, %s, want gonum's implementation", tc.env, impl, info.Name)
			}
			wantErr := tc.wantErr != nil || tc.desc == "unknown value"
			if (err != nil) != wantErr || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Errorf("selectBackend(%q) error = %v, want %v (any: %v)", tc.env, err, tc.wantErr, wantErr)
			}
			if tc.wantErr != nil && !strings.Contains(err.Error(), missing[0]) {
				t.Errorf("selectBackend(%q) error %q does not name the library tried", tc.env, err)
			}
			if !strings.Contains(info.Reason, tc.wantReason) {
				t.Errorf("selectBackend(%q).Reason = %q, want it to contain %q", tc.env, info.Reason, tc.wantReason)
			}
			if info.Threads < 1 || !strings.HasPrefix(info.Config, "gonum") {
				t.Errorf("selectBackend(%q) = %+v, want Threads >= 1 and a gonum Config", tc.env, info)
			}
		})
	}
}

func TestSelectBackendOpenBLAS(t *testing.T) {
	requireOpenBLAS(t)
	for _, tc := range []struct{ env, gemm string }{{"", ""}, {"openblas", ""}, {"openblas", "openblas"}, {"openblas", gemmAVX2}} {
		env := tc.env
		t.Run("env="+env+",sgemm="+tc.gemm, func(t *testing.T) {
			if tc.gemm == gemmAVX2 && !hasAVX2Gemm {
				t.Skip("no AVX2+FMA")
			}
			if tc.gemm != "" {
				t.Setenv(EnvGemm, tc.gemm)
			}
			_, lib, info, err := selectBackend(env, OpenBLASNames)
			if err != nil || lib == nil || info.Name != NameOpenBLAS {
				t.Fatalf("selectBackend(%q) = %+v, %v, want the openblas backend", env, info, err)
			}
			if !strings.Contains(info.Library, "libopenblas") || !strings.Contains(info.Config, "OpenBLAS") {
				t.Errorf("selectBackend(%q) = %+v, want a libopenblas path and an OpenBLAS config", env, info)
			}
			// With dpscope's kernel OpenBLAS keeps one thread for what
			// is left to it and the kernel two goroutines; without,
			// OpenBLAS one thread per processor.
			kern, _ := asmGemmFromEnv()
			asm := kern != nil
			want := defaultThreads()
			if asm {
				want = min(2, defaultThreads())
			}
			if lib.kern != kern || (asm && !strings.Contains(info.Config, kern.name+" kernel")) || (!asm && strings.Contains(info.Config, "dpscope's")) {
				t.Errorf("selectBackend(%q): kernel %v, Config %q, want %v in use and said so", env, lib.kern, info.Config, kern)
			}
			if os.Getenv("OPENBLAS_NUM_THREADS") == "" && info.Threads != want {
				t.Errorf("selectBackend(%q).Threads = %d, want %d", env, info.Threads, want)
			}
			if os.Getenv("OPENBLAS_NUM_THREADS") == "" && asm && lib.threads() != 1 {
				t.Errorf("selectBackend(%q): OpenBLAS runs %d threads beside the kernel, want 1", env, lib.threads())
			}
			if wantKern := map[string]*asmKernel{ModeOpenBLAS: nil, gemmAVX2: kernAVX2}[tc.gemm]; tc.gemm != "" && lib.kern != wantKern {
				t.Errorf("selectBackend with %s=%q: kernel %v, want %v", EnvGemm, tc.gemm, lib.kern, wantKern)
			}
			if lib.minGemm != GemmThreshold || lib.minGemv != GemvThreshold {
				t.Errorf("selectBackend(%q) thresholds = %d, %d, want %d, %d", env, lib.minGemm, lib.minGemv, GemmThreshold, GemvThreshold)
			}
		})
	}
}

// TestInit checks the process-wide selection against the environment the
// test runs in.
func TestInit(t *testing.T) {
	info, err := Init()
	again, err2 := Init()
	if info != again || (err == nil) != (err2 == nil) {
		t.Errorf("Init() = %+v, %v then %+v, %v, want the same result twice", info, err, again, err2)
	}
	if Impl() == nil {
		t.Fatal("Impl() = nil, want an implementation")
	}
	mode, perr := ParseMode(os.Getenv(EnvBLAS))
	switch {
	case perr != nil:
		if err == nil {
			t.Errorf("Init() with %s=%q error = nil, want an error", EnvBLAS, os.Getenv(EnvBLAS))
		}
	case mode == ModeGo:
		if info.Name != NameGonum {
			t.Errorf("Init() with %s=go = %s, want %s", EnvBLAS, info.Name, NameGonum)
		}
	default:
		requireOpenBLAS(t)
		if err != nil || info.Name != NameOpenBLAS {
			t.Errorf("Init() with %s=%q = %+v, %v, want openblas", EnvBLAS, mode, info, err)
		}
		if !strings.HasPrefix(info.String(), "openblas (OpenBLAS") {
			t.Errorf("Backend.String() = %q, want it to start with %q", info.String(), "openblas (OpenBLAS")
		}
	}
}

func TestSetThreads(t *testing.T) {
	if err := SetThreads(0); err == nil {
		t.Errorf("SetThreads(0) = nil, want an error")
	}
	info, err := Init()
	if err != nil || info.Name != NameOpenBLAS {
		t.Skipf("backend is %s (%v); SetThreads only acts on OpenBLAS", info.Name, err)
	}
	defer SetThreads(selected.lib.threads())
	for _, n := range []int{1, defaultThreads()} {
		if err := SetThreads(n); err != nil {
			t.Fatalf("SetThreads(%d) = %v, want nil", n, err)
		}
		// With dpscope's kernel a product uses two goroutines whatever
		// OpenBLAS's count.
		want := n
		if selected.lib.kern != nil {
			want = max(n, min(2, defaultThreads()))
		}
		if got, _ := Init(); got.Threads != want || selected.lib.threads() != n {
			t.Errorf("after SetThreads(%d): Init().Threads = %d, want %d; OpenBLAS threads %d, want %d",
				n, got.Threads, want, selected.lib.threads(), n)
		}
	}
}

// TestHint: only a fallback of auto to gonum says how to get OpenBLAS.
func TestHint(t *testing.T) {
	if h := (Backend{Name: NameGonum, Mode: ModeAuto}).Hint(); !strings.Contains(h, "apt-get install libopenblas0") || !strings.Contains(h, "8×") {
		t.Errorf("auto → gonum: hint %q", h)
	}
	for _, b := range []Backend{{Name: NameGonum, Mode: ModeGo}, {Name: NameOpenBLAS, Mode: ModeAuto}, {Name: NameOpenBLAS, Mode: ModeOpenBLAS}} {
		if h := b.Hint(); h != "" {
			t.Errorf("%s asked as %s: hint %q, want none", b.Name, b.Mode, h)
		}
	}
}
