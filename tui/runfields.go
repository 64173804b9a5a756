package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// Field indices of the Run form.
const (
	fMethod = iota
	fData
	fEpsilon
	fDelta
	fSigma
	fClip
	fLayerFrom
	fLayerTo
	fRate
	fEpochs1
	fEpochs2
	fAccountant
	fSeed
)

// live reports whether a field may change during a run (as a core.Patch).
func live(i int) bool {
	switch i {
	case fEpsilon, fDelta, fSigma, fClip, fLayerFrom, fLayerTo:
		return true
	}
	return false
}

// scaleStep multiplies or divides v by f.
func scaleStep(v, f float64, dir int) float64 {
	if dir > 0 {
		return v * f
	}
	return v / f
}

// round3 keeps 3 significant digits, so stepping stays readable.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

func parsePositive(name, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("%s is %q, must be a finite number > 0", name, s)
	}
	return v, nil
}

// runFields builds the Run form over the pane's params.
func (p *runPane) runFields() []field {
	pr := &p.params
	notPrivate := func() string {
		if !pr.Private() {
			return "no noise in DCAN"
		}
		return ""
	}
	duringRun := func(i int, more func() string) func() string {
		return func() string {
			if p.c.RunState.Active() && !live(i) {
				return "fixed while a run is going"
			}
			if more != nil {
				return more()
			}
			return ""
		}
	}
	layersFixed := func() string {
		if why := notPrivate(); why != "" {
			return why
		}
		if pr.V().Layers != nil {
			return pr.V().Label + " noises layers " + pr.V().Layers.String()
		}
		return ""
	}
	return []field{
		fMethod: {name: "method", value: func() string { return pr.V().Label },
			step: func(d int) error {
				pr.Variant = (pr.Variant + d + len(Variants)) % len(Variants)
				return nil
			}, locked: duringRun(fMethod, nil)},
		fData: {name: "data", value: func() string { return pr.Data },
			step:   func(int) error { return fmt.Errorf("data: choose it with dpscope --data") },
			locked: duringRun(fData, nil)},
		fEpsilon: {name: "ε target", value: func() string { return fmtEps(pr.Epsilon) },
			step: func(d int) error { pr.Epsilon = round3(scaleStep(pr.Epsilon, 1.25, d)); return nil },
			set: func(s string) (err error) {
				v, err := parsePositive("ε", s)
				if err == nil {
					pr.Epsilon = v
				}
				return err
			}, locked: duringRun(fEpsilon, notPrivate), hint: p.epsilonHint},
		fDelta: {name: "δ", value: func() string { return strconv.FormatFloat(pr.Delta, 'g', 3, 64) },
			step: func(d int) error {
				v := scaleStep(pr.Delta, 10, d)
				if v >= 1 {
					return fmt.Errorf("δ must stay below 1")
				}
				pr.Delta = v
				return nil
			},
			set: func(s string) error {
				v, err := parsePositive("δ", s)
				if err == nil && v >= 1 {
					err = fmt.Errorf("δ is %v, must be in (0, 1)", v)
				}
				if err == nil {
					pr.Delta = v
				}
				return err
			}, locked: duringRun(fDelta, notPrivate)},
		fSigma: {name: "σ noise", value: func() string { return strconv.FormatFloat(pr.Sigma, 'g', 4, 64) },
			step: func(d int) error { pr.Sigma = round3(scaleStep(pr.Sigma, 1.1, d)); return nil },
			set: func(s string) error {
				v, err := parsePositive("σ", s)
				if err == nil {
					pr.Sigma = v
				}
				return err
			}, locked: duringRun(fSigma, notPrivate), hint: p.sigmaHint},
		fClip: {name: "C clip", value: func() string { return strconv.FormatFloat(pr.Clip, 'g', 3, 64) },
			step: func(d int) error { pr.Clip = round3(scaleStep(pr.Clip, 2, d)); return nil },
			set: func(s string) error {
				v, err := parsePositive("C", s)
				if err == nil {
					pr.Clip = v
				}
				return err
			}, locked: duringRun(fClip, notPrivate)},
		fLayerFrom: {name: "noise from", value: func() string { return strconv.Itoa(pr.EffectiveLayers().First) },
			step: func(d int) error {
				f := pr.Layers.First + d
				if f < 1 || f > pr.Layers.Last {
					return fmt.Errorf("first noised layer must be in 1..%d", pr.Layers.Last)
				}
				pr.Layers.First = f
				return nil
			}, locked: duringRun(fLayerFrom, layersFixed)},
		fLayerTo: {name: "noise to", value: func() string { return strconv.Itoa(pr.EffectiveLayers().Last) },
			step: func(d int) error {
				l := pr.Layers.Last + d
				if l < pr.Layers.First || l > NumLayers {
					return fmt.Errorf("last noised layer must be in %d..%d", pr.Layers.First, NumLayers)
				}
				pr.Layers.Last = l
				return nil
			}, locked: duringRun(fLayerTo, layersFixed), render: p.layerStrip},
		fRate: {name: "q sampling", value: func() string { return strconv.FormatFloat(pr.SampleRate, 'g', 3, 64) },
			step: func(d int) error {
				v := round3(scaleStep(pr.SampleRate, 1.25, d))
				if v > 1 {
					return fmt.Errorf("q must stay ≤ 1")
				}
				pr.SampleRate = v
				return nil
			},
			set: func(s string) error {
				v, err := parsePositive("q", s)
				if err == nil && v > 1 {
					err = fmt.Errorf("q is %v, must be in (0, 1]", v)
				}
				if err == nil {
					pr.SampleRate = v
				}
				return err
			}, locked: duringRun(fRate, nil), hint: func() string { return fmt.Sprintf("%d steps", pr.Steps()) }},
		fEpochs1: {name: "epochs st.1", value: func() string { return strconv.Itoa(pr.Epochs[0]) },
			step: func(d int) error { return stepEpochs(&pr.Epochs[0], d) }, set: func(s string) error { return setEpochs(&pr.Epochs[0], s) },
			locked: duringRun(fEpochs1, nil)},
		fEpochs2: {name: "epochs st.2", value: func() string { return strconv.Itoa(pr.Epochs[1]) },
			step: func(d int) error { return stepEpochs(&pr.Epochs[1], d) }, set: func(s string) error { return setEpochs(&pr.Epochs[1], s) },
			locked: duringRun(fEpochs2, nil)},
		fAccountant: {name: "accountant", value: func() string { return strings.ToUpper(pr.Accountant) },
			step: func(int) error {
				if pr.Accountant == "rdp" {
					pr.Accountant = "pld"
				} else {
					pr.Accountant = "rdp"
				}
				return nil
			}, locked: duringRun(fAccountant, notPrivate)},
		fSeed: {name: "seed", value: func() string { return strconv.FormatUint(pr.Seed, 10) },
			step: func(d int) error {
				if d < 0 && pr.Seed == 0 {
					return nil
				}
				pr.Seed = uint64(int64(pr.Seed) + int64(d))
				return nil
			},
			set: func(s string) error {
				v, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					return fmt.Errorf("seed is %q, must be a whole number ≥ 0", s)
				}
				pr.Seed = v
				return nil
			}, locked: duringRun(fSeed, nil)},
	}
}

