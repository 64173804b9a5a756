package datasets

import (
	"path/filepath"
	"testing"
)

// BenchmarkLoadPreprocess measures reading an MTX folder and running the
// default preprocessing on it, the path every command and the TUI take.
func BenchmarkLoadPreprocess(b *testing.B) {
	for _, name := range []string{"pbmc_4k", "mouse_bladder_2100"} {
		b.Run(name, func(b *testing.B) {
			dir := filepath.Join(sharedDataDir(b), name)
			var cells int
			for b.Loop() {
				d, err := LoadMTXDir(dir)
				if err != nil {
					b.Fatal(err)
				}
				p, err := Preprocess(d, DefaultPreprocessConfig())
				if err != nil {
					b.Fatal(err)
				}
				cells = p.Cells
			}
			b.ReportMetric(float64(cells)*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
		})
	}
}

// BenchmarkPreprocess measures the preprocessing alone.
func BenchmarkPreprocess(b *testing.B) {
	for _, name := range []string{"pbmc_4k", "mouse_bladder_2100"} {
		b.Run(name, func(b *testing.B) {
			d, err := LoadMTXDir(filepath.Join(sharedDataDir(b), name))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Preprocess(d, DefaultPreprocessConfig()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(d.Cells())*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
		})
	}
}
