package dpmd

import (
	"context"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestNullLeavesQueriesUndenoised checks DP-MD's null run: the caller's
// configuration is not changed, the null keeps the data and every option
// but runs no iteration without privacy, and on labelled data it reports
// the clustering of the queries as they are.
func TestNullLeavesQueriesUndenoised(t *testing.T) {
	cfg := core.Config{Data: "builtin:default", Method: MethodName, Mode: core.ModeSound, Epsilon: 8, Delta: 1e-5,
		Clip: 1, SampleRate: 1, Seed: 2, Options: map[string]string{"T": "3", "pcs": "20"}}
	n := Null(cfg)
	if cfg.Options["T"] != "3" || cfg.Mode != core.ModeSound {
		t.Fatalf("Null changed its input: %+v", cfg)
	}
	if n.Mode != core.ModeNonPrivate || n.Epsilon != 0 || n.Options["T"] != "0" || n.Options["pcs"] != "20" || n.Data != cfg.Data {
		t.Fatalf("null config %+v, want nonprivate, T = 0, pcs kept, same data", n)
	}
	run, err := core.Start(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	var ari *float64
	for ev := range run.Events() {
		switch e := ev.(type) {
		case core.MetricsEvent:
			for _, v := range e.Values {
				if v.Name == "ARI" {
					ari = &v.Value
				}
			}
		case core.ErrorEvent:
			t.Fatal(e.Err)
		}
	}
	if ari == nil || *ari <= 0.05 {
		t.Fatalf("null ARI %v, want a clustering of the undenoised queries above chance", ari)
	}
}
