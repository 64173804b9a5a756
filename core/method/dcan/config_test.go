package dcan

import (
	"errors"
	"testing"

	"github.com/dpscope/dpscope/core"
)

func TestNewValidates(t *testing.T) {
	good := baseConfig(core.ModePaper)
	for _, tc := range []struct {
		desc    string
		edit    func(*core.Config, *Options)
		wantErr error // nil: accepted
	}{
		{"paper defaults", func(*core.Config, *Options) {}, nil},
		{"sound with layers 1-6", func(c *core.Config, _ *Options) {
			c.Mode, c.Layers = core.ModeSound, core.LayerRange{First: 1, Last: 6}
		}, nil},
		{"nonprivate ignores layers", func(c *core.Config, _ *Options) {
			c.Mode, c.Layers = core.ModeNonPrivate, core.LayerRange{First: 1, Last: 2}
		}, nil},
		{"three stages", func(c *core.Config, _ *Options) { c.Epochs = []int{1, 1, 1} }, ErrConfig},
		{"pld enforcement", func(c *core.Config, _ *Options) { c.Accountant = "pld" }, ErrConfig},
		{"clients", func(c *core.Config, _ *Options) { c.Clients = 3 }, ErrConfig},
		{"sound with layers 1-3", func(c *core.Config, _ *Options) {
			c.Mode, c.Layers = core.ModeSound, core.LayerRange{First: 1, Last: 3}
		}, ErrConfig},
		{"paper with layers 0-7", func(c *core.Config, _ *Options) { c.Layers = core.LayerRange{First: 0, Last: 7} }, ErrConfig},
		{"negative epochs", func(c *core.Config, _ *Options) { c.Epochs = []int{-1, 2} }, core.ErrBadConfig},
		{"rho above 1", func(_ *core.Config, o *Options) { o.Rho = 1.5 }, ErrConfig},
		{"NaN mask", func(_ *core.Config, o *Options) { o.MaskProb = nan() }, ErrConfig},
		{"negative K", func(_ *core.Config, o *Options) { o.K = -2 }, ErrConfig},
		{"zero embedding clip is the default", func(_ *core.Config, o *Options) { o.EmbedClip = 0 }, nil},
		{"negative embedding clip", func(_ *core.Config, o *Options) { o.EmbedClip = -1 }, ErrConfig},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg, opt := good, Options{}
			tc.edit(&cfg, &opt)
			_, err := New(cfg, opt)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Errorf("New() = %v, want nil", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("New() = %v, want an error wrapping %v", err, tc.wantErr)
			case tc.wantErr != nil && !errors.Is(err, core.ErrBadConfig):
				// The faces tell bad input from failure by core's sentinel alone.
				t.Errorf("New() = %v, want it to match core.ErrBadConfig too", err)
			}
		})
	}
}

func TestEpochDefaults(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		epochs []int
		want   [2]int
	}{
		{"empty", nil, DefaultEpochs},
		{"stage 1 only given", []int{7}, [2]int{7, DefaultEpochs[1]}},
		{"both", []int{3, 0}, [2]int{3, 0}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg := baseConfig(core.ModeNonPrivate)
			cfg.Epochs = tc.epochs
			tr, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Epochs(); got != tc.want {
				t.Errorf("Epochs() = %v, want %v", got, tc.want)
			}
		})
	}
}
