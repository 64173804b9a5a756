package assets

import (
	"encoding/json"
	"io/fs"
	"testing"
)

// TestDatasetsEmbedded checks that the default spec is embedded and is a
// JSON object with the simulator's size fields (package datasets decodes
// and validates it fully).
func TestDatasetsEmbedded(t *testing.T) {
	raw, err := fs.ReadFile(Datasets, "datasets/default.json")
	if err != nil {
		t.Fatalf("ReadFile(datasets/default.json) = %v, want the embedded spec", err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatalf("default.json is not JSON: %v", err)
	}
	for _, k := range []string{"description", "cells", "genes", "groups", "seed"} {
		if _, ok := spec[k]; !ok {
			t.Errorf("default.json has no %q field", k)
		}
	}
}
