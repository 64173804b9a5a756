package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpscope/dpscope/core/sweep"
)

// parseSweepManifest reads a sweep manifest (a sweep folder's
// manifest.json, or grid.json of an emitted workflow). It refuses a newer
// schema (DECISIONS: schema stamps), unknown fields, an invalid shard and a
// grid whose hash is not the recorded one: a hand-edited or damaged grid
// would otherwise run under another sweep's name.
func parseSweepManifest(b []byte) (sweepManifest, error) {
	var probe struct {
		Schema int `json:"schema"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return sweepManifest{}, fmt.Errorf("not a sweep manifest: %w", err)
	}
	if probe.Schema > sweepSchema {
		return sweepManifest{}, fmt.Errorf("manifest schema %d is newer than this dpscope reads (%d); upgrade dpscope", probe.Schema, sweepSchema)
	}
	if probe.Schema < 1 {
		return sweepManifest{}, fmt.Errorf("not a sweep manifest: schema is %d, must be 1 … %d", probe.Schema, sweepSchema)
	}
	// json.Unmarshal above refused data after the object, so one Decode
	// reads all of b.
	var m sweepManifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return sweepManifest{}, fmt.Errorf("not a sweep manifest: %w", err)
	}
	if m.Version == "" {
		return sweepManifest{}, fmt.Errorf("not a sweep manifest: no dpscope version")
	}
	if m.Shard != nil {
		if err := m.Shard.Validate(); err != nil {
			return sweepManifest{}, fmt.Errorf("sweep manifest: %w", err)
		}
	}
	if h := m.Grid.Hash(); h != m.Hash {
		return sweepManifest{}, fmt.Errorf("sweep manifest: its grid hashes to %.12s…, not the recorded %.12s…: the file was edited or damaged", h, m.Hash)
	}
	return m, nil
}

// readSweepManifest reads path (a manifest file, or a folder holding
// manifest.json); errors name the file.
func readSweepManifest(path string) (sweepManifest, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, manifestName)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return sweepManifest{}, err
	}
	m, err := parseSweepManifest(b)
	if err != nil {
		return sweepManifest{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func sameShard(a, b *sweep.Shard) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// shardWords names a shard, or the whole grid for none.
func shardWords(s *sweep.Shard) string {
	if s == nil {
		return "the whole grid"
	}
	return "shard " + s.String()
}
