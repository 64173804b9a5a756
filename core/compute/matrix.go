package compute

import (
	"errors"
	"fmt"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas32"
)

// ErrShape is wrapped by the panics of functions given matrices or vectors
// whose dimensions do not fit together. Shapes are programmer errors, so they
// panic rather than return an error; recover and errors.Is identify them.
var ErrShape = errors.New("compute: dimension mismatch")

// ErrOverlap is wrapped by the panics of products whose destination shares
// memory with an operand, which BLAS does not allow.
var ErrOverlap = errors.New("compute: destination overlaps an operand")

// Matrix is a dense float32 matrix in row-major order: element (i, j) is
// Data[i*Stride+j]. A Matrix is a small header, like a slice: copies share
// Data, and a view made by View shares the memory of its parent. The zero
// value is an empty 0×0 matrix.
type Matrix struct {
	// Rows and Cols are the dimensions.
	Rows, Cols int
	// Stride is the distance in Data between the starts of two consecutive
	// rows. Stride >= Cols.
	Stride int
	// Data holds the elements; len(Data) >= (Rows-1)*Stride+Cols when
	// Rows > 0 and Cols > 0.
	Data []float32
}

// NewMatrix returns an r×c matrix with stride c backed by data, or by a new
// zeroed slice when data is nil. It panics, wrapping ErrShape, if r or c is
// negative or if data is not nil and len(data) != r*c.
func NewMatrix(r, c int, data []float32) Matrix {
	if r < 0 || c < 0 {
		panic(fmt.Errorf("compute: NewMatrix: dimensions are %d×%d, must be non-negative: %w", r, c, ErrShape))
	}
	if data == nil {
		data = make([]float32, r*c)
	} else if len(data) != r*c {
		panic(fmt.Errorf("compute: NewMatrix: len(data) is %d, must be %d×%d = %d: %w", len(data), r, c, r*c, ErrShape))
	}
	return Matrix{Rows: r, Cols: c, Stride: c, Data: data}
}

// Dims returns the number of rows and columns of m.
func (m Matrix) Dims() (r, c int) { return m.Rows, m.Cols }

// At returns element (i, j) of m. It panics if i or j is out of range.
func (m Matrix) At(i, j int) float32 {
	m.checkIndex(i, j)
	return m.Data[i*m.Stride+j]
}

// Set sets element (i, j) of m to v. It panics if i or j is out of range.
func (m Matrix) Set(i, j int, v float32) {
	m.checkIndex(i, j)
	m.Data[i*m.Stride+j] = v
}

func (m Matrix) checkIndex(i, j int) {
	if uint(i) >= uint(m.Rows) || uint(j) >= uint(m.Cols) {
		panic(fmt.Errorf("compute: index (%d, %d) is out of range for a %d×%d matrix: %w", i, j, m.Rows, m.Cols, ErrShape))
	}
}

// View returns the r×c sub-matrix of m whose top-left element is (i, j). The
// view shares memory with m: writes to one are seen by the other. It panics,
// wrapping ErrShape, if the sub-matrix does not lie inside m.
func (m Matrix) View(i, j, r, c int) Matrix {
	if i < 0 || j < 0 || r < 0 || c < 0 || i+r > m.Rows || j+c > m.Cols {
		panic(fmt.Errorf("compute: View(%d, %d, %d, %d) is outside a %d×%d matrix: %w", i, j, r, c, m.Rows, m.Cols, ErrShape))
	}
	if r == 0 || c == 0 {
		return Matrix{Rows: r, Cols: c, Stride: m.Stride}
	}
	off := i*m.Stride + j
	return Matrix{Rows: r, Cols: c, Stride: m.Stride, Data: m.Data[off : off+(r-1)*m.Stride+c]}
}

// RawRowView returns row i of m as a slice that shares memory with m. It
// panics if i is out of range.
func (m Matrix) RawRowView(i int) []float32 {
	if uint(i) >= uint(m.Rows) {
		panic(fmt.Errorf("compute: row %d is out of range for a %d×%d matrix: %w", i, m.Rows, m.Cols, ErrShape))
	}
	return m.Data[i*m.Stride : i*m.Stride+m.Cols : i*m.Stride+m.Cols]
}

