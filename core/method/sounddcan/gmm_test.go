package sounddcan

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/core/cluster"
	"github.com/dpscope/dpscope/internal/fixture"
)

// blobs returns n rows of h genes around k means (k × h) with spread sd,
// and their labels.
func blobs(k, perClass, h int, sep, sd float64, rng *rand.Rand) (x, means []float64, labels []int) {
	means = make([]float64, k*h)
	for j := range k {
		means[j*h+j%h] = sep
	}
	for j := range k {
		for range perClass {
			for g := range h {
				x = append(x, means[j*h+g]+sd*rng.NormFloat64())
			}
			labels = append(labels, j)
		}
	}
	return x, means, labels
}

// TestMixtureSensitivity: one cell moves the clipped gradient sum by at most
// 1 (the sensitivity the plan charges), and a far-away cell by exactly 1
// (its gradient is clipped).
func TestMixtureSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	k, h, r := 3, 20, 2.0
	x, means, _ := blobs(k, 30, h, 1, 0.3, rng)
	m := &mixture{k: k, h: h, mu: means, a: []float64{0, -1, 0.5}, b: 0.3}
	cMu, cV := r, r*r/float64(h)
	n := len(x) / h
	sz := m.gradSize()
	base, g := make([]float64, sz), make([]float64, sz)
	m.clippedSum(x, n, cMu, cV, base, g)
	for _, far := range []float64{0, 0.5, 50} {
		cell := make([]float64, h)
		for i := range cell {
			cell[i] = far * rng.NormFloat64()
		}
		with := make([]float64, sz)
		m.clippedSum(append(append([]float64(nil), x...), cell...), n+1, cMu, cV, with, g)
		var d float64
		for i := range with {
			d += (with[i] - base[i]) * (with[i] - base[i])
		}
		d = math.Sqrt(d)
		if d > 1+1e-9 {
			t.Errorf("a cell at scale %g moves the sum by %.6f > 1", far, d)
		}
		if far == 50 && math.Abs(d-1) > 1e-9 {
			t.Errorf("a far cell moves the sum by %.6f, want exactly 1 (clipped)", d)
		}
	}
}

// TestMixtureLiftKeepsStartLabels: lifted through an orthonormal basis with
// equal weights, the mixture labels every cell in the basis' span as its
// nearest released centre in code space (the start's labels).
func TestMixtureLiftKeepsStartLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	h, p, k, n := 12, 3, 4, 200
	basis := make([]float64, h*p) // unit vectors on genes 0, 2, 4
	for d := range p {
		basis[(2*d)*p+d] = 1
	}
	c := make([]float64, k*p)
	for i := range c {
		c[i] = 2 * rng.NormFloat64()
	}
	codes := make([]float64, n*p)
	x := make([]float64, n*h)
	for i := range n {
		for d := range p {
			codes[i*p+d] = 2 * rng.NormFloat64()
			x[i*h+2*d] = codes[i*p+d]
		}
	}
	m := newMixture(c, []float64{5, 5, 5, 5}, basis, k, p, h, 10)
	got := m.labels(x, n)
	for i := range n {
		if want := cluster.Nearest(codes[i*p:(i+1)*p], c, p); got[i] != want {
			t.Fatalf("cell %d: mixture label %d, nearest centre %d", i, got[i], want)
		}
	}
}

