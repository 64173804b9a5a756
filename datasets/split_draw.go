package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// PCG streams of the split generators, so that the kinds draw from
// different sequences for one seed.
const (
	streamSplitIID = 0x5011 + iota
	streamSplitNonIID
	streamSplitDirichlet
	streamSplitEqual
)

// NewSplit divides cells cells among cfg.Clients clients. labels (one per
// cell, −1 for unlabelled, values in [−1, classes)) are required by the
// label-based kinds (IID, non-IID, Dirichlet) and ignored by SplitEqual.
// The rules, for K clients:
//
//   - SplitIID: each class's cells are shuffled and dealt round-robin,
//     continuing from the client after the last one dealt to, so client
//     sizes differ by at most one and class proportions by at most one cell
//     per class.
//   - SplitNonIID (docs/METHODS.md §4): each class is cut into
//     P = ⌈s·K/classes⌉ equal random parts (the remainder going one cell
//     each to the first parts); client 1, 2, …, K in turn takes s parts of
//     distinct classes, each time from the class with the fewest parts
//     taken so far that still has one (ties to the lower class index). With
//     8 classes, K = 4 and s = 2, client c (0-based) gets classes
//     {2c, 2c+1}. Parts nobody took go to the client with the fewest cells
//     that already holds that class, or else to the client with the fewest
//     cells, and a note says so: no cell is dropped.
//   - SplitDirichlet: for each class, proportions p ~ Dirichlet(α·1_K) are
//     drawn and the shuffled cells cut at ⌊n_c·(p_1+…+p_k)⌋.
//   - SplitEqual: one random permutation of all cells cut into K parts of
//     ⌊N/K⌋ cells; the remainder N mod K goes one cell each to clients
//     1, …, N mod K, and a note says so.
//
// Unlabelled cells are dealt like a class of their own (IID, Dirichlet) or
// round-robin over all clients (non-IID), with a note. Clients left with no
// cell (possible with Dirichlet) are listed in a note and by Empty; they are
// not an error. NewSplit returns an error wrapping ErrBadSplit for an
// invalid cfg, K > cells, labels of the wrong length or out of range, or
// s > classes.
func NewSplit(cells int, labels []int, classes int, cfg SplitConfig) (*Split, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cells < 1 {
		return nil, splitErr("cells", cells, "≥ 1")
	}
	if cfg.Clients > cells {
		return nil, splitErr("clients", cfg.Clients, fmt.Sprintf("at most the number of cells, %d", cells))
	}
	needLabels := cfg.Kind != SplitEqual
	if needLabels || labels != nil {
		if len(labels) != cells {
			return nil, splitErr("number of labels", len(labels), fmt.Sprintf("the number of cells, %d (split %s needs labels)", cells, cfg))
		}
		if classes < 1 {
			return nil, splitErr("classes", classes, "≥ 1")
		}
		for i, l := range labels {
			if l < -1 || l >= classes {
				return nil, splitErr(fmt.Sprintf("label of cell %d", i), l, fmt.Sprintf("in [-1, %d)", classes))
			}
		}
	}
	if cfg.Kind == SplitNonIID && cfg.ClassesPerClient > classes {
		return nil, splitErr("classes per client", cfg.ClassesPerClient, fmt.Sprintf("at most the number of classes, %d", classes))
	}
	s := &Split{Config: cfg, Clients: make([][]int, cfg.Clients)}
	k := cfg.Clients
	switch cfg.Kind {
	case SplitIID:
		rng := rand.New(rand.NewPCG(cfg.Seed, streamSplitIID))
		next := 0
		for _, g := range byClass(labels, classes, true) {
			shuffle(rng, g)
			for _, i := range g {
				s.Clients[next] = append(s.Clients[next], i)
				next = (next + 1) % k
			}
		}
	case SplitNonIID:
		s.nonIID(labels, classes)
	case SplitDirichlet:
		s.dirichlet(labels, classes)
	case SplitEqual:
		rng := rand.New(rand.NewPCG(cfg.Seed, streamSplitEqual))
		perm := make([]int, cells)
		for i := range perm {
			perm[i] = i
		}
		shuffle(rng, perm)
		base, rem := cells/k, cells%k
		off := 0
		for c := range k {
			n := base
			if c < rem {
				n++
			}
			s.Clients[c] = append([]int(nil), perm[off:off+n]...)
			off += n
		}
		if rem > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%d cells do not divide into %d equal parts: clients 1–%d hold %d cells, the others %d (no cell dropped)",
				cells, k, rem, base+1, base))
		}
	}
	for c := range s.Clients {
		slices.Sort(s.Clients[c])
	}
	if labels != nil {
		s.Counts = make([][]int, k)
		for c, idx := range s.Clients {
			s.Counts[c] = make([]int, classes)
			for _, i := range idx {
				if l := labels[i]; l >= 0 {
					s.Counts[c][l]++
				}
			}
		}
	}
	if e := s.Empty(); len(e) > 0 {
		names := make([]string, len(e))
		for i, c := range e {
			names[i] = fmt.Sprint(c + 1)
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%d clients hold no cell (clients %s)", len(e), strings.Join(names, ", ")))
	}
	return s, nil
}

