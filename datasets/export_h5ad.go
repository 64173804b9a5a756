package datasets

import (
	"errors"
	"fmt"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// writeH5AD writes t as an AnnData .h5ad file in the layout anndata ≥ 0.8
// writes (encoding-type and encoding-version on every element): X dense
// float32, obs with the barcodes as index and the columns (categories as
// categorical groups), var with the feature names as index and gene_ids,
// obsm/<Obsm> when set, and uns/dpscope with the version and schema. It
// needs libhdf5 (an error wrapping ErrNoHDF5 says how to install it).
func writeH5AD(path string, t *Table) (err error) {
	f, err := hdf5.Create(path)
	if errors.Is(err, hdf5.ErrUnavailable) {
		return fmt.Errorf("datasets: %s: writing .h5ad needs libhdf5: %w", path, err)
	}
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	w := &h5w{f: f}
	w.enc("/", "anndata", "0.1.0")
	w.array("/X", []int{t.Cells, t.Features}, t.X)
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, c.Name)
	}
	w.frame("/obs", t.Barcodes, cols)
	for _, c := range t.Columns {
		p := "/obs/" + c.Name
		if !c.categorical() {
			w.do(func() error { return f.WriteFloat64(p, []int{len(c.Values)}, c.Values) })
			w.enc(p, "array", "0.2.0")
			continue
		}
		w.categorical(p, c.Codes, c.Categories)
	}
	varCols := []string{}
	if t.FeatureIDs != nil {
		varCols = append(varCols, "gene_ids")
	}
	w.frame("/var", t.FeatureNames, varCols)
	if t.FeatureIDs != nil {
		w.strings("/var/gene_ids", t.FeatureIDs)
	}
	if t.Obsm != "" {
		w.group("/obsm", "dict")
		w.array("/obsm/"+t.Obsm, []int{t.Cells, t.Features}, t.X)
	}
	w.group("/uns", "dict")
	w.group("/uns/dpscope", "dict")
	w.strings("/uns/dpscope/version", []string{t.Version})
	w.do(func() error {
		return f.WriteFloat64("/uns/dpscope/schema", []int{1}, []float64{ExportSchema})
	})
	w.enc("/uns/dpscope/schema", "array", "0.2.0")
	return w.err
}

// h5w writes AnnData elements and keeps the first error, so the writer
// reads as the layout it writes.
type h5w struct {
	f   *hdf5.File
	err error
}

func (w *h5w) do(fn func() error) {
	if w.err == nil {
		w.err = fn()
	}
}

// enc stamps an element with anndata's encoding attributes.
func (w *h5w) enc(p, typ, version string) {
	w.do(func() error { return w.f.SetAttrString(p, "encoding-type", typ) })
	w.do(func() error { return w.f.SetAttrString(p, "encoding-version", version) })
}

func (w *h5w) group(p, typ string) {
	w.do(func() error { return w.f.CreateGroup(p) })
	w.enc(p, typ, "0.1.0")
}

func (w *h5w) array(p string, dims []int, x []float32) {
	w.do(func() error { return w.f.WriteFloat32(p, dims, x) })
	w.enc(p, "array", "0.2.0")
}

func (w *h5w) strings(p string, s []string) {
	w.do(func() error { return w.f.WriteStrings(p, s) })
	w.enc(p, "string-array", "0.2.0")
}

// frame writes a data frame group with its index; the columns are
// written by the caller.
func (w *h5w) frame(p string, index, cols []string) {
	w.do(func() error { return w.f.CreateGroup(p) })
	w.enc(p, "dataframe", "0.2.0")
	w.do(func() error { return w.f.SetAttrString(p, "_index", "_index") })
	w.do(func() error { return w.f.SetAttrStrings(p, "column-order", cols) })
	w.strings(p+"/_index", index)
}

// categorical writes codes and categories as anndata's categorical group;
// codes are int32 (anndata narrows them, and reads any integer width).
func (w *h5w) categorical(p string, codes []int, cats []string) {
	w.do(func() error { return w.f.CreateGroup(p) })
	w.enc(p, "categorical", "0.2.0")
	w.do(func() error { return w.f.SetAttrBool(p, "ordered", false) })
	c32 := make([]int32, len(codes))
	for i, c := range codes {
		c32[i] = int32(c)
	}
	w.do(func() error { return w.f.WriteInt32(p+"/codes", c32) })
	w.enc(p+"/codes", "array", "0.2.0")
	if len(cats) == 0 {
		// An empty string array is still a string array to anndata.
		cats = []string{}
	}
	w.strings(p+"/categories", cats)
}
