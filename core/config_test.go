package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/dpscope/dpscope/datasets"
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

func TestConfigDataSettingsRoundTrip(t *testing.T) {
	pre := datasets.DefaultPreprocessConfig()
	pre.NTopGenes, pre.MinCells, pre.MaxValue, pre.Selection = 500, 5, 4, datasets.SelectZeroRate
	c := Config{Data: "cells.csv", Method: "dcan", Mode: ModeNonPrivate, SampleRate: 0.1,
		Labels: "labels.tsv", Orientation: "cells-by-genes", Preprocess: &pre}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[preprocess]", "genes = 500", "min_cells = 5", "max_value = 4.0", `selection = "zero-rate"`, `labels = "labels.tsv"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("TOML lacks %q:\n%s", want, buf.String())
		}
	}
	var back Config
	if _, err := toml.Decode(buf.String(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Preprocess == nil || *back.Preprocess != pre || back.Labels != c.Labels || back.Orientation != c.Orientation {
		t.Errorf("TOML round trip = %+v (preprocess %+v), want %+v", back, back.Preprocess, pre)
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var jback Config
	if err := json.Unmarshal(js, &jback); err != nil || jback.Preprocess == nil || *jback.Preprocess != pre {
		t.Errorf("JSON round trip = %+v, %v; want the preprocessing back", jback.Preprocess, err)
	}
	opts, err := back.LoadOptions()
	if err != nil || opts.Preprocess != pre || opts.Orientation != datasets.CellsByGenes || opts.Labels != "labels.tsv" {
		t.Errorf("LoadOptions() = %+v, %v", opts, err)
	}
	if d, err := (Config{}).LoadOptions(); err != nil || d.Preprocess != datasets.DefaultPreprocessConfig() {
		t.Errorf("LoadOptions of a config without settings = %+v, %v, want the defaults", d, err)
	}
}

func TestConfigRejectsBadDataSettings(t *testing.T) {
	ok := Config{Data: "builtin:default", Method: "dcan", Mode: ModeNonPrivate, SampleRate: 0.1}
	badPre := datasets.DefaultPreprocessConfig()
	badPre.MaxValue = -1
	for _, tc := range []struct {
		desc string
		edit func(*Config)
		want string
	}{
		{"negative max value", func(c *Config) { c.Preprocess = &badPre }, "max value is -1"},
		{"orientation", func(c *Config) { c.Orientation = "diagonal" }, "diagonal"},
		{"labels on a built-in set", func(c *Config) { c.Labels = "l.tsv" }, "carries its own true labels"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want ErrBadConfig naming %q", err, tc.want)
			}
		})
	}
}
