package tui

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// optField is a form field made from a method's OptionSpec: one for each
// option of each registered method whose family has no form of its own
// (ownForm), shown only while that method is picked.
type optField struct {
	method string
	spec   core.OptionSpec
}

// ownForm reports whether family f has hand-made fields in runFields; the
// options of any other family's methods become generic fields.
func ownForm(f Family) bool { return f == familyDPSGD || f == familyDenoising || f == familyFederated }

// genericOptions lists the optFields of every registered method without a
// form of its own, in method-list order.
func genericOptions() []optField {
	var out []optField
	for _, m := range core.Methods() {
		if ownForm(m.Family) {
			continue
		}
		for _, s := range m.Options {
			out = append(out, optField{method: m.Name, spec: s})
		}
	}
	return out
}

// optionText is the value of an option field as typed, or its default.
func (pr *runParams) optionText(s core.OptionSpec) string {
	if v, ok := pr.Opts[s.Key]; ok {
		return v
	}
	return s.DefaultText()
}

// setOption checks text against s (core.ParseOptions) and keeps it.
func (pr *runParams) setOption(s core.OptionSpec, text string) error {
	if _, err := core.ParseOptions([]core.OptionSpec{s}, map[string]string{s.Key: text}); err != nil {
		return err
	}
	if pr.Opts == nil {
		pr.Opts = map[string]string{}
	}
	pr.Opts[s.Key] = text
	return nil
}

// stepOption moves an option one step: the next choice, the other bool,
// ±1 for an int, ×/÷ 1.25 for a float, within the spec's range.
func (pr *runParams) stepOption(s core.OptionSpec, d int) error {
	cur := pr.optionText(s)
	switch s.Kind {
	case core.KindChoice:
		return pr.setOption(s, cycle(s.Choices, cur, d))
	case core.KindBool:
		b, _ := strconv.ParseBool(cur)
		return pr.setOption(s, strconv.FormatBool(!b))
	case core.KindInt:
		n, _ := strconv.Atoi(cur)
		if err := pr.setOption(s, strconv.Itoa(n+d)); err != nil {
			return fmt.Errorf("%s must be %s", s.Key, s.RangeText())
		}
		return nil
	case core.KindFloat:
		f, _ := strconv.ParseFloat(cur, 64)
		if f == 0 {
			f = math.Max(s.Min, 1e-3)
		}
		if err := pr.setOption(s, fmtFloat(round3(scaleStep(f, 1.25, d)))); err != nil {
			return fmt.Errorf("%s must be %s", s.Key, s.RangeText())
		}
		return nil
	}
	return fmt.Errorf("%s: type a value", s.Key)
}

// optionFields builds the generic fields of opts over the pane's params.
func (p *runPane) optionFields(opts []optField) []field {
	pr := &p.params
	fields := make([]field, len(opts))
	for i, o := range opts {
		s := o.spec
		fields[i] = field{
			name: s.Key,
			value: func() string {
				if v := pr.optionText(s); v != "" {
					return v
				}
				return "auto"
			},
			step:  func(d int) error { return pr.stepOption(s, d) },
			set:   func(text string) error { return pr.setOption(s, text) },
			hint:  func() string { return s.RangeText() },
			shown: func() bool { return pr.V().Method == o.method },
			live:  s.Live,
			patch: func() core.Patch {
				return core.Patch{Options: map[string]string{s.Key: pr.optionText(s)}}
			},
		}
	}
	return fields
}
