package datasets

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// ObsColumn is an .h5ad obs column that can serve as labels
// (--labels-column): a categorical column or a column of strings.
type ObsColumn struct {
	Name string
	// Categories is a categorical column's number of categories; 0 for a
	// column of strings (its distinct values are known once it is read).
	Categories int
}

// peekH5 reads an HDF5 file's shape from its datasets' extents and
// attributes, and an .h5ad file's obs columns and whether it has raw/X,
// without reading the matrix. Without libhdf5 it returns what the file
// name and size tell, and says the rest waits for the load (which then
// says how to install libhdf5).
func peekH5(spec string, size int64) (Peek, error) {
	p := Peek{Spec: spec, Name: filepath.Base(spec), Format: "Cell Ranger .h5 (HDF5)", Bytes: size}
	h5ad := strings.EqualFold(filepath.Ext(spec), ".h5ad")
	if h5ad {
		p.Format = "AnnData .h5ad (HDF5)"
	}
	f, err := openH5(spec)
	if errors.Is(err, hdf5.ErrUnavailable) {
		p.Later = "shape and classes (libhdf5 is not loaded: the load says how to install it)"
		return p, nil
	}
	if err != nil {
		return p, err
	}
	defer f.Close()
	if f.Exists("/obs") && f.Exists("/X") {
		p.Format = "AnnData .h5ad (HDF5)"
		return p, peekAnnData(f, &p)
	}
	p.Format = "Cell Ranger .h5 (HDF5)"
	group, _, err := tenxGroup(f)
	if err != nil {
		return p, err
	}
	shape, _, err := f.ReadInt64(group + "/shape")
	if err != nil {
		return p, err
	}
	if len(shape) != 2 || shape[0] < 0 || shape[1] < 0 {
		return p, parseErrorf(spec, 0, "%s/shape is %v, want two sizes (features × barcodes)", group, shape)
	}
	p.Genes, p.Cells = int(shape[0]), int(shape[1])
	if info, err := f.Info(group + "/data"); err == nil && len(info.Dims) == 1 {
		p.NonZero = int64(info.Dims[0])
	}
	p.Later = "how many features are genes (antibody and CRISPR features are left out at load); no labels"
	return p, nil
}

// peekAnnData fills p with an .h5ad file's shape (X's extent, or a sparse
// X's shape attribute), its label-able obs columns and raw/X's presence.
func peekAnnData(f *hdf5.File, p *Peek) error {
	cells, genes, nnz, err := xShape(f, "/X")
	if err != nil {
		return err
	}
	p.Cells, p.Genes, p.NonZero = cells, genes, nnz
	p.HasRaw = f.Exists("/raw/X")
	cols, err := frameColumns(f, "/obs")
	if err != nil {
		return err
	}
	for _, c := range cols {
		if oc, ok := obsColumnKind(f, "/obs", c); ok {
			p.ObsColumns = append(p.ObsColumns, oc)
		}
	}
	p.Later = "labels: choose an obs column (none is read unless chosen)"
	if len(p.ObsColumns) == 0 {
		p.Later = "labels: obs has no categorical or string column, the cells are unlabelled"
	}
	return nil
}

// xShape is the cells × genes of the matrix at x, from a dense dataset's
// extent or a sparse group's shape attribute, with a sparse matrix's
// stored entries (0 for a dense one).
func xShape(f *hdf5.File, x string) (cells, genes int, nnz int64, err error) {
	g, err := f.IsGroup(x)
	if err != nil {
		return 0, 0, 0, err
	}
	if !g {
		info, err := f.Info(x)
		if err != nil {
			return 0, 0, 0, err
		}
		if len(info.Dims) != 2 {
			return 0, 0, 0, parseErrorf(f.Path(), 0, "%s has shape %v, want cells × genes", x, info.Dims)
		}
		return info.Dims[0], info.Dims[1], 0, nil
	}
	_, shape, err := sparseFormat(f, x)
	if err != nil {
		return 0, 0, 0, err
	}
	if len(shape) != 2 || shape[0] < 0 || shape[1] < 0 || shape[0] > 1<<40 || shape[1] > 1<<40 {
		return 0, 0, 0, parseErrorf(f.Path(), 0, "%s has shape %v, want cells × genes", x, shape)
	}
	if info, err := f.Info(x + "/data"); err == nil && len(info.Dims) == 1 {
		nnz = int64(info.Dims[0])
	}
	return int(shape[0]), int(shape[1]), nnz, nil
}

// obsColumnKind says whether column c of frame df can be labels: a
// categorical column (anndata ≥ 0.8 group, or 0.7 codes with
// __categories) or a 1-D dataset of strings. Numbers are left out: a count
// or a score is not a class.
func obsColumnKind(f *hdf5.File, df, c string) (ObsColumn, bool) {
	path := df + "/" + c
	if !f.Exists(path) {
		return ObsColumn{}, false
	}
	cats := path + "/categories"
	if !f.Exists(cats) {
		cats = df + "/__categories/" + c
	}
	if f.Exists(cats) {
		if info, err := f.Info(cats); err == nil && len(info.Dims) == 1 {
			return ObsColumn{Name: c, Categories: info.Dims[0]}, true
		}
		return ObsColumn{}, false
	}
	if g, err := f.IsGroup(path); err != nil || g {
		return ObsColumn{}, false
	}
	if info, err := f.Info(path); err == nil && len(info.Dims) == 1 && info.Class == hdf5.String {
		return ObsColumn{Name: c}, true
	}
	return ObsColumn{}, false
}

// PeekObsClasses reads obs column col of .h5ad file path and counts its
// classes in order of first appearance (cells with no value are left out),
// without reading the matrix: what a data picker shows for the column it
// offers as labels. Errors name the file and the column.
func PeekObsClasses(path, col string) ([]ClassCount, error) {
	f, err := openH5(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if strings.Contains(col, "/") || col == "" || col == "." || col == ".." || !f.Exists("/obs/"+col) {
		return nil, parseErrorf(path, 0, "obs has no column %q", col)
	}
	vals, err := frameColumn(f, "/obs", col)
	if err != nil {
		return nil, fmt.Errorf("datasets: %s: obs/%s: %w", path, col, err)
	}
	out := countClasses(vals)
	for i, c := range out {
		if c.Name == "" {
			return append(out[:i], out[i+1:]...), nil
		}
	}
	return out, nil
}
