package dcan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dpscope/dpscope/core"

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

// BenchmarkTrainPBMC4k trains DCAN on ../shared/data/pbmc_4k (skipped when
// it is missing) with the defaults, nonprivate and in sound mode at σ = 1
// (every layer noised: the shape of the PyTorch peer's --dp), and reports
// each stage's cells/s as the peer measures them (dcan_torch.py
// --no-epoch-metrics: steps, and stage 2's per-epoch target refresh; no
// evaluation, no k-means), and the final ARI. DCAN_BENCH_EPOCHS ("s1,s2") sets the epochs,
// default 20,20 as the peer. docs/PERFORMANCE.md has the side-by-side.
func BenchmarkTrainPBMC4k(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "pbmc_4k")
	if _, err := os.Stat(filepath.Join(dir, "labels.tsv")); err != nil {
		b.Skipf("pbmc_4k not found: %v", err)
	}
	epochs := []int{20, 20}
	if e := os.Getenv("DCAN_BENCH_EPOCHS"); e != "" {
		if _, err := fmt.Sscanf(e, "%d,%d", &epochs[0], &epochs[1]); err != nil {
			b.Fatalf("DCAN_BENCH_EPOCHS=%q: %v, want s1,s2", e, err)
		}
	}
	for _, mode := range []core.Mode{core.ModeNonPrivate, core.ModeSound} {
		b.Run(string(mode), func(b *testing.B) {
			cfg := core.Config{Data: dir, Method: testMethod, Mode: mode, Delta: 1e-5, Clip: 0.1,
				SampleRate: 0.1, Epochs: epochs, Seed: 1}
			if mode != core.ModeNonPrivate {
				cfg.Sigma = 1
			}
			var sp Throughput
			ari := 0.0
			for b.Loop() {
				r, tr := start(b, context.Background(), cfg, Options{})
				evs := collect(r)
				if err := lastErr(evs); err != nil {
					b.Fatal(err)
				}
				if a := metrics(evs, "ARI"); len(a) > 0 {
					ari = a[len(a)-1]
				}
				p, ok := tr.Throughput()
				if !ok {
					b.Fatal("no throughput after the run")
				}
				for s := range 2 {
					sp.Cells[s] += p.Cells[s]
					sp.Seconds[s] += p.Seconds[s]
				}
			}
			b.ReportMetric(sp.CellsPerSecond(1), "stage1-cells/s")
			b.ReportMetric(sp.CellsPerSecond(2), "stage2-cells/s")
			b.ReportMetric(ari, "ARI") // of the last run, against the labels
		})
	}
}
