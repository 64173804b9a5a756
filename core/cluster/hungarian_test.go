package cluster

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteAssign returns the minimum total cost over all injective assignments
// of the smaller side into the larger, by enumeration.
func bruteAssign(cost []float64, rows, cols int) float64 {
	best := math.Inf(1)
	used := make([]bool, max(rows, cols))
	var rec func(i int, acc float64)
	if rows <= cols {
		rec = func(i int, acc float64) {
			if i == rows {
				best = min(best, acc)
				return
			}
			for j := range cols {
				if !used[j] {
					used[j] = true
					rec(i+1, acc+cost[i*cols+j])
					used[j] = false
				}
			}
		}
	} else {
		rec = func(j int, acc float64) {
			if j == cols {
				best = min(best, acc)
				return
			}
			for i := range rows {
				if !used[i] {
					used[i] = true
					rec(j+1, acc+cost[i*cols+j])
					used[i] = false
				}
			}
		}
	}
	rec(0, 0)
	return best
}

func TestHungarianAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for trial := range 300 {
		rows, cols := 1+rng.IntN(6), 1+rng.IntN(6)
		cost := make([]float64, rows*cols)
		for i := range cost {
			if trial%3 == 0 {
				cost[i] = float64(rng.IntN(4)) // many ties
			} else {
				cost[i] = rng.NormFloat64() * 10
			}
		}
		assign, total, err := Hungarian(cost, rows, cols)
		if err != nil {
			t.Fatalf("Hungarian(trial %d): %v", trial, err)
		}
		want := bruteAssign(cost, rows, cols)
		// The sums are over at most 6 terms of size ~10: 1e-12 absolute
		// covers their rounding.
		if math.Abs(total-want) > 1e-12 {
			t.Errorf("Hungarian(trial %d, %d×%d) total = %v, want %v", trial, rows, cols, total, want)
		}
		// assign must be a valid injective assignment of cost total.
		seen := map[int]bool{}
		var sum float64
		nAssigned := 0
		for i, j := range assign {
			if j < 0 {
				continue
			}
			if seen[j] {
				t.Fatalf("Hungarian(trial %d) assigns column %d twice", trial, j)
			}
			seen[j] = true
			sum += cost[i*cols+j]
			nAssigned++
		}
		if nAssigned != min(rows, cols) || math.Abs(sum-total) > 1e-12 {
			t.Errorf("Hungarian(trial %d) assigned %d rows of cost %v, want %d rows of cost %v", trial, nAssigned, sum, min(rows, cols), total)
		}
	}
}

func TestHungarianErrors(t *testing.T) {
	for _, tc := range []struct {
		desc       string
		cost       []float64
		rows, cols int
	}{
		{"short cost", []float64{1, 2, 3}, 2, 2},
		{"negative dims", nil, -1, 0},
		{"NaN entry", []float64{1, math.NaN()}, 1, 2},
		{"Inf entry", []float64{math.Inf(-1), 0}, 2, 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, _, err := Hungarian(tc.cost, tc.rows, tc.cols); err == nil {
				t.Errorf("Hungarian(%v, %d, %d) = nil error, want an error", tc.cost, tc.rows, tc.cols)
			}
		})
	}
}
