package core

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is the type of a method option's value.
type Kind string

// The option kinds.
const (
	KindInt    Kind = "int"
	KindFloat  Kind = "float"
	KindBool   Kind = "bool"
	KindString Kind = "string" // free text the method parses itself (e.g. a split spec)
	KindChoice Kind = "choice" // one of Choices
)

// OptionSpec declares one of a method's own settings, once: the engine
// parses Config.Options with it, Control checks live patches with it, and
// the faces build their help, validation and form fields from it.
type OptionSpec struct {
	// Key is the name in Config.Options, `--opt KEY=VALUE` and TOML.
	Key string
	// Aliases are other accepted spellings of Key (e.g. "CP" for "C_P").
	Aliases []string
	Kind    Kind
	// Default is the value used when the key is absent: an int, float64,
	// bool or string matching Kind; nil when the method derives it (from
	// the data or another setting, as Doc says).
	Default any
	// Min and Max bound an int or float value, inclusive, when Min < Max
	// (use math.Inf for an open end).
	Min, Max float64
	// Choices are the accepted values of a KindChoice option.
	Choices []string
	// Doc says what the option does, in one line.
	Doc string
	// Live reports that a run takes the option mid-run (Patch.Options).
	Live bool
}

// Bounded reports whether Min and Max bound the value.
func (s OptionSpec) Bounded() bool { return s.Min < s.Max }

// DefaultText renders Default as `--opt` would spell it ("" when the
// method derives it).
func (s OptionSpec) DefaultText() string {
	switch d := s.Default.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(d, 'g', -1, 64)
	default:
		return fmt.Sprint(d)
	}
}

// RangeText renders the accepted values: "1..100", "≥ 0", "swap|fisher-yates",
// "true|false", or "" for free text.
func (s OptionSpec) RangeText() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case s.Kind == KindChoice:
		return strings.Join(s.Choices, "|")
	case s.Kind == KindBool:
		return "true|false"
	case !s.Bounded():
		return ""
	case math.IsInf(s.Max, 1):
		return "≥ " + f(s.Min)
	case math.IsInf(s.Min, -1):
		return "≤ " + f(s.Max)
	}
	return f(s.Min) + ".." + f(s.Max)
}

// MarshalJSON writes the spec for `dpscope methods --json`: an open end of
// the range is omitted (JSON has no infinity).
func (s OptionSpec) MarshalJSON() ([]byte, error) {
	type out struct {
		Key     string   `json:"key"`
		Aliases []string `json:"aliases,omitempty"`
		Kind    Kind     `json:"kind"`
		Default any      `json:"default"`
		Min     *float64 `json:"min,omitempty"`
		Max     *float64 `json:"max,omitempty"`
		Choices []string `json:"choices,omitempty"`
		Live    bool     `json:"live"`
		Doc     string   `json:"doc"`
	}
	o := out{Key: s.Key, Aliases: s.Aliases, Kind: s.Kind, Default: s.Default, Choices: s.Choices, Live: s.Live, Doc: s.Doc}
	if s.Bounded() {
		if !math.IsInf(s.Min, 0) {
			o.Min = &s.Min
		}
		if !math.IsInf(s.Max, 0) {
			o.Max = &s.Max
		}
	}
	return json.Marshal(o)
}

// check returns why the spec is malformed (a programming error), or nil.
func (s OptionSpec) check() error {
	if s.Key == "" || s.Doc == "" {
		return fmt.Errorf("option %q has an empty key or doc", s.Key)
	}
	if s.Kind == KindChoice && len(s.Choices) == 0 {
		return fmt.Errorf("option %s is a choice without choices", s.Key)
	}
	if s.Default == nil {
		return nil
	}
	if _, err := s.parse(s.DefaultText()); err != nil {
		return fmt.Errorf("option %s: default %v: %w", s.Key, s.Default, err)
	}
	return nil
}

// parse reads one value of the spec's kind and checks its range.
func (s OptionSpec) parse(text string) (any, error) {
	v := strings.TrimSpace(text)
	if v == "" {
		return nil, badf("option %s is empty, must be %s", s.Key, s.want())
	}
	bad := func() error { return badf("option %s is %q, must be %s", s.Key, text, s.want()) }
	switch s.Kind {
	case KindInt:
		n, err := strconv.Atoi(v)
		if err != nil || (s.Bounded() && (float64(n) < s.Min || float64(n) > s.Max)) {
			return nil, bad()
		}
		return n, nil
	case KindFloat:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !finite(f) || (s.Bounded() && (f < s.Min || f > s.Max)) {
			return nil, bad()
		}
		return f, nil
	case KindBool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, bad()
		}
		return b, nil
	case KindChoice:
		for _, c := range s.Choices {
			if strings.EqualFold(c, v) {
				return c, nil
			}
		}
		return nil, bad()
	case KindString:
		return v, nil
	}
	return nil, badf("option %s has kind %q, which core does not know", s.Key, s.Kind)
}

// want describes the accepted values in an error message.
func (s OptionSpec) want() string {
	kind := map[Kind]string{KindInt: "an integer", KindFloat: "a finite number", KindBool: "true or false",
		KindChoice: "one of " + strings.Join(s.Choices, ", "), KindString: "a non-empty value"}[s.Kind]
	if r := s.RangeText(); r != "" && (s.Kind == KindInt || s.Kind == KindFloat) {
		if strings.HasPrefix(r, "≥") || strings.HasPrefix(r, "≤") {
			kind += " " + r
		} else {
			kind += " in " + r
		}
	}
	return kind
}

// OptionValues are parsed options by canonical key: int, float64, bool or
// string values as their specs' kinds say. Absent keys are absent.
type OptionValues map[string]any

// ParseOptions checks raw (Config.Options, `--opt` pairs, a TOML table or a
// Patch's options) against specs and returns the values by canonical key.
// An unknown key, an empty or malformed value, or one out of range is an
// error wrapping ErrBadConfig that names the key and what it must be.
func ParseOptions(specs []OptionSpec, raw map[string]string) (OptionValues, error) {
	out := make(OptionValues, len(raw))
	from := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		s, ok := Method{Options: specs}.Option(k)
		if !ok {
			return nil, unknownOption(specs, k)
		}
		if prev, dup := from[s.Key]; dup {
			return nil, badf("options %q and %q both set %s, set it once", prev, k, s.Key)
		}
		v, err := s.parse(raw[k])
		if err != nil {
			return nil, err
		}
		out[s.Key], from[s.Key] = v, k
	}
	return out, nil
}

func unknownOption(specs []OptionSpec, key string) error {
	if len(specs) == 0 {
		return badf("option %q is unknown: this method takes no options", key)
	}
	keys := make([]string, len(specs))
	for i, s := range specs {
		keys[i] = s.Key
	}
	return badf("option %q is unknown, must be one of %s", key, strings.Join(keys, ", "))
}

// IntTo sets *dst to the int at key, when present.
func (v OptionValues) IntTo(key string, dst *int) {
	if x, ok := v[key].(int); ok {
		*dst = x
	}
}

// FloatTo sets *dst to the float64 at key, when present.
func (v OptionValues) FloatTo(key string, dst *float64) {
	if x, ok := v[key].(float64); ok {
		*dst = x
	}
}

// BoolTo sets *dst to the bool at key, when present.
func (v OptionValues) BoolTo(key string, dst *bool) {
	if x, ok := v[key].(bool); ok {
		*dst = x
	}
}

// StringTo sets *dst to the string (or choice) at key, when present.
func (v OptionValues) StringTo(key string, dst *string) {
	if x, ok := v[key].(string); ok {
		*dst = x
	}
}
