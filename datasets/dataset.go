package datasets

import (
	"errors"
	"fmt"

	"github.com/dpscope/dpscope/internal/errkind"
)

// ValueType says what the values of a data set are, which decides whether the
// count-only preprocessing steps (size factors, normalisation, log1p) and the
// ZINB likelihood apply.
type ValueType int

const (
	// Counts are non-negative integers: UMI or read counts.
	Counts ValueType = iota
	// NonCounts are anything else: RPKM/TPM, log-normalised values, z-scores.
	NonCounts
)

// String returns "counts" or "non-counts".
func (v ValueType) String() string {
	if v == Counts {
		return "counts"
	}
	return "non-counts"
}

// CSR is a compressed sparse row matrix with float32 values: row i holds the
// column indices Indices[Indptr[i]:Indptr[i+1]] (strictly increasing) and the
// values Data[Indptr[i]:Indptr[i+1]]. In a Dataset the rows are cells and the
// columns are genes, as in scanpy's AnnData.X.
//
// float32 holds integers exactly up to 2^24, well above any UMI count; sums
// over a row or column are accumulated in float64 by every user of the type.
type CSR struct {
	Rows, Cols int
	Indptr     []int64
	Indices    []int32
	Data       []float32
}

// Dims returns the number of rows and columns.
func (m *CSR) Dims() (r, c int) { return m.Rows, m.Cols }

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Data) }

// Row returns the column indices and values of row i, sharing storage with m.
func (m *CSR) Row(i int) (cols []int32, vals []float32) {
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[lo:hi], m.Data[lo:hi]
}

// Validate checks the structural invariants of m: Indptr has Rows+1
// non-decreasing entries starting at 0 and ending at len(Data), column indices
// are in range and strictly increasing within each row, and every value is
// finite. It returns an error naming the first violation.
func (m *CSR) Validate() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("datasets: csr dims %d×%d, must be non-negative", m.Rows, m.Cols)
	}
	if len(m.Indptr) != m.Rows+1 {
		return fmt.Errorf("datasets: csr indptr has %d entries, must be rows+1 = %d", len(m.Indptr), m.Rows+1)
	}
	if len(m.Indices) != len(m.Data) {
		return fmt.Errorf("datasets: csr has %d indices and %d values, must match", len(m.Indices), len(m.Data))
	}
	if m.Indptr[0] != 0 || m.Indptr[m.Rows] != int64(len(m.Data)) {
		return fmt.Errorf("datasets: csr indptr spans [%d, %d], must span [0, %d]", m.Indptr[0], m.Indptr[m.Rows], len(m.Data))
	}
	for i := 0; i < m.Rows; i++ {
		lo, hi := m.Indptr[i], m.Indptr[i+1]
		if hi < lo {
			return fmt.Errorf("datasets: csr indptr decreases at row %d", i)
		}
		prev := int32(-1)
		for k := lo; k < hi; k++ {
			j := m.Indices[k]
			if j <= prev || int(j) >= m.Cols {
				return fmt.Errorf("datasets: csr row %d has column %d out of order or range [0, %d)", i, j, m.Cols)
			}
			prev = j
			if v := m.Data[k]; v != v || v > maxFinite32 || v < -maxFinite32 {
				return fmt.Errorf("datasets: csr row %d column %d holds %v, must be finite", i, j, v)
			}
		}
	}
	return nil
}

const maxFinite32 = 3.4028234663852886e38

// Dataset is a labelled single-cell expression matrix: cells × genes raw
// values kept sparse, with names for every row and column.
//
// Labels[i] is the index into Classes of cell i's true label, or -1 when the
// cell has none. A Dataset with no labels has Labels == nil.
type Dataset struct {
	Name      string    // short name, e.g. "pbmc_4k" or "default"
	Source    string    // where it came from: a path, or "builtin:NAME"
	X         *CSR      // raw values, cells × genes
	GeneIDs   []string  // one per column of X
	GeneNames []string  // one per column of X; equal to GeneIDs when the source has no names
	Barcodes  []string  // one per row of X
	Labels    []int     // one per row of X, or nil
	Classes   []string  // label names, indexed by Labels
	ValueType ValueType // counts or not, detected from the values
	// Warnings are what a reader found odd but not wrong (repeated gene
	// names, a single class): the data may not be what the user meant.
	// Commands print them; nil when there is nothing to say.
	Warnings []string
}

// Cells returns the number of cells (rows of X).
func (d *Dataset) Cells() int { return d.X.Rows }

// Genes returns the number of genes (columns of X).
func (d *Dataset) Genes() int { return d.X.Cols }

// ClassCounts returns how many cells carry each class, indexed like Classes.
func (d *Dataset) ClassCounts() []int {
	counts := make([]int, len(d.Classes))
	for _, l := range d.Labels {
		if l >= 0 {
			counts[l]++
		}
	}
	return counts
}

// ErrEmpty is returned (wrapped) when a data set has no cells or no genes.
var ErrEmpty = errors.New("datasets: empty matrix")

// Validate checks that the parts of d agree with each other: X is valid and
// non-empty, names and labels have one entry per row or column, labels index
// Classes, barcodes are unique.
func (d *Dataset) Validate() error {
	if d.X == nil {
		return errkind.Wrapf(ErrEmpty, "datasets: %s: no matrix (empty)", d.Name)
	}
	if err := d.X.Validate(); err != nil {
		return fmt.Errorf("datasets: %s: %w", d.Name, err)
	}
	if d.X.Rows == 0 || d.X.Cols == 0 {
		return errkind.Wrapf(ErrEmpty, "datasets: %s: the matrix is empty (%d cells × %d genes)", d.Name, d.X.Rows, d.X.Cols)
	}
	if len(d.GeneIDs) != d.X.Cols || len(d.GeneNames) != d.X.Cols {
		return fmt.Errorf("datasets: %s: %d gene ids and %d names for %d genes", d.Name, len(d.GeneIDs), len(d.GeneNames), d.X.Cols)
	}
	if len(d.Barcodes) != d.X.Rows {
		return fmt.Errorf("datasets: %s: %d barcodes for %d cells", d.Name, len(d.Barcodes), d.X.Rows)
	}
	seen := make(map[string]int, len(d.Barcodes))
	for i, b := range d.Barcodes {
		if j, ok := seen[b]; ok {
			return fmt.Errorf("datasets: %s: barcode %q appears for cells %d and %d", d.Name, b, j+1, i+1)
		}
		seen[b] = i
	}
	if d.Labels != nil {
		if len(d.Labels) != d.X.Rows {
			return fmt.Errorf("datasets: %s: %d labels for %d cells", d.Name, len(d.Labels), d.X.Rows)
		}
		for i, l := range d.Labels {
			if l < -1 || l >= len(d.Classes) {
				return fmt.Errorf("datasets: %s: cell %d has label index %d, must be in [-1, %d)", d.Name, i, l, len(d.Classes))
			}
		}
	}
	return nil
}

// DetectValueType returns Counts when every stored value of m is a
// non-negative integer, and NonCounts otherwise.
func DetectValueType(m *CSR) ValueType {
	for _, v := range m.Data {
		if v < 0 || v != float32(int64(v)) {
			return NonCounts
		}
	}
	return Counts
}
