package manifold

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core"
)

var sinkOutcome *Outcome

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkEndToEnd runs dpmd in paper mode at ε = 1, δ = 0.1 (the peer's
// setting) end to end — data, local PCA, non-private and DP denoising —
// and reports the stages in seconds. The D = 100, n = 30,000 case is the
// peer's slowest (../shared/peers/DPMD_RESULTS.md §5: 99 s):
//
//	go test -run '^$' -bench 'EndToEnd/sphere_D100_n30000' -benchtime 1x ./core/manifold
func BenchmarkEndToEnd(b *testing.B) {
	for _, c := range []struct {
		kind string
		D, n int
		s    float64
	}{
		{"sphere", 20, 30000, 0.3},
		{"sphere", 100, 30000, 0.3},
		{"circle", 0, 10000, 0.1},
	} {
		b.Run(fmt.Sprintf("%s_D%d_n%d", c.kind, c.D, c.n), func(b *testing.B) {
			spec := fmt.Sprintf("manifold:%s?D=%d&n=%d&queries=1000&sigma=%g&T=2", c.kind, c.D, c.n, c.s)
			cfg := core.Config{Data: spec, Method: MethodName, Mode: core.ModePaper, Epsilon: 1, Delta: 0.1, Clip: 1, SampleRate: 1}
			cfg.Method = testMethod
			for b.Loop() {
				t0, c0 := time.Now(), cpuSeconds()
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
				total, cpu := time.Since(t0).Seconds(), cpuSeconds()-c0
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
