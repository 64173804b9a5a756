package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpscope/dpscope/core/sweep"
)

// sweepFolder is what `plot` and `report` read of a sweep folder: the
// manifest, the grid's points and the record of each finished run.
type sweepFolder struct {
	dir      string
	manifest sweepManifest
	points   []sweep.Point
	records  []*sweepRecord // per point; nil when the run is not (readably) saved
	groups   []sweep.Group
	cost     sweep.Cost
	done     int
}

// isSweepFolder reports whether dir holds a sweep manifest.
func isSweepFolder(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, manifestName))
	return err == nil
}

// parseManifest parses manifest.json and refuses a newer schema.
func parseManifest(b []byte, file string) (sweepManifest, error) {
	var m sweepManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: not a sweep manifest: %w", file, err)
	}
	if m.Schema > sweepSchema {
		return m, fmt.Errorf("%s: manifest schema %d is newer than this dpscope reads (%d); upgrade dpscope", file, m.Schema, sweepSchema)
	}
	if m.Schema < 1 || len(m.Grid.Methods) == 0 {
		return m, fmt.Errorf("%s: not a sweep manifest (no schema or no methods)", file)
	}
	// Grid.Points builds every combination of the option axes before it
	// counts runs: bound the grid's size first, so an edited manifest
	// cannot make it allocate without end.
	size := 1
	axes := [][]int{{len(m.Grid.Methods), len(m.Grid.Modes), max(len(m.Grid.Epsilons), 1), len(m.Grid.Seeds)}}
	for _, v := range m.Grid.Options {
		axes = append(axes, []int{len(v)})
	}
	for _, a := range axes {
		for _, n := range a {
			if n == 0 {
				return m, fmt.Errorf("%s: the grid has an empty axis", file)
			}
			if size > sweep.MaxRuns/n {
				return m, fmt.Errorf("%s: the grid has more than %d runs", file, sweep.MaxRuns)
			}
			size *= n
		}
	}
	return m, nil
}

// readSweepFolder reads a sweep folder. Runs not saved yet (an interrupted
// or still running sweep) are counted as missing, not errors: the figures
// show what finished.
func readSweepFolder(dir string) (*sweepFolder, error) {
	file := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("sweep folder %s: %w", dir, err)
	}
	m, err := parseManifest(b, file)
	if err != nil {
		return nil, err
	}
	points, err := m.Grid.Points()
	if err != nil {
		return nil, fmt.Errorf("%s: the grid does not expand in this dpscope: %w", file, err)
	}
	sf := &sweepFolder{dir: dir, manifest: m, points: points, records: make([]*sweepRecord, len(points))}
	outcomes := make([]*sweep.Outcome, len(points))
	d := &sweepDir{path: dir}
	for i, p := range points {
		if r, ok := d.load(p.Name); ok {
			sf.records[i], outcomes[i] = &r, r.outcome()
			sf.done++
		}
	}
	sf.groups, sf.cost = sweep.Summarise(points, outcomes)
	return sf, nil
}
