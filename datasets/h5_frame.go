package datasets

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dpscope/dpscope/datasets/internal/hdf5"
)

// An AnnData data frame (obs, var, raw/var) is a group: the index is the
// dataset its "_index" attribute names, each column a dataset (numbers,
// strings) or, when categorical, a group of integer codes and categories
// (anndata ≥ 0.8). anndata 0.7 stored a categorical column as its codes
// with the categories in the frame's "__categories" group.

// frameIndex reads the index (the obs or var names) of data frame df.
func frameIndex(f *hdf5.File, df string) ([]string, error) {
	if !f.Exists(df) {
		return nil, parseErrorf(f.Path(), 0, "no %s group: not an AnnData file", df)
	}
	if g, err := f.IsGroup(df); err != nil {
		return nil, err
	} else if !g {
		return nil, parseErrorf(f.Path(), 0, "%s is a compound dataset (AnnData before 0.7): save the file again with a recent anndata", df)
	}
	name := "_index"
	if v, found, err := f.AttrStrings(df, "_index"); err != nil {
		return nil, err
	} else if found && len(v) == 1 && v[0] != "" {
		name = v[0]
	}
	names, err := frameColumn(f, df, name)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if n == "" {
			return nil, parseErrorf(f.Path(), 0, "%s/%s: name %d is empty", df, name, i+1)
		}
	}
	return names, nil
}

// frameColumns returns the column names of df in the file's order
// (the "column-order" attribute), else by name.
func frameColumns(f *hdf5.File, df string) ([]string, error) {
	if order, found, err := f.AttrStrings(df, "column-order"); err != nil {
		return nil, err
	} else if found {
		return order, nil
	}
	kids, err := f.Children(df)
	if err != nil {
		return nil, err
	}
	idx, _, _ := f.AttrStrings(df, "_index")
	return slices.DeleteFunc(kids, func(k string) bool {
		return k == "__categories" || slices.Contains(idx, k) || k == "_index"
	}), nil
}

// frameColumn reads column col of df as strings: categories by code,
// numbers in their shortest form; a missing value (code -1, NaN) is "".
func frameColumn(f *hdf5.File, df, col string) ([]string, error) {
	path := df + "/" + col
	if !f.Exists(path) {
		return nil, parseErrorf(f.Path(), 0, "no column %s", path)
	}
	g, err := f.IsGroup(path)
	if err != nil {
		return nil, err
	}
	if g {
		enc, _, err := f.AttrStrings(path, "encoding-type")
		if err != nil {
			return nil, err
		}
		if len(enc) != 1 || enc[0] != "categorical" {
			return nil, parseErrorf(f.Path(), 0, "%s is a group of encoding %q, want a categorical column or a dataset", path, strings.Join(enc, ","))
		}
		return categorical(f, path, path+"/codes", path+"/categories")
	}
	if f.Exists(df+"/__categories/"+col) && !strings.HasPrefix(col, "__") {
		return categorical(f, path, path, df+"/__categories/"+col)
	}
	return plainColumn(f, path)
}

// categorical maps the integer codes at codes onto the values at cats.
func categorical(f *hdf5.File, path, codes, cats string) ([]string, error) {
	names, err := plainColumn(f, cats)
	if err != nil {
		return nil, err
	}
	c, _, err := f.ReadInt64(codes)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(c))
	for i, k := range c {
		switch {
		case k == -1:
			// A missing value.
		case k < 0 || k >= int64(len(names)):
			return nil, parseErrorf(f.Path(), 0, "%s: code %d of entry %d is outside the %d categories", path, k, i+1, len(names))
		default:
			out[i] = names[k]
		}
	}
	return out, nil
}

// plainColumn reads a 1-D dataset of strings or numbers as strings.
func plainColumn(f *hdf5.File, path string) ([]string, error) {
	info, err := f.Info(path)
	if err != nil {
		return nil, err
	}
	if len(info.Dims) != 1 {
		return nil, parseErrorf(f.Path(), 0, "%s has shape %v, want one dimension", path, info.Dims)
	}
	switch info.Class {
	case hdf5.String:
		return f.ReadStrings(path)
	case hdf5.Integer:
		v, _, err := f.ReadInt64(path)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = strconv.FormatInt(x, 10)
		}
		return out, nil
	case hdf5.Float:
		v, _, err := f.ReadFloat32(path)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(v))
		for i, x := range v {
			if x == x {
				out[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
			}
		}
		return out, nil
	}
	return nil, parseErrorf(f.Path(), 0, "%s holds %s values, want strings, integers, floats or categories", path, info.Class)
}

// categoricalColumns describes the categorical columns of df ("cell_type
// (8 values)"), for the hint that names the columns --labels-column can
// take.
func categoricalColumns(f *hdf5.File, df string) []string {
	cols, err := frameColumns(f, df)
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range cols {
		path := df + "/" + c
		cats := path + "/categories"
		if !f.Exists(cats) {
			cats = df + "/__categories/" + c
		}
		if !f.Exists(cats) {
			continue
		}
		if info, err := f.Info(cats); err == nil && len(info.Dims) == 1 {
			out = append(out, fmt.Sprintf("%s (%d values)", c, info.Dims[0]))
		}
	}
	return out
}
