package core

import (
	"errors"
	"math"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	private := func(f func(*Config)) Config {
		c := Config{Data: "builtin:default", Method: "dcan", Mode: ModeSound, Epsilon: 8, Delta: 1e-5, Clip: 0.1, SampleRate: 0.1}
		f(&c)
		return c
	}
	tests := []struct {
		desc    string
		cfg     Config
		wantErr bool
	}{
		{"valid sound", private(func(*Config) {}), false},
		{"valid nonprivate without δ", private(func(c *Config) { c.Mode, c.Delta, c.Clip = ModeNonPrivate, 0, 0 }), false},
		{"no data", private(func(c *Config) { c.Data = "" }), true},
		{"no method", private(func(c *Config) { c.Method = "" }), true},
		{"unknown mode", private(func(c *Config) { c.Mode = "fast" }), true},
		{"ε NaN", private(func(c *Config) { c.Epsilon = math.NaN() }), true},
		{"ε +Inf", private(func(c *Config) { c.Epsilon = math.Inf(1) }), true},
		{"ε negative", private(func(c *Config) { c.Epsilon = -1 }), true},
		{"ε and σ both 0", private(func(c *Config) { c.Epsilon = 0 }), true},
		{"σ only", private(func(c *Config) { c.Epsilon, c.Sigma = 0, 1 }), false},
		{"δ 0", private(func(c *Config) { c.Delta = 0 }), true},
		{"δ 1", private(func(c *Config) { c.Delta = 1 }), true},
		{"δ NaN", private(func(c *Config) { c.Delta = math.NaN() }), true},
		{"C 0", private(func(c *Config) { c.Clip = 0 }), true},
		{"σ −Inf", private(func(c *Config) { c.Sigma = math.Inf(-1) }), true},
		{"q 0", private(func(c *Config) { c.SampleRate = 0 }), true},
		{"q 1", private(func(c *Config) { c.SampleRate = 1 }), false},
		{"q above 1", private(func(c *Config) { c.SampleRate = 1.01 }), true},
		{"negative epochs", private(func(c *Config) { c.Epochs = []int{5, -1} }), true},
		{"unknown accountant", private(func(c *Config) { c.Accountant = "moments" }), true},
		{"negative lr", private(func(c *Config) { c.LearningRate = -1e-3 }), true},
		{"negative clients", private(func(c *Config) { c.Clients = -2 }), true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadConfig) {
				t.Errorf("Validate() = %v, want it to wrap ErrBadConfig", err)
			}
		})
	}
}

func TestStartRejectsUnknownMethod(t *testing.T) {
	c := testConfig()
	c.Method = "nope"
	if _, err := Start(t.Context(), c); !errors.Is(err, ErrBadConfig) {
		t.Errorf("Start(method nope) = %v, want ErrBadConfig", err)
	}
}

func TestLayerRange(t *testing.T) {
	for _, tc := range []struct {
		r       LayerRange
		wantErr bool
	}{{LayerRange{1, 3}, false}, {LayerRange{1, 6}, false}, {LayerRange{4, 4}, false},
		{LayerRange{0, 3}, true}, {LayerRange{3, 2}, true}, {LayerRange{2, 7}, true}} {
		if err := tc.r.Validate(6); (err != nil) != tc.wantErr {
			t.Errorf("LayerRange%v.Validate(6) = %v, want error %v", tc.r, err, tc.wantErr)
		}
	}
	if !(LayerRange{2, 4}).Contains(3) || (LayerRange{2, 4}).Contains(5) {
		t.Error("LayerRange{2,4}.Contains is wrong")
	}
}

func TestPatchValidateAndString(t *testing.T) {
	eps, zero, n := 4.0, 0.0, 0
	if err := (Patch{Epsilon: &eps}).Validate(); err != nil {
		t.Errorf("Patch{ε=4}.Validate() = %v", err)
	}
	for _, p := range []Patch{{Epsilon: &zero}, {Delta: &zero}, {Clip: &zero}, {Clients: &n}} {
		if err := p.Validate(); err == nil {
			t.Errorf("Patch{%s}.Validate() = nil, want an error", p)
		}
	}
	if got, want := (Patch{Epsilon: &eps, Layers: &LayerRange{1, 3}}).String(), "ε=4 layers=1-3"; got != want {
		t.Errorf("Patch.String() = %q, want %q", got, want)
	}
}

func TestParseLayerRange(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    LayerRange
		wantErr bool
	}{{"1-3", LayerRange{1, 3}, false}, {" 4 - 6 ", LayerRange{4, 6}, false}, {"5", LayerRange{5, 5}, false},
		{"", LayerRange{}, true}, {"1-", LayerRange{}, true}, {"a-b", LayerRange{}, true}, {"1-3-5", LayerRange{}, true}} {
		got, err := ParseLayerRange(tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("ParseLayerRange(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	b, _ := LayerRange{2, 5}.MarshalText()
	var r LayerRange
	if err := r.UnmarshalText(b); err != nil || r != (LayerRange{2, 5}) {
		t.Errorf("round trip of 2-5 = %v, %v", r, err)
	}
}
