package accountant

import (
	"math"
	"sort"
)

// TradeoffPoint is one point of a hypothesis-testing trade-off curve: the
// smallest false-negative rate Beta (type II error) of any test of "the
// record is absent" against "present" whose false-positive rate (type I
// error) is Alpha (Dong, Roth & Su 2019, https://arxiv.org/abs/1905.02383,
// Def. 2.1). A mechanism is (ε, δ)-DP iff β ≥ 1 − δ − e^ε α and
// β ≥ e^{−ε}(1 − δ − α) for all α.
type TradeoffPoint struct {
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// tradeoffAlphas returns n false-positive rates in [0, 1], log-spaced from
// 1e-6 in the lower half and linear above, for a chart.
func tradeoffAlphas(n int) []float64 {
	a := make([]float64, n)
	half := n / 2
	for i := 0; i < n; i++ {
		if i < half {
			a[i] = math.Pow(10, -6+6*float64(i)/float64(half)*0.7) // 1e-6 … ~0.06
		} else {
			a[i] = 0.06 + 0.94*float64(i-half)/float64(n-1-half)
		}
	}
	a[0] = 0
	return a
}

// Tradeoff returns n ≥ 3 points of the trade-off curve of the discretised
// mechanism. Each direction's curve is the exact Neyman–Pearson curve of the
// discrete pair (rejecting on the highest privacy losses first, randomising
// at the boundary), which lies below the true curve because the discrete pair
// dominates the mechanism; the result is the greatest convex minorant of the
// pointwise minimum of the two directions (Dong, Roth & Su 2019, Prop. 2.4:
// a symmetric trade-off for add/remove adjacency), so it is a valid lower
// bound on any attacker's false-negative rate.
func (p *PLD) Tradeoff(n int) ([]TradeoffPoint, error) {
	if n < 3 || n > 1e6 {
		return nil, inputErr("number of points", float64(n), "in [3, 1e6]")
	}
	alphas := tradeoffAlphas(n)
	r := p.remove.neymanPearson(p.h, alphas)
	a := p.add.neymanPearson(p.h, alphas)
	pts := make([]TradeoffPoint, n)
	for i, al := range alphas {
		pts[i] = TradeoffPoint{al, math.Min(r[i], a[i])}
	}
	return convexMinorant(pts), nil
}

// neymanPearson evaluates β(α) of the discrete pair at sorted alphas: P has
// mass p_i at loss l_i and P_∞ at +∞, Q has mass p_i e^{−l_i}.
func (m *lossPMF) neymanPearson(h float64, alphas []float64) []float64 {
	out := make([]float64, len(alphas))
	// Walk from the highest loss down, accumulating (α, β) vertices.
	al, be := 0.0, 1-m.inf
	j := len(m.probs) - 1
	for k, target := range alphas {
		for j >= 0 {
			// Q's mass p e^{−l}, formed in logs: at a small σ, l reaches
			// −10^4 and e^{−l} overflows (0·Inf would be NaN).
			qm := 0.0
			if p := m.probs[j]; p > 0 {
				qm = math.Exp(math.Log(p) - float64(m.lo+j)*h)
			}
			if al+qm >= target {
				// Randomise within bin j: slope −p/q = −e^{l_j}.
				f := 0.0
				if qm > 0 {
					f = (target - al) / qm
				}
				out[k] = math.Max(0, be-f*m.probs[j])
				break
			}
			al += qm
			be -= m.probs[j]
			j--
		}
		if j < 0 {
			out[k] = 0
		}
	}
	return out
}

// convexMinorant returns the lower convex hull of points sorted by Alpha,
// evaluated back at the same alphas (Andrew's monotone chain).
func convexMinorant(pts []TradeoffPoint) []TradeoffPoint {
	sort.Slice(pts, func(i, j int) bool { return pts[i].Alpha < pts[j].Alpha })
	hull := make([]TradeoffPoint, 0, len(pts))
	for _, p := range pts {
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			if (b.Alpha-a.Alpha)*(p.Beta-a.Beta)-(b.Beta-a.Beta)*(p.Alpha-a.Alpha) <= 0 {
				hull = hull[:len(hull)-1]
				continue
			}
			break
		}
		hull = append(hull, p)
	}
	out := make([]TradeoffPoint, len(pts))
	k := 0
	for i, p := range pts {
		for k < len(hull)-2 && hull[k+1].Alpha <= p.Alpha {
			k++
		}
		a, b := hull[k], hull[min(k+1, len(hull)-1)]
		beta := a.Beta
		if b.Alpha > a.Alpha {
			beta = a.Beta + (b.Beta-a.Beta)*(p.Alpha-a.Alpha)/(b.Alpha-a.Alpha)
		}
		// The interpolation can round below 0 at α = 1 (−5.6e-17 at
		// q = 1e-6, σ = 100, found by FuzzAccountant); β is a probability.
		out[i] = TradeoffPoint{p.Alpha, math.Max(0, math.Min(p.Beta, beta))}
	}
	return out
}

// GDPTradeoffCurve returns n ≥ 3 points of the exact μ-GDP trade-off curve
// β = Φ(Φ⁻¹(1 − α) − μ) at the same false-positive rates as PLD.Tradeoff.
func GDPTradeoffCurve(mu float64, n int) ([]TradeoffPoint, error) {
	if err := checkPositive("mu", mu); err != nil {
		return nil, err
	}
	if n < 3 || n > 1e6 {
		return nil, inputErr("number of points", float64(n), "in [3, 1e6]")
	}
	alphas := tradeoffAlphas(n)
	pts := make([]TradeoffPoint, n)
	for i, a := range alphas {
		b, err := GDPTradeoff(mu, a)
		if err != nil {
			return nil, err
		}
		pts[i] = TradeoffPoint{a, b}
	}
	return pts, nil
}
