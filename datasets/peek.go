package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Peek is what a data set's headers say before it is loaded: enough to
// choose one (a data picker shows it) without parsing its matrix. Figures
// not known before loading are zero and Later says which.
type Peek struct {
	Spec        string // as given: "builtin:NAME" or a path
	Name        string
	Format      string // e.g. "10x MatrixMarket folder"
	Description string // built-in sets: their one-line description
	// Cells and Genes are the shape as stored (0: known only after
	// loading). For a dense file, whose orientation is decided at load,
	// they are its data rows and columns as read.
	Cells, Genes int
	// Unoriented says Cells and Genes are a dense file's data rows and
	// columns: which side is cells, Load decides (Orientation).
	Unoriented bool
	NonZero    int64 // stored entries (MTX header); 0 when unknown
	// Classes are the labels file's classes (or a built-in set's groups
	// with their expected sizes), in order of first appearance; nil when
	// unknown before loading.
	Classes []ClassCount
	Bytes   int64  // size on disk of the files a load reads
	Later   string // what only a load tells, e.g. "shape and classes"
	// ObsColumns are an .h5ad file's obs columns that can be labels, in
	// the file's order; nil for other formats (or without libhdf5).
	ObsColumns []ObsColumn
	// HasRaw says an .h5ad file has raw/X (use-raw reads it instead of X).
	HasRaw bool
}

// PeekData reads the headers of the data set spec names ("builtin:NAME"
// or a path, as Load takes): a built-in set's specification, an MTX
// folder's matrix header, barcodes and labels file, a dense file's header
// line and line count, an HDF5 file's shape, obs columns and raw/X (from
// extents and attributes). It reads no matrix entries.
// Errors name spec.
func PeekData(spec string) (Peek, error) {
	if name, ok := strings.CutPrefix(spec, BuiltinPrefix); ok {
		return peekBuiltin(spec, name)
	}
	st, err := os.Stat(spec)
	if err != nil {
		return Peek{}, fmt.Errorf("datasets: peek: %w", err)
	}
	dir := mtxDir(spec, st)
	switch {
	case dir != "":
		return peekMTX(spec, dir)
	case isHDF5(spec):
		return peekH5(spec, st.Size())
	}
	return peekDense(spec, st.Size())
}

// peekBuiltin describes a built-in set from its specification: its groups'
// expected sizes are Cells × their weights.
func peekBuiltin(spec, name string) (Peek, error) {
	s, err := GetBuiltinSpec(name)
	if err != nil {
		return Peek{}, err
	}
	p := Peek{Spec: spec, Name: name, Format: "built-in (simulated, Splatter-like)", Description: s.Description,
		Cells: s.Cells, Genes: s.Genes, Later: "class sizes are expected, drawn at random when generated"}
	total := 0.0
	for _, g := range s.Groups {
		total += g.Prob
	}
	for i, g := range s.Groups {
		p.Classes = append(p.Classes, ClassCount{Name: fmt.Sprintf("group %d", i+1), Cells: int(math.Round(float64(s.Cells) * g.Prob / total))})
	}
	return p, nil
}

// peekMTX reads an MTX folder's matrix header, counts its barcodes and
// reads its labels.tsv[.gz] when there is one.
func peekMTX(spec, dir string) (Peek, error) {
	p := Peek{Spec: spec, Name: filepath.Base(filepath.Clean(dir)), Format: "10x MatrixMarket folder"}
	matrix, err := findOne(dir, mtxMatrixNames, "matrix.mtx[.gz]")
	if err != nil {
		return p, err
	}
	r, c, err := openFile(matrix)
	if err != nil {
		return p, err
	}
	defer c.Close()
	lr := newLineReader(r, matrix)
	if _, err := readMTXBanner(lr); err != nil {
		return p, err
	}
	genes, cells, nnz, err := readMTXSize(lr, mtxExpect{genes: -1, cells: -1})
	if err != nil {
		return p, err
	}
	p.Cells, p.Genes, p.NonZero = cells, genes, nnz
	entries, err := os.ReadDir(dir)
	if err != nil {
		return p, fmt.Errorf("datasets: peek %s: %w", dir, err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			p.Bytes += info.Size()
		}
	}
	labels := ""
	for _, n := range []string{mtxLabelFileName, mtxLabelFileName + ".gz"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			labels = filepath.Join(dir, n)
			break
		}
	}
	if labels == "" {
		p.Later = "no labels.tsv: cells are unlabelled (ARI and NMI need labels)"
		return p, nil
	}
	f, err := os.Open(labels)
	if err != nil {
		return p, fmt.Errorf("datasets: peek: %w", err)
	}
	defer f.Close()
	t, err := ReadLabels(f, labels, nil)
	if err != nil {
		return p, err
	}
	p.Classes = countClasses(t.Labels)
	p.Later = "how many labelled barcodes match the matrix's cells"
	return p, nil
}

