package datasets

import (
	"strings"
	"testing"
)

func TestLoadPreprocessedAppliesOptions(t *testing.T) {
	opts := DefaultLoadOptions()
	opts.Preprocess.NTopGenes = 64
	opts.Preprocess.MaxValue = 3
	p, err := LoadPreprocessed("builtin:default", opts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Data.Genes != 64 || p.Data.Cells != p.Raw.Cells() || len(p.Data.Classes) != 8 {
		t.Errorf("LoadPreprocessed(genes 64) = %d cells × %d genes, %d classes, want %d × 64, 8", p.Data.Cells, p.Data.Genes, len(p.Data.Classes), p.Raw.Cells())
	}
	for i, v := range p.Data.X {
		if v > 3 || v < -3 {
			t.Fatalf("x[%d] = %v, want within ±3 (max value 3)", i, v)
		}
	}
	if s := p.Summary(); s.SelectedGenes != 64 {
		t.Errorf("Summary().SelectedGenes = %d, want 64", s.SelectedGenes)
	}
}

func TestLoadPreprocessedRejectsBadOptions(t *testing.T) {
	bad := DefaultLoadOptions()
	bad.Preprocess.NTopGenes = 0
	if _, err := LoadPreprocessed("builtin:default", bad); err == nil || !strings.Contains(err.Error(), "n top genes is 0") {
		t.Errorf("LoadPreprocessed(genes 0) error = %v, want one naming n top genes", err)
	}
	bad = DefaultLoadOptions()
	bad.Orientation = Orientation(9)
	if _, err := LoadPreprocessed("builtin:default", bad); err == nil || !strings.Contains(err.Error(), "orientation") {
		t.Errorf("LoadPreprocessed(orientation 9) error = %v, want one naming the orientation", err)
	}
	labelled := DefaultLoadOptions()
	labelled.Labels = "labels.tsv"
	if _, err := LoadPreprocessed("builtin:default", labelled); err == nil || !strings.Contains(err.Error(), "labels.tsv") {
		t.Errorf("LoadPreprocessed(builtin with a labels file) error = %v, want one naming the file", err)
	}
}
