package plot

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// epsTicks labels the ε axis at the ε values of the data (a sweep's grid
// is what a reader looks for, not decades) and, when inf > 0, at inf with
// "∞" for the non-private point.
type epsTicks struct {
	at  []float64
	inf float64
}

// Ticks implements plot.Ticker.
func (t epsTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, v := range t.at {
		if v >= lo && v <= hi {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
		}
	}
	if t.inf > 0 && t.inf >= lo && t.inf <= hi {
		out = append(out, plot.Tick{Value: t.inf, Label: "∞"})
	}
	return out
}

// infPosition is where the non-private point goes on a log ε axis: two
// octaves (×4) right of the largest ε, far enough to read as apart from
// the curve and near enough not to squash it; 1 without any ε.
func infPosition(eps []float64) float64 {
	if len(eps) == 0 {
		return 1
	}
	return 4 * slices.Max(eps)
}

// logRange pads [lo, hi] by a quarter of an octave on a log axis, and
// widens a single value to an octave around it.
func logRange(lo, hi float64) (float64, float64) {
	if lo == hi {
		return lo / math.Sqrt2, hi * math.Sqrt2
	}
	const pad = 1.19 // 2^(1/4)
	return lo / pad, hi * pad
}

// linRange pads [lo, hi] by 5 % and widens an empty range to ±0.5.
func linRange(lo, hi float64) (float64, float64) {
	if lo == hi {
		return lo - 0.5, hi + 0.5
	}
	d := 0.05 * (hi - lo)
	return lo - d, hi + d
}

// preciseTicks is plot.DefaultTicks with labels given as many digits as it
// takes for neighbouring labels to differ: a loss that moves in its third
// digit would otherwise read 2.1, 2.1, 2.1.
type preciseTicks struct{}

// Ticks implements plot.Ticker.
func (preciseTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for prec := 2; prec <= 10; prec++ {
		seen := map[string]bool{}
		distinct := true
		for i := range ticks {
			if ticks[i].Label == "" {
				continue
			}
			l := strconv.FormatFloat(ticks[i].Value, 'g', prec, 64)
			if seen[l] {
				distinct = false
				break
			}
			seen[l] = true
		}
		if distinct {
			for i := range ticks {
				if ticks[i].Label != "" {
					ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', prec, 64)
				}
			}
			return ticks
		}
	}
	return ticks
}
