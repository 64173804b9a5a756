package datasets

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// tinyDataset returns a valid 3-cell × 2-gene data set without labels.
func tinyDataset() *Dataset {
	return &Dataset{
		Name: "tiny",
		X: &CSR{Rows: 3, Cols: 2, Indptr: []int64{0, 1, 2, 3},
			Indices: []int32{0, 1, 0}, Data: []float32{1, 2, 3}},
		GeneIDs:   []string{"g1", "g2"},
		GeneNames: []string{"g1", "g2"},
		Barcodes:  []string{"AAAC-1", "AAAG-1", "cell"},
	}
}

func TestReadLabelsHeader(t *testing.T) {
	known := map[string]int{"AAAC-1": 0, "AAAG-1": 1, "cell": 2}
	for _, tc := range []struct {
		desc, in   string
		known      map[string]int
		wantHeader bool
		wantBC     []string
	}{
		{desc: "barcode header", in: "barcode\tlabel\nAAAC-1\tT\n", known: known, wantHeader: true, wantBC: []string{"AAAC-1"}},
		{desc: "no header", in: "AAAC-1\tT\nAAAG-1\tB\n", known: known, wantBC: []string{"AAAC-1", "AAAG-1"}},
		{desc: "first barcode named cell is data when known", in: "cell\tT\nAAAC-1\tB\n", known: known, wantBC: []string{"cell", "AAAC-1"}},
		{desc: "odd header word, second line known", in: "obs_names\tcelltype\nAAAC-1\tB\n", known: known, wantHeader: true, wantBC: []string{"AAAC-1"}},
		{desc: "unknown first line, unknown second line: data", in: "x1\tT\nx2\tB\n", known: known, wantBC: []string{"x1", "x2"}},
		{desc: "nil known, header word", in: "Cell\tType\nx1\tT\n", wantHeader: true, wantBC: []string{"x1"}},
		{desc: "nil known, no header", in: "x1\tT\nx2\tB\n", wantBC: []string{"x1", "x2"}},
		{desc: "header only", in: "barcode\tlabel\n", known: known, wantHeader: true},
		{desc: "single data line", in: "x1\tT\n", known: known, wantBC: []string{"x1"}},
		{desc: "comma separated, quoted, CRLF, blank lines", in: "\"barcode\",\"label\"\r\n\r\n\"AAAC-1\",\"T\"\r\n", known: known, wantHeader: true, wantBC: []string{"AAAC-1"}},
		{desc: "extra columns ignored", in: "AAAC-1\tT\tsample1\n", known: known, wantBC: []string{"AAAC-1"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			lt, err := ReadLabels(strings.NewReader(tc.in), "l.tsv", tc.known)
			if err != nil {
				t.Fatalf("ReadLabels(%q) = %v, want no error", tc.in, err)
			}
			if lt.Header != tc.wantHeader || !slices.Equal(lt.Barcodes, tc.wantBC) {
				t.Errorf("ReadLabels(%q) = header %v barcodes %q, want %v %q", tc.in, lt.Header, lt.Barcodes, tc.wantHeader, tc.wantBC)
			}
		})
	}
}

func TestReadLabelsErrors(t *testing.T) {
	for _, tc := range []struct {
		desc, in string
		line     int
		msg      string
	}{
		{desc: "duplicate barcode", in: "barcode\tlabel\na\tT\nb\tB\na\tB\n", line: 4, msg: "duplicate barcode \"a\" (also on line 2)"},
		{desc: "empty label", in: "a\tT\nb\n", line: 2, msg: "barcode \"b\" has no label"},
		{desc: "empty barcode", in: "a\tT\n\tB\n", line: 2, msg: "empty barcode"},
		{desc: "truncated gzip", in: string(gz(t, "a\tT\nb\tB\n")[:20]), line: 3, msg: "truncated file"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ReadLabels(strings.NewReader(tc.in), "l.tsv", nil)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("ReadLabels(%q) = %v, want l.tsv:%d: …%s…", tc.in, err, tc.line, tc.msg)
			}
		})
	}
}

func TestJoinLabels(t *testing.T) {
	d := tinyDataset()
	in := "barcode\tlabel\nAAAG-1\t10\nAAAC-1\t2\nzzz\t3\nyyy\t3\n"
	lt, err := ReadLabels(strings.NewReader(in), "l.tsv", nil)
	if err != nil {
		t.Fatalf("ReadLabels = %v", err)
	}
	rep, err := JoinLabels(d, lt)
	if err != nil {
		t.Fatalf("JoinLabels = %v, want no error", err)
	}
	if want := []string{"2", "10"}; !slices.Equal(d.Classes, want) {
		t.Errorf("JoinLabels: Classes = %q, want %q (numeric order)", d.Classes, want)
	}
	if want := []int{0, 1, -1}; !slices.Equal(d.Labels, want) {
		t.Errorf("JoinLabels: Labels = %v, want %v", d.Labels, want)
	}
	if rep.Labelled != 2 || rep.Missing != 1 || rep.Unknown != 2 ||
		!slices.Equal(rep.MissingExamples, []string{"cell"}) || !slices.Equal(rep.UnknownExamples, []string{"zzz", "yyy"}) {
		t.Errorf("JoinLabels report = %+v, want 2 labelled, 1 missing (cell), 2 unknown (zzz, yyy)", rep)
	}
	if s := rep.String(); !strings.Contains(s, "1 cells without a label (cell)") || !strings.Contains(s, "2 labels for unknown barcodes (zzz, yyy)") {
		t.Errorf("LabelReport.String() = %q", s)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("Validate() after JoinLabels = %v", err)
	}

	none, _ := ReadLabels(strings.NewReader("x\tA\n"), "none.tsv", nil)
	if _, err := JoinLabels(tinyDataset(), none); err == nil || !strings.Contains(err.Error(), "no label matches any of the 3 barcodes") {
		t.Errorf("JoinLabels(no matching barcode) = %v, want an error", err)
	}
}

func TestNaturalCompare(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{in: []string{"10", "2", "1", "16", "9"}, want: []string{"1", "2", "9", "10", "16"}},
		{in: []string{"c10", "c2", "b", "c1"}, want: []string{"b", "c1", "c2", "c10"}},
		{in: []string{"T cell", "B cell", "2cell", "16cell", "blast"}, want: []string{"2cell", "16cell", "B cell", "T cell", "blast"}},
		{in: []string{"01", "1", "001"}, want: []string{"1", "01", "001"}},
		{in: []string{"a1b", "a1", "a01b"}, want: []string{"a1", "a1b", "a01b"}},
	} {
		got := slices.Clone(tc.in)
		slices.SortFunc(got, naturalCompare)
		if !slices.Equal(got, tc.want) {
			t.Errorf("sort %q by naturalCompare = %q, want %q", tc.in, got, tc.want)
		}
	}
}
