package fed

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpscope/dpscope/core"
)

// bnLearner returns a small FedSC learner with one client that has begun
// (its online model equals a perturbed global model) and the server model.
func bnLearner(t *testing.T, bn BNStats) *byolLearner {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	x := normalMatrix(rng, 9, 6)
	p := Params{Encoder: []int{5, 4, 3}, PredictorHidden: 4, Batch: 9, BNStats: bn, Divergence: DivergencePrinted}.withDefaults(FedSC)
	l, err := newBYOLLearner(x, p, 3)
	if err != nil {
		t.Fatal(err)
	}
	l.resetClients(1)
	l.startClient(0, 2) // the first round: the global model whole
	for i := range l.server {
		// a server far from the client (d ≫ α, so 0 < μ < 1) and running
		// statistics different from the client's
		l.server[i] += float32(1 + 0.1*float64(i%7))
	}
	return l
}

// TestBNStatsAtDownload checks the three sources of a client's BatchNorm
// running statistics at a round's start: μ-mixed like every weight (mix),
// the global ones (global), its own (local); the parameters are μ-mixed in
// all three.
func TestBNStatsAtDownload(t *testing.T) {
	for _, bn := range []BNStats{BNMix, BNGlobal, BNLocal} {
		l := bnLearner(t, bn)
		st := &l.clients[0]
		before := append([]float32(nil), st.online...)
		d := 0.0
		for i, v := range l.server[:l.encNP] {
			e := float64(v) - float64(before[i])
			d += e * e
		}
		mu := float32(DefaultDivergenceAlpha / math.Sqrt(d))
		if !(mu > 0 && mu < 1) {
			t.Fatalf("test setup: μ = %v, want in (0, 1)", mu)
		}
		l.startClient(0, 2)
		stats := l.encNP + l.predNP
		for i := range l.server {
			mixed := mu*before[i] + (1-mu)*l.server[i]
			want := mixed
			if i >= stats {
				switch bn {
				case BNGlobal:
					want = l.server[i]
				case BNLocal:
					want = before[i]
				}
			}
			if math.Abs(float64(st.online[i]-want)) > 1e-5 {
				t.Fatalf("bn=%v: weight %d (statistics from %d) = %v, want %v (client %v, server %v)", bn, i, stats, st.online[i], want, before[i], l.server[i])
			}
		}
	}
}

// TestEvalBNPooled checks that the pooled evaluation normalises every
// BatchNorm layer by the exact moments of all cells at its input: it
// ignores the server's running statistics, and it equals the running-
// statistics embedding once those are set to the pooled mean and biased
// variance.
func TestEvalBNPooled(t *testing.T) {
	l := bnLearner(t, BNMix)
	wk, err := l.newWorker()
	if err != nil {
		t.Fatal(err)
	}
	w := wk.(*byolWorker)
	n := l.x.Rows * l.dim
	pooled, running := make([]float64, n), make([]float64, n)
	w.embedWith(pooled, EvalBNPooled)
	w.embedWith(running, EvalBNRunning)
	if maxDiff(pooled, running) < 1e-3 {
		t.Fatalf("pooled and running embeddings agree to %g: the test cannot tell them apart", maxDiff(pooled, running))
	}
	// the server's running statistics do not enter the pooled embedding
	stats := l.server[l.encNP+l.predNP:]
	saved := append([]float32(nil), stats...)
	for i := range stats {
		stats[i] *= 3
	}
	again := make([]float64, n)
	w.embedWith(again, EvalBNPooled)
	if d := maxDiff(pooled, again); d != 0 {
		t.Errorf("pooled embedding moved by %g with the running statistics", d)
	}
	copy(stats, saved)
	// running statistics := the pooled moments (each layer's, read off the
	// pooled forward) give the pooled embedding
	off := 0
	for _, op := range w.pooled.ops {
		if b, ok := op.(*batchNormOp); ok {
			for j := range b.n {
				stats[off+j], stats[off+b.n+j] = float32(b.acc[j]), float32(b.acc[b.n+j])
			}
			off += 2 * b.n
		}
	}
	if off != len(stats) {
		t.Fatalf("read %d statistics, the layout has %d", off, len(stats))
	}
	w.embedWith(running, EvalBNRunning)
	if d := maxDiff(pooled, running); d > 1e-5 {
		t.Errorf("running embedding with the pooled moments differs from the pooled one by %g", d)
	}
}

func maxDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestEvalBNPooledRun checks a whole run: eval_bn=pooled reports, as "ARI
// running BN", the ARI of the default evaluation of the same run to the
// digit (the training does not depend on the evaluation), and its own ARI
// differs; and that it is refused outside nonprivate mode.
func TestEvalBNPooledRun(t *testing.T) {
	d := simData(t, 200, 60, 4)
	cfg := baseConfig(FedSC, core.ModeNonPrivate)
	p := smallParams(d)
	p.Split = "noniid:1"
	def, _ := lastMetric(runEngine(t, cfg, newEngine(t, cfg, FedSC, p)), "ARI")
	p.EvalBN = EvalBNPooled
	evs := runEngine(t, cfg, newEngine(t, cfg, FedSC, p))
	got, ok := lastMetric(evs, "ARI running BN")
	if !ok || got != def {
		t.Errorf("ARI running BN = %v (reported %v), want the default run's %v", got, ok, def)
	}
	if ari, _ := lastMetric(evs, "ARI"); ari == def {
		t.Logf("pooled ARI equals the running one (%v) on this small run", ari)
	}
	sound := baseConfig(FedSC, core.ModeSound)
	if _, err := New(sound, FedSC, p); !errors.Is(err, ErrConfig) {
		t.Errorf("eval_bn=pooled in sound mode: %v, want ErrConfig", err)
	}
	if _, err := ParamsFromOptions(map[string]string{"eval_bn": "batch"}); !errors.Is(err, ErrConfig) {
		t.Errorf("eval_bn=batch: %v, want ErrConfig", err)
	}
	if p, err := ParamsFromOptions(map[string]string{"bn": "global", "eval_bn": "pooled"}); err != nil || p.BNStats != BNGlobal || p.EvalBN != EvalBNPooled {
		t.Errorf("bn=global eval_bn=pooled: %+v, %v", p, err)
	}
	if err := (Params{BNStats: 3}).withDefaults(FedSC).Validate(FedSC); !errors.Is(err, ErrConfig) {
		t.Errorf("BNStats(3) validates: %v", err)
	}
}
