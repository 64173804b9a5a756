package datasets

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// LabelTable is the content of a labels file: one barcode and one label per
// line, in file order.
type LabelTable struct {
	File     string   // where it was read from, for messages
	Barcodes []string // unique
	Labels   []string // one per barcode, never empty
	Lines    []int    // line of each entry
	Header   bool     // whether a header line was skipped
}

// headerWords are first-column names that mark a header line.
var headerWords = []string{"barcode", "barcodes", "cell", "cells", "cell_id", "cellid", "cell_barcode", "id", "name", "sample", ""}

// ReadLabels reads a labels file from r (gunzipped when it starts with the
// gzip magic bytes): lines "barcode<TAB>label"; further TAB-separated columns
// are ignored; a file with no TAB on its first line is read as
// comma-separated instead. Blank lines are skipped.
//
// The header is optional. known holds the barcodes of the data set the labels
// are for (nil when unknown). The first line is data when its first field is
// one of known. Otherwise it is a header when that field is a header word
// such as "barcode" or "cell" (any case), or when known is not nil and the
// second line's barcode is one of known; else it is data.
//
// Duplicate barcodes and empty labels are errors (*ParseError with the line).
func ReadLabels(r io.Reader, file string, known map[string]int) (*LabelTable, error) {
	rd, closer, err := decompress(r, file)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	lr := newLineReader(rd, file)
	t := &LabelTable{File: file}
	seen := make(map[string]int)
	sep := byte('\t')
	// The first line is held back until it is known whether it is a header.
	var pendBC, pendLab []byte
	pendLine, started := 0, false
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !started && bytes.IndexByte(line, '\t') < 0 && bytes.IndexByte(line, ',') >= 0 {
			sep = ','
		}
		bc, rest, _ := bytes.Cut(line, []byte{sep})
		lab, _, _ := bytes.Cut(rest, []byte{sep})
		bc, lab = unquote(bytes.TrimSpace(bc)), unquote(bytes.TrimSpace(lab))
		_, isKnown := known[string(bc)]
		switch {
		case !started && (isKnown || known == nil && !isHeaderWord(bc)):
			// A data line.
		case !started:
			pendBC, pendLab, pendLine = bytes.Clone(bc), bytes.Clone(lab), lr.line
			started = true
			continue
		case pendLine > 0:
			if isHeaderWord(pendBC) || isKnown {
				t.Header = true
			} else if err := t.add(seen, pendBC, pendLab, pendLine); err != nil {
				return nil, err
			}
			pendLine = 0
		}
		started = true
		if err := t.add(seen, bc, lab, lr.line); err != nil {
			return nil, err
		}
	}
	if pendLine > 0 {
		// A single line: a header of an empty file, or one entry.
		if isHeaderWord(pendBC) {
			t.Header = true
		} else if err := t.add(seen, pendBC, pendLab, pendLine); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *LabelTable) add(seen map[string]int, bc, lab []byte, line int) error {
	if len(bc) == 0 {
		return parseErrorf(t.File, line, "empty barcode (want \"barcode<TAB>label\")")
	}
	if len(lab) == 0 {
		return parseErrorf(t.File, line, "barcode %s has no label (want \"barcode<TAB>label\")", quoteField(bc))
	}
	s := string(bc)
	if prev, dup := seen[s]; dup {
		return parseErrorf(t.File, line, "duplicate barcode %s (also on line %d)", quoteField(bc), prev)
	}
	seen[s] = line
	t.Barcodes = append(t.Barcodes, s)
	t.Labels = append(t.Labels, string(lab))
	t.Lines = append(t.Lines, line)
	return nil
}

func isHeaderWord(b []byte) bool {
	return slices.Contains(headerWords, strings.ToLower(string(b)))
}

// unquote strips one pair of surrounding double quotes.
func unquote(b []byte) []byte {
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		return b[1 : n-1]
	}
	return b
}

