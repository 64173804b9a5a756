package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// labelsOf returns n cells with labels drawn from classes classes (every
// class present), seeded.
func labelsOf(n, classes int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 1))
	l := make([]int, n)
	for i := range l {
		l[i] = i % classes
		if i >= classes {
			l[i] = rng.IntN(classes)
		}
	}
	return l
}

// checkPartition fails unless every cell 0..n-1 is in exactly one client.
func checkPartition(t *testing.T, s *Split, n int) {
	t.Helper()
	seen := make([]int, n)
	for _, c := range s.Clients {
		if !slices.IsSorted(c) {
			t.Errorf("client cells %v not sorted", c[:min(len(c), 5)])
		}
		for _, i := range c {
			seen[i]++
		}
	}
	for i, v := range seen {
		if v != 1 {
			t.Fatalf("cell %d is in %d clients, want 1", i, v)
		}
	}
}

func TestNewSplitPartitions(t *testing.T) {
	labels := labelsOf(1003, 7, 3)
	labels[5], labels[100] = -1, -1
	for _, tc := range []struct {
		desc string
		cfg  SplitConfig
	}{
		{"iid", SplitConfig{Kind: SplitIID, Clients: 10}},
		{"equal", SplitConfig{Kind: SplitEqual, Clients: 30}},
		{"noniid 2", SplitConfig{Kind: SplitNonIID, Clients: 4, ClassesPerClient: 2}},
		{"noniid 3 of 7 with leftovers", SplitConfig{Kind: SplitNonIID, Clients: 5, ClassesPerClient: 3}},
		{"dirichlet 0.1", SplitConfig{Kind: SplitDirichlet, Clients: 6, Alpha: 0.1}},
		{"dirichlet 100", SplitConfig{Kind: SplitDirichlet, Clients: 6, Alpha: 100}},
		{"one client", SplitConfig{Kind: SplitIID, Clients: 1}},
		{"one cell each", SplitConfig{Kind: SplitEqual, Clients: 1003}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			tc.cfg.Seed = 42
			s, err := NewSplit(len(labels), labels, 7, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Clients) != tc.cfg.Clients {
				t.Fatalf("%d clients, want %d", len(s.Clients), tc.cfg.Clients)
			}
			checkPartition(t, s, len(labels))
			again, _ := NewSplit(len(labels), labels, 7, tc.cfg)
			for c := range s.Clients {
				if !slices.Equal(s.Clients[c], again.Clients[c]) {
					t.Fatalf("client %d differs between two draws with one seed", c+1)
				}
			}
			if len(s.Describe(nil)) != tc.cfg.Clients {
				t.Errorf("Describe returned %d lines", len(s.Describe(nil)))
			}
		})
	}
}

func TestNewSplitSeedMatters(t *testing.T) {
	labels := labelsOf(500, 5, 1)
	a, _ := NewSplit(500, labels, 5, SplitConfig{Kind: SplitEqual, Clients: 5, Seed: 1})
	b, _ := NewSplit(500, labels, 5, SplitConfig{Kind: SplitEqual, Clients: 5, Seed: 2})
	if slices.Equal(a.Clients[0], b.Clients[0]) {
		t.Errorf("seeds 1 and 2 gave the same client 1")
	}
}

