package datasets

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadLabels checks that ReadLabels never panics, returns unique
// barcodes with non-empty labels on success, and that joining the result onto
// a small data set leaves it valid. Seeds: testdata/fuzz/FuzzReadLabels.
func FuzzReadLabels(f *testing.F) {
	f.Add([]byte("barcode\tlabel\nAAAC-1\tT\nAAAG-1\t2\n"))
	f.Add([]byte("cell,label\n\"cell\",\"B\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := tinyDataset()
		known := map[string]int{}
		for i, b := range d.Barcodes {
			known[b] = i
		}
		lt, err := ReadLabels(bytes.NewReader(data), "fuzz.tsv", known)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.tsv" {
				t.Fatalf("ReadLabels(%q) = %v, want a *ParseError naming fuzz.tsv", data, err)
			}
			return
		}
		if len(lt.Labels) != len(lt.Barcodes) || len(lt.Lines) != len(lt.Barcodes) {
			t.Fatalf("ReadLabels(%q) = %d barcodes, %d labels, %d lines, want equal", data, len(lt.Barcodes), len(lt.Labels), len(lt.Lines))
		}
		seen := map[string]bool{}
		for i, b := range lt.Barcodes {
			if seen[b] || b == "" || lt.Labels[i] == "" {
				t.Fatalf("ReadLabels(%q): entry %d = %q %q, want unique non-empty barcode and label", data, i, b, lt.Labels[i])
			}
			seen[b] = true
		}
		rep, err := JoinLabels(d, lt)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("JoinLabels(ReadLabels(%q)) left an invalid data set: %v", data, err)
		}
		if rep.Labelled+rep.Missing != d.Cells() {
			t.Fatalf("JoinLabels(ReadLabels(%q)) report %+v does not add up to %d cells", data, rep, d.Cells())
		}
	})
}
