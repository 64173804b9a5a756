package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

var sinkDataset *Dataset

// BenchmarkLoadMTX loads the two largest MTX folders of ../shared/data
// (names, gunzip, parse, transpose; no labels) and reports the throughput in
// uncompressed... entries per second and compressed MB per second.
func BenchmarkLoadMTX(b *testing.B) {
	root := sharedDataDir(b)
	for _, name := range []string{"pbmc_4k", "mouse_bladder_2100"} {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join(root, name)
			st, err := os.Stat(filepath.Join(dir, "matrix.mtx.gz"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var nnz int
			for b.Loop() {
				d, err := LoadMTXDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				nnz = d.X.NNZ()
				sinkDataset = d
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(nnz)/sec/1e6, "Mentries/s")
			b.ReportMetric(float64(st.Size())/sec/1e6, "gzMB/s")
		})
	}
}
