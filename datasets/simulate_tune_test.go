package datasets

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTuneBuiltinARI is the quick check used to tune the default spec: a
// scanpy-style pipeline (normalise to the median total, log1p, scale to unit
// variance clipped at 10 — all genes kept, as the default has 2,000 genes),
// 50 principal components by randomised subspace iteration, k-means with k
// the number of types (k-means++, 10 restarts) and the adjusted Rand index
// against the true types, averaged over a few k-means seeds. It runs only
// with DPSCOPE_TUNE=1 (it takes a few seconds); DPSCOPE_TUNE_SPEC names a
// JSON spec to try instead of the embedded default.
func TestTuneBuiltinARI(t *testing.T) {
	if os.Getenv("DPSCOPE_TUNE") == "" {
		t.Skip("set DPSCOPE_TUNE=1 to run the ARI tuning check")
	}
	spec, err := GetBuiltinSpec("default")
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("DPSCOPE_TUNE_SPEC"); p != "" {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		spec = BuiltinSpec{}
		if err := json.Unmarshal(raw, &spec); err != nil {
			t.Fatal(err)
		}
	}
	seeds := []uint64{spec.Seed}
	if n, _ := strconv.Atoi(os.Getenv("DPSCOPE_TUNE_DATASEEDS")); n > 1 {
		for s := 1; s < n; s++ {
			seeds = append(seeds, spec.Seed+uint64(s))
		}
	}
	for _, seed := range seeds {
		cfg := spec.SimConfig
		cfg.Seed = seed
		d, _, err := Simulate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		k := len(d.Classes)
		pcs := tunePCA(tuneScaled(d.X), 50)
		var sum float64
		const runs = 5
		aris := make([]float64, runs)
		for s := range runs {
			lab := tuneKMeans(pcs, k, 10, uint64(s))
			aris[s] = tuneARI(d.Labels, lab)
			sum += aris[s]
		}
		t.Logf("data seed %d: sizes %v, nnz %.1f%%, mean ARI over %d k-means seeds %.3f %.3f",
			seed, d.ClassCounts(), 100*float64(d.X.NNZ())/float64(d.Cells()*d.Genes()), runs, sum/runs, aris)
	}
}

