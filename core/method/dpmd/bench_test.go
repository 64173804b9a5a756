package dpmd

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/internal/cputime"
)

var sinkOutcome *Outcome

// BenchmarkEndToEnd runs dpmd in paper mode at ε = 1, δ = 0.1 (the peer's
// setting) end to end — data, local PCA, non-private and DP denoising —
// and reports the stages in seconds. The D = 100, n = 30,000 case is the
// peer's slowest (../shared/peers/DPMD_RESULTS.md §5: 99 s):
//
//	go test -run '^$' -bench 'EndToEnd/sphere_D100_n30000' -benchtime 1x ./core/method/dpmd
func BenchmarkEndToEnd(b *testing.B) {
	for _, c := range []struct {
		kind string
		D, n int
		s    float64
		np   NonPrivateVariant
	}{
		{"sphere", 20, 30000, 0.3, NonPrivateEigProj},
		{"sphere", 100, 30000, 0.3, NonPrivateEigProj},
		// The peer's own pair of tracks: its non-private track is P_x as
		// it is (no eigenprojection).
		{"sphere", 100, 30000, 0.3, NonPrivatePx},
		{"circle", 0, 10000, 0.1, NonPrivateEigProj},
	} {
		b.Run(fmt.Sprintf("%s_D%d_n%d_np%s", c.kind, c.D, c.n, c.np), func(b *testing.B) {
			spec := fmt.Sprintf("manifold:%s?D=%d&n=%d&queries=1000&sigma=%g&T=2&nonprivate=%s", c.kind, c.D, c.n, c.s, c.np)
			cfg := core.Config{Data: spec, Method: MethodName, Mode: core.ModePaper, Epsilon: 1, Delta: 0.1, Clip: 1, SampleRate: 1}
			cfg.Method = testMethod
			for b.Loop() {
				t0, c0 := time.Now(), cputime.Process().Seconds()
				run, err := core.Start(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				lastEngine.Lock()
				e := lastEngine.e
				lastEngine.Unlock()
				for ev := range run.Events() {
					if er, ok := ev.(core.ErrorEvent); ok {
						b.Fatal(er.Err)
					}
				}
				total, cpu := time.Since(t0).Seconds(), cputime.Process().Seconds()-c0
				o := e.Outcome()
				sinkOutcome = o
				b.ReportMetric(total, "total-s")
				b.ReportMetric(cpu, "cpu-s")
				b.ReportMetric(o.Data.Seconds(), "data-s")
				b.ReportMetric(o.LocalPCA.Seconds(), "localpca-s")
				var np, dp float64
				for name, d := range o.Denoise {
					if name == string(core.ModePaper) {
						dp = d.Seconds()
					} else {
						np = d.Seconds()
					}
				}
				b.ReportMetric(np, "denoise-np-s")
				b.ReportMetric(dp, "denoise-dp-s")
				for _, tr := range o.Tracks {
					b.Logf("%-45s mean/max dist to M %.4f / %.4f, to clean %.4f / %.4f", tr.Name, tr.MeanDist, tr.MaxDist, tr.MeanClean, tr.MaxClean)
				}
				b.Logf("h = %.4g, unchanged %d, ς_P = %.4g, ς_m = %.4g", o.Problem.H, o.Unchanged, o.Budget.Noise.Projector, o.Budget.Noise.Mean)
			}
		})
	}
}

// BenchmarkStep times one denoising iteration of 64 queries on the sphere
// in R^100 with n = 30,000 references (k ≈ 7,700 within h, as in
// EndToEnd), one OpenBLAS thread per worker as the engine runs it, and
// reports it per query:
//
//	go test -run '^$' -bench 'Step' ./core/method/dpmd
func BenchmarkStep(b *testing.B) {
	pr, err := Synthetic(Params{Manifold: "sphere", D: 100, N: 30000, Queries: 64, Sigma: 0.3}, 0)
	if err != nil {
		b.Fatal(err)
	}
	// The real local PCA: with random or poorly estimated tangents P_x has
	// no eigengap and the eigensolver takes its slow fallback.
	d := pr.Dim
	tg, err := LocalPCA(context.Background(), pr.Y, pr.N, pr.D, pr.H, d)
	if err != nil {
		b.Fatal(err)
	}
	dn, err := NewDenoiser(pr.Y, pr.N, pr.D, pr.H, d, tg)
	if err != nil {
		b.Fatal(err)
	}
	defer compute.SingleThreaded()()
	for _, c := range []struct {
		name string
		kind StepKind
	}{{"px", StepPx}, {"eigproj", StepEigProj}, {"paper", StepPaper}, {"sound", StepSound}} {
		b.Run(c.name, func(b *testing.B) {
			xs := make([]float64, len(pr.Z))
			nz := Noise{Projector: 0.004, Mean: 0.0045, Mass: 1, SMin: 3}
			c0 := cputime.Process().Seconds()
			for b.Loop() {
				copy(xs, pr.Z)
				if _, err := dn.Iterate(context.Background(), xs, pr.M, c.kind, nz, 1, 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			steps := float64(b.N * pr.M)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/steps/1000, "ms/step")
			// CPU time (both workers, OpenBLAS included) stays meaningful
			// on a shared machine.
			b.ReportMetric((cputime.Process().Seconds()-c0)*1000/steps, "cpu-ms/step")
		})
	}
}
