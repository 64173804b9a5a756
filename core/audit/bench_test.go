package audit

import (
	"fmt"
	"testing"
)

// nop is an optimizer that does nothing, so the benchmark times the
// canaries alone.
type nop struct{}

func (nop) Step(params, grads []float32) {}
func (nop) SetLR(float64) error          { return nil }
func (nop) LR() float64                  { return 1 }

// BenchmarkGradientCanariesStep is the audit's cost per DP-SGD step: O(m),
// against a step of the paper's network on 2,000 cells that takes tens of
// milliseconds (docs/PERFORMANCE.md), so an audit costs about one run.
func BenchmarkGradientCanariesStep(b *testing.B) {
	const p = 2_031_970 // the DP-DCAN network's parameters on builtin:default
	for _, m := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			g, err := NewGradientCanaries(CanaryConfig{Canaries: m, Lo: 0, Hi: p, SampleRate: 0.1, ClipNorm: 1, Scale: 0.01, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			opt := g.Wrap(nop{})
			params, grads := make([]float32, p), make([]float32, p)
			b.ReportAllocs()
			for b.Loop() {
				opt.Step(params, grads)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/step")
		})
	}
}

// BenchmarkScore is the scoring at the end of a run: 14 rules, each a
// bisection of the binomial tail.
func BenchmarkScore(b *testing.B) {
	for _, m := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			scores, in := gaussianGame(m, 1, rngFor(1))
			for b.Loop() {
				if _, err := Score(scores, in, 1e-5, 0.05); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/audit")
		})
	}
}
