package datasets

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadDense checks that ReadDense never panics, reports failures as
// errors naming the file, and returns a valid Dataset on success, in every
// orientation. Seeds: testdata/fuzz/FuzzReadDense.
func FuzzReadDense(f *testing.F) {
	f.Add([]byte("gene,c1,c2\ng1,1,0\ng2,0,3.5\n"), uint8(0))
	f.Add([]byte("\"c1\"\t\"c2\"\n\"g1\"\t1\t0\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, orient uint8) {
		o := Orientation(orient % 3)
		d, err := ReadDense(bytes.NewReader(data), "fuzz.csv", DenseOptions{Orientation: o})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.csv" {
				t.Fatalf("ReadDense(%q, %v) = %v, want a *ParseError naming fuzz.csv", data, o, err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ReadDense(%q, %v).Validate() = %v, want nil", data, o, err)
		}
	})
}
