package datasets

import (
	"fmt"
	"slices"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// geneExpression is the feature type of genes in a Cell Ranger file.
const geneExpression = "Gene Expression"

// Load10xH5 reads a Cell Ranger feature-barcode matrix .h5
// (filtered_feature_bc_matrix.h5) through libhdf5: Cell Ranger 3 and later
// keep the matrix group "matrix" with data, indices, indptr and shape
// (CSC, genes × cells), barcodes and features/id, features/name and
// features/feature_type; Cell Ranger 2 keeps one group per genome with
// genes and gene_names instead of features. As scanpy's read_10x_h5 does,
// only the features of type "Gene Expression" are kept (antibody and CRISPR
// features are left out, with a warning). The result has no labels.
func Load10xH5(path string) (*Dataset, error) {
	f, err := openH5(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	group, v2, err := tenxGroup(f)
	if err != nil {
		return nil, err
	}
	idPath, namePath := group+"/features/id", group+"/features/name"
	if v2 {
		idPath, namePath = group+"/genes", group+"/gene_names"
	}
	barcodes, err := f.ReadStrings(group + "/barcodes")
	if err != nil {
		return nil, err
	}
	ids, err := f.ReadStrings(idPath)
	if err != nil {
		return nil, err
	}
	names := ids
	if f.Exists(namePath) {
		if names, err = f.ReadStrings(namePath); err != nil {
			return nil, err
		}
		if len(names) != len(ids) {
			return nil, parseErrorf(path, 0, "%s has %d names for %d features", namePath, len(names), len(ids))
		}
	}
	shape, _, err := f.ReadInt64(group + "/shape")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] != int64(len(ids)) || shape[1] != int64(len(barcodes)) {
		return nil, parseErrorf(path, 0, "%s/shape is %v, want [%d %d] (features × barcodes)", group, shape, len(ids), len(barcodes))
	}
	s := &compressed{obj: group, rows: len(barcodes), cols: len(ids)}
	if s.indptr, _, err = f.ReadInt64(group + "/indptr"); err != nil {
		return nil, err
	}
	if len(s.indptr) != len(barcodes)+1 {
		return nil, parseErrorf(path, 0, "%s/indptr has %d entries, want %d (barcodes + 1)", group, len(s.indptr), len(barcodes)+1)
	}
	if s.indices, _, err = f.ReadInt64(group + "/indices"); err != nil {
		return nil, err
	}
	if s.data, _, err = f.ReadFloat32(group + "/data"); err != nil {
		return nil, err
	}
	// CSC over features × barcodes is CSR over barcodes × features.
	x, err := s.toCSR(path)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Name: h5Name(path), Source: path, X: x, GeneIDs: ids, GeneNames: names, Barcodes: barcodes}
	if tp := group + "/features/feature_type"; !v2 && f.Exists(tp) {
		types, err := f.ReadStrings(tp)
		if err != nil {
			return nil, err
		}
		if len(types) != len(ids) {
			return nil, parseErrorf(path, 0, "%s has %d types for %d features", tp, len(types), len(ids))
		}
		if err := keepGeneExpression(d, types, path); err != nil {
			return nil, err
		}
	}
	d.ValueType = DetectValueType(d.X)
	return d, nil
}

// tenxGroup finds the matrix group: "/matrix" (Cell Ranger ≥ 3, v2 false)
// or the one top-level group with an indptr (Cell Ranger 2, v2 true).
func tenxGroup(f *hdf5.File) (string, bool, error) {
	if f.Exists("/matrix") {
		return "/matrix", false, nil
	}
	kids, err := f.Children("/")
	if err != nil {
		return "", false, err
	}
	var found []string
	for _, k := range kids {
		if f.Exists("/"+k+"/indptr") && f.Exists("/"+k+"/genes") {
			found = append(found, "/"+k)
		}
	}
	switch len(found) {
	case 0:
		return "", false, parseErrorf(f.Path(), 0, "no matrix group (Cell Ranger ≥ 3) nor a genome group with genes and indptr (Cell Ranger 2): not a Cell Ranger .h5 (an AnnData file ends in .h5ad)")
	case 1:
		return found[0], true, nil
	}
	return "", false, parseErrorf(f.Path(), 0, "several genome groups (%s): reading one genome of a Cell Ranger 2 file is not supported", firstFew(found, len(found), 5))
}

// keepGeneExpression drops from d the features whose type is not Gene
// Expression, with a warning naming how many of which type went.
func keepGeneExpression(d *Dataset, types []string, file string) error {
	keep := make([]int32, len(types)) // new index, or -1
	kept := 0
	dropped := map[string]int{}
	for j, t := range types {
		if t == geneExpression {
			keep[j] = int32(kept)
			kept++
		} else {
			keep[j] = -1
			dropped[t]++
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	if kept == 0 {
		return parseErrorf(file, 0, "no feature of type %q among %d features", geneExpression, len(types))
	}
	x := d.X
	out := int64(0)
	for i := 0; i < x.Rows; i++ {
		lo, hi := x.Indptr[i], x.Indptr[i+1]
		x.Indptr[i] = out
		for k := lo; k < hi; k++ {
			if j := keep[x.Indices[k]]; j >= 0 {
				x.Indices[out], x.Data[out] = j, x.Data[k]
				out++
			}
		}
	}
	x.Indptr[x.Rows] = out
	x.Indices, x.Data, x.Cols = x.Indices[:out:out], x.Data[:out:out], kept
	pick := func(v []string) []string {
		var o []string
		for j, s := range v {
			if keep[j] >= 0 {
				o = append(o, s)
			}
		}
		return o
	}
	d.GeneIDs, d.GeneNames = pick(d.GeneIDs), pick(d.GeneNames)
	var what []string
	for t, n := range dropped {
		what = append(what, fmt.Sprintf("%d %s", n, t))
	}
	slices.Sort(what)
	d.Warnings = append(d.Warnings, fmt.Sprintf("%s: kept the %d %s features, left out %s", file, kept, geneExpression, firstFew(what, len(what), 5)))
	return nil
}