// countClasses counts labels in order of first appearance.
func countClasses(labels []string) []ClassCount {
	at := map[string]int{}
	var out []ClassCount
	for _, l := range labels {
		i, ok := at[l]
		if !ok {
			i = len(out)
			at[l] = i
			out = append(out, ClassCount{Name: l})
		}
		out[i].Cells++
	}
	return out
}

// peekDense reads a dense file's header line for its columns and counts its
// other non-blank lines, without parsing a value.
func peekDense(path string, size int64) (Peek, error) {
	p := Peek{Spec: path, Name: baseName(path), Format: "dense CSV/TSV", Bytes: size, Unoriented: true,
		Later: "which side is cells (orientation auto decides at load); no labels unless a labels file is given"}
	r, c, err := openFile(path)
	if err != nil {
		return p, err
	}
	defer c.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	header, err := readFirstLine(br, path) // consumes the line
	if err != nil {
		return p, err
	}
	if len(bytes.TrimSpace(header)) == 0 {
		return p, &ParseError{File: path, Line: 1, Msg: "empty file, want a header line", Err: ErrEmpty}
	}
	sep := byte(detectDelimiter(header, path))
	// The first field of the header names the row ids: the others are the
	// data columns.
	p.Genes = max(bytes.Count(bytes.TrimRight(header, "\r\n"), []byte{sep}), 1)
	first, rows, err := firstDataLine(br)
	if err != nil {
		return p, fmt.Errorf("datasets: peek %s: %w", path, err)
	}
	if first != nil {
		// Parse the header and one row as the loader would, so that a text
		// file that is not a matrix (a README, a table of names) is refused
		// here with the loader's own words, not shown with a shape the load
		// then refuses. The orientation is fixed: it changes which names
		// must be unique, not whether a row parses.
		one := io.MultiReader(bytes.NewReader(header), bytes.NewReader(first))
		if _, err := ReadDense(one, path, DenseOptions{Delimiter: rune(sep), Orientation: CellsByGenes}); err != nil {
			return p, err
		}
	}
	more, err := countLines(br)
	if err != nil {
		return p, fmt.Errorf("datasets: peek %s: %w", path, err)
	}
	p.Cells = rows + more
	return p, nil
}

// firstDataLine consumes br up to and including its first non-blank line
// and returns that line with a newline (nil when there is none) and the
// non-blank lines it consumed (0 or 1). A line longer than the reader's
// buffer is counted but not returned: the load parses it.
func firstDataLine(br *bufio.Reader) (line []byte, rows int, err error) {
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadBytes('\n') // the rest of the long line
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return nil, 1, err
		}
		if len(bytes.TrimSpace(b)) > 0 {
			out := append([]byte(nil), bytes.TrimRight(b, "\r\n")...)
			return append(out, '\n'), 1, nil
		}
		if errors.Is(err, io.EOF) {
			return nil, 0, nil
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// countLines counts the non-blank lines of r.
func countLines(r *bufio.Reader) (int, error) {
	n, blank := 0, true
	buf := make([]byte, 1<<16)
	for {
		k, err := r.Read(buf)
		for _, b := range buf[:k] {
			switch b {
			case '\n':
				if !blank {
					n++
				}
				blank = true
			case ' ', '\t', '\r':
			default:
				blank = false
			}
		}
		if errors.Is(err, io.EOF) {
			if !blank {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
