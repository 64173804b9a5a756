package tui

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpscope/dpscope/datasets"
)

// TestDataPickerGoldenScreens compares the data picker overlay, without
// styles, at 80×24 and 160×48, with colour and under NO_COLOR: a built-in
// set peeked, a folder under the data root peeked, and an .h5ad peeked
// with raw.X chosen (go test -update rewrites them).
func TestDataPickerGoldenScreens(t *testing.T) {
	// Each screen is keys, then the text to wait for, in turn: the
	// folder's entries must be on screen (read by a command) before enter
	// can pick one.
	type screen struct {
		name  string
		steps [][]string // keys..., then the text to wait for
	}
	screens := []screen{
		{"builtin", [][]string{{"d", "enter", "space loads it"}}},
		{"folder", [][]string{{"d", "tab", "mini_mtx"}, {"enter", "MatrixMarket"}}},
		// An .h5ad alone in its root: its shape, the obs columns offered
		// and raw.X chosen (r). Not a column (c): its classes arrive by a
		// command whose answer the output cannot tell apart reliably, so
		// the screen would depend on timing; TestDataPickerH5ADLabels
		// checks that screen.
		{"h5ad", [][]string{{"d", "tab", "pbmc.h5ad"}, {"enter", "AnnData"}, {"r", "raw.X (counts"}}},
	}
	names := make([]string, len(screens))
	for i, sc := range screens {
		names[i] = sc.name
	}
	goldenScreens(t, names, func(t *testing.T, size [2]int, name string) {
		sc := screens[slices.IndexFunc(screens, func(sc screen) bool { return sc.name == name })]
		root := t.TempDir()
		if sc.name == "h5ad" {
			if _, _, err := datasets.HDF5Library(); err != nil {
				t.Skip("libhdf5 not loaded:", err)
			}
			b, err := os.ReadFile(filepath.Join("..", "datasets", "testdata", "h5", "pbmc_csr.h5ad"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "pbmc.h5ad"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			writeMTXFolder(t, filepath.Join(root, "mini_mtx"))
			if err := os.WriteFile(filepath.Join(root, "cells.csv"), []byte("gene,c1,c2\ng1,1,0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m := New(Config{Summary: testSummary(), Backend: "gonum, 2 threads", Method: fakeFast, ExportDir: t.TempDir(), Seed: 1, DataRoot: root})
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))
		for _, st := range sc.steps {
			typeKeys(tm, st[:len(st)-1]...)
			waitText(t, tm, st[len(st)-1])
		}
		typeKeys(tm, "q")
		final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
		view := final.View().Content
		checkFits(t, view, size[0], size[1])
		teatest.RequireEqualOutput(t, []byte(stripANSI(view)))
	})
}
