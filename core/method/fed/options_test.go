package fed

import (
	"errors"
	"math"
	"testing"
)

func TestParamsFromOptions(t *testing.T) {
	p, err := ParamsFromOptions(map[string]string{"split": "noniid:2", "batch": "16", "loss": "sum", "protocol": "fisher-yates", "trusted_shuffle": "true", "momentum": "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Split != "noniid:2" || p.Batch != 16 || p.Loss != AELossSum || p.Protocol != ProtocolFisherYates || !p.TrustedShuffle || p.Momentum != 0.5 {
		t.Errorf("ParamsFromOptions = %+v", p)
	}
	for _, bad := range []map[string]string{{"batsh": "16"}, {"batch": "sixteen"}, {"protocol": "riffle"}, {"no_ema": "maybe"}, {"loss": "huber"}} {
		if _, err := ParamsFromOptions(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("ParamsFromOptions(%v) = %v, want ErrConfig", bad, err)
		}
	}
}

// TestLRSchedule checks the cosine schedule against EasyFL's compute_lr
// (η·(1 + cos(π·t/R))/2 at t = r − 1): the full rate in round 1, half of it
// at t = R/2, and a constant schedule that never moves; and that the
// option parses and rejects an unknown name.
func TestLRSchedule(t *testing.T) {
	const lr, R = 0.032, 300
	for _, c := range []struct {
		s    LRSchedule
		r    int
		want float64
	}{
		{LRCosine, 1, lr}, {LRCosine, 151, lr / 2}, {LRCosine, 76, lr * (1 + math.Sqrt2/2) / 2},
		{LRCosine, R, lr * (1 + math.Cos(math.Pi*(R-1)/R)) / 2}, {LRConstant, R, lr}, {LRConstant, 1, lr},
	} {
		if got := c.s.rate(lr, c.r, R); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v.rate(round %d of %d) = %g, want %g", c.s, c.r, R, got, c.want)
		}
	}
	if last := LRCosine.rate(lr, R, R); !(last > 0 && last < 1e-4*lr) {
		t.Errorf("cosine rate of the last round = %g, want small and positive", last)
	}
	p, err := ParamsFromOptions(map[string]string{"lr_schedule": "cosine"})
	if err != nil || p.LRSchedule != LRCosine {
		t.Errorf("ParamsFromOptions(lr_schedule=cosine) = %v, %v", p.LRSchedule, err)
	}
	if _, err := ParamsFromOptions(map[string]string{"lr_schedule": "step"}); !errors.Is(err, ErrConfig) {
		t.Errorf("lr_schedule=step: %v, want ErrConfig", err)
	}
	if err := (Params{LRSchedule: 7}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
		t.Errorf("LRSchedule(7) validates: %v", err)
	}
}

// TestWarmupOption checks warmup=W's plumbing: the option sets
// Params.Warmup, a negative value is refused, and 0 is the default.
func TestWarmupOption(t *testing.T) {
	p, err := ParamsFromOptions(map[string]string{"warmup": "30"})
	if err != nil || p.Warmup != 30 {
		t.Errorf("ParamsFromOptions(warmup=30) = %d, %v; want 30", p.Warmup, err)
	}
	if p, err := ParamsFromOptions(nil); err != nil || p.Warmup != 0 {
		t.Errorf("default warm-up = %d, %v; want 0", p.Warmup, err)
	}
	if _, err := ParamsFromOptions(map[string]string{"warmup": "-1"}); err == nil {
		t.Error("warmup=-1 accepted")
	}
	if err := (Params{Warmup: -2}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
		t.Errorf("Warmup -2 validates: %v", err)
	}
}

// TestTargetOption checks target=local|mix's plumbing: the option sets
// Params.Target, local is the default, and other names and values are
// refused.
func TestTargetOption(t *testing.T) {
	p, err := ParamsFromOptions(map[string]string{"target": "mix"})
	if err != nil || p.Target != TargetMix {
		t.Errorf("ParamsFromOptions(target=mix) = %v, %v; want mix", p.Target, err)
	}
	if p, err := ParamsFromOptions(nil); err != nil || p.Target != TargetLocal {
		t.Errorf("default target = %v, %v; want local", p.Target, err)
	}
	if _, err := ParamsFromOptions(map[string]string{"target": "global"}); !errors.Is(err, ErrConfig) {
		t.Errorf("target=global: %v, want ErrConfig", err)
	}
	if err := (Params{Target: 2}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
		t.Errorf("TargetSync(2) validates: %v", err)
	}
}

// TestServerMomentumOption checks server_momentum's plumbing: the option
// sets Params.ServerMomentum, 0 is the default, and values outside [0, 1)
// are refused by the option spec and by Validate.
func TestServerMomentumOption(t *testing.T) {
	p, err := ParamsFromOptions(map[string]string{"server_momentum": "0.9"})
	if err != nil || p.ServerMomentum != 0.9 {
		t.Errorf("ParamsFromOptions(server_momentum=0.9) = %v, %v; want 0.9", p.ServerMomentum, err)
	}
	if p, err := ParamsFromOptions(nil); err != nil || p.ServerMomentum != 0 {
		t.Errorf("default server momentum = %v, %v; want 0", p.ServerMomentum, err)
	}
	for _, v := range []string{"1", "-0.1", "NaN", "fast"} {
		if _, err := ParamsFromOptions(map[string]string{"server_momentum": v}); err == nil {
			t.Errorf("server_momentum=%s accepted", v)
		}
	}
	for _, b := range []float64{1, -0.5, math.NaN()} {
		if err := (Params{ServerMomentum: b}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
			t.Errorf("ServerMomentum %g validates: %v", b, err)
		}
	}
}
