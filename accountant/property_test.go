package accountant

import (
	"errors"
	"math"
	"testing"
)

// monotoneSlack is how far a pessimistic figure may move against the
// monotone direction: truncation and rounding differ from one grid to the
// next by ~1e-12 relative; the grid itself moves with the window.
const monotoneSlack = 1e-9

// propertyCases are schedules around the ones dpscope runs (DP-DCAN's
// q ≈ 0.1, σ ≈ 2, ~10^3 steps; a federated q = 1; small q, small σ) and far
// from them (a step that needs a coarsened grid, 10^6 steps).
func propertyCases(short bool) []Event {
	cases := []Event{{0.1, 2, 842}, {1, 5, 30}, {0.01, 1, 1000}, {0.1, 0.3, 20}, {0.001, 0.8, 1}}
	if !short {
		cases = append(cases, Event{0.05, 1.2, 1_000_000}, Event{0.5, 0.05, 5})
	}
	return cases
}

// TestAccountantMonotone: ε is non-decreasing in steps and q and
// non-increasing in σ and δ, under RDP (improved conversion) and PLD, and
// PLD ≤ RDP (the PLD is the tighter upper bound; its discretisation at
// h = 1e-3 costs far less than the RDP gap).
func TestAccountantMonotone(t *testing.T) {
	orders := OrdersDPAccounting.Orders()
	const h = 1e-3
	rdp := func(ev Event, delta float64) float64 {
		t.Helper()
		e, _, err := EpsilonRDP([]Event{ev}, delta, orders, Improved)
		if err != nil {
			t.Fatalf("EpsilonRDP(%v, %g): %v", ev, delta, err)
		}
		return e
	}
	pld := func(ev Event, delta float64) float64 {
		t.Helper()
		e, err := EpsilonPLD([]Event{ev}, delta, h)
		if err != nil {
			t.Fatalf("EpsilonPLD(%v, %g): %v", ev, delta, err)
		}
		return e
	}
	for _, ev := range propertyCases(testing.Short()) {
		for name, eps := range map[string]func(Event, float64) float64{"RDP": rdp, "PLD": pld} {
			base := eps(ev, 1e-5)
			if nonFinite(base) || base < 0 {
				t.Errorf("%s ε(%v) = %g, want finite ≥ 0", name, ev, base)
				continue
			}
			up := func(desc string, got float64) {
				if got < base*(1-monotoneSlack) {
					t.Errorf("%s ε(%v) = %.12g, but %s gives %.12g: want ≥", name, ev, base, desc, got)
				}
			}
			down := func(desc string, got float64) {
				if got > base*(1+monotoneSlack) {
					t.Errorf("%s ε(%v) = %.12g, but %s gives %.12g: want ≤", name, ev, base, desc, got)
				}
			}
			more := ev
			more.Steps = ev.Steps + 1 + ev.Steps/3
			up("more steps", eps(more, 1e-5))
			if ev.SampleRate < 1 {
				bigger := ev
				bigger.SampleRate = math.Min(1, ev.SampleRate*1.5)
				up("a larger q", eps(bigger, 1e-5))
			}
			noisier := ev
			noisier.NoiseMultiplier *= 1.3
			down("a larger σ", eps(noisier, 1e-5))
			down("a larger δ", eps(ev, 1e-4))
		}
		if r, p := rdp(ev, 1e-5), pld(ev, 1e-5); p > r*(1+1e-6) {
			t.Errorf("ε(%v): PLD %.10g > RDP %.10g", ev, p, r)
		}
	}
}

// TestCalibrationRoundTrip: the calibrated σ reproduces the target, under
// RDP to the default tolerance and under PLD to the planner's (5e-3): ε at
// σ is at most the target and ε at σ·(1 − 2·tol) is above it.
func TestCalibrationRoundTrip(t *testing.T) {
	orders := OrdersDPAccounting.Orders()
	type tc struct {
		b     Budget
		q     float64
		steps int
	}
	cases := []tc{{Budget{8, 1e-5}, 0.1, 842}, {Budget{1, 1e-5}, 0.01, 1000}, {Budget{3, 1e-6}, 1, 10}}
	if !testing.Short() {
		cases = append(cases, tc{Budget{50, 1e-5}, 0.2, 30}, tc{Budget{0.5, 1e-5}, 0.001, 100000})
	}
	for _, c := range cases {
		z, err := CalibrateRDP(c.b, c.q, c.steps, orders, Improved, 0)
		if err != nil {
			t.Fatalf("CalibrateRDP(%v, %g, %d): %v", c.b, c.q, c.steps, err)
		}
		e, _, _ := EpsilonRDP([]Event{{c.q, z, c.steps}}, c.b.Delta, orders, Improved)
		el, _, _ := EpsilonRDP([]Event{{c.q, z * (1 - 2e-6), c.steps}}, c.b.Delta, orders, Improved)
		if e > c.b.Epsilon || el <= c.b.Epsilon {
			t.Errorf("RDP σ(%v, %g, %d) = %g: ε there %.10g, just below %.10g; want ≤ target <", c.b, c.q, c.steps, z, e, el)
		}
		const tol, h = 5e-3, 1e-3
		zp, err := CalibratePLD(c.b, c.q, c.steps, h, tol)
		if err != nil {
			t.Fatalf("CalibratePLD(%v, %g, %d): %v", c.b, c.q, c.steps, err)
		}
		ep, _ := EpsilonPLD([]Event{{c.q, zp, c.steps}}, c.b.Delta, h)
		epl, _ := EpsilonPLD([]Event{{c.q, zp * (1 - 2*tol), c.steps}}, c.b.Delta, h)
		if ep > c.b.Epsilon || epl <= c.b.Epsilon || zp > z {
			t.Errorf("PLD σ(%v, %g, %d) = %g (RDP %g): ε there %.10g, just below %.10g; want ≤ target <, σ ≤ RDP's", c.b, c.q, c.steps, zp, z, ep, epl)
		}
	}
}

