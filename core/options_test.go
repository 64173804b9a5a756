package core

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// unregister removes a method a test registered.
func unregister(name string) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	delete(registry.methods, name)
}

var testSpecs = []OptionSpec{
	{Key: "k", Kind: KindInt, Default: 3, Min: 1, Max: 50, Doc: "clusters"},
	{Key: "rate", Aliases: []string{"r"}, Kind: KindFloat, Default: 0.5, Min: 0, Max: math.Inf(1), Live: true, Doc: "a rate"},
	{Key: "fast", Kind: KindBool, Default: false, Doc: "go fast"},
	{Key: "act", Kind: KindChoice, Default: "tanh", Choices: []string{"tanh", "relu"}, Doc: "activation"},
	{Key: "split", Kind: KindString, Doc: "a split the method parses"},
}

func TestParseOptions(t *testing.T) {
	v, err := ParseOptions(testSpecs, map[string]string{"k": " 7 ", "r": "2.5", "fast": "true", "act": "ReLU", "split": "noniid:2"})
	if err != nil {
		t.Fatal(err)
	}
	var k int
	var rate float64
	var fast bool
	var act, split string
	v.IntTo("k", &k)
	v.FloatTo("rate", &rate)
	v.BoolTo("fast", &fast)
	v.StringTo("act", &act)
	v.StringTo("split", &split)
	if k != 7 || rate != 2.5 || !fast || act != "relu" || split != "noniid:2" {
		t.Errorf("parsed k=%d rate=%v fast=%v act=%q split=%q", k, rate, fast, act, split)
	}
	k = 99
	OptionValues{}.IntTo("k", &k) // absent keys leave the destination alone
	if k != 99 {
		t.Errorf("absent key changed k to %d", k)
	}
	for _, c := range []struct {
		raw  map[string]string
		want string
	}{
		{map[string]string{"k": "0"}, `option k is "0", must be an integer in 1..50`},
		{map[string]string{"k": "x"}, "must be an integer"},
		{map[string]string{"rate": "-1"}, "must be a finite number ≥ 0"},
		{map[string]string{"rate": "NaN"}, "finite"},
		{map[string]string{"fast": "maybe"}, "true or false"},
		{map[string]string{"act": "sigmoid"}, "one of tanh, relu"},
		{map[string]string{"split": " "}, "is empty"},
		{map[string]string{"speed": "1"}, `option "speed" is unknown, must be one of k, rate, fast, act, split`},
		{map[string]string{"rate": "1", "r": "2"}, "set it once"},
	} {
		_, err := ParseOptions(testSpecs, c.raw)
		if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseOptions(%v) = %v, want ErrBadConfig mentioning %q", c.raw, err, c.want)
		}
	}
	if _, err := ParseOptions(nil, map[string]string{"a": "1"}); err == nil || !strings.Contains(err.Error(), "takes no options") {
		t.Errorf("options for a method without any: %v", err)
	}
}

func TestOptionSpecText(t *testing.T) {
	for _, c := range []struct {
		s             OptionSpec
		def, rangeTxt string
	}{
		{testSpecs[0], "3", "1..50"}, {testSpecs[1], "0.5", "≥ 0"}, {testSpecs[2], "false", "true|false"},
		{testSpecs[3], "tanh", "tanh|relu"}, {testSpecs[4], "", ""},
		{OptionSpec{Kind: KindFloat, Min: math.Inf(-1), Max: 1}, "", "≤ 1"},
	} {
		if d, r := c.s.DefaultText(), c.s.RangeText(); d != c.def || r != c.rangeTxt {
			t.Errorf("%s: default %q range %q, want %q and %q", c.s.Key, d, r, c.def, c.rangeTxt)
		}
	}
	b, err := json.Marshal(testSpecs[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"key":"rate","aliases":["r"],"kind":"float","default":0.5,"min":0,"live":true,"doc":"a rate"}` {
		t.Errorf("JSON %s", got)
	}
}

func TestRegisterChecksTheDescriptor(t *testing.T) {
	ok := Method{Name: "test-descriptor", Family: FamilyClustering, Options: testSpecs,
		New: func(Config) (Engine, error) { return nil, nil }}
	for _, c := range []struct {
		desc string
		edit func(*Method)
		want string
	}{
		{"no name", func(m *Method) { m.Name = "" }, "empty name"},
		{"no family", func(m *Method) { m.Family = "" }, "family"},
		{"bad mode", func(m *Method) { m.Modes = []Mode{"loud"} }, "not a core mode"},
		{"preset mode", func(m *Method) { m.Modes = []Mode{ModeSound}; m.Presets = []Preset{{Label: "x", Mode: ModePaper}} }, "preset"},
		{"preset option", func(m *Method) {
			m.Presets = []Preset{{Label: "x", Mode: ModePaper, Options: map[string]string{"k": "0"}}}
		}, "preset"},
		{"duplicate key", func(m *Method) { m.Options = append(m.Options, OptionSpec{Key: "r", Kind: KindInt, Doc: "d"}) }, "twice"},
		{"bad default", func(m *Method) { m.Options = []OptionSpec{{Key: "a", Kind: KindInt, Default: 0.5, Doc: "d"}} }, "default"},
		{"choice without choices", func(m *Method) { m.Options = []OptionSpec{{Key: "a", Kind: KindChoice, Doc: "d"}} }, "without choices"},
		{"no doc", func(m *Method) { m.Options = []OptionSpec{{Key: "a", Kind: KindInt}} }, "doc"},
	} {
		m := ok
		c.edit(&m)
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Errorf("%s: Register panicked with %v, want a message mentioning %q", c.desc, r, c.want)
				}
			}()
			Register(m)
		}()
	}
	Register(ok)
	defer unregister(ok.Name)
	got, err := LookupMethod(ok.Name)
	if err != nil || len(got.Modes) != 3 || got.Entries()[2].Label != "test-descriptor sound" {
		t.Errorf("registered %+v, %v; want all three modes by default, one entry each", got, err)
	}
	if keys := got.LiveKeys(); len(keys) != 1 || keys[0] != "rate" {
		t.Errorf("live keys %v, want [rate]", keys)
	}
	if _, err := LookupMethod("test-nope"); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), ok.Name) {
		t.Errorf("unknown method: %v, want ErrBadConfig listing the registered names", err)
	}
	last := Methods()[len(Methods())-1]
	if last.Name != ok.Name {
		t.Errorf("the clustering method is not last in Methods(): %s", last.Name)
	}
}

// FuzzParseOptions checks that no input panics, that every error wraps
// ErrBadConfig, and that a parsed value parses again to itself.
func FuzzParseOptions(f *testing.F) {
	f.Add("k", "7")
	f.Add("rate", "1e-3")
	f.Add("act", "RELU")
	f.Add("r", "NaN")
	f.Add("fast", "T")
	f.Add("split", "dirichlet:0.5")
	f.Fuzz(func(t *testing.T, key, value string) {
		v, err := ParseOptions(testSpecs, map[string]string{key: value})
		if err != nil {
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("error %v does not wrap ErrBadConfig", err)
			}
			return
		}
		for k, x := range v {
			s, _ := Method{Options: testSpecs}.Option(k)
			s.Default = x
			again, err := ParseOptions(testSpecs, map[string]string{k: s.DefaultText()})
			if err != nil || again[k] != x {
				t.Fatalf("%s=%v rendered %q parses to %v, %v", k, x, s.DefaultText(), again[k], err)
			}
		}
	})
}
