package datasets

import "testing"

var simSink *Dataset

func BenchmarkSimulate(b *testing.B) {
	for _, sz := range []struct {
		name                string
		cells, genes, types int
	}{
		{"500x500x4", 500, 500, 4},
		{"2000x2000x8", 2000, 2000, 8},
	} {
		b.Run(sz.name, func(b *testing.B) {
			cfg := DefaultSimConfig(sz.cells, sz.genes, sz.types)
			b.ReportAllocs()
			for b.Loop() {
				d, _, err := Simulate(cfg)
				if err != nil {
					b.Fatal(err)
				}
				simSink = d
			}
			b.ReportMetric(float64(sz.cells*sz.genes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mentries/s")
		})
	}
}

func BenchmarkBuiltinDefault(b *testing.B) {
	for b.Loop() {
		d, err := Builtin("default")
		if err != nil {
			b.Fatal(err)
		}
		simSink = d
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/dataset")
}
