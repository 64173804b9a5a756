package datasets

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// H5Options controls how an HDF5 data set (.h5ad or Cell Ranger .h5) is
// read. The zero value reads X with no labels.
type H5Options struct {
	// LabelsColumn is the obs column of an .h5ad file whose values are the
	// cells' true labels (categorical, string or integer). Default "": no
	// labels. Cells whose value is missing get label -1.
	LabelsColumn string
	// UseRaw reads raw/X and raw/var instead of X and var (scanpy's
	// use_raw), where AnnData keeps the counts once X is normalised.
	// Default false: X. An error when the file has no raw/X.
	UseRaw bool
}

// denseBlock is how many values a dense X is read in at a time, so a large
// dense X never sits whole in memory beside its sparse copy.
const denseBlock = 1 << 22

// LoadH5AD reads an AnnData .h5ad file through libhdf5 (see package
// internal/hdf5; an error wrapping hdf5.ErrUnavailable says how to install
// it when it is missing): X, dense or CSR or CSC (raw/X with UseRaw),
// obs names as barcodes, var names as gene names, with ids from var's
// "gene_ids" column when there is one (scanpy's read_10x_*), and names
// from "feature_name" or "gene_symbols" when the index holds the ids
// (CELLxGENE). With LabelsColumn, that obs column is joined as labels, and
// the report says how many cells have none.
//
// Shapes, indptr and indices are checked against each other and against
// the names before any is used; errors name the file and the object.
func LoadH5AD(path string, opts H5Options) (*Dataset, *LabelReport, error) {
	f, err := openH5(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	xPath, varPath := "/X", "/var"
	if opts.UseRaw {
		if !f.Exists("/raw/X") {
			return nil, nil, parseErrorf(path, 0, "has no raw/X to read (--use-raw): drop the option to read X")
		}
		xPath, varPath = "/raw/X", "/raw/var"
	}
	if !f.Exists(xPath) {
		return nil, nil, parseErrorf(path, 0, "has no %s: not an AnnData file", xPath)
	}
	barcodes, err := frameIndex(f, "/obs")
	if err != nil {
		return nil, nil, err
	}
	ids, names, err := geneNames(f, varPath)
	if err != nil {
		return nil, nil, err
	}
	x, err := readX(f, xPath, len(barcodes), len(ids))
	if err != nil {
		return nil, nil, err
	}
	d := &Dataset{
		Name:      h5Name(path),
		Source:    path,
		X:         x,
		GeneIDs:   ids,
		GeneNames: names,
		Barcodes:  barcodes,
		ValueType: DetectValueType(x),
	}
	if w := duplicateGenes(path+":"+varPath, names); w != "" && slices.Equal(ids, names) {
		d.Warnings = append(d.Warnings, w)
	}
	if !opts.UseRaw && d.ValueType == NonCounts && f.Exists("/raw/X") {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: X holds non-counts (%s) and raw/X is present: --use-raw reads raw/X, where AnnData keeps the counts", path, nonCountReason(x)))
	}
	if opts.LabelsColumn == "" {
		if cols := categoricalColumns(f, "/obs"); len(cols) > 0 {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: no labels read; obs has categorical columns %s: choose one with --labels-column", path, strings.Join(cols, ", ")))
		}
		return d, nil, nil
	}
	rep, err := obsLabels(f, d, opts.LabelsColumn)
	if err != nil {
		return nil, rep, err
	}
	return d, rep, nil
}

// openH5 opens path with libhdf5, saying what to install when it is
// missing.
func openH5(path string) (*hdf5.File, error) {
	f, err := hdf5.Open(path)
	if errors.Is(err, hdf5.ErrUnavailable) {
		return nil, fmt.Errorf("datasets: %s: %w", path, err)
	}
	return f, err // an *hdf5.Error names the file
}

// h5Name is the file's base name without .h5ad, .h5 or .hdf5.
func h5Name(path string) string {
	b := baseName(path)
	for _, ext := range []string{".h5ad", ".hdf5", ".h5"} {
		if len(b) > len(ext) && strings.EqualFold(b[len(b)-len(ext):], ext) {
			return b[:len(b)-len(ext)]
		}
	}
	return b
}

// geneNames reads the ids and names of the genes of var frame df.
func geneNames(f *hdf5.File, df string) (ids, names []string, err error) {
	index, err := frameIndex(f, df)
	if err != nil {
		return nil, nil, err
	}
	col := func(name string) []string {
		if !f.Exists(df + "/" + name) {
			return nil
		}
		v, err := frameColumn(f, df, name)
		if err != nil || len(v) != len(index) || slices.Contains(v, "") {
			return nil
		}
		return v
	}
	if v := col("gene_ids"); v != nil {
		return v, index, nil
	}
	for _, c := range []string{"feature_name", "gene_symbols", "gene_name"} {
		if v := col(c); v != nil {
			return index, v, nil
		}
	}
	return index, index, nil
}

// readX reads the matrix at x (a dataset, or a CSR or CSC group) as cells
// × genes, which must be cells × genes by the obs and var names.
func readX(f *hdf5.File, x string, cells, genes int) (*CSR, error) {
	file := f.Path()
	g, err := f.IsGroup(x)
	if err != nil {
		return nil, err
	}
	if !g {
		return readDenseX(f, x, cells, genes)
	}
	format, shape, err := sparseFormat(f, x)
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] != int64(cells) || shape[1] != int64(genes) {
		return nil, parseErrorf(file, 0, "%s has shape %v, want [%d %d] (obs × var names)", x, shape, cells, genes)
	}
	s := &compressed{obj: x, csc: format == "csc", rows: cells, cols: genes}
	if s.indptr, _, err = f.ReadInt64(x + "/indptr"); err != nil {
		return nil, err
	}
	// indptr's length is checked before the larger arrays are read.
	if want := map[bool]int{false: cells, true: genes}[s.csc] + 1; len(s.indptr) != want {
		return nil, parseErrorf(file, 0, "%s/indptr has %d entries, want %d", x, len(s.indptr), want)
	}
	if s.indices, _, err = f.ReadInt64(x + "/indices"); err != nil {
		return nil, err
	}
	if s.data, _, err = f.ReadFloat32(x + "/data"); err != nil {
		return nil, err
	}
	return s.toCSR(file)
}

