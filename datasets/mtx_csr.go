package datasets

import (
	"cmp"
	"slices"
)

// toCSR turns the entries of an MTX file (genes × cells) into the cells ×
// genes CSR matrix: entries are grouped by cell, sorted by gene, checked for
// duplicates and stripped of explicit zeros. When the file was already in
// (cell, gene) order, as Cell Ranger and ../shared/data write it, the entry
// slices become the CSR arrays without copying.
func (e *mtxEntries) toCSR(file string, cells, genes int) (*CSR, error) {
	if !e.sorted {
		if err := e.sortByCellGene(file, cells); err != nil {
			return nil, err
		}
	}
	if e.zeros > 0 {
		e.dropZeros()
	}
	indptr := make([]int64, cells+1)
	for _, c := range e.cell {
		indptr[c+1]++
	}
	for i := 1; i <= cells; i++ {
		indptr[i] += indptr[i-1]
	}
	return &CSR{
		Rows:    cells,
		Cols:    genes,
		Indptr:  indptr,
		Indices: slices.Clip(e.gene),
		Data:    slices.Clip(e.val),
	}, nil
}

// sortByCellGene reorders the entries by cell then gene (a counting sort by
// cell, then a sort within each cell), reporting the first duplicate (i, j)
// with the lines of both occurrences.
func (e *mtxEntries) sortByCellGene(file string, cells int) error {
	n := len(e.cell)
	start := make([]int, cells+1)
	for _, c := range e.cell {
		start[c+1]++
	}
	for i := 1; i <= cells; i++ {
		start[i] += start[i-1]
	}
	perm := make([]int32, n)
	pos := slices.Clone(start[:cells])
	for k, c := range e.cell {
		perm[pos[c]] = int32(k)
		pos[c]++
	}
	byGene := func(a, b int32) int {
		if c := cmp.Compare(e.gene[a], e.gene[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	for c := range cells {
		seg := perm[start[c]:start[c+1]]
		if !slices.IsSortedFunc(seg, byGene) {
			slices.SortFunc(seg, byGene)
		}
		for i := 1; i < len(seg); i++ {
			a, b := seg[i-1], seg[i]
			if e.gene[a] == e.gene[b] {
				return parseErrorf(file, e.lineOf(int(b)), "duplicate entry for row %d, column %d (also on line %d)",
					e.gene[b]+1, c+1, e.lineOf(int(a)))
			}
		}
	}
	cell := make([]int32, n)
	gene := make([]int32, n)
	val := make([]float32, n)
	for i, k := range perm {
		cell[i], gene[i], val[i] = e.cell[k], e.gene[k], e.val[k]
	}
	e.cell, e.gene, e.val = cell, gene, val
	e.lines = nil
	e.sorted = true
	return nil
}

// dropZeros removes explicit zero entries in place, keeping the order.
func (e *mtxEntries) dropZeros() {
	w := 0
	for k, v := range e.val {
		if v == 0 {
			continue
		}
		e.cell[w], e.gene[w], e.val[w] = e.cell[k], e.gene[k], v
		w++
	}
	e.cell, e.gene, e.val = e.cell[:w], e.gene[:w], e.val[:w]
	e.zeros = 0
}
