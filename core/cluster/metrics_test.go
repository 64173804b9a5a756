package cluster

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// refTol is the agreement promised by ../shared/refs/metrics/README.md
// ("Agreement to 1e-9 relative is expected for every metric").
const refTol = 1e-9

func TestMetricsAgainstScikitLearn(t *testing.T) {
	// Values computed by scikit-learn 1.2.1 / SciPy 1.10.1 (refs README).
	for _, row := range readRefCSV(t, "labels.csv") {
		t.Run("case "+row["case"], func(t *testing.T) {
			yt, yp := parseInts(t, row["true"]), parseInts(t, row["pred"])
			s, err := Score(yt, yp)
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			for _, m := range []struct {
				name string
				got  float64
			}{
				{"ari", s.ARI}, {"nmi", s.NMI}, {"ami", s.AMI},
				{"homogeneity", s.Homogeneity}, {"completeness", s.Completeness},
				{"fowlkes_mallows", s.FowlkesMallows}, {"acc", s.ACC}, {"jaccard", s.PairJaccard},
			} {
				want := parseFloat(t, row[m.name])
				if !scalar.EqualWithinAbsOrRel(m.got, want, 0, refTol) && !(want == 0 && math.Abs(m.got) < 1e-15) {
					t.Errorf("%s(case %s) = %.17g, want %.17g", m.name, row["case"], m.got, want)
				}
			}
		})
	}
}

func TestMetricFunctionsMatchScore(t *testing.T) {
	yt := []int{0, 0, 1, 1, 2, 2, 2, -1}
	yp := []int{5, 5, 5, 7, 7, 9, 9, 9}
	s, err := Score(yt, yp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc string
		f    func([]int, []int) (float64, error)
		want float64
	}{
		{"ARI", ARI, s.ARI}, {"NMI", NMI, s.NMI}, {"AMI", AMI, s.AMI},
		{"Homogeneity", Homogeneity, s.Homogeneity}, {"Completeness", Completeness, s.Completeness},
		{"FowlkesMallows", FowlkesMallows, s.FowlkesMallows}, {"ACC", ACC, s.ACC},
		{"PairJaccard", PairJaccard, s.PairJaccard},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := tc.f(yt, yp)
			if err != nil || got != tc.want {
				t.Errorf("%s(yt, yp) = %v, %v, want %v, nil", tc.desc, got, err, tc.want)
			}
		})
	}
	if s.N != 7 {
		t.Errorf("Score(yt, yp).N = %d, want 7 (one unknown row excluded)", s.N)
	}
}

func TestUnknownLabelsExcluded(t *testing.T) {
	// Appending rows with a negative label in either labelling must not change
	// any metric.
	yt := []int{0, 0, 1, 1, 2, 2, 2, 3, 3, 1}
	yp := []int{1, 1, 0, 0, 2, 2, 1, 3, 0, 0}
	base, err := Score(yt, yp)
	if err != nil {
		t.Fatal(err)
	}
	ytx := append(append([]int(nil), yt...), -1, 0, -7, 2)
	ypx := append(append([]int(nil), yp...), 3, -1, -1, -2)
	got, err := Score(ytx, ypx)
	if err != nil {
		t.Fatal(err)
	}
	if !scoresClose(got, base, 1e-14) {
		t.Errorf("Score with unknown rows = %+v, want %+v", got, base)
	}
}

func TestMetricErrors(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		yt, yp []int
		empty  bool
	}{
		{desc: "length mismatch", yt: []int{0, 1}, yp: []int{0}},
		{desc: "empty", yt: nil, yp: nil, empty: true},
		{desc: "all unknown", yt: []int{-1, -1}, yp: []int{0, 1}, empty: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ARI(tc.yt, tc.yp)
			if err == nil {
				t.Fatalf("ARI(%v, %v) = nil error, want an error", tc.yt, tc.yp)
			}
			if got := errors.Is(err, ErrNoLabelledRows); got != tc.empty {
				t.Errorf("errors.Is(ARI(%v, %v), ErrNoLabelledRows) = %v, want %v", tc.yt, tc.yp, got, tc.empty)
			}
		})
	}
}

func TestMetricsLabelPermutationInvariant(t *testing.T) {
	yt := []int{0, 0, 0, 1, 1, 2, 2, 2, 2, 3}
	yp := []int{2, 2, 1, 1, 1, 0, 0, 3, 3, 3}
	perm := map[int]int{0: 40, 1: 7, 2: 13, 3: 2}
	yq := make([]int, len(yp))
	for i, v := range yp {
		yq[i] = perm[v]
	}
	a, _ := Score(yt, yp)
	b, _ := Score(yt, yq)
	// Relabelling reorders the sums, so results may differ in the last bits.
	if !scoresClose(a, b, 1e-14) {
		t.Errorf("Score after relabelling = %+v, want %+v", b, a)
	}
}

func scoresClose(a, b Scores, tol float64) bool {
	x := []float64{a.ARI, a.NMI, a.AMI, a.Homogeneity, a.Completeness, a.FowlkesMallows, a.ACC, a.PairJaccard}
	y := []float64{b.ARI, b.NMI, b.AMI, b.Homogeneity, b.Completeness, b.FowlkesMallows, b.ACC, b.PairJaccard}
	for i := range x {
		if !scalar.EqualWithinAbsOrRel(x[i], y[i], tol, tol) {
			return false
		}
	}
	return a.N == b.N
}
