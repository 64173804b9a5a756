package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// Field indices of the Run form.
const (
	fMethod = iota
	fData
	fManifold
	fDim
	fRefs
	fQueries
	fNoise
	fIters
	fTheta
	fBandwidth
	fIntrinsic
	fClients
	fRounds
	fLocalEpochs
	fSplit
	fProtocol
	fEpsilon
	fDelta
	fSigma
	fFedSigma
	fClip
	fLayerFrom
	fLayerTo
	fRate
	fEpochs1
	fEpochs2
	fAccountant
	fSeed
)

// live reports whether a field may change during a run of family f (as a
// core.Patch): DP-MD takes ε, δ, T, θ, h and d between iterations (its
// budget left is re-split; h and d recompute the local PCA); the federated
// engines take clients, ε, δ, σ and C between rounds.
func live(f Family, i int) bool {
	switch f {
	case FamilyManifold:
		switch i {
		case fEpsilon, fDelta, fIters, fTheta, fBandwidth, fIntrinsic:
			return true
		}
		return false
	case FamilyFed:
		switch i {
		case fClients, fEpsilon, fDelta, fFedSigma, fClip:
			return true
		}
		return false
	}
	switch i {
	case fEpsilon, fDelta, fSigma, fClip, fLayerFrom, fLayerTo:
		return true
	}
	return false
}

// shown reports whether field i is a control of family f (with the
// settings of pr).
func shown(pr Params, i int) bool {
	f := pr.V().Family()
	switch i {
	case fMethod, fData, fEpsilon, fDelta, fSeed:
		return true
	case fManifold, fIters, fTheta, fBandwidth, fIntrinsic:
		return f == FamilyManifold
	case fDim, fRefs, fQueries, fNoise:
		return f == FamilyManifold && pr.Manifold.Synthetic()
	case fClients, fRounds, fLocalEpochs, fSplit, fFedSigma:
		return f == FamilyFed
	case fProtocol:
		_, ok := pr.V().desc.Option("protocol")
		return ok
	case fClip:
		return f == FamilyDCAN || f == FamilyFed
	}
	return f == FamilyDCAN // σ, layers, q, epochs, accountant
}

// stepInt steps *v by d within [lo, hi].
func stepInt(name string, v *int, d, lo, hi int) error {
	n := *v + d
	if n < lo || n > hi {
		return fmt.Errorf("%s must be in %d..%d", name, lo, hi)
	}
	*v = n
	return nil
}

// setInt sets *v from a typed value within [lo, hi].
func setInt(name string, v *int, s string, lo, hi int) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("%s is %q, must be a whole number in %d..%d", name, s, lo, hi)
	}
	*v = n
	return nil
}

// scaleInt multiplies or divides *v by f (rounding, at least by one).
func scaleInt(name string, v *int, f float64, d, lo, hi int) error {
	n := int(math.Round(scaleStep(float64(*v), f, d)))
	if n == *v {
		n += d
	}
	if n < lo || n > hi {
		return fmt.Errorf("%s must be in %d..%d", name, lo, hi)
	}
	*v = n
	return nil
}

