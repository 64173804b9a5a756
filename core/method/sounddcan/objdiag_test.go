package sounddcan

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/internal/fixture"
	"gonum.org/v1/gonum/mat"
)

// TestObjectiveDiag (DPSCOPE_SOUNDDCAN_OBJDIAG: development draws or
// data:PATH; DPSCOPE_SOUNDDCAN_EPS, default 8; run seeds 0–4) asks where
// dcan-sound's partition loses the k-means objective that dppca's release
// keeps (sdcan29): for each run it logs the separation (between-cluster
// share of variance, separation) of the start's labels, of the run's
// final labels and of dppca's own release's labels (its defaults, the same
// run seed), all in one reference space, the default's noise-free rows'
// projections on their K − 1 leading eigenvectors (so it favours
// dcan-sound's rows), then the same in dppca's own rows' reference (the
// first run's; it favours dppca's rows), with the non-empty clusters. On development draws
// only it also logs each run's ARI, to read whether the objective ranks
// runs as the labels do; on data:PATH no label is read beyond K.
// DPSCOPE_SOUNDDCAN_OBJOPTS (key=value;…) sets the run's options in place
// of the defaults (sdcan30: keep=gate).
func TestObjectiveDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_OBJDIAG")
	if env == "" {
		t.Skip("set DPSCOPE_SOUNDDCAN_OBJDIAG")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{8})
	labelled := !strings.HasPrefix(env, "data:")
	def := envOptions(t, "DPSCOPE_SOUNDDCAN_OBJOPTS")
	for _, d := range diagDatasets(t, env) {
		src, err := dppca.NewSource(d, 0)
		if err != nil {
			t.Fatal(err)
		}
		k := src.K
		q := max(k-1, 2)
		for _, eps := range epss {
			var ref, dref []float32
			for s := range uint64(5) {
				out := fitOnce(t, src, true, eps, def, s)
				_, dout := dppcaRun(t, src, eps, s)
				if ref == nil {
					ref = refSpace(out.Start.Matrix.Z, out.Start.Matrix.N, out.Start.Matrix.H, q)
					dref = refSpace(dout.Matrix.Z, dout.Matrix.N, dout.Matrix.H, q)
				}
				line := fmt.Sprintf("%s ε=%g s=%d: sep start %.4f end %.4f dppca %.4f | ne start %d end %d dppca %d",
					d.Name, eps, s, separation(ref, out.StartLabels, q), separation(ref, out.Labels, q), separation(ref, dout.Labels, q),
					nonEmpty(countsOf(out.StartLabels, k)), out.NonEmpty, dout.NonEmpty)
				line += fmt.Sprintf(" | in dppca's rows: start %.4f end %.4f dppca %.4f",
					separation(dref, out.StartLabels, q), separation(dref, out.Labels, q), separation(dref, dout.Labels, q))
				if labelled {
					truth := out.Start.Matrix.Labels
					a0, _ := cluster.ARI(truth, out.StartLabels)
					a1, _ := cluster.ARI(truth, out.Labels)
					a2, _ := cluster.ARI(truth, dout.Labels)
					line += fmt.Sprintf(" | ARI start %.3f end %.3f dppca %.3f", a0, a1, a2)
				}
				t.Log(line)
			}
		}
	}
}

// refSpace returns the n × h rows z projected on the q leading
// eigenvectors of zᵀz (noise-free; a diagnosis's reference, not a
// release), row-major as float32 for separation.
func refSpace(z []float64, n, h, q int) []float32 {
	zm := mat.NewDense(n, h, append([]float64(nil), z...))
	c := mat.NewSymDense(h, nil)
	c.SymOuterK(1, zm.T())
	var es mat.EigenSym
	if !es.Factorize(c, true) {
		return make([]float32, n*q)
	}
	var all mat.Dense
	es.VectorsTo(&all)
	vecs := mat.NewDense(h, q, nil)
	for j := range q {
		for g := range h {
			vecs.Set(g, j, all.At(g, h-1-j)) // eigenvalues increase
		}
	}
	var proj mat.Dense
	proj.Mul(zm, vecs)
	ref := make([]float32, n*q)
	for i := range n {
		for j := range q {
			ref[i*q+j] = float32(proj.At(i, j))
		}
	}
	return ref
}
