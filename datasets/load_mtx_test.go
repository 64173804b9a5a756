package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// gz returns s gzip-compressed.
func gz(tb testing.TB, s string) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// csrDense returns m as a dense row-major [][]float32 for comparisons.
func csrDense(m *CSR) [][]float32 {
	out := make([][]float32, m.Rows)
	for i := range out {
		out[i] = make([]float32, m.Cols)
		cols, vals := m.Row(i)
		for k, j := range cols {
			out[i][j] = vals[k]
		}
	}
	return out
}

const mtxHead = "%%MatrixMarket matrix coordinate integer general\n"

func TestReadMTX(t *testing.T) {
	// 3 genes × 2 cells; cells × genes = [[1 0 2] [0 3 0]].
	want := [][]float32{{1, 0, 2}, {0, 3, 0}}
	for _, tc := range []struct {
		desc, in string
		want     [][]float32
	}{
		{desc: "sorted by cell", in: mtxHead + "3 2 3\n1 1 1\n3 1 2\n2 2 3\n", want: want},
		{desc: "any order", in: mtxHead + "3 2 3\n2 2 3\n3 1 2\n1 1 1\n", want: want},
		{desc: "comments, blanks, CRLF, tabs", in: "%%MatrixMarket matrix coordinate integer general\r\n% made by hand\r\n\r\n3 2 3\r\n1\t1\t1\r\n% inside\r\n\r\n3 1 2  \r\n 2 2 3\r\n", want: want},
		{desc: "explicit zero dropped", in: mtxHead + "3 2 4\n1 1 1\n2 1 0\n3 1 2\n2 2 3\n", want: want},
		{desc: "no final newline", in: mtxHead + "3 2 3\n1 1 1\n3 1 2\n2 2 3", want: want},
		{desc: "no entries", in: mtxHead + "3 2 0\n", want: [][]float32{{0, 0, 0}, {0, 0, 0}}},
		{desc: "upper-case banner", in: "%%MATRIXMARKET MATRIX COORDINATE INTEGER GENERAL\n3 2 3\n1 1 1\n3 1 2\n2 2 3\n", want: want},
		{desc: "real with negative and exponent", in: "%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 -1.5\n3 1 2e-1\n2 2 3.25\n",
			want: [][]float32{{-1.5, 0, 0.2}, {0, 3.25, 0}}},
		{desc: "double field", in: "%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 0.1\n", want: [][]float32{{0.1}}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			for _, zipped := range []bool{false, true} {
				in := []byte(tc.in)
				if zipped {
					in = gz(t, tc.in)
				}
				m, err := ReadMTX(bytes.NewReader(in), "m.mtx")
				if err != nil {
					t.Fatalf("ReadMTX(gzip %v) = %v, want no error", zipped, err)
				}
				if err := m.Validate(); err != nil {
					t.Fatalf("ReadMTX(gzip %v).Validate() = %v", zipped, err)
				}
				got := csrDense(m)
				if !slices.EqualFunc(got, tc.want, slices.Equal) {
					t.Errorf("ReadMTX(gzip %v) = %v, want %v", zipped, got, tc.want)
				}
			}
		})
	}
}

