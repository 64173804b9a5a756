package datasets

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
)

// MaxMTXCells bounds the number of cells (columns) a MatrixMarket header may
// promise when no barcodes file says how many there are: the CSR result needs
// one row pointer per cell, so a header alone must not decide a huge
// allocation.
const MaxMTXCells = 1 << 24

// mtxPrealloc caps the entries preallocated from a header's promise; more
// storage grows as real entries arrive.
const mtxPrealloc = 1 << 22

// ReadMTX reads a MatrixMarket coordinate matrix of genes × cells (the 10x
// layout: one row per feature, one column per barcode) from r, gunzipping it
// when it starts with the gzip magic bytes, and returns it transposed: cells ×
// genes CSR with column indices sorted within each row. file names r in
// errors.
//
// The header must be "%%MatrixMarket matrix coordinate FIELD general" with
// FIELD integer, real or double; pattern, complex, array (dense) and
// symmetric/skew-symmetric/hermitian files are refused with a message saying
// so (a genes × cells matrix is not square, so symmetry cannot apply).
// Entries may come in any order; an (i, j) given twice is an error. Explicit
// zeros are dropped. Integer values must be non-negative (they are counts);
// real values may be negative but not NaN or ±Inf.
//
// Every problem is returned as a *ParseError naming the line. A header with 0
// rows or columns gives an error wrapping ErrEmpty. Nothing is preallocated
// beyond min(nnz, 4Mi) entries, nnz > rows×cols is refused at once, and at most
// MaxMTXCells columns are accepted.
func ReadMTX(r io.Reader, file string) (*CSR, error) {
	return readMTX(context.Background(), r, file, mtxExpect{genes: -1, cells: -1})
}

// mtxExpect holds the dimensions the names files give, or -1 when unknown.
type mtxExpect struct {
	genes, cells           int
	genesFile, barcodeFile string
}

// mtxEntries collects the entries of the file in file order.
type mtxEntries struct {
	cell, gene []int32
	val        []float32
	zeros      int
	sorted     bool  // (cell, gene) strictly increasing so far
	lastKey    int64 // cell<<32 | gene of the last entry
	firstLine  int   // line of entry 0
	lines      []int // line of each entry, kept only once a skipped line interleaves
}

func (e *mtxEntries) lineOf(k int) int {
	if e.lines != nil {
		return e.lines[k]
	}
	return e.firstLine + k
}

// add appends the 1-based entry (gi, ci) read on line, reporting a
// duplicate of the previous entry at once; other duplicates are found by
// sortByCellGene.
func (e *mtxEntries) add(file string, line, gi, ci int, v float32) error {
	if len(e.val) == 0 {
		e.firstLine = line
	}
	key := int64(ci)<<32 | int64(gi)
	if key <= e.lastKey && e.sorted {
		if key == e.lastKey {
			return parseErrorf(file, line, "duplicate entry for row %d, column %d (also on line %d)", gi, ci, e.lineOf(len(e.val)-1))
		}
		e.sorted = false
	}
	e.lastKey = key
	if v == 0 {
		e.zeros++
	}
	e.cell = append(e.cell, int32(ci-1))
	e.gene = append(e.gene, int32(gi-1))
	e.val = append(e.val, v)
	if e.lines != nil {
		e.lines = append(e.lines, line)
	}
	return nil
}

