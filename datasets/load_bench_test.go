package datasets

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
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

// denseText writes d as a dense genes × cells table with the given delimiter.
func denseText(d *Dataset, delim byte) []byte {
	dense := make([][]float32, d.Genes())
	for g := range dense {
		dense[g] = make([]float32, d.Cells())
	}
	for c := range d.Cells() {
		cols, vals := d.X.Row(c)
		for k, g := range cols {
			dense[g][c] = vals[k]
		}
	}
	var b bytes.Buffer
	b.WriteString("gene")
	for _, bc := range d.Barcodes {
		b.WriteByte(delim)
		b.WriteString(bc)
	}
	b.WriteByte('\n')
	for g, row := range dense {
		b.WriteString(d.GeneIDs[g])
		for _, v := range row {
			b.WriteByte(delim)
			b.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkReadDense parses pbmc_4k written as a dense 2000 genes × 4271
// cells CSV (8.5 M fields, 82% zeros) from memory.
func BenchmarkReadDense(b *testing.B) {
	root := sharedDataDir(b)
	d, err := LoadMTXDir(filepath.Join(root, "pbmc_4k"))
	if err != nil {
		b.Fatal(err)
	}
	text := denseText(d, ',')
	fields := float64(d.Cells()+1) * float64(d.Genes()+1)
	b.ReportAllocs()
	for b.Loop() {
		got, err := ReadDense(bytes.NewReader(text), "pbmc_4k.csv", DenseOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if got.Cells() != d.Cells() {
			b.Fatalf("ReadDense: %d cells, want %d", got.Cells(), d.Cells())
		}
		sinkDataset = got
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(len(text))/sec/1e6, "MB/s")
	b.ReportMetric(fields/sec/1e6, "Mfields/s")
}

var sinkPrepared *Prepared

// BenchmarkCachedLoad compares, for pbmc_4k and the default built-in set,
// a load without the cache (parse or simulate, then preprocess) with a load
// from a warm cache: what each run of a sweep after the first pays. Each
// reports MB of entry read per second; compare their ns/op.
func BenchmarkCachedLoad(b *testing.B) {
	root := sharedDataDir(b)
	for _, spec := range []string{filepath.Join(root, "pbmc_4k"), "builtin:default"} {
		b.Run(filepath.Base(spec)+"/direct", func(b *testing.B) {
			for b.Loop() {
				p, err := LoadPreprocessed(spec, DefaultLoadOptions())
				if err != nil {
					b.Fatal(err)
				}
				sinkPrepared = p
			}
		})
		b.Run(filepath.Base(spec)+"/cached", func(b *testing.B) {
			c := Cache{Dir: b.TempDir()}
			if _, err := c.LoadPreprocessed(spec, DefaultLoadOptions()); err != nil {
				b.Fatal(err)
			}
			entries, err := filepath.Glob(filepath.Join(c.Dir, "*.prep"))
			if err != nil || len(entries) != 1 {
				b.Fatalf("cache entries %v (%v), want one", entries, err)
			}
			st, err := os.Stat(entries[0])
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				p, err := c.LoadPreprocessed(spec, DefaultLoadOptions())
				if err != nil {
					b.Fatal(err)
				}
				sinkPrepared = p
			}
			b.ReportMetric(float64(st.Size())/1e6/(b.Elapsed().Seconds()/float64(b.N)), "MB/s")
		})
	}
}
