package tui

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// denoiseFields sets the denoising family's fields: the manifold (or the
// data set), its synthetic sizes and noise, and the live T, θ, h and d.
func (p *runPane) denoiseFields(fs []field) {
	pr := &p.params
	isDenoising := func() bool { return pr.V().Family() == familyDenoising }
	synthetic := func() bool { return isDenoising() && pr.Manifold.Synthetic() }
	fs[fManifold] = field{name: "manifold", value: func() string { return pr.Manifold.Kind },
		step: func(d int) error {
			pr.Manifold.Kind = cycle(manifoldKinds(pr.V()), pr.Manifold.Kind, d)
			return nil
		}, hint: func() string {
			if !pr.Manifold.Synthetic() {
				return "the data set"
			}
			return ""
		}, shown: func() bool { return pr.V().Family() == familyDenoising }}
	fs[fDim] = field{name: "D ambient", value: func() string { return strconv.Itoa(pr.Manifold.D) },
		step: func(d int) error { return scaleInt("D", &pr.Manifold.D, 2, d, 2, 10000) },
		set:  func(s string) error { return setInt("D", &pr.Manifold.D, s, 2, 10000) }, shown: synthetic}
	fs[fRefs] = field{name: "n refs", value: func() string { return strconv.Itoa(pr.Manifold.N) },
		step: func(d int) error { return scaleInt("n", &pr.Manifold.N, 2, d, 10, 1_000_000) },
		set:  func(s string) error { return setInt("n", &pr.Manifold.N, s, 10, 1_000_000) }, shown: synthetic}
	fs[fQueries] = field{name: "queries", value: func() string { return strconv.Itoa(pr.Manifold.Queries) },
		step: func(d int) error { return scaleInt("queries", &pr.Manifold.Queries, 2, d, 1, 100_000) },
		set:  func(s string) error { return setInt("queries", &pr.Manifold.Queries, s, 1, 100_000) }, shown: synthetic}
	fs[fNoise] = field{name: "data noise", value: func() string { return strconv.FormatFloat(pr.Manifold.Noise, 'g', 3, 64) },
		step: func(d int) error { pr.Manifold.Noise = round3(scaleStep(pr.Manifold.Noise, 1.25, d)); return nil },
		set: func(s string) error {
			v, err := parsePositive("data noise σ", s)
			if err == nil {
				pr.Manifold.Noise = v
			}
			return err
		}, hint: func() string { return "σ of the points" }, shown: synthetic}
	fs[fIters] = field{name: "T iters", value: func() string { return strconv.Itoa(pr.Manifold.T) },
		step: func(d int) error { return stepInt("T", &pr.Manifold.T, d, 1, 1000) },
		set:  func(s string) error { return setInt("T", &pr.Manifold.T, s, 1, 1000) }, shown: isDenoising, live: true, patch: func() core.Patch { return core.Patch{Options: map[string]string{"T": strconv.Itoa(pr.Manifold.T)}} }}
	fs[fTheta] = field{name: "θ projector", value: func() string { return strconv.FormatFloat(pr.Manifold.Theta, 'g', 3, 64) },
		step: func(d int) error {
			v := math.Round((pr.Manifold.Theta+0.1*float64(d))*100) / 100
			if v <= 0 || v >= 1 {
				return fmt.Errorf("θ must stay in (0, 1)")
			}
			pr.Manifold.Theta = v
			return nil
		},
		set: func(s string) error { return setFraction("θ", &pr.Manifold.Theta, s) }, hint: func() string { return "share of ε" }, shown: isDenoising, live: true, patch: func() core.Patch { return core.Patch{Options: map[string]string{"theta": fmtFloat(pr.Manifold.Theta)}} }}
	fs[fBandwidth] = field{name: "h bandwidth", value: func() string {
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
		}, hint: func() string {
			if p.c.RunState.Active() {
				return "live: local PCA redone"
			}
			return ""
		}, shown: isDenoising, live: true, patch: func() core.Patch { return core.Patch{Options: map[string]string{"h": fmtFloat(pr.Manifold.H)}} }}
	fs[fIntrinsic] = field{name: "d intrinsic", value: func() string {
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
		}, hint: func() string {
			if p.c.RunState.Active() {
				return "live: local PCA redone"
			}
			return ""
		}, shown: isDenoising, live: true, patch: func() core.Patch { return core.Patch{Options: map[string]string{"d": strconv.Itoa(pr.Manifold.Dim)}} }}
}