func readMTX(ctx context.Context, r io.Reader, file string, want mtxExpect) (*CSR, error) {
	rd, closer, err := decompress(r, file)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	lr := newLineReader(rd, file)

	integer, err := readMTXBanner(lr)
	if err != nil {
		return nil, err
	}
	genes, cells, nnz, err := readMTXSize(lr, want)
	if err != nil {
		return nil, err
	}
	sizeLine := lr.line

	pre := int(min(nnz, mtxPrealloc))
	e := &mtxEntries{
		cell:    make([]int32, 0, pre),
		gene:    make([]int32, 0, pre),
		val:     make([]float32, 0, pre),
		sorted:  true,
		lastKey: -1,
	}
	var k int64
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if lr.line&(ctxEvery-1) == 0 {
			// A cancelled load stops here even when the input is already
			// buffered (a reader's own check fires only on a read).
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if gi, ci, v, ok := fastEntry(line, genes, cells, integer); ok && k < nnz {
			if err := e.add(file, lr.line, gi, ci, v); err != nil {
				return nil, err
			}
			k++
			continue
		}
		// The general path: anything fastEntry does not take, including
		// every error, which it reports in detail.
		if isBlankOrComment(line) {
			if k > 0 && k < nnz && e.lines == nil {
				e.lines = make([]int, k, cap(e.cell))
				for i := range e.lines {
					e.lines[i] = e.firstLine + i
				}
			}
			continue
		}
		if k == nnz {
			return nil, parseErrorf(file, lr.line, "more entries than the %d promised on line %d", nnz, sizeLine)
		}
		tok, rest := nextField(line)
		gi, msg := parseIndex(tok, genes)
		if msg != "" {
			return nil, parseErrorf(file, lr.line, "row (gene) %s", msg)
		}
		tok, rest = nextField(rest)
		ci, msg := parseIndex(tok, cells)
		if msg != "" {
			return nil, parseErrorf(file, lr.line, "column (cell) %s", msg)
		}
		tok, rest = nextField(rest)
		var v float32
		if len(tok) == 0 {
			msg = "missing value (entries are \"row column value\")"
		} else if integer {
			v, msg = parseIntValue(tok)
			if msg == "" && v < 0 {
				msg = fmt.Sprintf("negative count %s in an integer matrix", tok)
			}
		} else {
			v, msg = parseRealValue(tok)
		}
		if msg != "" {
			return nil, parseErrorf(file, lr.line, "%s", msg)
		}
		if tok, _ = nextField(rest); len(tok) != 0 {
			return nil, parseErrorf(file, lr.line, "unexpected field %s after the value (entries are \"row column value\")", quoteField(tok))
		}
		if err := e.add(file, lr.line, gi, ci, v); err != nil {
			return nil, err
		}
		k++
	}
	if k < nnz {
		return nil, parseErrorf(file, lr.line+1, "unexpected end of file: line %d promises %d entries, found %d", sizeLine, nnz, k)
	}
	return e.toCSR(file, cells, genes)
}

// readMTXBanner reads the "%%MatrixMarket ..." line and reports whether the
// field is integer.
func readMTXBanner(lr *lineReader) (integer bool, err error) {
	line, err := lr.next()
	if err == io.EOF {
		return false, &ParseError{File: lr.file, Line: 1, Msg: "empty file, want a %%MatrixMarket header", Err: ErrEmpty}
	}
	if err != nil {
		return false, err
	}
	f := strings.Fields(strings.ToLower(string(line)))
	if len(f) == 0 || f[0] != "%%matrixmarket" {
		return false, parseErrorf(lr.file, lr.line, "missing %%%%MatrixMarket header, found %s", quoteField(line))
	}
	if len(f) != 5 {
		return false, parseErrorf(lr.file, lr.line, "header %s has %d words, want \"%%%%MatrixMarket matrix coordinate integer|real general\"", quoteField(line), len(f))
	}
	if f[1] != "matrix" {
		return false, parseErrorf(lr.file, lr.line, "object %q not supported, want \"matrix\"", f[1])
	}
	switch f[2] {
	case "coordinate":
	case "array":
		return false, parseErrorf(lr.file, lr.line, "array (dense) MatrixMarket format not supported, want coordinate")
	default:
		return false, parseErrorf(lr.file, lr.line, "format %q not supported, want coordinate", f[2])
	}
	switch f[3] {
	case "integer":
		integer = true
	case "real", "double":
	case "pattern":
		return false, parseErrorf(lr.file, lr.line, "pattern matrices (no values) not supported, want integer or real")
	case "complex":
		return false, parseErrorf(lr.file, lr.line, "complex matrices not supported, want integer or real")
	default:
		return false, parseErrorf(lr.file, lr.line, "field %q not supported, want integer or real", f[3])
	}
	if f[4] != "general" {
		return false, parseErrorf(lr.file, lr.line, "symmetry %q not supported for a genes × cells matrix, want general", f[4])
	}
	return integer, nil
}