// cycle steps through choices from cur.
func cycle(choices []string, cur string, d int) string {
	i := 0
	for j, c := range choices {
		if c == cur {
			i = j
		}
	}
	return choices[(i+d+len(choices))%len(choices)]
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
			return "no noise in " + pr.V().Label
		}
		return ""
	}
	duringRun := func(i int, more func() string) func() string {
		return func() string {
			if p.c.RunState.Active() && !live(pr.V().Family(), i) {
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
	fields := []field{
		fMethod: {name: "method", value: func() string { return pr.V().Label },
			step: func(d int) error {
				pr.SetVariant((pr.Variant + d + len(Variants())) % len(Variants()))
				return nil
			}, locked: duringRun(fMethod, nil)},
		fData: {name: "data", value: func() string {
			if pr.V().Family() == FamilyManifold {
				return pr.ManifoldData()
			}
			return pr.Data
		},
			step: func(int) error {
				if pr.V().Family() == FamilyManifold {
					return fmt.Errorf("data: pick a manifold, or \"data\" for %s, with the manifold control", pr.Data)
				}
				return fmt.Errorf("data: choose it with dpscope --data")
			},
			locked: duringRun(fData, nil)},
		fManifold: {name: "manifold", value: func() string { return pr.Manifold.Kind },
			step: func(d int) error {
				pr.Manifold.Kind = cycle(manifoldKinds(pr.V()), pr.Manifold.Kind, d)
				return nil
			}, locked: duringRun(fManifold, nil), hint: func() string {
				if !pr.Manifold.Synthetic() {
					return "the data set"
				}
				return ""
			}},
		fDim: {name: "D ambient", value: func() string { return strconv.Itoa(pr.Manifold.D) },
			step: func(d int) error { return scaleInt("D", &pr.Manifold.D, 2, d, 2, 10000) },
			set:  func(s string) error { return setInt("D", &pr.Manifold.D, s, 2, 10000) }, locked: duringRun(fDim, nil)},
		fRefs: {name: "n refs", value: func() string { return strconv.Itoa(pr.Manifold.N) },
			step: func(d int) error { return scaleInt("n", &pr.Manifold.N, 2, d, 10, 1_000_000) },
			set:  func(s string) error { return setInt("n", &pr.Manifold.N, s, 10, 1_000_000) }, locked: duringRun(fRefs, nil)},
		fQueries: {name: "queries", value: func() string { return strconv.Itoa(pr.Manifold.Queries) },
			step: func(d int) error { return scaleInt("queries", &pr.Manifold.Queries, 2, d, 1, 100_000) },
			set:  func(s string) error { return setInt("queries", &pr.Manifold.Queries, s, 1, 100_000) }, locked: duringRun(fQueries, nil)},
		fNoise: {name: "data noise", value: func() string { return strconv.FormatFloat(pr.Manifold.Noise, 'g', 3, 64) },
			step: func(d int) error { pr.Manifold.Noise = round3(scaleStep(pr.Manifold.Noise, 1.25, d)); return nil },
			set: func(s string) error {
				v, err := parsePositive("data noise σ", s)
				if err == nil {
					pr.Manifold.Noise = v
				}
				return err
			}, locked: duringRun(fNoise, nil), hint: func() string { return "σ of the points" }},
		fIters: {name: "T iters", value: func() string { return strconv.Itoa(pr.Manifold.T) },
			step: func(d int) error { return stepInt("T", &pr.Manifold.T, d, 1, 1000) },
			set:  func(s string) error { return setInt("T", &pr.Manifold.T, s, 1, 1000) }, locked: duringRun(fIters, nil)},
		fTheta: {name: "θ projector", value: func() string { return strconv.FormatFloat(pr.Manifold.Theta, 'g', 3, 64) },
			step: func(d int) error {
				v := math.Round((pr.Manifold.Theta+0.1*float64(d))*100) / 100
				if v <= 0 || v >= 1 {
					return fmt.Errorf("θ must stay in (0, 1)")
				}
				pr.Manifold.Theta = v
				return nil
			},
			set: func(s string) error {
				v, err := parsePositive("θ", s)
				if err == nil && v >= 1 {
					err = fmt.Errorf("θ is %v, must be in (0, 1)", v)
				}
				if err == nil {
					pr.Manifold.Theta = v
				}
				return err
			}, locked: duringRun(fTheta, nil), hint: func() string { return "share of ε" }},
		fBandwidth: {name: "h bandwidth", value: func() string {
			if pr.Manifold.H == 0 {
				return "auto"
			}
			return strconv.FormatFloat(pr.Manifold.H, 'g', 3, 64)
		},
			step: func(d int) error {
				if pr.Manifold.H == 0 {
					return fmt.Errorf("h is auto (the engine's rule): type a value to set it")
				}
				pr.Manifold.H = round3(scaleStep(pr.Manifold.H, 1.25, d))
				return nil
			},
			set: func(s string) error {
				if s == "auto" || s == "0" {
					if p.c.RunState.Active() {
						return fmt.Errorf("h cannot go back to auto during a run: type a value > 0")
					}
					pr.Manifold.H = 0
					return nil
				}
				v, err := parsePositive("h", s)
				if err == nil {
					pr.Manifold.H = v
				}
				return err
			}, locked: duringRun(fBandwidth, nil), hint: func() string {
				if p.c.RunState.Active() {
					return "live: local PCA redone"
				}
				return ""
			}},
		fIntrinsic: {name: "d intrinsic", value: func() string {
			if pr.Manifold.Dim == 0 {
				return "auto"
			}
			return strconv.Itoa(pr.Manifold.Dim)
		},
			step: func(d int) error {
				lo := 0
				if p.c.RunState.Active() {
					lo = 1
				}
				if pr.Manifold.Dim == 0 && d < 0 {
					return fmt.Errorf("d is auto already")
				}
				return stepInt("d", &pr.Manifold.Dim, d, lo, 10000)
			},
			set: func(s string) error {
				if s == "auto" {
					s = "0"
				}
				lo := 0
				if p.c.RunState.Active() {
					lo = 1
				}
				return setInt("d", &pr.Manifold.Dim, s, lo, 10000)
			}, locked: duringRun(fIntrinsic, nil), hint: func() string {
				if p.c.RunState.Active() {
					return "live: local PCA redone"
				}
				return ""
			}},
		fClients: {name: "clients K", value: func() string { return strconv.Itoa(pr.Fed.Clients) },
			step: func(d int) error { return stepInt("clients", &pr.Fed.Clients, d, 1, 10000) },
			set:  func(s string) error { return setInt("clients", &pr.Fed.Clients, s, 1, 10000) }, locked: duringRun(fClients, nil),
			hint: func() string {
				if p.c.RunState.Active() {
					return "live"
				}
				return ""
			}},
		fRounds: {name: "rounds", value: func() string { return strconv.Itoa(pr.Fed.Rounds) },
			step: func(d int) error { return stepInt("rounds", &pr.Fed.Rounds, d, 1, 10000) },
			set:  func(s string) error { return setInt("rounds", &pr.Fed.Rounds, s, 1, 10000) }, locked: duringRun(fRounds, nil)},
		fLocalEpochs: {name: "local ep.", value: func() string { return strconv.Itoa(pr.Fed.LocalEpochs) },
			step: func(d int) error { return stepInt("local epochs", &pr.Fed.LocalEpochs, d, 1, 1000) },
			set:  func(s string) error { return setInt("local epochs", &pr.Fed.LocalEpochs, s, 1, 1000) }, locked: duringRun(fLocalEpochs, nil)},
		fSplit: {name: "split", value: func() string { return pr.Fed.Split },
			step: func(d int) error { pr.Fed.Split = cycle(Splits, pr.Fed.Split, d); return nil },
			set: func(s string) error {
				if _, err := datasets.ParseSplit(s); err != nil {
					return err
				}
				pr.Fed.Split = s
				return nil
			}, locked: duringRun(fSplit, nil)},
		fProtocol: {name: "DR protocol", value: func() string { return pr.Fed.Protocol },
			step:   func(d int) error { pr.Fed.Protocol = cycle(protocols(pr.V()), pr.Fed.Protocol, d); return nil },
			locked: duringRun(fProtocol, nil)},
		fEpsilon: {name: "ε target", value: func() string { return fmtEps(*pr.epsilon()) },
			step: func(d int) error { e := pr.epsilon(); *e = round3(scaleStep(*e, 1.25, d)); return nil },
			set: func(s string) (err error) {
				v, err := parsePositive("ε", s)
				if err == nil {
					*pr.epsilon() = v
				}
				return err
			}, locked: duringRun(fEpsilon, notPrivate), hint: p.epsilonHint},
		fDelta: {name: "δ", value: func() string { return strconv.FormatFloat(*pr.delta(), 'g', 3, 64) },
			step: func(d int) error {
				v := scaleStep(*pr.delta(), 10, d)
				if v >= 1 {
					return fmt.Errorf("δ must stay below 1")
				}
				*pr.delta() = v
				return nil
			},
			set: func(s string) error {
				v, err := parsePositive("δ", s)
				if err == nil && v >= 1 {
					err = fmt.Errorf("δ is %v, must be in (0, 1)", v)
				}
				if err == nil {
					*pr.delta() = v
				}
				return err
			}, locked: duringRun(fDelta, notPrivate), hint: func() string {
				if pr.V().Family() == FamilyManifold && pr.V().Mode == core.ModePaper && pr.Manifold.Delta != PaperDelta {
					return fmt.Sprintf("paper used %g", PaperDelta)
				}
				return ""
			}},
		fSigma: {name: "σ noise", value: func() string { return strconv.FormatFloat(pr.Sigma, 'g', 4, 64) },
			step: func(d int) error { pr.Sigma = round3(scaleStep(pr.Sigma, 1.1, d)); return nil },
			set: func(s string) error {
				v, err := parsePositive("σ", s)
				if err == nil {
					pr.Sigma = v
				}
				return err
			}, locked: duringRun(fSigma, notPrivate), hint: p.sigmaHint},
		fFedSigma: {name: "σ noise", value: func() string {
			if pr.Fed.Sigma == 0 {
				return "auto"
			}
			return strconv.FormatFloat(pr.Fed.Sigma, 'g', 4, 64)
		},
			step: func(d int) error {
				if pr.Fed.Sigma == 0 {
					pr.Fed.Sigma = 1
					return nil
				}
				pr.Fed.Sigma = round3(scaleStep(pr.Fed.Sigma, 1.1, d))
				return nil
			},
			set: func(s string) error {
				if s == "auto" || s == "0" {
					pr.Fed.Sigma = 0
					return nil
				}
				v, err := parsePositive("σ", s)
				if err == nil {
					pr.Fed.Sigma = v
				}
				return err
			}, locked: duringRun(fFedSigma, notPrivate), hint: func() string {
				if pr.Private() && pr.Fed.Sigma == 0 {
					return "from ε"
				}
				return ""
			}},
		fClip: {name: "C clip", value: func() string { return strconv.FormatFloat(*pr.clip(), 'g', 3, 64) },
			step: func(d int) error { c := pr.clip(); *c = round3(scaleStep(*c, 2, d)); return nil },
			set: func(s string) error {
				v, err := parsePositive("C", s)
				if err == nil {
					*pr.clip() = v
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
	for i := range fields {
		fields[i].hidden = func() bool { return !shown(*pr, i) }
	}
	return fields
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