func TestReadMTXErrors(t *testing.T) {
	const real = "%%MatrixMarket matrix coordinate real general\n"
	for _, tc := range []struct {
		desc, in string
		line     int
		msg      string
		isEmpty  bool
	}{
		{desc: "empty file", in: "", line: 1, msg: "empty file", isEmpty: true},
		{desc: "no banner", in: "3 2 1\n1 1 1\n", line: 1, msg: "missing %%MatrixMarket header"},
		{desc: "short banner", in: "%%MatrixMarket matrix coordinate\n", line: 1, msg: "has 3 words"},
		{desc: "pattern", in: "%%MatrixMarket matrix coordinate pattern general\n", line: 1, msg: "pattern matrices"},
		{desc: "complex", in: "%%MatrixMarket matrix coordinate complex general\n", line: 1, msg: "complex matrices"},
		{desc: "array", in: "%%MatrixMarket matrix array real general\n", line: 1, msg: "array (dense)"},
		{desc: "symmetric", in: "%%MatrixMarket matrix coordinate real symmetric\n", line: 1, msg: "symmetry \"symmetric\""},
		{desc: "vector object", in: "%%MatrixMarket vector coordinate real general\n", line: 1, msg: "object \"vector\""},
		{desc: "no size line", in: mtxHead + "% only a comment\n", line: 3, msg: "missing \"rows columns entries\""},
		{desc: "size not numeric", in: mtxHead + "3 x 1\n", line: 2, msg: "columns is not a non-negative integer"},
		{desc: "size negative", in: mtxHead + "3 -2 1\n", line: 2, msg: "columns is not"},
		{desc: "size four fields", in: mtxHead + "3 2 1 7\n", line: 2, msg: "more than 3 fields"},
		{desc: "zero genes", in: mtxHead + "0 2 0\n", line: 2, msg: "0 genes × 2 cells", isEmpty: true},
		{desc: "zero cells", in: mtxHead + "% c\n3 0 0\n", line: 3, msg: "3 genes × 0 cells", isEmpty: true},
		{desc: "nnz beyond rows×cols", in: mtxHead + "3 2 7\n", line: 2, msg: "more than 3 rows × 2 columns"},
		{desc: "10^12 entries", in: mtxHead + "1000000 1000000 1000000000000\n1 1 1\n", line: 2, msg: "at most 2147483647"},
		{desc: "huge cell count", in: mtxHead + "10 100000000 1\n1 1 1\n", line: 2, msg: "at most 16777216 supported"},
		{desc: "huge numbers overflow", in: mtxHead + "99999999999999999999999 2 1\n", line: 2, msg: "rows is not"},
		{desc: "truncated", in: mtxHead + "3 2 3\n1 1 1\n3 1 2\n", line: 5, msg: "line 2 promises 3 entries, found 2"},
		{desc: "more entries", in: mtxHead + "3 2 1\n1 1 1\n3 1 2\n", line: 4, msg: "more entries than the 1 promised on line 2"},
		{desc: "row zero", in: mtxHead + "3 2 1\n0 1 1\n", line: 3, msg: "row (gene) index 0 out of range"},
		{desc: "row too big", in: mtxHead + "3 2 1\n4 1 1\n", line: 3, msg: "row (gene) index \"4\" out of range [1, 3]"},
		{desc: "column too big", in: mtxHead + "3 2 1\n1 3 1\n", line: 3, msg: "column (cell) index \"3\" out of range [1, 2]"},
		{desc: "negative row", in: mtxHead + "3 2 1\n-1 1 1\n", line: 3, msg: "is not a positive integer"},
		{desc: "missing value", in: mtxHead + "3 2 1\n1 1\n", line: 3, msg: "missing value"},
		{desc: "missing column", in: mtxHead + "3 2 1\n1\n", line: 3, msg: "column (cell) missing index"},
		{desc: "extra field", in: mtxHead + "3 2 1\n1 1 1 9\n", line: 3, msg: "unexpected field \"9\""},
		{desc: "non-numeric value", in: mtxHead + "3 2 1\n1 1 abc\n", line: 3, msg: "is not an integer"},
		{desc: "real in integer matrix", in: mtxHead + "3 2 1\n1 1 1.5\n", line: 3, msg: "is not an integer"},
		{desc: "negative count", in: mtxHead + "3 2 1\n1 1 -4\n", line: 3, msg: "negative count -4"},
		{desc: "integer overflow", in: mtxHead + "3 2 1\n1 1 99999999999999999999\n", line: 3, msg: "out of range"},
		{desc: "NaN", in: real + "3 2 1\n1 1 NaN\n", line: 3, msg: "is not finite"},
		{desc: "Inf", in: real + "3 2 1\n1 1 -inf\n", line: 3, msg: "is not finite"},
		{desc: "float32 overflow", in: real + "3 2 1\n1 1 1e39\n", line: 3, msg: "out of float32 range"},
		{desc: "non-numeric real", in: real + "3 2 1\n1 1 1.2.3\n", line: 3, msg: "is not a number"},
		{desc: "duplicate in order", in: mtxHead + "3 2 2\n1 1 1\n1 1 2\n", line: 4, msg: "duplicate entry for row 1, column 1 (also on line 3)"},
		{desc: "duplicate out of order", in: mtxHead + "3 2 3\n2 2 1\n1 1 1\n2 2 5\n", line: 5, msg: "duplicate entry for row 2, column 2 (also on line 3)"},
		{desc: "duplicate after comment", in: mtxHead + "3 2 3\n2 2 1\n%\n1 1 1\n\n2 2 5\n", line: 7, msg: "(also on line 3)"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m, err := ReadMTX(strings.NewReader(tc.in), "bad.mtx")
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ReadMTX(%q) = %v, %v, want a *ParseError", tc.in, m, err)
			}
			if pe.File != "bad.mtx" || pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("ReadMTX(%q) = %q, want bad.mtx:%d: …%s…", tc.in, err, tc.line, tc.msg)
			}
			if got := errors.Is(err, ErrEmpty); got != tc.isEmpty {
				t.Errorf("errors.Is(ReadMTX(%q), ErrEmpty) = %v, want %v", tc.in, got, tc.isEmpty)
			}
			if !strings.HasPrefix(err.Error(), "datasets: bad.mtx:") {
				t.Errorf("ReadMTX(%q).Error() = %q, want prefix \"datasets: bad.mtx:\"", tc.in, err)
			}
		})
	}
}

func TestReadMTXTruncatedGzip(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(mtxHead + "100 100 10000\n")
	for c := 1; c <= 100; c++ {
		for g := 1; g <= 100; g++ {
			fmt.Fprintf(&sb, "%d %d %d\n", g, c, g+c)
		}
	}
	full := gz(t, sb.String())
	for _, cut := range []int{len(full) - 4, len(full) / 2, 12} {
		_, err := ReadMTX(bytes.NewReader(full[:cut]), "cut.mtx.gz")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "truncated file") || pe.Line == 0 {
			t.Errorf("ReadMTX(gzip cut at %d of %d) = %v, want a truncated-file *ParseError with a line", cut, len(full), err)
		}
	}
	if _, err := ReadMTX(bytes.NewReader(full), "full.mtx.gz"); err != nil {
		t.Errorf("ReadMTX(full gzip) = %v, want no error", err)
	}
}
