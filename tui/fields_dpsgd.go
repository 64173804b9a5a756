package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
)

// dpsgdFields sets the DP-SGD family's fields: σ, the noised layers, the
// sampling rate, the epochs per stage and the accountant.
func (p *runPane) dpsgdFields(fs []field) {
	pr := &p.params
	// A DP-SGD field is shown for a method that reads its Config field
	// (core.Method.Needs): the redesigned sound DCAN sets its own schedule.
	needs := func(n core.Needs) func() bool {
		return func() bool { return pr.V().Family() == familyDPSGD && pr.V().Desc().Needs.Has(n) }
	}
	layersPatch := func() core.Patch { l := pr.EffectiveLayers(); return core.Patch{Layers: &l} }
	fs[fSigma] = field{name: "σ noise", value: func() string { return strconv.FormatFloat(pr.Sigma, 'g', 4, 64) },
		step: func(d int) error { pr.Sigma = round3(scaleStep(pr.Sigma, 1.1, d)); return nil },
		set: func(s string) error {
			v, err := parsePositive("σ", s)
			if err == nil {
				pr.Sigma = v
			}
			return err
		}, locked: p.notPrivate, hint: p.sigmaHint, shown: needs(core.NeedsSigma), live: true, patch: func() core.Patch { v := pr.Sigma; return core.Patch{Sigma: &v} }}
	fs[fLayerFrom] = field{name: "noise from", value: func() string { return strconv.Itoa(pr.EffectiveLayers().First) },
		step: func(d int) error {
			f := pr.Layers.First + d
			if f < 1 || f > pr.Layers.Last {
				return fmt.Errorf("first noised layer must be in 1..%d", pr.Layers.Last)
			}
			pr.Layers.First = f
			return nil
		}, locked: p.layersFixed, shown: needs(core.NeedsLayers), live: true, patch: layersPatch}
	fs[fLayerTo] = field{name: "noise to", value: func() string { return strconv.Itoa(pr.EffectiveLayers().Last) },
		step: func(d int) error {
			l := pr.Layers.Last + d
			if l < pr.Layers.First || l > numLayers {
				return fmt.Errorf("last noised layer must be in %d..%d", pr.Layers.First, numLayers)
			}
			pr.Layers.Last = l
			return nil
		}, locked: p.layersFixed, render: p.layerStrip, shown: needs(core.NeedsLayers), live: true, patch: layersPatch}
	fs[fRate] = field{name: "q sampling", value: func() string { return strconv.FormatFloat(pr.SampleRate, 'g', 3, 64) },
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
		}, hint: func() string { return fmt.Sprintf("%d steps", pr.Steps()) }, shown: needs(core.NeedsSampleRate)}
	fs[fEpochs1] = field{name: "epochs st.1", value: func() string { return strconv.Itoa(pr.Epochs[0]) },
		step: func(d int) error { return stepEpochs(&pr.Epochs[0], d) }, set: func(s string) error { return setEpochs(&pr.Epochs[0], s) }, shown: needs(core.NeedsEpochs)}
	fs[fEpochs2] = field{name: "epochs st.2", value: func() string { return strconv.Itoa(pr.Epochs[1]) },
		step: func(d int) error { return stepEpochs(&pr.Epochs[1], d) }, set: func(s string) error { return setEpochs(&pr.Epochs[1], s) }, shown: needs(core.NeedsEpochs)}
	fs[fAccountant] = field{name: "accountant", value: func() string { return strings.ToUpper(pr.Accountant) },
		step: func(int) error {
			if pr.Accountant == "rdp" {
				pr.Accountant = "pld"
			} else {
				pr.Accountant = "rdp"
			}
			return nil
		}, locked: p.notPrivate, shown: needs(core.NeedsAccountant)}
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
	for l := 1; l <= numLayers; l++ {
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
	case r.First == 1 && r.Last == numLayers:
		return "whole network"
	case r.Last <= 3:
		return "encoder " + r.String()
	case r.First >= 4:
		return "decoder " + r.String()
	}
	return "layers " + r.String()
}