// LabelReport says how a labels file matched the cells of a data set.
type LabelReport struct {
	File            string   // the labels file
	Labelled        int      // cells that received a label
	Missing         int      // cells with no line in the file (label -1)
	MissingExamples []string // the first few of them, in cell order
	Unknown         int      // lines whose barcode is not a cell of the data set
	UnknownExamples []string // the first few of them, in file order
	Header          bool     // whether the file's first line was read as a header
}

// reportExamples is how many names a LabelReport keeps.
const reportExamples = 5

// String summarises the report in one line.
func (r *LabelReport) String() string {
	s := fmt.Sprintf("%s: %d cells labelled", r.File, r.Labelled)
	if r.Missing > 0 {
		s += fmt.Sprintf("; %d cells without a label (%s)", r.Missing, firstFew(r.MissingExamples, r.Missing, reportExamples))
	}
	if r.Unknown > 0 {
		s += fmt.Sprintf("; %d labels for unknown barcodes (%s)", r.Unknown, firstFew(r.UnknownExamples, r.Unknown, reportExamples))
	}
	return s
}

// JoinLabels sets d.Labels and d.Classes from t, matching by barcode. Cells
// absent from t get label -1; lines of t naming no cell of d are ignored. Both
// are counted in the report. It is an error when no cell at all gets a label.
//
// Classes are ordered naturally: names are compared piece by piece, runs of
// digits by their numeric value and everything else byte-wise, so "2" < "10",
// "c2" < "c10" and "B cell" < "T cell".
func JoinLabels(d *Dataset, t *LabelTable) (*LabelReport, error) {
	rep := &LabelReport{File: t.File, Header: t.Header}
	index := make(map[string]int, len(d.Barcodes))
	for i, b := range d.Barcodes {
		index[b] = i
	}
	cellLabel := make([]string, len(d.Barcodes))
	for k, b := range t.Barcodes {
		i, ok := index[b]
		if !ok {
			rep.Unknown++
			if len(rep.UnknownExamples) < reportExamples {
				rep.UnknownExamples = append(rep.UnknownExamples, b)
			}
			continue
		}
		cellLabel[i] = t.Labels[k]
	}
	classSet := make(map[string]int)
	for _, l := range cellLabel {
		if l != "" {
			classSet[l] = 0
		}
	}
	classes := make([]string, 0, len(classSet))
	for c := range classSet {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, naturalCompare)
	for i, c := range classes {
		classSet[c] = i
	}
	labels := make([]int, len(d.Barcodes))
	for i, l := range cellLabel {
		if l == "" {
			labels[i] = -1
			rep.Missing++
			if len(rep.MissingExamples) < reportExamples {
				rep.MissingExamples = append(rep.MissingExamples, d.Barcodes[i])
			}
			continue
		}
		labels[i] = classSet[l]
		rep.Labelled++
	}
	if rep.Labelled == 0 && len(d.Barcodes) > 0 {
		return rep, &ParseError{File: t.File, Msg: fmt.Sprintf("no label matches any of the %d barcodes of %s (%s)", len(d.Barcodes), d.Name, rep)}
	}
	d.Labels, d.Classes = labels, classes
	if len(classes) == 1 {
		// One class makes every clustering score trivial: K = 1 and any
		// single cluster gets ARI 1.
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: every labelled cell has the same label %s: scores against one class mean nothing (a single cluster gets ARI 1); is this the right column or file?", t.File, quoteField([]byte(classes[0]))))
	}
	return rep, nil
}

// LoadLabels reads the labels file at path and joins it onto d (see
// ReadLabels and JoinLabels).
func LoadLabels(d *Dataset, path string) (*LabelReport, error) {
	r, c, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	known := make(map[string]int, len(d.Barcodes))
	for i, b := range d.Barcodes {
		known[b] = i
	}
	t, err := ReadLabels(r, path, known)
	if err != nil {
		return nil, err
	}
	return JoinLabels(d, t)
}
