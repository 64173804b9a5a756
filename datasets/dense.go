package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// DenseOptions controls ReadDense. The zero value detects everything.
type DenseOptions struct {
	// Orientation forces the layout; OrientationAuto (the default) detects it.
	Orientation Orientation
	// Delimiter forces the field separator; 0 (the default) detects it.
	Delimiter rune
}

// ReadDense reads a dense expression matrix in CSV or TSV from r (gunzipped
// when it starts with the gzip magic bytes, whatever file is called). file
// names r in errors and guides the delimiter choice.
//
// Layout: a header row, then one row per gene or per cell; the first column
// holds the row's id. The header may name the id column (same number of
// fields as the rows) or leave it out (one field fewer, as R's write.table
// does). Fields may be quoted. Values are decimal or scientific numbers; empty
// fields, "NA", NaN and ±Inf are errors. Zeros are not stored.
//
// The delimiter is the most frequent of TAB, comma and semicolon on the header
// line (outside quotes), else TAB for .tsv/.txt/.tab and comma for .csv.
//
// With OrientationAuto the layout is decided by the names: rows are genes
// (GenesByCells) when the row ids look like genes (Ensembl ids, or at least
// two common gene symbols such as MT-CO1, RPL13 or GAPDH) or the column names
// look like cells (nucleotide barcodes, names containing "cell"); rows are
// cells (CellsByGenes) in the mirror case. When the names say nothing or
// disagree, the longer dimension is taken as genes: expression matrices
// stored as dense text are mostly plate-based studies with a few hundred
// cells and tens of thousands of genes. Set Orientation when that is wrong.
//
// Cell names must be unique. Nothing is sized from anything but the data
// read. Errors are *ParseError values naming the line.
func ReadDense(r io.Reader, file string, opts DenseOptions) (*Dataset, error) {
	rd, closer, err := decompress(r, file)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	br := bufio.NewReaderSize(rd, readBufSize)
	first, err := readFirstLine(br, file)
	if err != nil {
		return nil, err
	}
	delim := opts.Delimiter
	if delim == 0 {
		delim = detectDelimiter(first, file)
	}
	cr := csv.NewReader(&lineCapReader{r: io.MultiReader(bytes.NewReader(first), br), file: file, max: maxLineLen})
	cr.Comma = delim
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true

	rec, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: file, Line: 1, Msg: "empty file, want a header row", Err: ErrEmpty}
	}
	if err != nil {
		return nil, csvError(file, err, 1)
	}
	header := make([]string, len(rec))
	for i, h := range rec {
		header[i] = strings.Clone(h)
	}
	var warnings []string

	var (
		rowIDs   []string
		rowLines []int
		colNames []string
		e        = &mtxEntries{sorted: true}
		width    int // fields per data row
		line     int
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// FieldPos is only defined for a record read without error.
			return nil, csvError(file, err, line)
		}
		line, _ = cr.FieldPos(0)
		if width == 0 {
			switch len(rec) {
			case len(header):
				colNames = header[1:]
			case len(header) + 1:
				colNames = header
			default:
				return nil, parseErrorf(file, line, "row has %d fields, header (line 1) has %d: want the same, or one more for the id column", len(rec), len(header))
			}
			width = len(rec)
			if len(colNames) == 0 {
				return nil, &ParseError{File: file, Line: 1, Msg: "header has no data columns, only the id column", Err: ErrEmpty}
			}
			if err := checkHeaderNames(file, colNames); err != nil {
				return nil, err
			}
		}
		if len(rec) != width {
			return nil, parseErrorf(file, line, "row has %d fields, want %d like the rows before", len(rec), width)
		}
		if len(rowIDs) >= math.MaxInt32 {
			return nil, parseErrorf(file, line, "more than %d rows", math.MaxInt32)
		}
		id := strings.TrimSpace(rec[0])
		if id == "" {
			return nil, parseErrorf(file, line, "empty row id in the first column")
		}
		row := int32(len(rowIDs))
		rowIDs = append(rowIDs, strings.Clone(id))
		rowLines = append(rowLines, line)
		for j, f := range rec[1:] {
			v, msg := parseRealValue(strings.TrimSpace(f))
			if msg != "" {
				return nil, parseErrorf(file, line, "column %d (%s): %s", j+2, quoteField([]byte(colNames[j])), msg)
			}
			if v == 0 {
				continue
			}
			if len(e.val) >= math.MaxInt32 {
				return nil, parseErrorf(file, line, "more than %d non-zero values", math.MaxInt32)
			}
			e.cell = append(e.cell, row)
			e.gene = append(e.gene, int32(j))
			e.val = append(e.val, v)
		}
	}
	if len(rowIDs) == 0 {
		return nil, &ParseError{File: file, Line: 1, Msg: "header but no data rows", Err: ErrEmpty}
	}
	d, err := denseDataset(file, e, rowIDs, rowLines, colNames, opts.Orientation)
	if err != nil {
		return nil, err
	}
	if w := duplicateGenes(file, d.GeneIDs); w != "" {
		d.Warnings = append(warnings, w)
	}
	return d, nil
}

// checkHeaderNames refuses a first line that is data, not a header: a file
// written without a header row would otherwise lose its first row and name
// its columns after that row's values. Column names that are all numbers
// are taken as data unless they count 0, 1, 2, … or 1, 2, 3, … (the
// header pandas writes for a frame without names).
func checkHeaderNames(file string, names []string) error {
	first := float32(-1)
	seq := true
	for i, n := range names {
		v, msg := parseRealValue(strings.TrimSpace(n))
		if msg != "" {
			return nil // a name: a real header
		}
		if i == 0 {
			first = v
		}
		if v != first+float32(i) {
			seq = false
		}
	}
	if seq && (first == 0 || first == 1) {
		return nil
	}
	return parseErrorf(file, 1, "the header row's column names are all numbers (%s): this looks like a data row, not a header; add a header row naming the cells or genes", firstFew(names, len(names), 3))
}

