package compute

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas32"
)

// panicErr runs f and returns the error it panicked with, or nil.
func panicErr(t *testing.T, f func()) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = e
		}
	}()
	f()
	return nil
}

func TestViewSharesMemory(t *testing.T) {
	m := NewMatrix(4, 5, nil)
	for i := range 4 {
		for j := range 5 {
			m.Set(i, j, float32(10*i+j))
		}
	}
	v := m.View(1, 2, 2, 3)
	if r, c := v.Dims(); r != 2 || c != 3 || v.Stride != 5 {
		t.Fatalf("View(1, 2, 2, 3) is %d×%d with stride %d, want 2×3 with stride 5", r, c, v.Stride)
	}
	for _, tc := range []struct {
		desc string
		i, j int
		want float32
	}{
		{"top left", 0, 0, 12}, {"top right", 0, 2, 14}, {"bottom left", 1, 0, 22}, {"bottom right", 1, 2, 24},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := v.At(tc.i, tc.j); got != tc.want {
				t.Errorf("View(1, 2, 2, 3).At(%d, %d) = %v, want %v", tc.i, tc.j, got, tc.want)
			}
		})
	}
	v.Set(1, 1, -1)
	if got := m.At(2, 3); got != -1 {
		t.Errorf("m.At(2, 3) after v.Set(1, 1, -1) = %v, want -1", got)
	}
	row := v.RawRowView(1)
	if len(row) != 3 || cap(row) != 3 || row[0] != 22 {
		t.Errorf("RawRowView(1) = %v (cap %d), want [22 -1 24] with cap 3", row, cap(row))
	}
	g := v.General()
	back := FromGeneral(blas32.General{Rows: g.Rows, Cols: g.Cols, Stride: g.Stride, Data: g.Data})
	if back.At(0, 1) != 13 || &back.Data[0] != &v.Data[0] {
		t.Errorf("FromGeneral(General()) does not share memory with the view")
	}
	c := v.Clone()
	c.Set(0, 0, 99)
	if c.Stride != 3 || m.At(1, 2) != 12 {
		t.Errorf("Clone() has stride %d and writes through to its source (m[1,2] = %v), want 3 and 12", c.Stride, m.At(1, 2))
	}
}

func TestMatrixPanics(t *testing.T) {
	m := NewMatrix(3, 4, nil)
	for _, tc := range []struct {
		desc string
		f    func()
	}{
		{"NewMatrix negative", func() { NewMatrix(-1, 2, nil) }},
		{"NewMatrix short data", func() { NewMatrix(2, 2, make([]float32, 3)) }},
		{"At row out of range", func() { m.At(3, 0) }},
		{"Set negative column", func() { m.Set(0, -1, 1) }},
		{"View too wide", func() { m.View(0, 2, 1, 3) }},
		{"View negative", func() { m.View(-1, 0, 1, 1) }},
		{"RawRowView out of range", func() { m.RawRowView(3) }},
		{"Copy different dims", func() { Copy(NewMatrix(3, 3, nil), m) }},
		{"MulTo inner dims", func() { MulTo(NewMatrix(3, 3, nil), m, false, NewMatrix(3, 3, nil), false, 1, 0) }},
		{"MulTo dst dims", func() { MulTo(NewMatrix(3, 3, nil), m, false, NewMatrix(4, 2, nil), false, 1, 0) }},
		{"MulVecTo x length", func() { MulVecTo(make([]float32, 3), m, false, make([]float32, 3), 1, 0) }},
		{"MulVecTo dst length", func() { MulVecTo(make([]float32, 4), m, true, make([]float32, 4), 1, 0) }},
		{"AddOuter lengths", func() { AddOuter(m, 1, make([]float32, 4), make([]float32, 3)) }},
		{"Axpy lengths", func() { Axpy(1, make([]float32, 2), make([]float32, 3)) }},
		{"Dot64 lengths", func() { Dot64(make([]float32, 2), make([]float32, 3)) }},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if err := panicErr(t, tc.f); !errors.Is(err, ErrShape) {
				t.Errorf("%s panicked with %v, want an error wrapping ErrShape", tc.desc, err)
			}
		})
	}
}

