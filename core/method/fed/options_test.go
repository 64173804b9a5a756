package fed

import (
	"errors"
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
