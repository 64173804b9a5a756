package accountant

import (
	"fmt"
	"testing"

	"github.com/dpscope/dpscope/internal/cputime"
)

var sinkF float64

// BenchmarkEpsilonRDP: issue target "RDP ε for 10,000 steps under 1 ms"
// (Opacus' 151 orders, improved conversion).
func BenchmarkEpsilonRDP(b *testing.B) {
	orders := OrdersOpacus.Orders()
	for _, ev := range []Event{{0.01, 1.0, 10000}, {0.1, 2.0, 10000}, {0.5, 5, 10000}} {
		b.Run(ev.String(), func(b *testing.B) {
			for b.Loop() {
				e, _, err := EpsilonRDP([]Event{ev}, 1e-5, orders, Improved)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = e
			}
			b.ReportMetric(float64(len(orders)), "orders/op")
		})
	}
}

// BenchmarkCalibrateRDP: issue target "σ calibration under 20 ms".
func BenchmarkCalibrateRDP(b *testing.B) {
	orders := OrdersOpacus.Orders()
	for _, tc := range []struct {
		eps, q float64
		steps  int
	}{{1, 0.01, 10000}, {8, 0.1, 1000}} {
		b.Run(fmt.Sprintf("eps%g_q%g_T%d", tc.eps, tc.q, tc.steps), func(b *testing.B) {
			for b.Loop() {
				z, err := CalibrateRDP(Budget{tc.eps, 1e-5}, tc.q, tc.steps, orders, Improved, 0)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = z
			}
		})
	}
}

// BenchmarkEpsilonPLD: issue target "PLD ε for 10,000 steps under 200 ms"
// (interval 1e-4, both directions).
func BenchmarkEpsilonPLD(b *testing.B) {
	for _, ev := range []Event{{0.01, 1.0, 10000}, {0.001, 0.8, 10000}} {
		b.Run(ev.String(), func(b *testing.B) {
			c0 := cputime.Process().Seconds()
			for b.Loop() {
				e, err := EpsilonPLD([]Event{ev}, 1e-5, DefaultPLDInterval)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = e
			}
			b.ReportMetric(float64(ev.Steps), "steps/op")
			b.ReportMetric((cputime.Process().Seconds()-c0)*1e3/float64(b.N), "cpu-ms/PLD")
		})
	}
}

// BenchmarkPLDMillionSteps: issue 18 point 5, "a PLD for 10^6 steps
// < 100 ms" (both directions, at dpscope budget's interval 1e-4 and the
// TUI's 1e-3). Reports the interval the PLD ran on (coarsened where 10^6
// steps do not fit 2^20 bins) and ms per PLD.
func BenchmarkPLDMillionSteps(b *testing.B) {
	for _, h := range []float64{1e-4, 1e-3} {
		for _, ev := range []Event{{0.01, 1.0, 1_000_000}, {0.1, 2, 1_000_000}} {
			b.Run(fmt.Sprintf("%v_h%g", ev, h), func(b *testing.B) {
				var p *PLD
				c0 := cputime.Process().Seconds()
				for b.Loop() {
					var err error
					if p, err = NewPLD(ev, h); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(p.Interval(), "interval")
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/PLD")
				b.ReportMetric((cputime.Process().Seconds()-c0)*1e3/float64(b.N), "cpu-ms/PLD")
			})
		}
	}
}

// BenchmarkPLDHugeSteps: issue 14 point 1, "every step count up to 10^18
// answers in under 2 s".
func BenchmarkPLDHugeSteps(b *testing.B) {
	for _, ev := range []Event{{0.1, 2, 100_000_000}, {0.1, 2, 1_000_000_000_000_000_000}} {
		b.Run(ev.String(), func(b *testing.B) {
			c0 := cputime.Process().Seconds()
			for b.Loop() {
				e, err := EpsilonPLD([]Event{ev}, 1e-5, DefaultPLDInterval)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = e
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/PLD")
			b.ReportMetric((cputime.Process().Seconds()-c0)*1e3/float64(b.N), "cpu-ms/PLD")
		})
	}
}

// BenchmarkCalibratePlan: issue 18 point 5, "calibrating σ for a plan
// < 50 ms", as the planner and the engines calibrate: RDP at tolerance
// 1e-4 (dp_accounting orders), PLD at the TUI's interval 1e-3 and
// tolerance 5e-3. Plans: DP-DCAN's (ε 8, q 0.1, 842 steps) and a long one.
func BenchmarkCalibratePlan(b *testing.B) {
	orders := OrdersDPAccounting.Orders()
	for _, tc := range []struct {
		eps, q float64
		steps  int
	}{{8, 0.1, 842}, {1, 0.01, 10000}} {
		name := fmt.Sprintf("eps%g_q%g_T%d", tc.eps, tc.q, tc.steps)
		b.Run("RDP_"+name, func(b *testing.B) {
			c0 := cputime.Process().Seconds()
			for b.Loop() {
				z, err := CalibrateRDP(Budget{tc.eps, 1e-5}, tc.q, tc.steps, orders, Improved, 1e-4)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = z
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/calibration")
			b.ReportMetric((cputime.Process().Seconds()-c0)*1e3/float64(b.N), "cpu-ms/calibration")
		})
		b.Run("PLD_"+name, func(b *testing.B) {
			c0 := cputime.Process().Seconds()
			for b.Loop() {
				z, err := CalibratePLD(Budget{tc.eps, 1e-5}, tc.q, tc.steps, 1e-3, 5e-3)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = z
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/calibration")
			b.ReportMetric((cputime.Process().Seconds()-c0)*1e3/float64(b.N), "cpu-ms/calibration")
		})
	}
}

// BenchmarkLedgerStepReport records one DP-SGD step and reads the ledger's
// RDP ε and its projection over the rest of the plan, as an engine does
// every step: the running tally makes it O(orders) whatever the history
// (here 2,000 steps alternating between two components and two σ, which
// the ledger cannot merge).
func BenchmarkLedgerStepReport(b *testing.B) {
	l := NewLedger()
	for i := range 2000 {
		if err := l.Record([]string{"stage 1", "centroids"}[i%2], Event{SampleRate: 0.01 + 0.99*float64(i%2), NoiseMultiplier: 1.1 + float64(i%2), Steps: 1}); err != nil {
			b.Fatal(err)
		}
	}
	plan := []Event{{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 1000}}
	b.ResetTimer()
	for range b.N {
		if err := l.Record("stage 1", Event{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 1}); err != nil {
			b.Fatal(err)
		}
		if _, _, err := l.EpsilonRDP(1e-5); err != nil {
			b.Fatal(err)
		}
		if _, err := l.ProjectRDP(1e-5, plan...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/step")
}
