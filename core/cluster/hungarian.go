package cluster

import (
	"fmt"
	"math"
)

// Hungarian solves the linear assignment problem on the rows×cols cost
// matrix cost (row-major): it returns assign, with assign[i] the column given
// to row i, that minimises Σ_i cost[i][assign[i]] with every column used at
// most once. If rows > cols, rows−cols rows are left unassigned
// (assign[i] = −1); otherwise every row is assigned. total is the minimum
// cost.
//
// It is the O(r²c) shortest-augmenting-path form of the Hungarian method with
// dual potentials (Kuhn 1955; Jonker & Volgenant 1987,
// https://doi.org/10.1007/BF02278710), r = min(rows, cols), c = max(rows, cols).
// It returns an error if len(cost) ≠ rows·cols, a dimension is negative, or
// an entry is not finite.
func Hungarian(cost []float64, rows, cols int) (assign []int, total float64, err error) {
	if rows < 0 || cols < 0 {
		return nil, 0, fmt.Errorf("cluster: hungarian dims are %d×%d, must be non-negative", rows, cols)
	}
	if len(cost) != rows*cols {
		return nil, 0, fmt.Errorf("cluster: len(cost) is %d, must be rows·cols = %d", len(cost), rows*cols)
	}
	for i, v := range cost {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("cluster: cost[%d] is %v, must be finite", i, v)
		}
	}
	assign = make([]int, rows)
	for i := range assign {
		assign[i] = -1
	}
	if rows == 0 || cols == 0 {
		return assign, 0, nil
	}
	at := func(i, j int) float64 { return cost[i*cols+j] }
	n, m := rows, cols
	if rows > cols {
		// Solve the transpose, which has no more rows than columns.
		at = func(i, j int) float64 { return cost[j*cols+i] }
		n, m = cols, rows
	}
	match := lsapSquareish(at, n, m)
	for j, i := range match {
		if i < 0 {
			continue
		}
		if rows > cols {
			assign[j] = i
			total += cost[j*cols+i]
		} else {
			assign[i] = j
			total += cost[i*cols+j]
		}
	}
	return assign, total, nil
}

// lsapSquareish solves the assignment problem for an n×m cost a(i, j) with
// n ≤ m; it returns match, with match[j] the row assigned to column j or −1.
func lsapSquareish(a func(i, j int) float64, n, m int) []int {
	// 1-based potentials and matching, index 0 is the virtual start column.
	u := make([]float64, n+1)
	v := make([]float64, m+1)
	p := make([]int, m+1) // p[j]: row matched to column j, 0 if none
	way := make([]int, m+1)
	minv := make([]float64, m+1)
	used := make([]bool, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := p[j0]
			delta, j1 := math.Inf(1), 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := a(i0-1, j-1) - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	match := make([]int, m)
	for j := 1; j <= m; j++ {
		match[j-1] = p[j] - 1
	}
	return match
}

// ACC returns the clustering accuracy: the largest fraction of rows that
// agree between labelsTrue and labelsPred under a one-to-one matching of
// predicted clusters to true classes,
//
//	ACC = max_π Σ_i n_{i,π(i)} / N,
//
// found with Hungarian on the contingency table. When the numbers of classes
// and clusters differ, the surplus ones are unmatched and their rows count as
// errors. Rows with a negative label are excluded; errors are those of
// NewContingency.
func ACC(labelsTrue, labelsPred []int) (float64, error) {
	c, err := NewContingency(labelsTrue, labelsPred)
	if err != nil {
		return 0, err
	}
	return c.ACC(), nil
}

// ACC returns the clustering accuracy of the table (see the function ACC).
func (c *Contingency) ACC() float64 {
	cost := make([]float64, len(c.Count))
	for i, v := range c.Count {
		cost[i] = -float64(v)
	}
	// The costs are finite and the shape matches, so Hungarian cannot fail.
	_, total, _ := Hungarian(cost, c.Rows, c.Cols)
	return -total / float64(c.N)
}
