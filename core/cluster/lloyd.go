package cluster

import (
	"math"
	"slices"
)

// lloyd is the workspace of one k-means run on centred data. Its buffers
// are allocated once by newLloyd; assign and update allocate nothing.
// Not safe for concurrent use; the data x and xnorm are shared read-only.
type lloyd struct {
	n, d, k int
	x       []float64 // n×d data, read-only
	xnorm   []float64 // xnorm[i] = ‖x_i‖², read-only
	centers []float64 // k×d current centroids
	next    []float64 // k×d centroids being computed
	cnorm   []float64 // cnorm[j] = ‖c_j‖², set by prepare
	dots    []float64 // dots[j] = x_i·c_j, set by rowDots
	counts  []float64 // cluster sizes of the last update
	labels  []int     // labels of the last assign
	old     []int     // labels of the assign before
	dist    []float64 // dist[i] = ‖x_i − c_labels[i]‖² of the last assign (Gram form)
}

func newLloyd(x, xnorm []float64, n, d, k int) *lloyd {
	return &lloyd{
		n: n, d: d, k: k, x: x, xnorm: xnorm,
		centers: make([]float64, k*d),
		next:    make([]float64, k*d),
		cnorm:   make([]float64, k),
		dots:    make([]float64, k),
		counts:  make([]float64, k),
		labels:  make([]int, n),
		old:     make([]int, n),
		dist:    make([]float64, n),
	}
}

// assign sets labels[i] to the nearest centroid of row i (lowest index on
// ties) and dist[i] to its squared distance, using
// ‖x − c‖² = ‖x‖² + ‖c‖² − 2x·c. It allocates nothing.
func (w *lloyd) assign() {
	w.prepare()
	for i := range w.n {
		w.rowDots(i)
		best, bj := math.Inf(1), 0
		for j, s := range w.dots {
			if v := w.cnorm[j] - 2*s; v < best {
				best, bj = v, j
			}
		}
		w.labels[i] = bj
		w.dist[i] = max(w.xnorm[i]+best, 0)
	}
}

// prepare computes the squared centroid norms for rowDots.
func (w *lloyd) prepare() {
	d := w.d
	for j := range w.k {
		w.cnorm[j] = dot(w.centers[j*d:j*d+d], w.centers[j*d:j*d+d])
	}
}

// rowDots sets dots[j] = x_i·c_j for every centroid, four centroids per
// pass over the row (four independent accumulators).
func (w *lloyd) rowDots(i int) {
	d, k := w.d, w.k
	xi := w.x[i*d : i*d+d]
	j := 0
	for ; j+4 <= k; j += 4 {
		c0 := w.centers[j*d : j*d+d]
		c1 := w.centers[(j+1)*d : (j+1)*d+d]
		c2 := w.centers[(j+2)*d : (j+2)*d+d]
		c3 := w.centers[(j+3)*d : (j+3)*d+d]
		c0, c1, c2, c3 = c0[:len(xi)], c1[:len(xi)], c2[:len(xi)], c3[:len(xi)]
		var s0, s1, s2, s3 float64
		for t, v := range xi {
			s0 += v * c0[t]
			s1 += v * c1[t]
			s2 += v * c2[t]
			s3 += v * c3[t]
		}
		w.dots[j], w.dots[j+1], w.dots[j+2], w.dots[j+3] = s0, s1, s2, s3
	}
	for ; j < k; j++ {
		w.dots[j] = dot(xi, w.centers[j*d:j*d+d])
	}
}

// update computes next as the means of the clusters of the last assign.
// Each empty cluster is re-seeded with the row farthest from its own
// centroid (scikit-learn's relocation), which is removed from its old
// cluster; rows already moved are not chosen twice. It swaps next into
// centers and reports whether a row was relocated.
func (w *lloyd) update() (relocated bool) {
	d, k := w.d, w.k
	clear(w.next)
	clear(w.counts)
	for i, c := range w.labels {
		add(w.next[c*d:c*d+d], w.x[i*d:i*d+d])
		w.counts[c]++
	}
	if slices.Contains(w.counts, 0) {
		// dist may be stale for rows the bounds skipped: refresh it.
		for i, c := range w.labels {
			w.dist[i] = SqDist(w.x[i*d:i*d+d], w.centers[c*d:c*d+d])
		}
	}
	for j := range k {
		if w.counts[j] > 0 {
			continue
		}
		far, fd := -1, -1.0
		for i, v := range w.dist {
			if v > fd {
				far, fd = i, v
			}
		}
		old := w.labels[far]
		if w.counts[old] <= 1 {
			// Every row is alone in its cluster or already moved: nothing
			// to take from (fewer distinct rows than clusters).
			continue
		}
		xi := w.x[far*d : far*d+d]
		sub(w.next[old*d:old*d+d], xi)
		w.counts[old]--
		copy(w.next[j*d:j*d+d], xi)
		w.counts[j] = 1
		w.labels[far] = j
		w.dist[far] = -1 // never chosen again in this update
		relocated = true
	}
	for j := range k {
		cj := w.next[j*d : j*d+d]
		if w.counts[j] == 0 {
			// Still empty: keep the old centroid.
			copy(cj, w.centers[j*d:j*d+d])
			continue
		}
		inv := 1 / w.counts[j]
		for t := range cj {
			cj[t] *= inv
		}
	}
	w.centers, w.next = w.next, w.centers
	return relocated
}

// inertia returns Σ_i ‖x_i − c_labels[i]‖², computed directly.
func (w *lloyd) inertia() float64 {
	var s float64
	d := w.d
	for i, c := range w.labels {
		s += SqDist(w.x[i*d:i*d+d], w.centers[c*d:c*d+d])
	}
	return s
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// SqDist is the squared Euclidean distance of a and b (b at least as long
// as a): the one every clustering step of dpscope measures with.
func SqDist(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		t := v - b[i]
		s += t * t
	}
	return s
}

func add(dst, s []float64) {
	s = s[:len(dst)]
	for i := range dst {
		dst[i] += s[i]
	}
}

func sub(dst, s []float64) {
	s = s[:len(dst)]
	for i := range dst {
		dst[i] -= s[i]
	}
}