// TestNonIIDExample pins the example of docs/METHODS.md §4: 8 classes,
// K = 4, s = 2 gives client c exactly the cells of classes 2c and 2c+1.
func TestNonIIDExample(t *testing.T) {
	labels := labelsOf(800, 8, 9)
	s, err := NewSplit(800, labels, 8, SplitConfig{Kind: SplitNonIID, Clients: 4, ClassesPerClient: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for c := range 4 {
		var want []int
		for i, l := range labels {
			if l == 2*c || l == 2*c+1 {
				want = append(want, i)
			}
		}
		if !slices.Equal(s.Clients[c], want) {
			t.Errorf("client %d has %d cells of classes %v, want the %d cells of classes {%d, %d}",
				c, len(s.Clients[c]), s.ClientClasses(c), len(want), 2*c, 2*c+1)
		}
	}
	if len(s.Notes) != 0 {
		t.Errorf("notes %q, want none", s.Notes)
	}
}

func TestNonIIDClassesPerClient(t *testing.T) {
	// 10 classes, K = 4, s = 2: one part per class, 8 taken, 2 left over.
	labels := labelsOf(1000, 10, 4)
	s, err := NewSplit(1000, labels, 10, SplitConfig{Kind: SplitNonIID, Clients: 4, ClassesPerClient: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, s, 1000)
	if len(s.Notes) == 0 {
		t.Errorf("no note about the 2 parts left over")
	}
	// 2 classes, K = 6, s = 1: 3 parts per class, each client one class.
	labels = labelsOf(600, 2, 4)
	s, err = NewSplit(600, labels, 2, SplitConfig{Kind: SplitNonIID, Clients: 6, ClassesPerClient: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for c := range 6 {
		if cl := s.ClientClasses(c); len(cl) != 1 || cl[0] != c%2 {
			t.Errorf("client %d holds classes %v, want [%d]", c, cl, c%2)
		}
	}
}

func TestEqualRemainder(t *testing.T) {
	s, err := NewSplit(103, nil, 0, SplitConfig{Kind: SplitEqual, Clients: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{11, 11, 11, 10, 10, 10, 10, 10, 10, 10}
	if got := s.Sizes(); !slices.Equal(got, want) {
		t.Errorf("sizes %v, want %v", got, want)
	}
	if len(s.Notes) != 1 {
		t.Errorf("notes %q, want one about the remainder", s.Notes)
	}
}

func TestIIDBalanced(t *testing.T) {
	labels := labelsOf(1000, 4, 2)
	s, _ := NewSplit(1000, labels, 4, SplitConfig{Kind: SplitIID, Clients: 7, Seed: 3})
	sz := s.Sizes()
	if slices.Max(sz)-slices.Min(sz) > 1 {
		t.Errorf("sizes %v differ by more than 1", sz)
	}
	for c := range 4 {
		lo, hi := math.MaxInt, 0
		for k := range 7 {
			lo, hi = min(lo, s.Counts[k][c]), max(hi, s.Counts[k][c])
		}
		if hi-lo > 1 {
			t.Errorf("class %d counts range %d..%d over clients, want within 1", c, lo, hi)
		}
	}
}

// TestDirichletProportions checks the share of client 1 against its
// sampling distribution: with p ~ Dirichlet(α·1_K), E[p_1] = 1/K and
// Var[p_1] = (1/K)(1 − 1/K)/(Kα + 1). The mean share over C classes of
// 1,000 cells each is within 4.42 standard errors of 1/K except with
// probability about 1e-5 (normal approximation; the flooring of the cut
// points moves a share by at most 1/1000), and small α concentrates
// each class on few clients.
func TestDirichletProportions(t *testing.T) {
	const classes, per, k = 200, 1000, 5
	labels := make([]int, classes*per)
	for i := range labels {
		labels[i] = i / per
	}
	for _, alpha := range []float64{0.1, 1, 10} {
		s, err := NewSplit(len(labels), labels, classes, SplitConfig{Kind: SplitDirichlet, Clients: k, Alpha: alpha, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		mean, conc := 0.0, 0.0
		for c := range classes {
			mean += float64(s.Counts[0][c]) / per
			top := 0
			for j := range k {
				top = max(top, s.Counts[j][c])
			}
			conc += float64(top) / per
		}
		mean /= classes
		conc /= classes
		sd := math.Sqrt((1.0 / k) * (1 - 1.0/k) / (k*alpha + 1) / classes)
		if math.Abs(mean-1.0/k) > 4.42*sd+1.0/per {
			t.Errorf("α = %g: mean share of client 1 = %.4f, want 1/K = %.4f ± %.4f", alpha, mean, 1.0/k, 4.42*sd)
		}
		switch {
		case alpha == 0.1 && conc < 0.8:
			t.Errorf("α = 0.1: largest share per class %.3f on average, want > 0.8", conc)
		case alpha == 10 && conc > 0.4:
			t.Errorf("α = 10: largest share per class %.3f on average, want < 0.4", conc)
		}
	}
}

func TestNewSplitErrors(t *testing.T) {
	labels := labelsOf(20, 4, 1)
	for _, tc := range []struct {
		desc   string
		cells  int
		labels []int
		cfg    SplitConfig
	}{
		{"zero clients", 20, labels, SplitConfig{Kind: SplitIID}},
		{"more clients than cells", 20, labels, SplitConfig{Kind: SplitIID, Clients: 21}},
		{"s > classes", 20, labels, SplitConfig{Kind: SplitNonIID, Clients: 2, ClassesPerClient: 5}},
		{"s = 0", 20, labels, SplitConfig{Kind: SplitNonIID, Clients: 2}},
		{"alpha 0", 20, labels, SplitConfig{Kind: SplitDirichlet, Clients: 2}},
		{"alpha negative", 20, labels, SplitConfig{Kind: SplitDirichlet, Clients: 2, Alpha: -1}},
		{"alpha NaN", 20, labels, SplitConfig{Kind: SplitDirichlet, Clients: 2, Alpha: math.NaN()}},
		{"alpha Inf", 20, labels, SplitConfig{Kind: SplitDirichlet, Clients: 2, Alpha: math.Inf(1)}},
		{"labels missing", 20, nil, SplitConfig{Kind: SplitIID, Clients: 2}},
		{"label out of range", 20, append([]int{9}, labels[1:]...), SplitConfig{Kind: SplitIID, Clients: 2}},
		{"no cells", 0, nil, SplitConfig{Kind: SplitEqual, Clients: 1}},
		{"bad kind", 20, labels, SplitConfig{Kind: 9, Clients: 2}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := NewSplit(tc.cells, tc.labels, 4, tc.cfg); !errors.Is(err, ErrBadSplit) {
				t.Errorf("NewSplit = %v, want an error wrapping ErrBadSplit", err)
			}
		})
	}
}

func TestParseSplit(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    SplitConfig
		wantErr bool
	}{
		{in: "iid", want: SplitConfig{Kind: SplitIID}},
		{in: " Equal ", want: SplitConfig{Kind: SplitEqual}},
		{in: "noniid:2", want: SplitConfig{Kind: SplitNonIID, ClassesPerClient: 2}},
		{in: "dirichlet:0.5", want: SplitConfig{Kind: SplitDirichlet, Alpha: 0.5}},
		{in: "noniid", wantErr: true},
		{in: "noniid:0", wantErr: true},
		{in: "dirichlet:0", wantErr: true},
		{in: "dirichlet:-1", wantErr: true},
		{in: "dirichlet:NaN", wantErr: true},
		{in: "dirichlet:inf", wantErr: true},
		{in: "iid:3", wantErr: true},
		{in: "shards", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSplit(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseSplit(%q) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if !tc.wantErr {
				if got != tc.want {
					t.Errorf("ParseSplit(%q) = %+v, want %+v", tc.in, got, tc.want)
				}
				if back, _ := ParseSplit(got.String()); back != got {
					t.Errorf("ParseSplit(%q) round trip = %+v", got.String(), back)
				}
			}
		})
	}
}

// TestSplitErrorsSayItOnce: a split error is one sentence in the user's
// words (the fed methods pass it on as it is), wrapping ErrBadSplit
// without printing its words or the package's name.
func TestSplitErrorsSayItOnce(t *testing.T) {
	_, err := NewSplit(2, []int{0, 1}, 2, SplitConfig{Kind: SplitIID, Clients: 5})
	if want := "clients is 5, must be at most the number of cells, 2"; err == nil || err.Error() != want || !errors.Is(err, ErrBadSplit) {
		t.Errorf("NewSplit with 5 clients for 2 cells: %v; want %q wrapping ErrBadSplit", err, want)
	}
	_, err = ParseSplit("noniid:0")
	if want := `split is "noniid:0", must be noniid:S with S ≥ 1 classes per client`; err == nil || err.Error() != want || !errors.Is(err, ErrBadSplit) {
		t.Errorf("ParseSplit(noniid:0): %v; want %q wrapping ErrBadSplit", err, want)
	}
}