// readMTXSize skips comments and reads the "rows cols nnz" line, checking it
// against want before anything is allocated.
func readMTXSize(lr *lineReader, want mtxExpect) (genes, cells int, nnz int64, err error) {
	var line []byte
	for {
		line, err = lr.next()
		if err == io.EOF {
			return 0, 0, 0, parseErrorf(lr.file, lr.line+1, "unexpected end of file: missing \"rows columns entries\" size line")
		}
		if err != nil {
			return 0, 0, 0, err
		}
		if !isBlankOrComment(line) {
			break
		}
	}
	var v [3]int64
	rest := line
	for i, name := range []string{"rows", "columns", "entries"} {
		var tok []byte
		tok, rest = nextField(rest)
		n, ok := parseCount(tok, math.MaxInt64/4)
		if !ok {
			return 0, 0, 0, parseErrorf(lr.file, lr.line, "size line %s: %s is not a non-negative integer, want \"rows columns entries\"", quoteField(line), name)
		}
		v[i] = n
	}
	if tok, _ := nextField(rest); len(tok) != 0 {
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "size line %s has more than 3 fields, want \"rows columns entries\"", quoteField(line))
	}
	g, c, nz := v[0], v[1], v[2]
	switch {
	case g == 0 || c == 0:
		return 0, 0, 0, &ParseError{File: lr.file, Line: lr.line, Msg: fmt.Sprintf("empty matrix: %d genes × %d cells", g, c), Err: ErrEmpty}
	case want.genes >= 0 && g != int64(want.genes):
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "header promises %d rows (genes), %s has %d", g, want.genesFile, want.genes)
	case want.cells >= 0 && c != int64(want.cells):
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "header promises %d columns (cells), %s has %d", c, want.barcodeFile, want.cells)
	case g > math.MaxInt32:
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "%d rows (genes), at most %d supported", g, math.MaxInt32)
	case c > MaxMTXCells && want.cells < 0:
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "%d columns (cells), at most %d supported without a barcodes file", c, MaxMTXCells)
	case c > math.MaxInt32:
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "%d columns (cells), at most %d supported", c, math.MaxInt32)
	case nz > math.MaxInt32:
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "header promises %d entries, at most %d supported", nz, math.MaxInt32)
	case nz > g*c:
		return 0, 0, 0, parseErrorf(lr.file, lr.line, "header promises %d entries, more than %d rows × %d columns", nz, g, c)
	}
	return int(g), int(c), nz, nil
}

// isBlankOrComment reports whether a line is empty, blanks only, or a
// MatrixMarket comment.
func isBlankOrComment(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '%':
			return true
		}
		return false
	}
	return true
}

// nextField returns the next blank-separated field of b and the rest.
func nextField(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	return b[i:j], b[j:]
}

// fastEntry parses the common entry line "row col value" (single spaces or
// tabs, plain digits, an integer value or a real value) with no error
// reporting: ok is false for anything unusual, which the caller then parses
// again on the general path.
func fastEntry(line []byte, genes, cells int, integer bool) (gi, ci int, v float32, ok bool) {
	i, n := 0, len(line)
	for i < n && line[i]-'0' <= 9 {
		gi = gi*10 + int(line[i]-'0')
		i++
		if gi > genes {
			return 0, 0, 0, false
		}
	}
	if gi == 0 || i == n || (line[i] != ' ' && line[i] != '\t') {
		return 0, 0, 0, false
	}
	i++
	for i < n && line[i]-'0' <= 9 {
		ci = ci*10 + int(line[i]-'0')
		i++
		if ci > cells {
			return 0, 0, 0, false
		}
	}
	if ci == 0 || i == n || (line[i] != ' ' && line[i] != '\t') {
		return 0, 0, 0, false
	}
	i++
	j := i
	for j < n && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
		j++
	}
	if j != n || j == i {
		return 0, 0, 0, false
	}
	if integer {
		var c uint64
		for _, b := range line[i:j] {
			d := uint64(b - '0')
			if d > 9 || c > 1<<40 {
				return 0, 0, 0, false
			}
			c = c*10 + d
		}
		return gi, ci, float32(c), true
	}
	v, ok = fastReal(line[i:j])
	return gi, ci, v, ok && v >= -maxFinite32
}
