package fed

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// TestPredictorLocal checks predictor=local on one client over two rounds
// of real local training: the upload's predictor block is zero while its
// encoder block is not, the client keeps the predictor it trained (not
// the server's) at the next download while its encoder is μ-mixed, and
// under predictor=shared the same download mixes the predictor too. It
// fails when the predictor is uploaded, or overwritten or mixed at a
// download.
func TestPredictorLocal(t *testing.T) {
	for _, ps := range []PredictorSync{PredictorShared, PredictorLocal} {
		rng := rand.New(rand.NewPCG(21, 22))
		x := normalMatrix(rng, 12, 6)
		p := Params{Encoder: []int{5, 4, 3}, PredictorHidden: 4, Batch: 6, LocalEpochs: 1,
			Divergence: DivergencePrinted, Predictor: ps}.withDefaults(FedSC)
		l, err := newBYOLLearner(x, p, 3)
		if err != nil {
			t.Fatal(err)
		}
		l.resetClients(1)
		wk, _ := l.newWorker()
		out := make([]float32, l.size())
		cells := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		if _, err := wk.local(t.Context(), job{round: 1, client: 0, cells: cells, lr: 0.05, out: out}); err != nil {
			t.Fatal(err)
		}
		pred := out[l.encNP:l.weights()]
		zero := !slices.ContainsFunc(pred, func(v float32) bool { return v != 0 })
		if moved := slices.ContainsFunc(out[:l.encNP], func(v float32) bool { return v != 0 }); !moved {
			t.Fatalf("predictor=%v: the encoder's upload is zero", ps)
		}
		if zero != (ps == PredictorLocal) {
			t.Errorf("predictor=%v: upload's predictor block all zero = %v", ps, zero)
		}
		st := &l.clients[0]
		trained := slices.Clone(st.online)
		for i := range l.server {
			l.server[i] += 1 // a global model far from the client: 0 < μ < 1
		}
		l.startClient(0, 2)
		for i := l.encNP; i < l.weights(); i++ {
			kept := st.online[i] == trained[i]
			if kept != (ps == PredictorLocal) {
				t.Fatalf("predictor=%v: predictor weight %d kept at the download = %v (client %v, now %v, server %v)",
					ps, i, kept, trained[i], st.online[i], l.server[i])
			}
		}
		if st.online[0] == trained[0] || st.online[0] == l.server[0] {
			t.Errorf("predictor=%v: encoder weight 0 = %v, want a μ-mix of %v and %v", ps, st.online[0], trained[0], l.server[0])
		}
	}
}

// TestPredictorLocalServer checks the server step under predictor=local:
// whatever reaches the predictor's coordinates of the sum (the
// aggregator's noise in sound mode) is dropped, and the encoder and
// statistics take the plain step, as under predictor=shared.
func TestPredictorLocalServer(t *testing.T) {
	for _, tc := range []struct {
		ps   PredictorSync
		want []float32
	}{
		{PredictorShared, []float32{2, 2, 2, 12}},
		{PredictorLocal, []float32{2, 2, 0, 12}},
	} {
		l := &byolLearner{encNP: 2, predNP: 1, encS: 1, server: []float32{0, 0, 0, 10}, p: Params{Predictor: tc.ps}}
		s := &sim{e: &Engine{v: FedSC, p: Params{Predictor: tc.ps}}, l: l, k: 2,
			upd: [][]float32{{1, 2, 3, 2}, {1, 0, -1, 0}}, sum: make([]float32, 4)}
		if err := s.serverStep(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.server, tc.want) {
			t.Errorf("predictor=%v: server state %v, want %v", tc.ps, l.server, tc.want)
		}
	}
}

// TestPredictorRun checks whole non-IID runs: the explicit predictor=shared
// gives the default run's ARI to the digit, and predictor=local a
// different run; and the option's plumbing (default, refusals).
func TestPredictorRun(t *testing.T) {
	d := simData(t, 200, 60, 4)
	cfg := baseConfig(FedSC, core.ModeNonPrivate)
	run := func(opts map[string]string) float64 {
		t.Helper()
		p, err := ParamsFromOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		q := smallParams(d)
		q.Split, q.Predictor = "noniid:1", p.Predictor
		ari, ok := lastMetric(runEngine(t, cfg, newEngine(t, cfg, FedSC, q)), "ARI")
		if !ok {
			t.Fatal("no ARI")
		}
		return ari
	}
	def := run(nil)
	if got := run(map[string]string{"predictor": "shared"}); got != def {
		t.Errorf("predictor=shared ARI %v, default %v: want identical", got, def)
	}
	if got := run(map[string]string{"predictor": "local"}); got == def {
		t.Errorf("predictor=local ARI %v equals the default's: the option changed nothing", got)
	}
	if p, err := ParamsFromOptions(nil); err != nil || p.Predictor != PredictorShared {
		t.Errorf("default predictor = %v, %v; want shared", p.Predictor, err)
	}
	if _, err := ParamsFromOptions(map[string]string{"predictor": "global"}); !errors.Is(err, ErrConfig) {
		t.Errorf("predictor=global: %v, want ErrConfig", err)
	}
	if err := (Params{Predictor: 2}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
		t.Errorf("PredictorSync(2) validates: %v", err)
	}
}

// TestPredictorLocalGuarantee checks sound mode under predictor=local: the
// same σ as under predictor=shared for the same budget (the sensitivity
// does not depend on what is uploaded), and the guarantee says what the
// option changes, only when it is set.
func TestPredictorLocalGuarantee(t *testing.T) {
	cfg := core.Config{Mode: core.ModeSound, Epsilon: 4, Delta: 1e-5, Clip: 1}
	prs := map[PredictorSync]*privacy{}
	for _, ps := range []PredictorSync{PredictorShared, PredictorLocal} {
		pr, err := newPrivacy(cfg, FedSC, Params{Predictor: ps}.withDefaults(FedSC), 50, 4)
		if err != nil {
			t.Fatal(err)
		}
		prs[ps] = pr
		has := slices.Contains(pr.guarantee(FedSC, core.ModeSound, 4, false).Reasons, predictorLocalReason)
		if has != (ps == PredictorLocal) {
			t.Errorf("predictor=%v: the guarantee states the local predictor = %v", ps, has)
		}
	}
	if a, b := prs[PredictorShared].z, prs[PredictorLocal].z; a != b || !(a > 0) {
		t.Errorf("σ shared %v, local %v: want the same positive σ", a, b)
	}
}
