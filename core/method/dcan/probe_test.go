package dcan

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
)

// The probes of docs/RESULTS.md ("DP-DCAN on the default data set"): they
// log figures and are skipped unless DPSCOPE_DCAN_PROBE is set.

// envF returns the float in environment variable k, or d when it is unset.
func envF(k string, d float64) float64 {
	if v := os.Getenv(k); v != "" {
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return d
}

// TestProbeStage1 trains stage 1 alone (non-private, Adam) on the default
// data set and logs the ARI and NMI of k-means (5 restarts) on the
// embedding every DPSCOPE_DCAN_PROBE_EVERY epochs. Knobs:
// DPSCOPE_DCAN_PROBE_{RHO, LR, BATCH, EPOCHS, SEED}, and, when set,
// DPSCOPE_DCAN_PROBE_MSE (MSE of the scaled input instead of ZINB),
// DPSCOPE_DCAN_PROBE_RELU (ReLU instead of tanh),
// DPSCOPE_DCAN_PROBE_MEANINIT (the μ head's bias from the gene means) and
// DPSCOPE_DCAN_PROBE_DIAG (k-means on the top principal components of the
// embedding too).
func TestProbeStage1(t *testing.T) {
	if os.Getenv("DPSCOPE_DCAN_PROBE") == "" {
		t.Skip("long: set DPSCOPE_DCAN_PROBE=1 to run the stage-1 probes")
	}
	raw, _, err := datasets.Load("builtin:default", datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Preprocess(raw, datasets.DefaultPreprocessConfig())
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("DPSCOPE_DCAN_PROBE_MSE") != "" {
		d2 := *d
		d2.RawCounts = nil
		d = &d2
	}
	act := nn.Tanh
	if os.Getenv("DPSCOPE_DCAN_PROBE_RELU") != "" {
		act = nn.ReLU
	}
	out := nn.OutputZINB
	if d.RawCounts == nil {
		out = nn.OutputLinear
	}
	seed := uint64(envF("DPSCOPE_DCAN_PROBE_SEED", 1))
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: act, Output: out, MaxRows: 3 * 256, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Rho: envF("DPSCOPE_DCAN_PROBE_RHO", 0.8)}.withDefaults()
	k := len(d.Classes)
	m := newModel(ae, d, k, o, seed)
	if os.Getenv("DPSCOPE_DCAN_PROBE_MEANINIT") != "" {
		m.initHeads(true, false)
	}
	lr := envF("DPSCOPE_DCAN_PROBE_LR", 1e-3)
	adam, _ := nn.NewAdam(len(ae.Params), nn.AdamConfig{LR: lr})
	batch := int(envF("DPSCOPE_DCAN_PROBE_BATCH", 200))
	r := &runState{m: m, stage: 1, opt: adam, batch: batch}
	perm := make([]int, d.Cells)
	for i := range perm {
		perm[i] = i
	}
	emb := newEmbedding(d.Cells, 32, k)
	epochs := int(envF("DPSCOPE_DCAN_PROBE_EPOCHS", 20))
	t0 := time.Now()
	for ep := 1; ep <= epochs; ep++ {
		shuffle(perm, uint64(ep)+seed*1000)
		tot := 0.0
		for s := 0; s+batch <= d.Cells; s += batch {
			m.parts = [numParts]float64{}
			l, err := r.plainStep(m.stage1Loss, perm[s:s+batch])
			if err != nil {
				t.Fatal(err)
			}
			tot += l
		}
		if ep%int(envF("DPSCOPE_DCAN_PROBE_EVERY", 2)) == 0 || ep == epochs {
			m.encodeAll(emb)
			res, err := cluster.KMeans(context.Background(), emb.z64, d.Cells, 32, cluster.KMeansConfig{K: k, NInit: 5, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			sc, _ := cluster.Score(d.Labels, res.Labels)
			if os.Getenv("DPSCOPE_DCAN_PROBE_DIAG") != "" {
				for _, nc := range []int{4, 8, 16} {
					p, _ := cluster.PCA(emb.z64, d.Cells, 32, nc)
					rr, _ := cluster.KMeans(context.Background(), p.Scores, d.Cells, nc, cluster.KMeansConfig{K: k, NInit: 5, Seed: 7})
					s2, _ := cluster.Score(d.Labels, rr.Labels)
					t.Logf("  z PCA %d: ARI %.3f evr %.2v", nc, s2.ARI, p.ExplainedVarianceRatio[:4])
				}
			}
			t.Logf("epoch %d loss %.4f ARI %.3f NMI %.3f (%.0fs)", ep, tot/float64(d.Cells/batch), sc.ARI, sc.NMI, time.Since(t0).Seconds())
		}
	}
}

// shuffle permutes p with a xorshift generator seeded by seed.
func shuffle(p []int, seed uint64) {
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := len(p) - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
}

// TestProbePCA logs the explained variance of the top principal
// components of the preprocessed default data and the ARI of k-means on
// them.
func TestProbePCA(t *testing.T) {
	if os.Getenv("DPSCOPE_DCAN_PROBE") == "" {
		t.Skip("long: set DPSCOPE_DCAN_PROBE=1 to run the stage-1 probes")
	}
	raw, _, _ := datasets.Load("builtin:default", datasets.OpenOptions{})
	d, _ := datasets.Preprocess(raw, datasets.DefaultPreprocessConfig())
	x := make([]float64, len(d.X))
	for i, v := range d.X {
		x[i] = float64(v)
	}
	t.Logf("classes %v", d.Classes)
	cnt := make([]int, len(d.Classes))
	for _, l := range d.Labels {
		cnt[l]++
	}
	t.Logf("sizes %v", cnt)
	for _, nc := range []int{2, 5, 8, 16, 32, 50} {
		pca, err := cluster.PCA(x, d.Cells, d.Genes, nc)
		if err != nil {
			t.Fatal(err)
		}
		ev := 0.0
		for _, v := range pca.ExplainedVarianceRatio {
			ev += v
		}
		res, _ := cluster.KMeans(context.Background(), pca.Scores, d.Cells, nc, cluster.KMeansConfig{K: len(d.Classes), NInit: 10, Seed: 1})
		sc, _ := cluster.Score(d.Labels, res.Labels)
		t.Logf("PCA %d: explained %.3f ARI %.3f NMI %.3f  ev %v", nc, ev, sc.ARI, sc.NMI, pca.ExplainedVarianceRatio[:min(nc, 12)])
	}
}

// TestProbeCounts logs the spread of the gene means, the size factors and
// the range of the model input of the default data.
func TestProbeCounts(t *testing.T) {
	if os.Getenv("DPSCOPE_DCAN_PROBE") == "" {
		t.Skip("long: set DPSCOPE_DCAN_PROBE=1 to run the stage-1 probes")
	}
	raw, _, _ := datasets.Load("builtin:default", datasets.OpenOptions{})
	d, _ := datasets.Preprocess(raw, datasets.DefaultPreprocessConfig())
	g := d.Genes
	means := make([]float64, g)
	zeros := 0
	for i := 0; i < d.Cells; i++ {
		for j := 0; j < g; j++ {
			v := float64(d.RawCounts[i*g+j])
			means[j] += v / d.SizeFactors[i] / float64(d.Cells)
			if v == 0 {
				zeros++
			}
		}
	}
	sortF := append([]float64(nil), means...)
	for i := range sortF {
		for j := i + 1; j < len(sortF); j++ {
			if sortF[j] < sortF[i] {
				sortF[i], sortF[j] = sortF[j], sortF[i]
			}
		}
	}
	t.Logf("gene mean quantiles: min %.3g q10 %.3g q50 %.3g q90 %.3g max %.3g; zero frac %.3f", sortF[0], sortF[g/10], sortF[g/2], sortF[9*g/10], sortF[g-1], float64(zeros)/float64(d.Cells*g))
	sf := append([]float64(nil), d.SizeFactors...)
	mn, mx := 1e9, 0.0
	for _, s := range sf {
		mn, mx = min(mn, s), max(mx, s)
	}
	t.Logf("size factors %.3g..%.3g", mn, mx)
	xmin, xmax := 0.0, 0.0
	for _, v := range d.X {
		xmin, xmax = min(xmin, float64(v)), max(xmax, float64(v))
	}
	t.Logf("x range %.3g..%.3g", xmin, xmax)
}

// TestProbeGradNorms logs the per-cell gradient norms of the encoder
// (layers 1–3) and the decoder with its heads (layers 4–6) of the stage-1
// loss at initialisation, for 20 cells of the default data set.
func TestProbeGradNorms(t *testing.T) {
	if os.Getenv("DPSCOPE_DCAN_PROBE") == "" {
		t.Skip("long: set DPSCOPE_DCAN_PROBE=1 to run the stage-1 probes")
	}
	d := resultsData(t)
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: nn.Tanh, MaxRows: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(ae, d, len(d.Classes), Options{}.withDefaults(), 1)
	m.initHeads(true, false)
	norm := func(first, last int) float64 {
		lo, hi := ae.ParamRange(first, last)
		s := 0.0
		for _, g := range ae.Grads[lo:hi] {
			s += float64(g) * float64(g)
		}
		return math.Sqrt(s)
	}
	var enc, dec float64
	for c := range 20 {
		if _, err := m.stage1Loss([]int{c * 97 % d.Cells}); err != nil {
			t.Fatal(err)
		}
		ae.AccumulateGrads(0)
		e, dd := norm(1, 3), norm(4, 6)
		enc += e / 20
		dec += dd / 20
	}
	t.Logf("%d genes: mean per-cell gradient norm: layers 1–3 %.4g, layers 4–6 %.4g; encoder share of a joint clip %.3g", d.Genes, enc, dec, enc/math.Hypot(enc, dec))
}