// General returns m as a blas32.General that shares its memory.
func (m Matrix) General() blas32.General {
	return blas32.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: m.Data}
}

// FromGeneral returns g as a Matrix that shares its memory.
func FromGeneral(g blas32.General) Matrix {
	return Matrix{Rows: g.Rows, Cols: g.Cols, Stride: g.Stride, Data: g.Data}
}

// IsContiguous reports whether the rows of m follow each other in Data with no
// gap, so that m can be treated as one vector of Rows*Cols elements.
func (m Matrix) IsContiguous() bool { return m.Stride == m.Cols || m.Rows <= 1 }

// Zero sets every element of m to zero.
func (m Matrix) Zero() {
	for i := range m.Rows {
		clear(m.RawRowView(i))
	}
}

// Fill sets every element of m to v.
func (m Matrix) Fill(v float32) {
	for i := range m.Rows {
		row := m.RawRowView(i)
		for j := range row {
			row[j] = v
		}
	}
}

// Copy copies src into dst. It panics, wrapping ErrShape, if their dimensions
// differ. Overlapping src and dst give an unspecified result.
func Copy(dst, src Matrix) {
	checkSameDims("Copy", dst, src)
	if dst.IsContiguous() && src.IsContiguous() && dst.Rows > 0 && dst.Cols > 0 {
		n := dst.Rows * dst.Cols
		copy(dst.Data[:n], src.Data[:n])
		return
	}
	for i := range dst.Rows {
		copy(dst.RawRowView(i), src.RawRowView(i))
	}
}

// Clone returns a new contiguous matrix holding a copy of m.
func (m Matrix) Clone() Matrix {
	c := NewMatrix(m.Rows, m.Cols, nil)
	Copy(c, m)
	return c
}

func checkSameDims(fn string, a, b Matrix) {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		panic(fmt.Errorf("compute: %s: dimensions are %d×%d and %d×%d, must be equal: %w", fn, a.Rows, a.Cols, b.Rows, b.Cols, ErrShape))
	}
}

// span returns the addresses of the first element of m and one past its last
// element; both are 0 for an empty matrix.
func (m Matrix) span() (lo, hi uintptr) {
	if m.Rows == 0 || m.Cols == 0 {
		return 0, 0
	}
	lo = uintptr(unsafe.Pointer(&m.Data[0]))
	return lo, lo + uintptr((m.Rows-1)*m.Stride+m.Cols)*4
}

// overlaps reports whether a and b have an element in common. Views with the
// same stride are compared as rectangles, so disjoint column blocks of one
// matrix do not overlap; views with different strides whose address ranges
// intersect are reported as overlapping.
func overlaps(a, b Matrix) bool {
	alo, ahi := a.span()
	blo, bhi := b.span()
	if alo == ahi || blo == bhi || ahi <= blo || bhi <= alo {
		return false
	}
	if a.Stride != b.Stride || a.Stride == 0 {
		return true
	}
	if blo < alo {
		a, b, alo, blo = b, a, blo, alo
	}
	// Element (r, c) of b lies at offset drow*s + dcol + r*s + c from a's
	// origin, with 0 <= dcol < s and c < b.Cols <= s, so in a's frame b
	// covers rows [drow, drow+b.Rows) x columns [dcol, dcol+b.Cols) when
	// that fits in a row, and wraps into columns [0, dcol+b.Cols-s) of the
	// next row otherwise.
	s := a.Stride
	d := int(blo-alo) / 4
	drow, dcol := d/s, d%s
	if drow < a.Rows && dcol < a.Cols {
		return true // b's first row starts inside a's columns and rows
	}
	if dcol+b.Cols > s && drow+1 < a.Rows {
		return true // b's rows wrap into columns [0, ...) of a's next rows
	}
	return false
}
