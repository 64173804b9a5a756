package sounddcan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpscope/dpscope/core/method/dppca"
	"github.com/dpscope/dpscope/datasets"
	"github.com/dpscope/dpscope/internal/fixture"
)

// TestSplitDiag is the twentieth session's label-free diagnosis of the
// start's private subspace (sdcan25): on the draws of
// DPSCOPE_SOUNDDCAN_SPLITDIAG (the design tests' shapes, or
// data:PATH, a data set on disk, its K the number of its classes), at each ε of
// DPSCOPE_SOUNDDCAN_EPS (default 4,8), run seeds 0–2, the default and
// each option set of DPSCOPE_SOUNDDCAN_SPLITVARIANTS ("|"-separated,
// key=value;…; default split=0.5, 0.65, 0.8) at the network-on share.
// For each it logs, reading no label: the released eigenvalues above the
// covariance's noise edge (of p), the share of the scaled rows' top-p
// variance the private basis captures (tr(VᵀCV) over the sum of C's p
// largest eigenvalues, C = ZᵀZ of the stage's rows without noise), the
// separation (between-cluster share of variance) of the start's labels
// and of the run's final labels in one reference space shared by every
// variant of a run (the rows' projections on C's K − 1 leading
// eigenvectors, no noise: K means span K − 1 dimensions), the same after diagLloyd noise-free Lloyd iterations from
// the start's labels there (an oracle, not a release), and the non-empty
// clusters at the start and at the end. The variants share the private
// preprocessing draw for draw (its shares do not move), so the rows Z are
// the same; the test fails if they are not. Long and for reading only.
func TestSplitDiag(t *testing.T) {
	env := os.Getenv("DPSCOPE_SOUNDDCAN_SPLITDIAG")
	if env == "" {
		t.Skip("long: set DPSCOPE_SOUNDDCAN_SPLITDIAG=407 to diagnose the start's subspace")
	}
	epss := fixture.EnvFloats(t, "DPSCOPE_SOUNDDCAN_EPS", []float64{4, 8})
	vs := "split=0.5|split=0.65|split=0.8"
	if v := os.Getenv("DPSCOPE_SOUNDDCAN_SPLITVARIANTS"); v != "" {
		vs = v
	}
	type variant struct {
		name string
		o    Options
	}
	var variants []variant
	for _, v := range strings.Split(vs, "|") {
		vals := map[string]string{}
		for _, kv := range strings.Split(v, ";") {
			if k, x, ok := strings.Cut(kv, "="); ok {
				vals[k] = x
			}
		}
		variants = append(variants, variant{v, mustParse(t, vals)})
	}
	// DPSCOPE_SOUNDDCAN_SPLITROWS=own lets variants change the rows (genes,
	// total, offset): each variant's capture is read on its own rows, and
	// every separation in the first variant's reference space.
	ownRows := os.Getenv("DPSCOPE_SOUNDDCAN_SPLITROWS") == "own"
	var ds []*datasets.Dataset
	var srcs []*dppca.Source
	if path, ok := strings.CutPrefix(env, "data:"); ok {
		// a data set on disk, for a label-free look only: K is its number
		// of classes, as the method reads it; no label is read beyond that
		d, err := datasets.Open(path, datasets.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		src, err := dppca.NewSource(d, 0)
		if err != nil {
			t.Fatal(err)
		}
		ds, srcs = []*datasets.Dataset{d}, []*dppca.Source{src}
	} else {
		ds, srcs = drawSources(t, env)
	}
	type acc struct{ above, capture, sepStart, sepEnd, oracle, neStart, neEnd, runs float64 }
	tot := make([]acc, len(variants))
	for di, src := range srcs {
		for _, eps := range epss {
			for s := range uint64(3) {
				line := fmt.Sprintf("%s ε=%g s=%d:", ds[di].Name, eps, s)
				var z0 []float64
				var ref []float32
				var vecs *mat.Dense
				var vals []float64
				var all mat.Dense
				var c *mat.SymDense
				q := max(src.K-1, 2) // the reference space: K means span K − 1 dimensions
				for vi, v := range variants {
					rng := rand.New(rand.NewPCG(s, 0))
					pl, err := NewPlan(src, true, eps, 1e-5, v.o, rng)
					if err != nil {
						t.Fatal(err)
					}
					out, err := Fit(context.Background(), src, pl, v.o, rng, Hooks{})
					if err != nil {
						t.Fatal(err)
					}
					st := out.Start
					m := st.Matrix
					n, h, p := m.N, m.H, len(st.Eigen)
					cv, vv := c, vals // the rows' covariance and its eigenvalues for the capture
					if z0 == nil {
						z0 = append([]float64(nil), m.Z...)
						zm := mat.NewDense(n, h, z0)
						c = mat.NewSymDense(h, nil)
						c.SymOuterK(1, zm.T())
						var es mat.EigenSym
						if !es.Factorize(c, true) {
							t.Fatal("eigen decomposition failed")
						}
						vals = es.Values(nil) // increasing
						es.VectorsTo(&all)
						vecs = mat.NewDense(h, q, nil)
						for j := range q {
							for g := range h {
								vecs.Set(g, j, all.At(g, h-1-j))
							}
						}
						var proj mat.Dense
						proj.Mul(zm, vecs)
						ref = make([]float32, n*q)
						for i := range n {
							for j := range q {
								ref[i*q+j] = float32(proj.At(i, j))
							}
						}
						cv, vv = c, vals
					} else if len(m.Z) != len(z0) || !slices.Equal(m.Z, z0) {
						if !ownRows || m.N != len(ref)/q {
							t.Fatalf("%s: the variants' rows differ (%s)", line, v.name)
						}
						// DPSCOPE_SOUNDDCAN_SPLITROWS=own: the variant's
						// own rows for its capture; its separations stay in
						// the first variant's reference (the same cells)
						zm := mat.NewDense(m.N, m.H, append([]float64(nil), m.Z...))
						own := mat.NewSymDense(m.H, nil)
						own.SymOuterK(1, zm.T())
						var es mat.EigenSym
						if !es.Factorize(own, false) {
							t.Fatal("eigen decomposition failed")
						}
						cv, vv = own, es.Values(nil)
					}
					above := 0
					for _, e := range st.Eigen {
						if e > st.Plan.Edge() {
							above++
						}
					}
					b := mat.NewDense(h, p, append([]float64(nil), st.Basis...))
					var cb, btcb mat.Dense
					cb.Mul(cv, b)
					btcb.Mul(b.T(), &cb)
					top := 0.0
					for j := range p {
						top += vv[h-1-j]
					}
					capture := mat.Trace(&btcb) / top
					k := src.K
					x := acc{above: float64(above), capture: capture,
						sepStart: separation(ref, out.StartLabels, q), sepEnd: separation(ref, out.Labels, q),
						neStart: float64(nonEmpty(countsOf(out.StartLabels, k))), neEnd: float64(out.NonEmpty), runs: 1}
					rf := make([]float64, len(ref))
					for i, r := range ref {
						rf[i] = float64(r)
					}
					x.oracle = separation(ref, plainLloyd(rf, out.StartLabels, q, k, diagLloyd), q)
					line += fmt.Sprintf(" | %s h %d above %d/%d capture %.3f sep start %.3f end %.3f oracle %.3f ne %.0f/%.0f", v.name, h, above, p, capture, x.sepStart, x.sepEnd, x.oracle, x.neStart, x.neEnd)
					a := &tot[vi]
					a.above, a.capture, a.sepStart, a.sepEnd, a.oracle = a.above+x.above, a.capture+x.capture, a.sepStart+x.sepStart, a.sepEnd+x.sepEnd, a.oracle+x.oracle
					a.neStart, a.neEnd, a.runs = a.neStart+x.neStart, a.neEnd+x.neEnd, a.runs+1
				}
				t.Log(line)
			}
		}
	}
	var b strings.Builder
	for vi, v := range variants {
		a := tot[vi]
		f := 1 / a.runs
		fmt.Fprintf(&b, "\n  %-14s above %.2f capture %.3f sep start %.3f end %.3f oracle %.3f ne %.2f/%.2f", v.name, a.above*f, a.capture*f, a.sepStart*f, a.sepEnd*f, a.oracle*f, a.neStart*f, a.neEnd*f)
	}
	t.Logf("means over %.0f runs each:%s", tot[0].runs, b.String())
}
