package datasets

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestReadDense(t *testing.T) {
	// Every case describes the same 2 cells × 3 genes matrix.
	wantX := [][]float32{{1, 0, 2.5}, {0, 3, 0}}
	wantCells := []string{"c1", "c2"}
	wantGenes := []string{"g1", "g2", "g3"}
	for _, tc := range []struct {
		desc, file, in string
		opts           DenseOptions
	}{
		{desc: "tsv genes×cells forced", file: "x.tsv", in: "gene\tc1\tc2\ng1\t1\t0\ng2\t0\t3\ng3\t2.5\t0\n",
			opts: DenseOptions{Orientation: GenesByCells}},
		{desc: "csv cells×genes forced", file: "x.csv", in: "cell,g1,g2,g3\nc1,1,0,2.5\nc2,0,3,0\n",
			opts: DenseOptions{Orientation: CellsByGenes}},
		{desc: "auto: more rows than columns means genes×cells", file: "x.csv", in: ",c1,c2\ng1,1,0\ng2,0,3\ng3,2.5,0\n"},
		{desc: "auto: fewer rows than columns means cells×genes", file: "x.csv", in: "id,g1,g2,g3\nc1,1,0,2.5\nc2,0,3,0\n"},
		{desc: "R style header without id column", file: "x.txt", in: "\"c1\"\t\"c2\"\n\"g1\"\t1\t0\n\"g2\"\t0\t3\n\"g3\"\t2.5\t0\n"},
		{desc: "semicolons, CRLF, quoted fields", file: "x", in: "\"gene;id\";c1;c2\r\ng1;\"1\";0\r\ng2;0;3\r\ng3;2.5e0;0\r\n"},
		{desc: "forced delimiter", file: "x.tsv", in: "id|g1|g2|g3\nc1|1|0|2.5\nc2|0|3|0\n",
			opts: DenseOptions{Delimiter: '|'}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			for _, zipped := range []bool{false, true} {
				in := []byte(tc.in)
				if zipped {
					in = gz(t, tc.in)
				}
				d, err := ReadDense(bytes.NewReader(in), tc.file, tc.opts)
				if err != nil {
					t.Fatalf("ReadDense(gzip %v) = %v, want no error", zipped, err)
				}
				if err := d.Validate(); err != nil {
					t.Fatalf("ReadDense(gzip %v).Validate() = %v", zipped, err)
				}
				if got := csrDense(d.X); !slices.EqualFunc(got, wantX, slices.Equal) {
					t.Errorf("ReadDense(gzip %v).X = %v, want %v", zipped, got, wantX)
				}
				if !slices.Equal(d.Barcodes, wantCells) || !slices.Equal(d.GeneIDs, wantGenes) {
					t.Errorf("ReadDense(gzip %v) cells %v genes %v, want %v %v", zipped, d.Barcodes, d.GeneIDs, wantCells, wantGenes)
				}
				if d.ValueType != NonCounts {
					t.Errorf("ReadDense(gzip %v).ValueType = %v, want non-counts (2.5)", zipped, d.ValueType)
				}
			}
		})
	}
}

func TestDetectDelimiter(t *testing.T) {
	for _, tc := range []struct {
		header, file string
		want         rune
	}{
		{header: "a\tb\tc\n", file: "x.csv", want: '\t'},
		{header: "a,b;c,d\n", file: "x", want: ','},
		{header: "a;b;c\n", file: "x", want: ';'},
		{header: "\"a,b\"\tc\n", file: "x", want: '\t'},
		{header: "\"a\tb\",c\n", file: "x", want: ','},
		{header: "single\n", file: "x.CSV.gz", want: ','},
		{header: "single\n", file: "x.txt", want: '\t'},
	} {
		t.Run(tc.header, func(t *testing.T) {
			if got := detectDelimiter([]byte(tc.header), tc.file); got != tc.want {
				t.Errorf("detectDelimiter(%q, %q) = %q, want %q", tc.header, tc.file, got, tc.want)
			}
		})
	}
}

func TestReadDenseName(t *testing.T) {
	d, err := ReadDense(strings.NewReader("id,g1\nc1,4\n"), "/data/my.set.csv.gz", DenseOptions{Orientation: CellsByGenes})
	if err != nil {
		t.Fatalf("ReadDense = %v", err)
	}
	if d.Name != "my.set" || d.Source != "/data/my.set.csv.gz" || d.ValueType != Counts {
		t.Errorf("ReadDense(my.set.csv.gz) Name %q Source %q ValueType %v, want my.set, the path, counts", d.Name, d.Source, d.ValueType)
	}
}

