package datasets

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// hdf5Signature starts every HDF5 file (at offset 0 unless the file has a
// user block, which .h5ad and Cell Ranger files do not).
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// isHDF5 reports whether path names an HDF5 file: by its extension, or by
// the signature at its start.
func isHDF5(path string) bool {
	if slices.Contains([]string{".h5ad", ".h5", ".hdf5", ".he5"}, strings.ToLower(filepath.Ext(path))) {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(hdf5Signature))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, hdf5Signature)
}

// checkH5Options rejects the .h5ad options on other inputs and a labels
// column together with a labels file.
func checkH5Options(path string, opts OpenOptions, h5 bool) error {
	if opts.LabelsColumn != "" && opts.Labels != "" && !opts.NoLabels {
		return fmt.Errorf("datasets: %s: both a labels file (%s) and an obs column (%s) for labels: give one", path, opts.Labels, opts.LabelsColumn)
	}
	if h5 {
		return nil
	}
	if opts.LabelsColumn != "" {
		return fmt.Errorf("datasets: %s: a labels column (%s) names an obs column of an .h5ad file, and this is not one: use a labels file", path, opts.LabelsColumn)
	}
	if opts.UseRaw {
		return fmt.Errorf("datasets: %s: raw/X (use-raw) exists in .h5ad files only, and this is not one", path)
	}
	return nil
}

// loadH5 reads HDF5 file path as AnnData when it has obs and X, else as a
// Cell Ranger matrix.
func loadH5(path string, opts OpenOptions) (*Dataset, *LabelReport, error) {
	f, err := openH5(path)
	if err != nil {
		return nil, nil, err
	}
	anndata := f.Exists("/obs") && f.Exists("/X")
	f.Close()
	if anndata {
		col := opts.LabelsColumn
		if opts.NoLabels {
			col = ""
		}
		return LoadH5AD(path, H5Options{LabelsColumn: col, UseRaw: opts.UseRaw})
	}
	if opts.LabelsColumn != "" || opts.UseRaw {
		return nil, nil, fmt.Errorf("datasets: %s: a Cell Ranger .h5 has no obs columns nor raw/X (labels column, use-raw): those apply to .h5ad files", path)
	}
	d, err := Load10xH5(path)
	return d, nil, err
}

// ErrNoHDF5 is wrapped by the error of every .h5ad or Cell Ranger .h5 read
// when libhdf5 cannot be loaded; the message says how to install it.
var ErrNoHDF5 = hdf5.ErrUnavailable

// HDF5Library returns the path and version of the libhdf5 that the .h5ad
// and Cell Ranger readers use, loading it if need be, or an error wrapping
// ErrNoHDF5 that says how to install it.
func HDF5Library() (path, version string, err error) { return hdf5.Load() }
