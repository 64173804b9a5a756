package dcan

import (
	"errors"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/nn"
)

func TestApplyKeys(t *testing.T) {
	o, err := applyKeys(Options{}, map[string]string{"k": "5", "act": "ReLU", "rho": "0.9", "mask": "0.1",
		"reset_every": "-1", "denoise": "true", "gene_mean_init": "false"})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{K: 5, Act: nn.ReLU, Rho: 0.9, MaskProb: 0.1, ResetEvery: -1, Denoise: true, NoGeneMeanInit: true}
	if o != want {
		t.Fatalf("got %+v, want %+v", o, want)
	}
	for _, kv := range []map[string]string{{"nope": "1"}, {"k": "x"}, {"act": "sigmoid"}, {"denoise": "maybe"}} {
		if _, err := applyKeys(Options{}, kv); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: error %v, want ErrConfig", kv, err)
		}
	}
	cfg := baseConfig(core.ModeNonPrivate)
	cfg.Options = map[string]string{"rho": "2"}
	if _, err := New(cfg, Options{}); !errors.Is(err, ErrConfig) {
		t.Errorf("rho 2 through Config.Options: error %v, want ErrConfig", err)
	}
}
