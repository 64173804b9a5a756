package datasets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OpenOptions controls Open. The zero value loads a folder with its
// labels.tsv when there is one, and detects everything about dense files.
type OpenOptions struct {
	// Labels is the path of a labels file (see ReadLabels) to join onto the
	// data; it overrides a labels.tsv in an MTX folder. Default "": use the
	// folder's labels.tsv[.gz] if present, no labels for a dense file.
	Labels string
	// NoLabels skips labels altogether, even when Labels is set.
	NoLabels bool
	// Orientation and Delimiter apply to dense files (see DenseOptions).
	Orientation Orientation
	Delimiter   rune
	// LabelsColumn and UseRaw apply to .h5ad files (see H5Options).
	LabelsColumn string
	UseRaw       bool
}

// Open loads a data set from path: a folder is read as a 10x MatrixMarket
// folder (LoadMTXDir; a path to its matrix.mtx[.gz] file is taken as the
// folder), an HDF5 file (by its extension .h5ad, .h5 or .hdf5, or its
// signature) as AnnData when it has obs and X (LoadH5AD) and as a Cell
// Ranger matrix otherwise (Load10xH5), any other file as a dense CSV/TSV
// matrix (LoadDense). Labels are
// then joined as opts says (LoadLabels): cells without a label get -1; use
// OpenWithReport to see which. Name is the folder's or file's base name,
// Source is path, ValueType is detected from the values, and the result is
// validated. Errors name the file and line (see ParseError).
func Open(path string, opts OpenOptions) (*Dataset, error) {
	d, _, err := OpenWithReport(path, opts)
	return d, err
}

// OpenWithReport is Open, also returning the report of the labels join (nil
// when no labels were joined).
func OpenWithReport(path string, opts OpenOptions) (*Dataset, *LabelReport, error) {
	return OpenWithReportContext(context.Background(), path, opts)
}

// OpenWithReportContext is OpenWithReport stopped once ctx is done: the
// text parsers (MTX, dense, names and labels files) stop at their next
// block with an error wrapping ctx's error (context.Canceled), and an
// HDF5 read, which libhdf5 does in one call, is dropped when it returns.
func OpenWithReportContext(ctx context.Context, path string, opts OpenOptions) (*Dataset, *LabelReport, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("datasets: open: %w", err)
	}
	dir := mtxDir(path, st)
	var d *Dataset
	var rep *LabelReport
	labels := opts.Labels
	h5 := dir == "" && isHDF5(path)
	if err := checkH5Options(path, opts, h5); err != nil {
		return nil, nil, err
	}
	switch {
	case h5:
		d, rep, err = loadH5(path, opts)
		if err == nil {
			err = ctx.Err()
		}
	case dir != "":
		d, err = loadMTXDir(ctx, dir)
		if err == nil && labels == "" {
			if p, ferr := findOne(dir, []string{mtxLabelFileName, mtxLabelFileName + ".gz"}, ""); ferr == nil {
				labels = p
			}
		}
	default:
		d, err = loadDense(ctx, path, DenseOptions{Orientation: opts.Orientation, Delimiter: opts.Delimiter})
	}
	if err != nil {
		return nil, rep, err
	}
	d.Source = path
	if err := ctx.Err(); err != nil {
		return nil, rep, err
	}
	if labels != "" && !opts.NoLabels {
		if rep, err = LoadLabels(d, labels); err != nil {
			return nil, rep, err
		}
	}
	if err := d.Validate(); err != nil {
		return nil, rep, err
	}
	return d, rep, nil
}

// mtxDir returns the MTX folder that path (with its Stat st) names: path
// itself when it is a folder, the folder of a matrix.mtx[.gz] file, else ""
// (a dense or HDF5 file).
func mtxDir(path string, st os.FileInfo) string {
	switch {
	case st.IsDir():
		return path
	case strings.HasPrefix(strings.ToLower(filepath.Base(path)), "matrix.mtx"):
		return filepath.Dir(path)
	}
	return ""
}

// LoadDense reads the dense CSV/TSV file at path (see ReadDense).
func LoadDense(path string, opts DenseOptions) (*Dataset, error) {
	return loadDense(context.Background(), path, opts)
}

// loadDense is LoadDense, stopped with ctx's error once ctx is done.
func loadDense(ctx context.Context, path string, opts DenseOptions) (*Dataset, error) {
	r, c, err := openFileContext(ctx, path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return ReadDense(r, path, opts)
}
