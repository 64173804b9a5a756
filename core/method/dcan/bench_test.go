package dcan

import (
	"testing"

	"github.com/dpscope/dpscope/core/compute"
	"github.com/dpscope/dpscope/core/nn"
	"github.com/dpscope/dpscope/datasets"
)

// benchData is a synthetic preprocessed data set of the default set's shape
// (2,000 cells × 2,000 genes, 8 types), generated once.
func benchData(b *testing.B) *datasets.Preprocessed {
	b.Helper()
	return simDataDE(b, 2000, 2000, 8, 0.1)
}

// BenchmarkStageLoss times the per-cell loss and gradient of a chunk of 200
// cells (one expected DP-SGD batch at q = 0.1 on 2,000 cells) in each stage
// and reports cells/s.
func BenchmarkStageLoss(b *testing.B) {
	d := benchData(b)
	o := Options{}.withDefaults()
	ae, err := nn.NewAutoencoder(nn.AutoencoderConfig{Genes: d.Genes, Act: nn.Tanh, MaxRows: stage1Views * o.ChunkCells, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := newModel(ae, d, 8, o, 1)
	for i := range m.p.Data {
		m.p.Data[i] = 1.0 / 8
	}
	m.trainMu = true
	cells := make([]int, 200)
	for i := range cells {
		cells[i] = 10 * i
	}
	for _, bc := range []struct {
		name string
		fn   func([]int) (float64, error)
	}{{"stage1", m.stage1Loss}, {"stage2", m.stage2Loss}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.fn(cells); err != nil {
					b.Fatal(err)
				}
				m.ae.AccumulateGrads(0)
			}
			b.ReportMetric(float64(len(cells))*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
			compute.Scal(0, m.ae.Grads)
		})
	}
}
