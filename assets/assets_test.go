package assets

import (
	"encoding/json"
	"io/fs"
	"strings"
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

// TestLessonsEmbedded checks the Learn screen's lessons: at least 12, each
// with a "# " title on its first line and a statement of its privacy unit
// (DECISIONS "Privacy units and figures": every lesson says which).
func TestLessonsEmbedded(t *testing.T) {
	names, err := fs.Glob(Lessons, "lessons/*.md")
	if err != nil || len(names) < 12 {
		t.Fatalf("fs.Glob(lessons/*.md) = %d names, %v; want at least 12", len(names), err)
	}
	for _, n := range names {
		raw, err := fs.ReadFile(Lessons, n)
		if err != nil {
			t.Fatalf("ReadFile(%s): %v", n, err)
		}
		s := string(raw)
		if !strings.HasPrefix(s, "# ") {
			t.Errorf("%s does not start with a \"# \" title", n)
		}
		if !strings.Contains(strings.Join(strings.Fields(strings.ToLower(s)), " "), "privacy unit") {
			t.Errorf("%s does not state its privacy unit", n)
		}
	}
}
