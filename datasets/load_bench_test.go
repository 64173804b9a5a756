package datasets

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var sinkDataset *Dataset

// BenchmarkLoadMTX loads the two largest MTX folders of ../shared/data
// (names, gunzip, parse, transpose; no labels) and reports the throughput in
// matrix entries per second and compressed MB per second.
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

// BenchmarkOpen is BenchmarkLoadMTX plus the labels join and Validate: what
// `dpscope data inspect` pays before preprocessing.
func BenchmarkOpen(b *testing.B) {
	root := sharedDataDir(b)
	for _, name := range []string{"pbmc_4k", "mouse_bladder_2100"} {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join(root, name)
			b.ReportAllocs()
			for b.Loop() {
				d, err := Open(dir, OpenOptions{})
				if err != nil {
					b.Fatal(err)
				}
				sinkDataset = d
			}
		})
	}
}

// BenchmarkReadMTXParts splits the MTX load of mouse_bladder_2100 into its
// two stages: gunzip alone (into io.Discard) and parsing the already
// decompressed text from memory.
func BenchmarkReadMTXParts(b *testing.B) {
	root := sharedDataDir(b)
	zipped, err := os.ReadFile(filepath.Join(root, "mouse_bladder_2100", "matrix.mtx.gz"))
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		b.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("gunzip", func(b *testing.B) {
		for b.Loop() {
			zr, err := gzip.NewReader(bytes.NewReader(zipped))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, zr); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(plain))/(b.Elapsed().Seconds()/float64(b.N))/1e6, "MB/s")
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		var nnz int
		for b.Loop() {
			m, err := ReadMTX(bytes.NewReader(plain), "matrix.mtx")
			if err != nil {
				b.Fatal(err)
			}
			nnz = m.NNZ()
		}
		sec := b.Elapsed().Seconds() / float64(b.N)
		b.ReportMetric(float64(len(plain))/sec/1e6, "MB/s")
		b.ReportMetric(float64(nnz)/sec/1e6, "Mentries/s")
	})
}