// byClass returns the cell indices of each class in increasing order, with
// the unlabelled cells (label −1) as a last group when withUnlabelled.
func byClass(labels []int, classes int, withUnlabelled bool) [][]int {
	g := make([][]int, classes+1)
	for i, l := range labels {
		if l < 0 {
			g[classes] = append(g[classes], i)
			continue
		}
		g[l] = append(g[l], i)
	}
	if !withUnlabelled || len(g[classes]) == 0 {
		return g[:classes]
	}
	return g
}

// shuffle is a Fisher–Yates shuffle of x driven by rng.
func shuffle(rng *rand.Rand, x []int) {
	rng.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
}

// nonIID implements SplitNonIID (see NewSplit).
func (s *Split) nonIID(labels []int, classes int) {
	k, per := s.Config.Clients, s.Config.ClassesPerClient
	rng := rand.New(rand.NewPCG(s.Config.Seed, streamSplitNonIID))
	parts := (per*k + classes - 1) / classes
	groups := byClass(labels, classes, false)
	// pieces[c] are class c's parts, taken[c] how many are gone.
	pieces := make([][][]int, classes)
	taken := make([]int, classes)
	for c, g := range groups {
		shuffle(rng, g)
		base, rem := len(g)/parts, len(g)%parts
		off := 0
		for p := range parts {
			n := base
			if p < rem {
				n++
			}
			pieces[c] = append(pieces[c], g[off:off+n])
			off += n
		}
	}
	holds := make([][]bool, k)
	for cl := range k {
		holds[cl] = make([]bool, classes)
		for range per {
			best := -1
			for c := range classes {
				if holds[cl][c] || taken[c] >= parts {
					continue
				}
				if best < 0 || taken[c] < taken[best] {
					best = c
				}
			}
			if best < 0 {
				break // every class this client lacks is used up
			}
			holds[cl][best] = true
			s.Clients[cl] = append(s.Clients[cl], pieces[best][taken[best]]...)
			taken[best]++
		}
	}
	var left []string
	for c := range classes {
		for ; taken[c] < parts; taken[c]++ {
			piece := pieces[c][taken[c]]
			if len(piece) == 0 {
				continue
			}
			to := -1
			for cl := range k {
				if holds[cl][c] && (to < 0 || len(s.Clients[cl]) < len(s.Clients[to])) {
					to = cl
				}
			}
			if to < 0 {
				for cl := range k {
					if to < 0 || len(s.Clients[cl]) < len(s.Clients[to]) {
						to = cl
					}
				}
			}
			holds[to][c] = true
			s.Clients[to] = append(s.Clients[to], piece...)
			left = append(left, fmt.Sprintf("class %d → client %d", c+1, to+1))
		}
	}
	if len(left) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d parts were left after every client took %d classes; they went to the smallest client holding the class, or the smallest client (no cell dropped): %s",
			len(left), per, strings.Join(left, "; ")))
	}
	var unl []int
	for i, l := range labels {
		if l < 0 {
			unl = append(unl, i)
		}
	}
	if len(unl) > 0 {
		shuffle(rng, unl)
		for j, i := range unl {
			s.Clients[j%k] = append(s.Clients[j%k], i)
		}
		s.Notes = append(s.Notes, fmt.Sprintf("%d unlabelled cells were dealt round-robin over all clients", len(unl)))
	}
}

// dirichlet implements SplitDirichlet (see NewSplit).
func (s *Split) dirichlet(labels []int, classes int) {
	k := s.Config.Clients
	rng := rand.New(rand.NewPCG(s.Config.Seed, streamSplitDirichlet))
	gamma := distuv.Gamma{Alpha: s.Config.Alpha, Beta: 1, Src: rng}
	p := make([]float64, k)
	for _, g := range byClass(labels, classes, true) {
		shuffle(rng, g)
		sum := 0.0
		for c := range p {
			p[c] = gamma.Rand()
			sum += p[c]
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			// every draw underflowed (tiny α): one client, uniformly
			for c := range p {
				p[c] = 0
			}
			p[rng.IntN(k)], sum = 1, 1
		}
		cum, off := 0.0, 0
		for c := range k {
			cum += p[c] / sum
			end := int(math.Floor(float64(len(g)) * cum))
			if c == k-1 {
				end = len(g)
			}
			end = min(max(end, off), len(g))
			s.Clients[c] = append(s.Clients[c], g[off:end]...)
			off = end
		}
	}
}
