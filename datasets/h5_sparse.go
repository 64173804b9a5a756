package datasets

import (
	"fmt"
	"math"
	"slices"
)

// compressed is a sparse matrix as an HDF5 file stores it: scipy's CSR or
// CSC arrays, read as they are and not yet trusted.
type compressed struct {
	obj     string // the group, for messages ("/X", "/matrix")
	csc     bool   // indptr runs over columns (genes), indices are rows (cells)
	rows    int    // cells
	cols    int    // genes
	indptr  []int64
	indices []int64
	data    []float32
}

// toCSR checks s against its shape and returns it as a cells × genes CSR
// with sorted column indices, duplicates summed (as scipy does) and
// explicit zeros dropped (as the MTX reader does). Every index is checked
// before use, so a corrupted file gives an error naming the object, never a
// panic.
func (s *compressed) toCSR(file string) (*CSR, error) {
	major, minor := s.rows, s.cols
	if s.csc {
		major, minor = s.cols, s.rows
	}
	if s.rows < 0 || s.cols < 0 || s.cols > math.MaxInt32 || s.rows > math.MaxInt32 {
		return nil, parseErrorf(file, 0, "%s: shape %d×%d is out of range", s.obj, s.rows, s.cols)
	}
	if len(s.indptr) != major+1 {
		return nil, parseErrorf(file, 0, "%s: indptr has %d entries, want %d (one more than the %s)", s.obj, len(s.indptr), major+1, map[bool]string{false: "cells", true: "genes"}[s.csc])
	}
	if len(s.indices) != len(s.data) {
		return nil, parseErrorf(file, 0, "%s: %d indices but %d values", s.obj, len(s.indices), len(s.data))
	}
	nnz := int64(len(s.data))
	if s.indptr[0] != 0 || s.indptr[major] != nnz {
		return nil, parseErrorf(file, 0, "%s: indptr runs from %d to %d, want 0 to %d (the number of values)", s.obj, s.indptr[0], s.indptr[major], nnz)
	}
	for i := 0; i < major; i++ {
		if s.indptr[i+1] < s.indptr[i] {
			return nil, parseErrorf(file, 0, "%s: indptr decreases at entry %d (%d then %d)", s.obj, i+1, s.indptr[i], s.indptr[i+1])
		}
	}
	for k, j := range s.indices {
		if j < 0 || j >= int64(minor) {
			return nil, parseErrorf(file, 0, "%s: index %d at position %d is outside [0, %d)", s.obj, j, k, minor)
		}
		if v := s.data[k]; v != v || v > maxFinite32 || v < -maxFinite32 {
			return nil, parseErrorf(file, 0, "%s: value %v at position %d is not finite", s.obj, v, k)
		}
	}
	if s.csc {
		return s.transposed(), nil
	}
	return s.sortedRows(), nil
}

// transposed turns checked CSC arrays into CSR by a counting sort on the
// row index: columns come out in increasing order within each row.
func (s *compressed) transposed() *CSR {
	count := make([]int64, s.rows+1)
	for _, i := range s.indices {
		count[i+1]++
	}
	for i := 0; i < s.rows; i++ {
		count[i+1] += count[i]
	}
	next := slices.Clone(count[:s.rows])
	idx := make([]int32, len(s.data))
	val := make([]float32, len(s.data))
	for j := 0; j < s.cols; j++ {
		for k := s.indptr[j]; k < s.indptr[j+1]; k++ {
			i := s.indices[k]
			idx[next[i]], val[next[i]] = int32(j), s.data[k]
			next[i]++
		}
	}
	return compact(s.rows, s.cols, count, idx, val)
}

// sortedRows returns checked CSR arrays with each row's columns sorted.
func (s *compressed) sortedRows() *CSR {
	idx := make([]int32, len(s.indices))
	for k, j := range s.indices {
		idx[k] = int32(j)
	}
	val := slices.Clone(s.data)
	for i := 0; i < s.rows; i++ {
		lo, hi := s.indptr[i], s.indptr[i+1]
		if !slices.IsSorted(idx[lo:hi]) {
			sortPairs(idx[lo:hi], val[lo:hi])
		}
	}
	return compact(s.rows, s.cols, slices.Clone(s.indptr), idx, val)
}

// sortPairs sorts idx and val together by idx.
func sortPairs(idx []int32, val []float32) {
	order := make([]int, len(idx))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(idx[a]) - int(idx[b]) })
	i2, v2 := slices.Clone(idx), slices.Clone(val)
	for k, o := range order {
		idx[k], val[k] = i2[o], v2[o]
	}
}

// compact sums repeated columns within each row (sorted) and drops zeros,
// in place, and returns the CSR.
func compact(rows, cols int, indptr []int64, idx []int32, val []float32) *CSR {
	out := int64(0)
	for i := 0; i < rows; i++ {
		lo, hi := indptr[i], indptr[i+1]
		indptr[i] = out
		start := out
		for k := lo; k < hi; k++ {
			if out > start && idx[out-1] == idx[k] {
				val[out-1] += val[k]
				continue
			}
			idx[out], val[out] = idx[k], val[k]
			out++
		}
		// Drop the zeros (stored or summed to zero) of this row.
		w := start
		for k := start; k < out; k++ {
			if val[k] != 0 {
				idx[w], val[w] = idx[k], val[k]
				w++
			}
		}
		out = w
	}
	indptr[rows] = out
	return &CSR{Rows: rows, Cols: cols, Indptr: indptr, Indices: idx[:out:out], Data: val[:out:out]}
}

// appendDense appends the non-zero entries of a block of dense rows (cols
// values each) to m, growing m.Rows.
func (m *CSR) appendDense(block []float32, cols int) error {
	for r := 0; r+cols <= len(block); r += cols {
		for j, v := range block[r : r+cols] {
			if v == 0 {
				continue
			}
			if v != v || v > maxFinite32 || v < -maxFinite32 {
				return fmt.Errorf("cell %d gene %d holds %v, must be finite", m.Rows+1, j+1, v)
			}
			m.Indices = append(m.Indices, int32(j))
			m.Data = append(m.Data, v)
		}
		m.Rows++
		m.Indptr = append(m.Indptr, int64(len(m.Data)))
	}
	return nil
}
