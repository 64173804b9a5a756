package fed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/nn"
)

// silhouetteSample is the number of cells the silhouette is estimated on
// when the data set is larger.
const silhouetteSample = 2000

// kmeansInit is the number of k-means++ restarts of the evaluation;
// fedscKMeansInit is FedSC's: scikit-learn's KMeans default n_init = 10,
// which FedSC §4.1 ("the K-means algorithm in the scikit-learn package")
// and contrastive-sc's evaluation use.
const (
	kmeansInit      = 3
	fedscKMeansInit = 10
)

// report emits the round's step and budget events and, when evaluated, its
// metrics and embedding. The step's loss is the server model's mean
// reconstruction MSE on every cell (autoencoder variants) or the
// size-weighted mean of the clients' losses (FedSC); its parts are the
// clients' mean local losses.
func (s *sim) report(ctx context.Context, round int, evaluated bool) error {
	var loss float64
	if evaluated {
		if err := s.evaluate(ctx, round); err != nil {
			return err
		}
		loss = s.lastLoss
	} else if s.e.v.autoencoder() {
		_, loss = s.ws[0].embed(s.embBuf())
	}
	if !s.e.v.autoencoder() {
		loss = 0
		for c, l := range s.losses {
			loss += l * float64(len(s.split.Clients[c])) / float64(s.d.Cells)
		}
	}
	if err := nn.CheckFinite("global loss", loss); err != nil {
		return fmt.Errorf("fed: round %d: %w", round, err)
	}
	if round == 1 {
		s.roundLoss[0] = loss
	}
	s.roundLoss[1] = loss
	ev := core.StepEvent{Stage: s.segment, Epoch: round, Step: round, Loss: loss, Parts: make([]core.NamedValue, s.k)}
	for c, l := range s.losses {
		ev.Parts[c] = core.NamedValue{Name: fmt.Sprintf("client %d", c+1), Value: l}
	}
	s.ctl.Emit(ev)
	if s.rp != nil && s.rp.private {
		s.ctl.Emit(s.rp.budget(round))
	}
	if s.pr != nil {
		s.ctl.Emit(s.pr.budget(round, s.k))
	}
	return nil
}

// embBuf returns the embedding buffer, sized for the learner.
func (s *sim) embBuf() []float64 {
	if n := s.d.Cells * s.ws[0].embedDim(); len(s.emb) != n {
		s.emb = make([]float64, n)
	}
	return s.emb
}

// evaluate embeds every cell with the server model, clusters the
// embedding with k-means and reports ARI, NMI, ACC (CA), JI (pair
// Jaccard) and the silhouette of the true labels on the embedding, and a
// 2-D PCA projection.
func (s *sim) evaluate(ctx context.Context, round int) error {
	dim, loss := s.ws[0].embed(s.embBuf())
	s.dim, s.lastLoss = dim, loss
	n := s.d.Cells
	nInit := kmeansInit
	if !s.e.v.autoencoder() {
		nInit = fedscKMeansInit
	}
	labels, err := s.kmeans(ctx, s.emb, dim, nInit)
	if err != nil {
		return err
	}
	copy(s.pred, labels)
	if s.truth != nil {
		sc, err := cluster.Score(s.truth, s.pred)
		if err != nil {
			return fmt.Errorf("fed: scores: %w", err)
		}
		vals := []core.NamedValue{{Name: "ARI", Value: sc.ARI}, {Name: "NMI", Value: sc.NMI},
			{Name: "ACC", Value: sc.ACC}, {Name: "JI", Value: sc.PairJaccard}}
		var sil float64
		if n > silhouetteSample {
			sil, err = cluster.SilhouetteSample(s.emb, n, dim, s.truth, silhouetteSample, rand.New(rand.NewPCG(s.e.cfg.Seed, stream(streamKMeans, round, 1))))
		} else {
			sil, err = cluster.Silhouette(s.emb, n, dim, s.truth)
		}
		if err == nil && !math.IsNaN(sil) {
			vals = append(vals, core.NamedValue{Name: "silhouette", Value: sil})
		}
		if bw, ok := s.ws[0].(*byolWorker); ok && s.e.p.EvalBN == EvalBNPooled {
			ari, err := s.runningBNARI(ctx, bw, dim)
			if err != nil {
				return err
			}
			vals = append(vals, core.NamedValue{Name: "ARI running BN", Value: ari})
		}
		s.ctl.Emit(core.MetricsEvent{Stage: s.segment, Epoch: round, Step: round, Values: vals, Unreleased: true})
	}
	ev := core.EmbeddingEvent{Step: round, Cluster: append([]int(nil), s.pred...), Truth: make([]int, n)}
	for i := range ev.Truth {
		ev.Truth[i] = -1
		if s.truth != nil {
			ev.Truth[i] = s.truth[i]
		}
	}
	if pca, err := cluster.PCA(s.emb, n, dim, 2); err == nil {
		ev.X, ev.Y = make([]float64, n), make([]float64, n)
		for i := range n {
			ev.X[i], ev.Y[i] = pca.Scores[2*i], pca.Scores[2*i+1]
		}
		s.ctl.Emit(ev)
	}
	return nil
}

// result returns the final embedding and clusters.
func (s *sim) result() core.ResultEvent {
	ev := core.ResultEvent{Cells: s.d.Cells, Dim: s.dim, Embedding: make([]float32, len(s.emb)),
		Cluster: append([]int(nil), s.pred...), Barcodes: append([]string(nil), s.d.Barcodes...)}
	for i, v := range s.emb {
		ev.Embedding[i] = float32(v)
	}
	return ev
}

// runningBNARI is the ARI the default evaluation (EvalBNRunning) gives the
// same server model, reported beside EvalBNPooled's so that one run pairs
// the two: the training is the same either way (the evaluation draws no
// training randomness and leaves no state behind).
func (s *sim) runningBNARI(ctx context.Context, bw *byolWorker, dim int) (float64, error) {
	emb := make([]float64, len(s.emb))
	bw.embedWith(emb, EvalBNRunning)
	labels, err := s.kmeans(ctx, emb, dim, fedscKMeansInit)
	if err != nil {
		return 0, err
	}
	sc, err := cluster.Score(s.truth, labels)
	if err != nil {
		return 0, fmt.Errorf("fed: scores: %w", err)
	}
	return sc.ARI, nil
}

// kmeans clusters an embedding of every cell (dim columns) into the run's
// K clusters with nInit restarts, on the k-means stream of the run's seed.
func (s *sim) kmeans(ctx context.Context, emb []float64, dim, nInit int) ([]int, error) {
	res, err := cluster.KMeans(ctx, emb, s.d.Cells, dim, cluster.KMeansConfig{K: s.clusters, NInit: nInit, Seed: s.e.cfg.Seed + uint64(streamKMeans)})
	if err != nil {
		return nil, fmt.Errorf("fed: k-means: %w", err)
	}
	return res.Labels, nil
}
