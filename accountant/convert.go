package accountant

import (
	"errors"
	"fmt"
	"math"
)

// Conversion selects the RDP → (ε, δ) conversion.
type Conversion int

const (
	// Improved is the conversion of Balle et al. 2020
	// (https://arxiv.org/abs/1905.09982, Thm 21; also Canonne, Kamath &
	// Steinke 2020, Prop. 12; Asoodeh et al. 2020):
	//
	//	ε = min_α R(α) + ln((α−1)/α) − (ln δ + ln α)/(α−1).
	//
	// Opacus, TensorFlow Privacy (since 2021) and dp_accounting use it.
	Improved Conversion = iota
	// Classic is Mironov 2017 (https://arxiv.org/abs/1702.07476, Prop. 3):
	//
	//	ε = min_α R(α) + ln(1/δ)/(α−1),
	//
	// used by TensorFlow Privacy until Dec 2020 and by many papers before 2021.
	Classic
)

// String returns "improved" or "classic".
func (c Conversion) String() string {
	if c == Classic {
		return "classic"
	}
	return "improved"
}

// errNoFiniteOrder is returned when every order's RDP is infinite.
var errNoFiniteOrder = errors.New("accountant: RDP is infinite at every order; use more orders or more noise")

// EpsilonFromRDP converts an RDP curve rdp (at orders) to ε at δ by conv and
// returns ε and the optimal order. Among equal minima the first order wins,
// as in Opacus (nanargmin). ε is clamped at 0. Orders whose RDP is +Inf are
// skipped. It returns an error for mismatched lengths, invalid orders, δ
// outside (0, 1), NaN or negative RDP values, or when no order is finite.
func EpsilonFromRDP(orders, rdp []float64, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := checkCurve(orders, rdp); err != nil {
		return 0, 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	ld := math.Log(delta)
	eps, order = math.Inf(1), 0
	for i, a := range orders {
		r := rdp[i]
		if math.IsInf(r, 1) {
			continue
		}
		var e float64
		if conv == Classic {
			e = r - ld/(a-1)
		} else {
			e = r + math.Log1p(-1/a) - (ld+math.Log(a))/(a-1)
		}
		if e < eps {
			eps, order = e, a
		}
	}
	if math.IsInf(eps, 1) {
		return 0, 0, errNoFiniteOrder
	}
	return math.Max(eps, 0), order, nil
}

// DeltaFromRDP converts an RDP curve to δ at ε by conv and returns δ and the
// optimal order: the inverse of EpsilonFromRDP,
//
//	Improved: ln δ = min_α (α−1)(R(α) − ε + ln(1 − 1/α)) − ln α,
//	Classic:  ln δ = min_α (α−1)(R(α) − ε),
//
// clamped at 1. It returns an error for invalid inputs as EpsilonFromRDP,
// with ε finite and ≥ 0.
func DeltaFromRDP(orders, rdp []float64, eps float64, conv Conversion) (delta, order float64, err error) {
	if err := checkCurve(orders, rdp); err != nil {
		return 0, 0, err
	}
	if err := checkNonNegative("epsilon", eps); err != nil {
		return 0, 0, err
	}
	best, order := math.Inf(1), 0.0
	for i, a := range orders {
		r := rdp[i]
		if math.IsInf(r, 1) {
			continue
		}
		var ld float64
		if conv == Classic {
			ld = (a - 1) * (r - eps)
		} else {
			ld = (a-1)*(r-eps+math.Log1p(-1/a)) - math.Log(a)
		}
		if ld < best {
			best, order = ld, a
		}
	}
	if math.IsInf(best, 1) {
		return 0, 0, errNoFiniteOrder
	}
	return math.Min(math.Exp(best), 1), order, nil
}

// EpsilonRDP returns ε at δ and the optimal order for the composition of
// events under RDP at the given orders with conversion conv.
func EpsilonRDP(events []Event, delta float64, orders []float64, conv Conversion) (eps, order float64, err error) {
	rdp, err := RDPSequence(events, orders)
	if err != nil {
		return 0, 0, err
	}
	return EpsilonFromRDP(orders, rdp, delta, conv)
}

// checkCurve validates orders and an RDP curve of the same length.
func checkCurve(orders, rdp []float64) error {
	if err := validateOrders(orders); err != nil {
		return err
	}
	if len(rdp) != len(orders) {
		return inputErr("length of rdp", float64(len(rdp)), fmt.Sprintf("equal to the number of orders (%d)", len(orders)))
	}
	for i, r := range rdp {
		if math.IsNaN(r) || r < 0 || math.IsInf(r, -1) {
			return inputErr(fmt.Sprintf("rdp[%d]", i), r, "≥ 0 (or +Inf)")
		}
	}
	return nil
}
