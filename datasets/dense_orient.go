package datasets

import (
	"fmt"
	"strings"
)

// Orientation says which way round a dense matrix file is laid out.
type Orientation int

const (
	// OrientationAuto detects the layout from the names (see ReadDense).
	OrientationAuto Orientation = iota
	// GenesByCells: one row per gene, one column per cell (GEO supplementary
	// tables, R data frames, the 10x convention).
	GenesByCells
	// CellsByGenes: one row per cell, one column per gene (pandas and
	// AnnData exports).
	CellsByGenes
)

// String returns "auto", "genes-by-cells" or "cells-by-genes".
func (o Orientation) String() string {
	switch o {
	case OrientationAuto:
		return "auto"
	case GenesByCells:
		return "genes-by-cells"
	case CellsByGenes:
		return "cells-by-genes"
	}
	return fmt.Sprintf("Orientation(%d)", int(o))
}

// ParseOrientation parses "auto", "genes-by-cells" (or "genes", "gxc") and
// "cells-by-genes" (or "cells", "cxg"), in any case, for command-line flags.
func ParseOrientation(s string) (Orientation, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return OrientationAuto, nil
	case "genes-by-cells", "genes", "gxc", "genes×cells":
		return GenesByCells, nil
	case "cells-by-genes", "cells", "cxg", "cells×genes":
		return CellsByGenes, nil
	}
	return OrientationAuto, fmt.Errorf("datasets: orientation %q, want auto, genes-by-cells or cells-by-genes", s)
}

// namesSample bounds how many names the orientation heuristic looks at.
const namesSample = 2000

// detectOrientation decides the layout of a dense file from its row ids and
// column names, as documented on ReadDense.
func detectOrientation(rowIDs, colNames []string) Orientation {
	rowsGenes, rowsCells := looksLikeGenes(rowIDs), looksLikeCells(rowIDs)
	colsGenes, colsCells := looksLikeGenes(colNames), looksLikeCells(colNames)
	gxc := rowsGenes || colsCells
	cxg := colsGenes || rowsCells
	switch {
	case gxc && !cxg:
		return GenesByCells
	case cxg && !gxc:
		return CellsByGenes
	case len(rowIDs) >= len(colNames):
		return GenesByCells
	}
	return CellsByGenes
}

// houseKeeping are gene symbols found in nearly every expression matrix.
var houseKeeping = map[string]bool{
	"ACTB": true, "GAPDH": true, "MALAT1": true, "B2M": true, "TMSB4X": true,
	"FTL": true, "FTH1": true, "EEF1A1": true, "TPT1": true, "UBC": true,
	"PTMA": true, "HSP90AB1": true, "PPIA": true, "TUBA1B": true, "NEAT1": true,
}

// looksLikeGenes reports whether names look like gene identifiers: at least
// half are Ensembl gene ids (ENSG…, ENSMUSG…), or at least two are common
// gene symbols (mitochondrial MT-…, ribosomal RPL/RPS…, ACTB, GAPDH, …).
func looksLikeGenes(names []string) bool {
	if len(names) > namesSample {
		names = names[:namesSample]
	}
	ens, markers := 0, 0
	for _, n := range names {
		u := strings.ToUpper(n)
		switch {
		case isEnsemblGene(u):
			ens++
		case houseKeeping[u],
			strings.HasPrefix(u, "MT-") && len(u) > 3,
			(strings.HasPrefix(u, "RPL") || strings.HasPrefix(u, "RPS")) && len(u) > 3 && isDigit(u[3]):
			markers++
		}
	}
	return len(names) > 0 && (2*ens >= len(names) || markers >= 2)
}

// isEnsemblGene matches ENS[A-Z]*G followed by at least six digits.
func isEnsemblGene(u string) bool {
	if !strings.HasPrefix(u, "ENS") {
		return false
	}
	i := 3
	for i < len(u) && u[i] >= 'A' && u[i] <= 'Z' {
		i++
	}
	if i == 3 || u[i-1] != 'G' {
		return false
	}
	d := 0
	for i < len(u) && isDigit(u[i]) {
		i++
		d++
	}
	return d >= 6
}

// looksLikeCells reports whether at least half of names look like cell
// names: nucleotide barcodes (ACGTN, 6 or more, optionally with a "-1"
// suffix), or names containing "cell" or "barcode".
func looksLikeCells(names []string) bool {
	if len(names) > namesSample {
		names = names[:namesSample]
	}
	n := 0
	for _, s := range names {
		l := strings.ToLower(s)
		if isNucleotideBarcode(s) || strings.Contains(l, "cell") || strings.Contains(l, "barcode") {
			n++
		}
	}
	return len(names) > 0 && 2*n >= len(names)
}

func isNucleotideBarcode(s string) bool {
	i := 0
	for i < len(s) && strings.IndexByte("ACGTN", s[i]) >= 0 {
		i++
	}
	if i < 6 {
		return false
	}
	if i < len(s) && (s[i] == '-' || s[i] == '_' || s[i] == '.') {
		i++
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}