// TestMixtureLearnsMeans: without noise, steps of size 1 (soft Lloyd in
// gene space) from means displaced by half the separation find the
// populations' means and labels, and the loss does not rise.
func TestMixtureLearnsMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	k, h := 3, 10
	x, means, truth := blobs(k, 100, h, 3, 0.5, rng)
	n := len(truth)
	m := &mixture{k: k, h: h, mu: slices.Clone(means), a: make([]float64, k), b: -0.5 * math.Log(1.0)}
	for i := range m.mu {
		m.mu[i] += 0.8 * rng.NormFloat64()
	}
	r := 0.0
	for i := range n {
		var s float64
		for _, v := range x[i*h : (i+1)*h] {
			s += v * v
		}
		r = max(r, math.Sqrt(s))
	}
	sum, g := make([]float64, m.gradSize()), make([]float64, m.gradSize())
	prev := math.Inf(1)
	for s := range 30 {
		// the plan's bounds; clipping makes EM monotone only up to rounding
		loss := m.noisyStep(x, n, r, r*r/float64(h), 0, float64(n), 1, false, 0, nil, sum, g)
		if loss > prev+1e-6 {
			t.Errorf("step %d: loss %.6f rose from %.6f", s, loss, prev)
		}
		prev = loss
	}
	if ari, err := cluster.ARI(truth, m.labels(x, n)); err != nil || ari < 0.99 {
		t.Errorf("ARI %.3f (%v), want ≥ 0.99", ari, err)
	}
	for j := range k {
		best := math.Inf(1)
		for l := range k {
			var d float64
			for g := range h {
				e := m.mu[j*h+g] - means[l*h+g]
				d += e * e
			}
			best = min(best, math.Sqrt(d))
		}
		if best > 0.3 {
			t.Errorf("mean %d is %.3f from every population mean, want ≤ 0.3", j, best)
		}
	}
	if v := math.Exp(-2 * m.b); math.Abs(v-0.25) > 0.05 {
		t.Errorf("learnt variance %.3f, want ≈ 0.25 (sd 0.5)", v)
	}
}

// TestNullSpendsNoSteps: steps=0 records no DP-SGD step, meets the same
// target ε as the trained pipeline, and labels as its start.
// (target=10000: under target=auto the null releases the cell count at the
// method's noise and so spends a sliver less, TestTargetAuto.)
func TestNullSpendsNoSteps(t *testing.T) {
	d := fixture.Separated(4, 60, 200, 2)
	e, evs := runTest(t, d, fixture.SoundConfig(2, 1, map[string]string{"genes": "100", "steps": "0", "target": "10000", "handoff": "off"}))
	if n := len(e.Ledger().Events(MechSGD)); n != 0 {
		t.Errorf("the null recorded %d DP-SGD events", n)
	}
	g, ok := fixture.LastOf[core.GuaranteeEvent](evs)
	if !ok || len(g.Audited) == 0 || g.Audited[0].Epsilon > 2 || g.Audited[0].Epsilon < 2-1e-5 {
		t.Errorf("null guarantee %+v, want audited ε = 2", g)
	}
	out := e.Outcome()
	if !slices.Equal(out.Labels, out.StartLabels) || len(out.Losses) != 0 {
		t.Errorf("the null's labels differ from its start's, or it has %d losses", len(out.Losses))
	}
	if out.Plan.Steps != 0 || out.Plan.Z != 0 {
		t.Errorf("null plan %+v, want no steps", out.Plan)
	}
}

// TestGateHoldsLightComponents: with the gate, a noisy step leaves the
// mean of a component whose weight is too light for the noise exactly
// where it was and moves the heavy ones; the weights still move; without
// the gate every mean moves.
func TestGateHoldsLightComponents(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	k, h := 3, 10
	x, means, _ := blobs(k, 100, h, 3, 0.5, rng)
	n := len(x) / h
	newM := func() *mixture {
		// component 2 has weight 1 % of the cells: 3 of 300
		a := []float64{math.Log(0.495), math.Log(0.495), math.Log(0.01)}
		return &mixture{k: k, h: h, mu: slices.Clone(means), a: a, b: 0, gclip: 1}
	}
	r := 10.0
	z, eta := 2.0, 0.06
	light := MeanNoise(z, 1, 1, float64(n)*0.01, eta, h)
	heavy := MeanNoise(z, 1, 1, float64(n)*0.495, eta, h)
	if !(light > StageRho && heavy <= StageRho) {
		t.Fatalf("test set-up: ρ light %.3g, heavy %.3g, want them on either side of %g", light, heavy, StageRho)
	}
	for _, gate := range []float64{StageRho, 0} {
		m := newM()
		a0 := slices.Clone(m.a)
		sum, g := make([]float64, m.gradSize()), make([]float64, m.gradSize())
		m.noisyStep(x, n, r, r*r/float64(h), z, float64(n), eta, false, gate, rand.New(rand.NewPCG(1, 1)), sum, g)
		for j := range k {
			moved := !slices.Equal(m.mu[j*h:(j+1)*h], means[j*h:(j+1)*h])
			if want := gate == 0 || j < 2; moved != want {
				t.Errorf("gate %g: component %d mean moved %v, want %v", gate, j, moved, want)
			}
		}
		if slices.Equal(m.a, a0) {
			t.Errorf("gate %g: the weights did not move", gate)
		}
	}
}
