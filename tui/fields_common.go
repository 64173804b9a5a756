package tui

import (
	"fmt"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// commonFields sets the fields every method has: the method, the data, ε, δ
// and the seed, and the clipping bound C of the DP-SGD and federated
// families.
func (p *runPane) commonFields(fs []field) {
	pr := &p.params
	fs[fMethod] = field{name: "method", value: func() string { return pr.V().Label }, fit: keepQualifier,
		step: func(d int) error {
			pr.SetVariant((pr.Variant + d + len(variants())) % len(variants()))
			return nil
		}}
	fs[fData] = field{name: "data", value: func() string {
		if pr.V().Family() == familyDenoising {
			return pr.ManifoldData()
		}
		return pr.Data
	},
		step: func(int) error {
			if pr.V().Family() == familyDenoising {
				return fmt.Errorf("data: pick a manifold, or \"data\" for %s, with the manifold control", pr.Data)
			}
			return fmt.Errorf("data: press d to pick a data set (built-in or a folder)")
		}}
	fs[fEpsilon] = field{name: "ε target", value: func() string { return fmtEps(*pr.epsilon()) },
		step: func(d int) error { e := pr.epsilon(); *e = round3(scaleStep(*e, 1.25, d)); return nil },
		set: func(s string) (err error) {
			v, err := parsePositive("ε", s)
			if err == nil {
				*pr.epsilon() = v
			}
			return err
		}, locked: p.notPrivate, hint: p.epsilonHint, live: true, patch: func() core.Patch { v := *pr.epsilon(); return core.Patch{Epsilon: &v} }}
	fs[fDelta] = field{name: "δ", value: func() string { return strconv.FormatFloat(*pr.delta(), 'g', 3, 64) },
		step: func(d int) error {
			v := scaleStep(*pr.delta(), 10, d)
			if v >= 1 {
				return fmt.Errorf("δ must stay below 1")
			}
			*pr.delta() = v
			return nil
		},
		set: func(s string) error { return setFraction("δ", pr.delta(), s) }, locked: p.notPrivate, hint: func() string {
			if pr.V().Family() == familyDenoising && pr.V().Mode == core.ModePaper && pr.Manifold.Delta != paperDelta {
				return fmt.Sprintf("paper used %g", paperDelta)
			}
			return ""
		}, live: true, patch: func() core.Patch { v := *pr.delta(); return core.Patch{Delta: &v} }}
	fs[fClip] = field{name: "C clip", value: func() string { return strconv.FormatFloat(*pr.clip(), 'g', 3, 64) },
		step: func(d int) error { c := pr.clip(); *c = round3(scaleStep(*c, 2, d)); return nil },
		set: func(s string) error {
			v, err := parsePositive("C", s)
			if err == nil {
				*pr.clip() = v
			}
			return err
		}, locked: p.notPrivate, shown: func() bool {
			f := pr.V().Family()
			return f == familyFederated || (f == familyDPSGD && pr.V().Desc().Needs.Has(core.NeedsClip))
		}, live: true, patch: func() core.Patch { v := *pr.clip(); return core.Patch{Clip: &v} }}
	fs[fSeed] = field{name: "seed", value: func() string { return strconv.FormatUint(pr.Seed, 10) },
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
		}}
}