// sparseFormat returns "csr" or "csc" and the shape of sparse group x,
// from anndata's encoding-type and shape attributes (≥ 0.8) or the
// h5sparse_format and h5sparse_shape of anndata 0.7.
func sparseFormat(f *hdf5.File, x string) (string, []int64, error) {
	enc, _, err := f.AttrStrings(x, "encoding-type")
	if err != nil {
		return "", nil, err
	}
	shapeAttr := "shape"
	if len(enc) == 0 {
		if enc, _, err = f.AttrStrings(x, "h5sparse_format"); err != nil {
			return "", nil, err
		}
		shapeAttr = "h5sparse_shape"
	}
	format := ""
	if len(enc) == 1 {
		format = strings.TrimSuffix(enc[0], "_matrix")
	}
	if format != "csr" && format != "csc" {
		return "", nil, parseErrorf(f.Path(), 0, "%s is a group of encoding %q, want csr_matrix or csc_matrix", x, strings.Join(enc, ","))
	}
	shape, found, err := f.AttrInts(x, shapeAttr)
	if err != nil {
		return "", nil, err
	}
	if !found {
		return "", nil, parseErrorf(f.Path(), 0, "%s has no %s attribute", x, shapeAttr)
	}
	return format, shape, nil
}

// readDenseX reads a dense cells × genes X by blocks of rows.
func readDenseX(f *hdf5.File, x string, cells, genes int) (*CSR, error) {
	info, err := f.Info(x)
	if err != nil {
		return nil, err
	}
	if len(info.Dims) != 2 || info.Dims[0] != cells || info.Dims[1] != genes {
		return nil, parseErrorf(f.Path(), 0, "%s has shape %v, want [%d %d] (obs × var names)", x, info.Dims, cells, genes)
	}
	m := &CSR{Cols: genes, Indptr: []int64{0}}
	if genes == 0 {
		m.Rows = cells
		m.Indptr = make([]int64, cells+1)
		return m, nil
	}
	step := max(1, denseBlock/genes)
	block := make([]float32, min(step, cells)*genes)
	for r := 0; r < cells; r += step {
		n := min(step, cells-r)
		if err := f.ReadRows(x, r, genes, block[:n*genes]); err != nil {
			return nil, err
		}
		if err := m.appendDense(block[:n*genes], genes); err != nil {
			return nil, parseErrorf(f.Path(), 0, "%s: %v", x, err)
		}
	}
	return m, nil
}

// obsLabels joins obs column col onto d as its labels.
func obsLabels(f *hdf5.File, d *Dataset, col string) (*LabelReport, error) {
	where := f.Path() + ":obs/" + col
	if strings.Contains(col, "/") || col == "." || col == ".." || !f.Exists("/obs/"+col) {
		cols, _ := frameColumns(f, "/obs")
		return nil, parseErrorf(f.Path(), 0, "obs has no column %q (--labels-column); its columns: %s", col, firstFew(cols, len(cols), 20))
	}
	vals, err := frameColumn(f, "/obs", col)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(d.Barcodes) {
		return nil, parseErrorf(f.Path(), 0, "obs/%s has %d values for %d cells", col, len(vals), len(d.Barcodes))
	}
	t := &LabelTable{File: where}
	for i, v := range vals {
		if v != "" {
			t.Barcodes = append(t.Barcodes, d.Barcodes[i])
			t.Labels = append(t.Labels, v)
		}
	}
	return JoinLabels(d, t)
}
