package cli

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/dpscope/dpscope/core"
)

// embeddingTSV writes "barcode<TAB>z1<TAB>…" with a header.
func embeddingTSV(r *core.ResultEvent) []byte {
	var b bytes.Buffer
	b.WriteString("barcode")
	for k := range r.Dim {
		fmt.Fprintf(&b, "\tz%d", k+1)
	}
	b.WriteByte('\n')
	for i := range r.Cells {
		b.WriteString(barcode(r.Barcodes, i))
		for _, v := range r.Embedding[i*r.Dim : (i+1)*r.Dim] {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// embedding2DTSV writes the 2-D view of an embedding event (its first two
// principal components) as "barcode<TAB>pc1<TAB>pc2": the columns say that
// these are not the latent coordinates themselves.
func embedding2DTSV(e *core.EmbeddingEvent) []byte {
	var b bytes.Buffer
	b.WriteString("barcode\tpc1\tpc2\n")
	for i := range min(len(e.X), len(e.Y)) {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", barcode(nil, i),
			strconv.FormatFloat(e.X[i], 'g', -1, 64), strconv.FormatFloat(e.Y[i], 'g', -1, 64))
	}
	return b.Bytes()
}

// assignmentsTSV writes "barcode<TAB>cluster" with a header.
func assignmentsTSV(cluster []int, barcodes []string) []byte {
	var b bytes.Buffer
	b.WriteString("barcode\tcluster\n")
	for i, c := range cluster {
		fmt.Fprintf(&b, "%s\t%d\n", barcode(barcodes, i), c)
	}
	return b.Bytes()
}

// barcode names cell i: its barcode, or "cell_N" (1-based, in the order of
// the matrix the method trained on) when the method did not report them.
func barcode(barcodes []string, i int) string {
	if i < len(barcodes) {
		return barcodes[i]
	}
	return "cell_" + strconv.Itoa(i+1)
}
