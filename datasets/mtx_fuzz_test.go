package datasets

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadMTX checks that ReadMTX never panics, reports every failure as a
// *ParseError naming the file, and returns a valid non-empty matrix on
// success. Seeds: testdata/fuzz/FuzzReadMTX.
func FuzzReadMTX(f *testing.F) {
	f.Add([]byte(mtxHead + "3 2 3\n1 1 1\n3 1 2\n2 2 3\n"))
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n2 2 2\n2 2 -1.5e3\n1 1 0.25\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMTX(bytes.NewReader(data), "fuzz.mtx")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "fuzz.mtx" || pe.Msg == "" {
				t.Fatalf("ReadMTX(%q) = %v, want a *ParseError naming fuzz.mtx", data, err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("ReadMTX(%q).Validate() = %v, want nil", data, err)
		}
		if m.Rows == 0 || m.Cols == 0 {
			t.Fatalf("ReadMTX(%q) = %d×%d matrix, want an ErrEmpty error", data, m.Rows, m.Cols)
		}
		for _, v := range m.Data {
			if v == 0 {
				t.Fatalf("ReadMTX(%q) stored an explicit zero", data)
			}
		}
	})
}
