package accountant

import (
	"fmt"
	"testing"
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
			for b.Loop() {
				e, err := EpsilonPLD([]Event{ev}, 1e-5, DefaultPLDInterval)
				if err != nil {
					b.Fatal(err)
				}
				sinkF = e
			}
			b.ReportMetric(float64(ev.Steps), "steps/op")
		})
	}
}
