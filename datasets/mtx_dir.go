package datasets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MTX folder file names, in order of preference.
var (
	mtxMatrixNames   = []string{"matrix.mtx.gz", "matrix.mtx"}
	mtxFeatureNames  = []string{"features.tsv.gz", "features.tsv", "genes.tsv.gz", "genes.tsv"}
	mtxBarcodeNames  = []string{"barcodes.tsv.gz", "barcodes.tsv"}
	mtxLabelFileName = "labels.tsv"
)

// LoadMTXDir loads a 10x-style MatrixMarket folder: matrix.mtx[.gz] (genes ×
// cells, see ReadMTX), features.tsv[.gz] or genes.tsv[.gz] (one line per
// gene: id, optionally a TAB and a name, optionally more TAB-separated
// columns, which are ignored; the name defaults to the id) and
// barcodes.tsv[.gz] (one line per cell; the barcode is the first TAB-separated
// field). Barcodes must be unique. The matrix header must agree with the
// number of features and barcodes, which is checked before any entry is read.
//
// The result has Name = the folder's base name, Source = dir, no labels, and
// ValueType detected from the values. Labels are joined separately (see
// LoadLabels, or Open, which does both).
func LoadMTXDir(dir string) (*Dataset, error) { return loadMTXDir(context.Background(), dir) }

// loadMTXDir is LoadMTXDir, stopped with ctx's error once ctx is done.
func loadMTXDir(ctx context.Context, dir string) (*Dataset, error) {
	matrix, err := findOne(dir, mtxMatrixNames, "matrix.mtx[.gz]")
	if err != nil {
		return nil, err
	}
	features, err := findOne(dir, mtxFeatureNames, "features.tsv[.gz] or genes.tsv[.gz]")
	if err != nil {
		return nil, err
	}
	barcodesPath, err := findOne(dir, mtxBarcodeNames, "barcodes.tsv[.gz]")
	if err != nil {
		return nil, err
	}
	ids, names, err := readNamesFile(ctx, features, true)
	if err != nil {
		return nil, err
	}
	barcodes, _, err := readNamesFile(ctx, barcodesPath, false)
	if err != nil {
		return nil, err
	}
	r, c, err := openFileContext(ctx, matrix)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	x, err := readMTX(ctx, r, matrix, mtxExpect{
		genes: len(ids), genesFile: filepath.Base(features),
		cells: len(barcodes), barcodeFile: filepath.Base(barcodesPath),
	})
	if err != nil {
		return nil, err
	}
	d := &Dataset{
		Name:      filepath.Base(filepath.Clean(dir)),
		Source:    dir,
		X:         x,
		GeneIDs:   ids,
		GeneNames: names,
		Barcodes:  barcodes,
		ValueType: DetectValueType(x),
	}
	return d, nil
}

// findOne returns the first of names present in dir. A file that exists
// but cannot be looked at (a folder without permission) is reported as
// such, not as missing.
func findOne(dir string, names []string, what string) (string, error) {
	for _, n := range names {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() {
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", &ParseError{File: p, Msg: "cannot read: " + unwrapPathError(err).Error(), Err: err}
		}
	}
	if _, err := os.ReadDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", &ParseError{File: dir, Msg: "cannot read the folder: " + unwrapPathError(err).Error(), Err: err}
	}
	return "", &ParseError{File: dir, Msg: "no " + what + " in folder", Err: fs.ErrNotExist}
}

// unwrapPathError drops the path of an *fs.PathError, which messages
// already name.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readNamesFile reads a features or barcodes file. For features (withNames)
// it returns ids and names; for barcodes it returns the barcodes, which must
// be unique.
func readNamesFile(ctx context.Context, path string, withNames bool) (ids, names []string, err error) {
	r, c, err := openFileContext(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	return readNames(r, path, withNames)
}

func readNames(r io.Reader, file string, withNames bool) (ids, names []string, err error) {
	lr := newLineReader(r, file)
	seen := make(map[string]int)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		id, rest, _ := bytes.Cut(line, []byte{'\t'})
		if len(bytes.TrimSpace(id)) == 0 {
			return nil, nil, parseErrorf(file, lr.line, "empty id (want one line per matrix %s)", map[bool]string{true: "row", false: "column"}[withNames])
		}
		s := string(id)
		ids = append(ids, s)
		if prev, dup := seen[s]; dup {
			// Feature ids (Ensembl ids in 10x folders) are unique by
			// design: a repeat means two files were concatenated or the
			// columns are shifted. Repeated gene names are fine.
			what := map[bool]string{true: "feature id", false: "barcode"}[withNames]
			return nil, nil, parseErrorf(file, lr.line, "duplicate %s %s (also on line %d)", what, quoteField(id), prev)
		}
		seen[s] = lr.line
		if withNames {
			name, _, _ := bytes.Cut(rest, []byte{'\t'})
			if len(name) > 0 {
				names = append(names, string(name))
			} else {
				names = append(names, s)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil, &ParseError{File: file, Msg: "no entries", Err: ErrEmpty}
	}
	return ids, names, nil
}