func TestDetectOrientation(t *testing.T) {
	many := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = prefix + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		}
		return out
	}
	for _, tc := range []struct {
		desc       string
		rows, cols []string
		want       Orientation
	}{
		{desc: "ensembl rows", rows: []string{"ENSG00000000003", "ENSG00000000005"}, cols: many("s", 5), want: GenesByCells},
		{desc: "ensembl mouse columns", rows: many("s", 5), cols: []string{"ENSMUSG00000000001", "ENSMUSG00000000028.2"}, want: CellsByGenes},
		{desc: "gene symbols in columns", rows: many("s", 9), cols: []string{"Xkr4", "Rpl13", "mt-Co1", "Sox17"}, want: CellsByGenes},
		{desc: "barcodes in columns", rows: many("s", 2), cols: []string{"AAACCTGAGAAGGCCT-1", "AAACCTGAGACAGACC-1", "AAACCTGCAATGGAGC-1"}, want: GenesByCells},
		{desc: "cell names in rows", rows: []string{"cell_1", "cell_2"}, cols: many("g", 1), want: CellsByGenes},
		{desc: "no signal, more rows", rows: many("a", 10), cols: many("b", 3), want: GenesByCells},
		{desc: "no signal, more columns", rows: many("a", 3), cols: many("b", 10), want: CellsByGenes},
		{desc: "no signal, square", rows: many("a", 3), cols: many("b", 3), want: GenesByCells},
		{desc: "conflicting signals fall back", rows: []string{"ENSG00000000003", "ENSG00000000005"}, cols: []string{"ENSG00000000007"}, want: GenesByCells},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := detectOrientation(tc.rows, tc.cols); got != tc.want {
				t.Errorf("detectOrientation(%v, %v) = %v, want %v", tc.rows, tc.cols, got, tc.want)
			}
		})
	}
}

func TestParseOrientation(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Orientation
		wantErr bool
	}{
		{in: "", want: OrientationAuto},
		{in: "Auto", want: OrientationAuto},
		{in: "genes-by-cells", want: GenesByCells},
		{in: "cells", want: CellsByGenes},
		{in: "diagonal", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseOrientation(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("ParseOrientation(%q) = %v, %v, want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err == nil && tc.in != "" && !strings.EqualFold(got.String(), tc.in) && len(tc.in) > 5 {
				t.Errorf("ParseOrientation(%q).String() = %q", tc.in, got)
			}
		})
	}
}

func TestReadDenseErrors(t *testing.T) {
	cxg := DenseOptions{Orientation: CellsByGenes}
	gxc := DenseOptions{Orientation: GenesByCells}
	for _, tc := range []struct {
		desc, in string
		opts     DenseOptions
		line     int
		msg      string
		isEmpty  bool
	}{
		{desc: "empty file", in: "", line: 1, msg: "empty file", isEmpty: true},
		{desc: "header only", in: "id,a,b\n", line: 1, msg: "no data rows", isEmpty: true},
		{desc: "no data columns", in: "id\nc1\nc2\n", opts: cxg, line: 1, msg: "no data columns", isEmpty: true},
		{desc: "row too long", in: "id,a,b\nc1,1,2,3,4\n", line: 2, msg: "row has 5 fields, header (line 1) has 3"},
		{desc: "row too short later", in: "id,a,b\nc1,1,2\nc2,1\n", line: 3, msg: "row has 2 fields, want 3"},
		{desc: "non-numeric", in: "id,a,b\nc1,1,x\n", line: 2, msg: "column 3 (\"b\"): value \"x\" is not a number"},
		{desc: "NA", in: "id,a,b\nc1,NA,1\n", line: 2, msg: "value \"NA\" is not a number"},
		{desc: "empty value", in: "id,a,b\nc1,,1\n", line: 2, msg: "is not a number"},
		{desc: "NaN", in: "id,a,b\nc1,1,NaN\n", line: 2, msg: "is not finite"},
		{desc: "Inf", in: "id,a,b\nc1,1,+Inf\n", line: 2, msg: "is not finite"},
		{desc: "empty id", in: "id,a,b\nc1,1,2\n,3,4\n", line: 3, msg: "empty row id"},
		{desc: "duplicate cell rows", in: "id,a,b\nc1,1,2\nc1,3,4\n", opts: cxg, line: 3, msg: "duplicate cell name \"c1\" (also on line 2)"},
		{desc: "duplicate cell columns", in: "id,c1,c1\ng1,1,2\n", opts: gxc, line: 1, msg: "duplicate cell name \"c1\" in header (data columns 1 and 2)"},
		{desc: "truncated gzip", in: string(gz(t, "id,a\nc1,1\nc2,2\nc3,3\n")[:30]), msg: "truncated file"},
		{desc: "bad orientation", in: "id,a\nc1,1\n", opts: DenseOptions{Orientation: 7}, msg: "orientation"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ReadDense(strings.NewReader(tc.in), "bad.csv", tc.opts)
			if err == nil {
				t.Fatalf("ReadDense(%q) = nil error, want …%s…", tc.in, tc.msg)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "datasets: bad.csv") {
				t.Errorf("ReadDense(%q) = %q, want datasets: bad.csv…%s…", tc.in, err, tc.msg)
			}
			var pe *ParseError
			if tc.line > 0 && (!errors.As(err, &pe) || pe.Line != tc.line) {
				t.Errorf("ReadDense(%q) = %q, want a *ParseError on line %d", tc.in, err, tc.line)
			}
			if got := errors.Is(err, ErrEmpty); got != tc.isEmpty {
				t.Errorf("errors.Is(ReadDense(%q), ErrEmpty) = %v, want %v", tc.in, got, tc.isEmpty)
			}
		})
	}
}
