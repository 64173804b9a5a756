package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Table is a cells × features matrix with its names and per-cell columns:
// what `dpscope data export` writes (the preprocessed matrix a model trains
// on) and what `run --out` writes of a result (the embedding). Writers
// check it with Validate first.
type Table struct {
	Cells, Features int
	X               []float32 // Cells × Features, row-major
	Barcodes        []string  // one per cell, unique
	FeatureNames    []string  // one per feature
	FeatureIDs      []string  // one per feature, or nil (written as AnnData's var["gene_ids"])
	// Columns are per-cell values (AnnData obs columns): numbers or
	// categories.
	Columns []Column
	// Obsm, when not "", also stores X under obsm/Obsm in .h5ad files,
	// where scanpy looks for an embedding (e.g. "X_dpscope").
	Obsm string
	// Version and Schema stamp the files (DECISIONS: every export carries
	// dpscope's version and a schema number).
	Version string
}

// ExportSchema numbers the layout of exported files; it grows when a
// column changes meaning or goes away.
const ExportSchema = 1

// Column is one per-cell column: Values for numbers, or Codes into
// Categories (code −1: missing) for categories.
type Column struct {
	Name       string
	Values     []float64
	Codes      []int
	Categories []string
}

// categorical reports whether c holds categories.
func (c Column) categorical() bool { return c.Values == nil }

// cell returns the text of c for cell i ("" when missing).
func (c Column) cell(i int) string {
	if !c.categorical() {
		return strconv.FormatFloat(c.Values[i], 'g', -1, 64)
	}
	if k := c.Codes[i]; k >= 0 {
		return c.Categories[k]
	}
	return ""
}

// TableOf returns the export of a preprocessed matrix: X with its genes
// and cells, the size factors, and the labels when there are any (column
// "label").
func TableOf(p *Preprocessed, version string) *Table {
	t := &Table{Cells: p.Cells, Features: p.Genes, X: p.X, Barcodes: p.Barcodes, FeatureNames: p.GeneNames, Version: version}
	if !slices.Equal(p.GeneIDs, p.GeneNames) {
		t.FeatureIDs = p.GeneIDs
	}
	t.Columns = append(t.Columns, Column{Name: "size_factor", Values: p.SizeFactors})
	if p.Labels != nil {
		t.Columns = append(t.Columns, Column{Name: "label", Codes: p.Labels, Categories: p.Classes})
	}
	return t
}

// Validate checks that every part of t has the length the shape says, the
// barcodes are unique, codes are in range and names carry no line breaks
// or tabs (they would split a row of the text formats).
func (t *Table) Validate() error {
	switch {
	case t.Cells < 0 || t.Features < 0:
		return fmt.Errorf("datasets: export: negative shape %d × %d", t.Cells, t.Features)
	case len(t.X) != t.Cells*t.Features:
		return fmt.Errorf("datasets: export: %d values for %d × %d", len(t.X), t.Cells, t.Features)
	case len(t.Barcodes) != t.Cells:
		return fmt.Errorf("datasets: export: %d barcodes for %d cells", len(t.Barcodes), t.Cells)
	case len(t.FeatureNames) != t.Features:
		return fmt.Errorf("datasets: export: %d feature names for %d features", len(t.FeatureNames), t.Features)
	case t.FeatureIDs != nil && len(t.FeatureIDs) != t.Features:
		return fmt.Errorf("datasets: export: %d feature ids for %d features", len(t.FeatureIDs), t.Features)
	}
	seen := make(map[string]bool, t.Cells)
	for _, b := range t.Barcodes {
		if seen[b] {
			return fmt.Errorf("datasets: export: barcode %q appears twice", b)
		}
		seen[b] = true
	}
	names := slices.Concat(t.Barcodes, t.FeatureNames, t.FeatureIDs)
	for _, c := range t.Columns {
		names = append(names, c.Name)
		names = append(names, c.Categories...)
		switch {
		case c.Name == "" || c.Name == "barcode":
			return fmt.Errorf("datasets: export: column name %q is empty or reserved", c.Name)
		case !c.categorical() && len(c.Values) != t.Cells:
			return fmt.Errorf("datasets: export: column %s has %d values for %d cells", c.Name, len(c.Values), t.Cells)
		case c.categorical() && len(c.Codes) != t.Cells:
			return fmt.Errorf("datasets: export: column %s has %d codes for %d cells", c.Name, len(c.Codes), t.Cells)
		}
		for _, k := range c.Codes {
			if k < -1 || k >= len(c.Categories) {
				return fmt.Errorf("datasets: export: column %s has code %d, %d categories", c.Name, k, len(c.Categories))
			}
		}
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "\t\r\n\x00") {
			return fmt.Errorf("datasets: export: name %q is empty or holds a tab, line break or NUL", n)
		}
	}
	return nil
}

// ExportFormats are the formats WriteTable writes.
var ExportFormats = []string{"mtx", "csv", "h5ad"}

// WriteTable writes t in format (mtx, csv or h5ad) at path: a new folder
// for mtx and csv, a new file for h5ad. It refuses a path that exists, so
// it never overwrites, and removes what it wrote when it fails.
func WriteTable(format, path string, t *Table) error {
	if !slices.Contains(ExportFormats, format) {
		return fmt.Errorf("datasets: export format %q: want one of %s", format, strings.Join(ExportFormats, ", "))
	}
	if err := t.Validate(); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("datasets: export: %s exists: choose a new path", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("datasets: export: %w", err)
	}
	var err error
	switch format {
	case "h5ad":
		err = writeH5AD(path, t)
	case "mtx":
		err = writeFolder(path, func(dir string) error { return writeMTXFiles(dir, t) })
	case "csv":
		err = writeFolder(path, func(dir string) error { return writeCSVFiles(dir, t) })
	}
	if err != nil {
		os.RemoveAll(path)
		return err
	}
	return nil
}

// writeFolder creates dir and fills it with write.
func writeFolder(dir string, write func(string) error) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("datasets: export: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("datasets: export: %w", err)
	}
	if err := write(dir); err != nil {
		return fmt.Errorf("datasets: export %s: %w", dir, err)
	}
	return nil
}
