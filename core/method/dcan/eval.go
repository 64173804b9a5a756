package dcan

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
)

// embedding holds the latent codes of every cell and what is derived from
// them at epoch boundaries.
type embedding struct {
	z    compute.Matrix // N×latent
	z64  []float64      // the same, float64, for core/cluster
	q    compute.Matrix // N×K Student-t assignments
	freq []float64      // K cluster frequencies
	pred []int          // N predicted clusters
}

func newEmbedding(n, latent, k int) *embedding {
	return &embedding{
		z: compute.NewMatrix(n, latent, nil), z64: make([]float64, n*latent),
		q: compute.NewMatrix(n, k, nil), freq: make([]float64, k), pred: make([]int, n),
	}
}

// encodeAll runs the encoder on every cell, MaxRows at a time, into e.z
// and e.z64.
func (m *model) encodeAll(e *embedding) {
	rows := m.ae.MaxRows()
	for s := 0; s < m.n; s += rows {
		r := min(rows, m.n-s)
		in := m.x.View(s, 0, r, m.g)
		m.ae.Encode(in)
		compute.Copy(e.z.View(s, 0, r, m.latent), m.ae.Latent())
	}
	for i, v := range e.z.Data[:m.n*m.latent] {
		e.z64[i] = float64(v)
	}
	if m.center {
		mean := make([]float64, m.latent)
		for i, v := range e.z64[:m.n*m.latent] {
			mean[i%m.latent] += v
		}
		for j, v := range mean {
			m.zbar[j] = float32(v / float64(m.n))
		}
	}
}

// refreshTarget recomputes the Student-t assignments of the current
// embeddings and DEC's target p: with f_j = Σ_i q_ij (uniform false) or
// f_j = 1/K (uniform true, sound mode).
func (m *model) refreshTarget(e *embedding, uniform bool) {
	nn.StudentTTo(e.q, e.z, m.mu)
	if uniform {
		for j := range e.freq {
			e.freq[j] = 1 / float64(m.k)
		}
		nn.DECTargetFromFreqTo(m.p, e.q, e.freq)
		return
	}
	nn.DECTargetTo(m.p, e.q, e.freq)
}

// setCentroids copies K×latent float64 centroids into mu and updates L_cc.
func (m *model) setCentroids(c []float64) {
	for i, v := range c {
		m.mu.Data[i] = float32(v)
	}
	m.lcc = m.ccLoss(compute.Matrix{}, 0)
}

// kmeansCentroids sets the centroids by (non-private) k-means on the
// current embeddings and returns its labels.
func (m *model) kmeansCentroids(ctx context.Context, e *embedding, seed uint64, restarts int) ([]int, error) {
	res, err := cluster.KMeans(ctx, e.z64, m.n, m.latent, cluster.KMeansConfig{K: m.k, NInit: restarts, Seed: seed})
	if err != nil {
		return nil, err
	}
	m.setCentroids(res.Centroids)
	return res.Labels, nil
}

// dpCentroids sets the centroids by DP k-means from a random start in the
// ball of radius clip (data-independent), with noise multiplier z on both
// the sums (sensitivity clip) and the counts (sensitivity 1). It returns
// the Gaussian releases made.
func (m *model) dpCentroids(ctx context.Context, e *embedding, iters int, z, clip float64, rng *rand.Rand) ([]cluster.GaussianRelease, error) {
	res, err := cluster.DPKMeans(ctx, e.z64, m.n, m.latent, cluster.DPKMeansConfig{
		K: m.k, Iterations: iters, ClipNorm: clip, SigmaSum: z * clip, SigmaCount: z, Init: cluster.DPInitRandomBall,
	}, rng)
	if err != nil {
		return nil, err
	}
	if !res.Private {
		return nil, fmt.Errorf("dcan: DP k-means result is not private")
	}
	m.setCentroids(res.Centroids)
	return res.Releases, nil
}

// argmaxQ writes the most likely cluster of every cell into e.pred.
func argmaxQ(e *embedding) {
	for i := range e.pred {
		row := e.q.RawRowView(i)
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		e.pred[i] = best
	}
}

// report emits the metrics and the 2-D embedding of e against the true
// labels (nil when unknown).
func report(ctl *core.Control, e *embedding, n, latent int, truth []int, stage, epoch, step int) error {
	var vals []core.NamedValue
	if truth != nil {
		sc, err := cluster.Score(truth, e.pred)
		if err != nil {
			return err
		}
		vals = append(vals,
			core.NamedValue{Name: "ARI", Value: sc.ARI},
			core.NamedValue{Name: "NMI", Value: sc.NMI},
			core.NamedValue{Name: "ACC", Value: sc.ACC})
		if s, err := cluster.Silhouette(e.z64, n, latent, truth); err == nil {
			vals = append(vals, core.NamedValue{Name: "silhouette", Value: s})
		}
		ctl.Emit(core.MetricsEvent{Stage: stage, Epoch: epoch, Step: step, Values: vals, Unreleased: true})
	}
	ev := core.EmbeddingEvent{Step: step, Cluster: append([]int(nil), e.pred...), Truth: make([]int, n)}
	for i := range ev.Truth {
		ev.Truth[i] = -1
		if truth != nil {
			ev.Truth[i] = truth[i]
		}
	}
	if pca, err := cluster.PCA(e.z64, n, latent, 2); err == nil {
		ev.X, ev.Y = make([]float64, n), make([]float64, n)
		for i := range n {
			ev.X[i], ev.Y[i] = pca.Scores[2*i], pca.Scores[2*i+1]
		}
		ctl.Emit(ev)
	}
	return nil
}