// tuneScaled returns the dense cells × genes matrix normalised to the median
// total, log1p-transformed and scaled (zero mean, unit variance, clip 10).
func tuneScaled(x *CSR) *mat.Dense {
	n, g := x.Dims()
	tot := make([]float64, n)
	for i := range n {
		_, v := x.Row(i)
		for _, c := range v {
			tot[i] += float64(c)
		}
	}
	s := append([]float64(nil), tot...)
	for i := 1; i < n; i++ { // insertion sort is fine for a test helper
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	m := mat.NewDense(n, g, nil)
	for i := range n {
		cols, v := x.Row(i)
		for k, j := range cols {
			m.Set(i, int(j), math.Log1p(float64(v[k])*med/tot[i]))
		}
	}
	for j := range g {
		var mu, ss float64
		for i := range n {
			mu += m.At(i, j)
		}
		mu /= float64(n)
		for i := range n {
			d := m.At(i, j) - mu
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(n-1))
		for i := range n {
			v := 0.0
			if sd > 0 {
				v = math.Min((m.At(i, j)-mu)/sd, 10)
			}
			m.Set(i, j, v)
		}
	}
	return m
}

// tunePCA returns the scores on the top p principal components of the
// centred matrix x, by randomised subspace iteration (Halko, Martinsson &
// Tropp 2011, https://arxiv.org/abs/0909.4061) with 4 power iterations.
func tunePCA(x *mat.Dense, p int) *mat.Dense {
	n, g := x.Dims()
	l := p + 10
	rng := rand.New(rand.NewPCG(7, 7))
	omega := mat.NewDense(g, l, nil)
	for i := range g {
		for j := range l {
			omega.Set(i, j, rng.NormFloat64())
		}
	}
	orth := func(a *mat.Dense) *mat.Dense {
		var qr mat.QR
		qr.Factorize(a)
		var q mat.Dense
		qr.QTo(&q)
		r, _ := a.Dims()
		return mat.DenseCopyOf(q.Slice(0, r, 0, l))
	}
	var y mat.Dense
	y.Mul(x, omega)
	q := orth(&y)
	for range 4 {
		var z mat.Dense
		z.Mul(x.T(), q)
		zq := orth(&z)
		var y2 mat.Dense
		y2.Mul(x, zq)
		q = orth(&y2)
	}
	var b mat.Dense
	b.Mul(q.T(), x) // l × g
	var svd mat.SVD
	svd.Factorize(&b, mat.SVDThin)
	var u mat.Dense
	svd.UTo(&u)
	vals := svd.Values(nil)
	var scores mat.Dense
	scores.Mul(q, u.Slice(0, l, 0, p))
	for j := range p {
		for i := range n {
			scores.Set(i, j, scores.At(i, j)*vals[j])
		}
	}
	return &scores
}

// tuneKMeans returns the labels of the best (least inertia) of restarts
// Lloyd runs from k-means++ seeds.
func tuneKMeans(x *mat.Dense, k, restarts int, seed uint64) []int {
	n, p := x.Dims()
	rng := rand.New(rand.NewPCG(seed, 99))
	best, bestIn := []int(nil), math.Inf(1)
	raw := x.RawMatrix()
	d2 := func(i int, c []float64) float64 {
		var s float64
		row := raw.Data[i*raw.Stride : i*raw.Stride+p]
		for j, v := range row {
			d := v - c[j]
			s += d * d
		}
		return s
	}
	for range restarts {
		cent := make([][]float64, 0, k)
		cent = append(cent, mat.Row(nil, rng.IntN(n), x))
		dist := make([]float64, n)
		for len(cent) < k {
			var tot float64
			for i := range n {
				dist[i] = math.Inf(1)
				for _, c := range cent {
					dist[i] = math.Min(dist[i], d2(i, c))
				}
				tot += dist[i]
			}
			u := rng.Float64() * tot
			i := 0
			for ; i < n-1 && u > dist[i]; i++ {
				u -= dist[i]
			}
			cent = append(cent, mat.Row(nil, i, x))
		}
		lab := make([]int, n)
		var in float64
		for it := 0; it < 300; it++ {
			changed := it == 0
			in = 0
			for i := range n {
				bi, bd := 0, math.Inf(1)
				for c := range cent {
					if d := d2(i, cent[c]); d < bd {
						bi, bd = c, d
					}
				}
				if lab[i] != bi {
					changed = true
					lab[i] = bi
				}
				in += bd
			}
			if !changed {
				break
			}
			cnt := make([]int, k)
			for c := range cent {
				clear(cent[c])
			}
			for i := range n {
				cnt[lab[i]]++
				for j := range p {
					cent[lab[i]][j] += x.At(i, j)
				}
			}
			for c := range cent {
				for j := range p {
					if cnt[c] > 0 {
						cent[c][j] /= float64(cnt[c])
					}
				}
			}
		}
		if in < bestIn {
			best, bestIn = lab, in
		}
	}
	return best
}

// tuneARI returns the adjusted Rand index of two labellings (Hubert & Arabie
// 1985).
func tuneARI(a, b []int) float64 {
	type pair struct{ a, b int }
	nij := map[pair]float64{}
	na, nb := map[int]float64{}, map[int]float64{}
	for i := range a {
		nij[pair{a[i], b[i]}]++
		na[a[i]]++
		nb[b[i]]++
	}
	c2 := func(x float64) float64 { return x * (x - 1) / 2 }
	var sij, sa, sb float64
	for _, v := range nij {
		sij += c2(v)
	}
	for _, v := range na {
		sa += c2(v)
	}
	for _, v := range nb {
		sb += c2(v)
	}
	exp := sa * sb / c2(float64(len(a)))
	return (sij - exp) / ((sa+sb)/2 - exp)
}