// FuzzAccountant drives both accountants with arbitrary (q, σ, steps, δ) and
// up to three phases derived from them. Whatever the input: no panic; an
// invalid input is an ErrInvalidInput; a refusal is ErrPLDRange or
// ErrUnreachable; any ε returned is a number ≥ 0 (RDP may be +Inf at an
// infinite-loss order); and no FFT grows beyond the cap (the composer's
// memory is bounded by it), here lowered to 2^12 bins.
func FuzzAccountant(f *testing.F) {
	f.Add(0.1, 2.0, int64(1000), 1e-5, uint8(1))
	f.Add(0.1, 2.0, int64(1e18), 1e-5, uint8(1))
	f.Add(0.1, 0.01, int64(10), 1e-5, uint8(2))
	f.Add(1.0, 0.5, int64(1e15), 1e-10, uint8(3))
	f.Add(1e-6, 100.0, int64(1), 0.5, uint8(1))
	f.Add(0.5, 1e-4, int64(100), 1e-5, uint8(1))
	f.Add(math.NaN(), 1.0, int64(-3), 2.0, uint8(0))
	// Small grids: the same coarsening and level-by-level paths, taken far
	// more often, at a cost a fuzzer can afford (10^18 steps take seconds on
	// the full grids, and the fuzzer calls an input of 10 s a hang).
	d, l, lb := directBins, levelBins, longBins
	directBins, levelBins, longBins = 1<<12, 1<<10, 1<<11
	fftHighWater.Store(0)
	f.Cleanup(func() { directBins, levelBins, longBins = d, l, lb })
	f.Fuzz(func(t *testing.T, q, z float64, steps int64, delta float64, phases uint8) {
		checkAccountants(t, q, z, steps, delta, phases)
		// Most raw inputs are invalid; map them into the valid domain too
		// (q in (0, 1], σ in [1e-4, 1e4], any steps ≥ 0, δ in (0, 1)) so that
		// every run also exercises the composer.
		fold := func(x float64) float64 { // into [0, 1)
			if nonFinite(x) {
				return 0.5
			}
			_, fr := math.Modf(math.Abs(x))
			return fr
		}
		steps &= math.MaxInt64
		checkAccountants(t, 1-fold(q), math.Pow(10, 8*fold(z)-4), steps, math.Max(1e-300, fold(delta)), phases)
	})
}

// checkAccountants is FuzzAccountant's body for one input.
func checkAccountants(t *testing.T, q, z float64, steps int64, delta float64, phases uint8) {
	{
		n := int(phases%3) + 1
		events := make([]Event, n)
		for i := range events {
			// Phases vary σ and the step count from the first.
			events[i] = Event{q, z * float64(i+1), int(steps >> (10 * i))}
		}
		s, err := Summarize(events, delta, LedgerOptions{PLDInterval: 1e-3, KeepRDPIfPLDRefuses: true})
		switch {
		case err != nil:
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("Summarize(%v, δ=%g) error %v, want ErrInvalidInput (or an answer)", events, delta, err)
			}
		default:
			for name, e := range map[string]float64{"RDP": s.EpsilonRDP, "RDP classic": s.EpsilonRDPClassic, "PLD": s.EpsilonPLD} {
				if math.IsNaN(e) || e < 0 {
					t.Fatalf("Summarize(%v, δ=%g): %s ε = %g", events, delta, name, e)
				}
			}
			if s.PLDRefused == "" && math.IsInf(s.EpsilonPLD, 0) {
				t.Fatalf("Summarize(%v, δ=%g): PLD ε = %g without a refusal", events, delta, s.EpsilonPLD)
			}
			if s.PLDRefused == "" && s.Steps > 0 {
				// The trade-off curve of the same PLD: numbers in [0, 1 − α].
				p, err := NewPLDSequence(events, 1e-3)
				if err != nil {
					t.Fatalf("NewPLDSequence(%v) = %v after Summarize succeeded", events, err)
				}
				// No mass may leak: finite and infinite mass sum to 1 in
				// both directions (a leak compounds into ε = 0).
				for _, m := range []lossPMF{p.remove, p.add} {
					tot := m.inf
					for _, x := range m.probs {
						tot += x
					}
					if math.Abs(tot-1) > 1e-9 {
						t.Fatalf("NewPLDSequence(%v): a direction's mass is %.15g, want 1", events, tot)
					}
				}
				pts, err := p.Tradeoff(5)
				if err != nil {
					t.Fatal(err)
				}
				for _, pt := range pts {
					if !(pt.Beta >= 0 && pt.Beta <= 1-pt.Alpha+1e-9) {
						t.Fatalf("Tradeoff(%v): point %+v outside [0, 1 − α]", events, pt)
					}
				}
			}
		}
		if top := fftHighWater.Load(); top > int64(directBins) {
			t.Fatalf("an FFT of %d points, want ≤ %d (events %v)", top, directBins, events)
		}
	}
}