func TestMulToRejectsOverlap(t *testing.T) {
	m := NewMatrix(6, 6, nil)
	for _, tc := range []struct {
		desc    string
		dst, a  Matrix
		overlap bool
	}{
		{"same matrix", m.View(0, 0, 3, 3), m.View(0, 0, 3, 3), true},
		{"shared corner", m.View(2, 2, 3, 3), m.View(0, 0, 3, 3), true},
		{"disjoint column blocks", m.View(0, 3, 3, 3), m.View(0, 0, 3, 3), false},
		{"disjoint row blocks", m.View(3, 0, 3, 3), m.View(0, 0, 3, 3), false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			b := NewMatrix(3, 3, nil)
			err := panicErr(t, func() { MulTo(tc.dst, tc.a, false, b, false, 1, 0) })
			if got := errors.Is(err, ErrOverlap); got != tc.overlap {
				t.Errorf("MulTo(%s) panicked with %v; overlap = %v, want %v", tc.desc, err, got, tc.overlap)
			}
		})
	}
}

// TestOverlapsBruteForce compares overlaps with a set intersection of element
// addresses, over random views of one backing slice.
func TestOverlapsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	data := make([]float32, 8*9)
	views := func(stride int) Matrix {
		rows := len(data) / stride
		i, j := rng.IntN(rows), rng.IntN(stride)
		r, c := 1+rng.IntN(rows-i), 1+rng.IntN(stride-j)
		return Matrix{Rows: r, Cols: c, Stride: stride, Data: data[i*stride+j : i*stride+j+(r-1)*stride+c]}
	}
	// Element offsets from data[0], not addresses: data may live on the
	// stack, which moves when it grows (as it did under -race between two
	// calls of addrs), leaving stale addresses in a map.
	addrs := func(m Matrix) map[uintptr]bool {
		s := map[uintptr]bool{}
		for i := range m.Rows {
			for j := range m.Cols {
				s[(uintptr(unsafe.Pointer(&m.Data[i*m.Stride+j]))-uintptr(unsafe.Pointer(&data[0])))/4] = true
			}
		}
		return s
	}
	for n := range 400 {
		a := views(9)
		b := views(9)
		if n%4 == 3 {
			b = views(8) // different strides: overlaps may be conservative
		}
		want := false
		sa := addrs(a)
		for p := range addrs(b) {
			want = want || sa[p]
		}
		got := overlaps(a, b)
		if got != want && (a.Stride == b.Stride || !got) {
			t.Fatalf("overlaps(%d×%d@%d, %d×%d@%d) = %v, want %v", a.Rows, a.Cols, a.Stride, b.Rows, b.Cols, b.Stride, got, want)
		}
	}
}

func TestCopyZeroFill(t *testing.T) {
	src := NewMatrix(3, 4, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	big := NewMatrix(5, 6, nil)
	big.Fill(-1)
	dst := big.View(1, 1, 3, 4)
	Copy(dst, src)
	for _, tc := range []struct {
		desc string
		i, j int
		want float32
	}{
		{"copied first", 1, 1, 1}, {"copied last", 3, 4, 12}, {"left margin", 1, 0, -1}, {"right margin", 2, 5, -1}, {"bottom margin", 4, 2, -1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := big.At(tc.i, tc.j); got != tc.want {
				t.Errorf("after Copy, big.At(%d, %d) = %v, want %v", tc.i, tc.j, got, tc.want)
			}
		})
	}
	dst.Zero()
	if big.At(2, 2) != 0 || big.At(2, 0) != -1 {
		t.Errorf("after Zero of the view, big.At(2, 2) = %v and big.At(2, 0) = %v, want 0 and -1", big.At(2, 2), big.At(2, 0))
	}
}