func stepEpochs(e *int, d int) error {
	if *e+d < 0 {
		return fmt.Errorf("epochs must be ≥ 0")
	}
	*e += d
	return nil
}

func setEpochs(e *int, s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return fmt.Errorf("epochs is %q, must be a whole number ≥ 0", s)
	}
	*e = v
	return nil
}

// layerStrip draws the six layers, encoder 1–3 and decoder 4–6, with the
// noised ones lit (a filled glyph, so it reads without colour too).
func (p *runPane) layerStrip(int) string {
	st := p.c.Styles
	r := p.params.EffectiveLayers()
	var b strings.Builder
	for l := 1; l <= NumLayers; l++ {
		if l == 4 {
			b.WriteString(st.Muted.Render("│"))
		}
		if p.params.Private() && r.Contains(l) {
			b.WriteString(st.LayerOn.Render(strconv.Itoa(l) + "■"))
		} else {
			b.WriteString(st.LayerOff.Render(strconv.Itoa(l) + "□"))
		}
	}
	return b.String()
}

// layerLabel describes the noised range in words.
func layerLabel(r core.LayerRange) string {
	switch {
	case r.First == 1 && r.Last == NumLayers:
		return "whole network"
	case r.Last <= 3:
		return "encoder " + r.String()
	case r.First >= 4:
		return "decoder " + r.String()
	}
	return "layers " + r.String()
}
