package datasets

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// writeText writes one file of an export folder through a buffer.
func writeText(dir, name string, fill func(w *bufio.Writer)) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	fill(w)
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// formatValue writes a float32 in its shortest exact form, so that a
// reader gets back the very float32 dpscope trained on.
func formatValue(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }

// writeMTXFiles writes a 10x MatrixMarket folder, as Cell Ranger does and
// scanpy.read_10x_mtx reads: matrix.mtx (features × cells, the non-zero
// values, real), features.tsv (id, name, "Gene Expression"),
// barcodes.tsv, obs.tsv (barcode and every column, with a header) and,
// when there is a "label" column, labels.tsv (barcode<TAB>label, cells
// without a label left out), which dpscope's own reader joins.
func writeMTXFiles(dir string, t *Table) error {
	nnz := 0
	for _, v := range t.X {
		if v != 0 {
			nnz++
		}
	}
	err := writeText(dir, "matrix.mtx", func(w *bufio.Writer) {
		fmt.Fprintf(w, "%%%%MatrixMarket matrix coordinate real general\n%% dpscope %s export schema %d: features x cells\n%d %d %d\n", t.Version, ExportSchema, t.Features, t.Cells, nnz)
		// Column-major over cells, as 10x files are ordered.
		for i := range t.Cells {
			for j, v := range t.X[i*t.Features : (i+1)*t.Features] {
				if v != 0 {
					fmt.Fprintf(w, "%d %d %s\n", j+1, i+1, formatValue(v))
				}
			}
		}
	})
	if err != nil {
		return err
	}
	if err := writeText(dir, "features.tsv", func(w *bufio.Writer) {
		for j, name := range t.FeatureNames {
			id := name
			if t.FeatureIDs != nil {
				id = t.FeatureIDs[j]
			}
			fmt.Fprintf(w, "%s\t%s\tGene Expression\n", id, name)
		}
	}); err != nil {
		return err
	}
	if err := writeText(dir, "barcodes.tsv", func(w *bufio.Writer) {
		for _, b := range t.Barcodes {
			fmt.Fprintln(w, b)
		}
	}); err != nil {
		return err
	}
	if err := writeObs(dir, "obs.tsv", '\t', t); err != nil {
		return err
	}
	if err := writeStamp(dir, "mtx", t); err != nil {
		return err
	}
	for _, c := range t.Columns {
		if c.Name == "label" && c.categorical() {
			return writeText(dir, "labels.tsv", func(w *bufio.Writer) {
				w.WriteString("barcode\tlabel\n")
				for i, b := range t.Barcodes {
					if c.Codes[i] >= 0 {
						fmt.Fprintf(w, "%s\t%s\n", b, c.Categories[c.Codes[i]])
					}
				}
			})
		}
	}
	return nil
}

// writeStamp writes export.json, the version and schema stamp every
// export carries (DECISIONS), beside files whose formats have no place
// for one.
func writeStamp(dir, format string, t *Table) error {
	b, err := json.MarshalIndent(map[string]any{"dpscope_version": t.Version, "export_schema": ExportSchema, "format": format,
		"cells": t.Cells, "features": t.Features}, "", "  ")
	if err != nil {
		return err
	}
	return writeText(dir, "export.json", func(w *bufio.Writer) { w.Write(append(b, '\n')) })
}

// writeObs writes the per-cell columns with a header, one row per cell.
func writeObs(dir, name string, sep byte, t *Table) error {
	return writeText(dir, name, func(w *bufio.Writer) {
		w.WriteString("barcode")
		for _, c := range t.Columns {
			w.WriteByte(sep)
			w.WriteString(csvField(c.Name, sep))
		}
		w.WriteByte('\n')
		for i, b := range t.Barcodes {
			w.WriteString(csvField(b, sep))
			for _, c := range t.Columns {
				w.WriteByte(sep)
				w.WriteString(csvField(c.cell(i), sep))
			}
			w.WriteByte('\n')
		}
	})
}

// csvField quotes s for a comma-separated file when it needs it (RFC
// 4180); tab-separated fields never need it (Validate refuses tabs).
func csvField(s string, sep byte) string {
	if sep != ',' || !strings.ContainsAny(s, ",\"") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// writeCSVFiles writes matrix.csv (cells × features with a header of
// feature names and the barcode first on each row, what pandas.read_csv
// with index_col=0 and anndata.read_csv read), obs.csv (the per-cell
// columns) and var.csv (feature name and id).
func writeCSVFiles(dir string, t *Table) error {
	err := writeText(dir, "matrix.csv", func(w *bufio.Writer) {
		w.WriteString("barcode")
		for _, n := range t.FeatureNames {
			w.WriteByte(',')
			w.WriteString(csvField(n, ','))
		}
		w.WriteByte('\n')
		for i, b := range t.Barcodes {
			w.WriteString(csvField(b, ','))
			for _, v := range t.X[i*t.Features : (i+1)*t.Features] {
				w.WriteByte(',')
				w.WriteString(formatValue(v))
			}
			w.WriteByte('\n')
		}
	})
	if err != nil {
		return err
	}
	if err := writeObs(dir, "obs.csv", ',', t); err != nil {
		return err
	}
	if err := writeStamp(dir, "csv", t); err != nil {
		return err
	}
	return writeText(dir, "var.csv", func(w *bufio.Writer) {
		w.WriteString("name,gene_id\n")
		for j, n := range t.FeatureNames {
			id := n
			if t.FeatureIDs != nil {
				id = t.FeatureIDs[j]
			}
			fmt.Fprintf(w, "%s,%s\n", csvField(n, ','), csvField(id, ','))
		}
	})
}