// duplicateGenes returns a warning when gene names repeat (two rows of a
// table with the same gene symbol): they are kept as separate genes, but a
// user should know, because one name then stands for several columns.
func duplicateGenes(file string, genes []string) string {
	seen := make(map[string]int, len(genes))
	dups, example := 0, ""
	for i, g := range genes {
		if j, ok := seen[g]; ok {
			if dups == 0 {
				example = fmt.Sprintf("%s at gene %d and %d", quoteField([]byte(g)), j+1, i+1)
			}
			dups++
			continue
		}
		seen[g] = i
	}
	if dups == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d gene names repeat an earlier one (first: %s); they are kept as separate genes", file, dups, example)
}

// lineCapReader fails once more than max bytes pass without a newline, so
// that a file with an endless line ends with an error instead of filling the
// memory of the CSV reader.
type lineCapReader struct {
	r    io.Reader
	file string
	max  int
	run  int // bytes since the last newline
	line int // newlines seen
}

func (l *lineCapReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	b := p[:n]
	first := bytes.IndexByte(b, '\n')
	if first < 0 {
		l.run += n
	} else if l.run+first > l.max {
		l.run += first
	} else {
		l.line += bytes.Count(b, []byte{'\n'})
		l.run = n - 1 - bytes.LastIndexByte(b, '\n')
	}
	if l.run > l.max {
		return 0, parseErrorf(l.file, l.line+1, "line longer than %d bytes: not a dense matrix file", l.max)
	}
	return n, err
}

// denseDataset orients the parsed entries (row, column) into a Dataset.
func denseDataset(file string, e *mtxEntries, rowIDs []string, rowLines []int, colNames []string, o Orientation) (*Dataset, error) {
	if o == OrientationAuto {
		o = detectOrientation(rowIDs, colNames)
	}
	d := &Dataset{Name: baseName(file), Source: file}
	var cells, genes int
	switch o {
	case CellsByGenes:
		d.Barcodes, d.GeneIDs = rowIDs, colNames
		cells, genes = len(rowIDs), len(colNames)
		if err := uniqueNames(file, rowIDs, rowLines); err != nil {
			return nil, err
		}
	case GenesByCells:
		d.Barcodes, d.GeneIDs = colNames, rowIDs
		cells, genes = len(colNames), len(rowIDs)
		e.cell, e.gene = e.gene, e.cell
		e.sorted = cells == 1
		if err := uniqueNames(file, colNames, nil); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("datasets: %s: orientation %v, want auto, genes-by-cells or cells-by-genes", file, o)
	}
	d.GeneNames = d.GeneIDs
	x, err := e.toCSR(file, cells, genes)
	if err != nil {
		return nil, err
	}
	d.X = x
	d.ValueType = DetectValueType(x)
	return d, nil
}

// uniqueNames checks that cell names are unique. lines holds the line of
// each name given as a row id, or is nil for names from the header.
func uniqueNames(file string, names []string, lines []int) error {
	seen := make(map[string]int, len(names))
	for i, n := range names {
		if j, dup := seen[n]; dup {
			if lines != nil {
				return parseErrorf(file, lines[i], "duplicate cell name %s (also on line %d)", quoteField([]byte(n)), lines[j])
			}
			return parseErrorf(file, 1, "duplicate cell name %s in header (data columns %d and %d)", quoteField([]byte(n)), j+1, i+1)
		}
		seen[n] = i
	}
	return nil
}

// readFirstLine returns the first line of br, with its newline, without
// consuming it from the caller's point of view (the caller re-reads it).
func readFirstLine(br *bufio.Reader, file string) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadSlice('\n')
		line = append(line, b...)
		if err == bufio.ErrBufferFull {
			if len(line) > maxLineLen {
				return nil, parseErrorf(file, 1, "header line longer than %d bytes", maxLineLen)
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, (&lineReader{file: file}).readError(err)
		}
		return line, nil
	}
}

// detectDelimiter picks the most frequent of TAB, comma and semicolon outside
// quotes on the header line, falling back on the file name's extension.
func detectDelimiter(header []byte, file string) rune {
	var tabs, commas, semis int
	quoted := false
	for _, c := range header {
		switch c {
		case '"':
			quoted = !quoted
		case '\t':
			if !quoted {
				tabs++
			}
		case ',':
			if !quoted {
				commas++
			}
		case ';':
			if !quoted {
				semis++
			}
		}
	}
	switch {
	case tabs > 0 && tabs >= commas && tabs >= semis:
		return '\t'
	case commas > 0 && commas >= semis:
		return ','
	case semis > 0:
		return ';'
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(file), ".gz")))
	if ext == ".csv" {
		return ','
	}
	return '\t'
}

// csvError converts an encoding/csv error into a *ParseError.
func csvError(file string, err error, line int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: file, Line: pe.Line, Msg: pe.Err.Error(), Err: err}
	}
	var own *ParseError
	if errors.As(err, &own) {
		return err
	}
	return (&lineReader{file: file, line: line}).readError(err)
}

// baseName returns the file's name without its folder and without the
// extensions .gz, .csv, .tsv, .txt, .tab, .mtx.
func baseName(path string) string {
	b := filepath.Base(filepath.Clean(path))
	for {
		ext := strings.ToLower(filepath.Ext(b))
		switch ext {
		case ".gz", ".csv", ".tsv", ".txt", ".tab", ".mtx":
			if len(b) > len(ext) {
				b = b[:len(b)-len(ext)]
				continue
			}
		}
		return b
	}
}
