package tui

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
)

// exportedMsg reports an export: the files written, or the error.
type exportedMsg struct {
	paths []string
	err   error
}

// The export file names, in the export folder.
const (
	runsFile     = "dpscope-runs.csv"
	frontierFile = "dpscope-frontier.csv"
)

// exportCmd writes the runs table and the frontier as CSV files in dir, in
// a command, from a copy of the records.
func exportCmd(dir string, recs []runRecord) tea.Cmd {
	return func() tea.Msg {
		runs, front := runsCSV(recs), frontierCSV(recs)
		var paths []string
		for _, f := range []struct {
			name string
			data []byte
		}{{runsFile, runs}, {frontierFile, front}} {
			p := filepath.Join(dir, f.name)
			if err := writeAtomic(p, f.data); err != nil {
				return exportedMsg{err: fmt.Errorf("export: %w", err)}
			}
			paths = append(paths, p)
		}
		return exportedMsg{paths: paths}
	}
}

func csvNum(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.6g", v)
}

// runsCSV is the Compare table as CSV.
func runsCSV(recs []runRecord) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"run", "method", "variant", "mode", "layers", "epsilon_rdp", "epsilon_pld", "guarantee", "ari", "nmi", "seconds", "outcome"})
	for _, r := range recs {
		w.Write([]string{fmt.Sprint(r.ID), r.Method, r.Variant, string(r.Mode), r.Layers, csvNum(r.epsilon("RDP")), csvNum(r.epsilon("PLD")),
			string(r.Guarantee), csvNum(r.ARI), csvNum(r.NMI), fmt.Sprintf("%.3f", r.Elapsed.Seconds()), r.Outcome})
	}
	w.Flush()
	return buf.Bytes()
}

// frontierCSV is every private run's (ε, ARI) with whether it is on the
// Pareto front.
func frontierCSV(recs []runRecord) []byte {
	on := map[int]bool{}
	for _, r := range pareto(recs) {
		on[r.ID] = true
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"run", "variant", "epsilon", "ari", "pareto"})
	for _, r := range recs {
		if math.IsNaN(r.frontierEps()) || math.IsNaN(r.ARI) {
			continue
		}
		w.Write([]string{fmt.Sprint(r.ID), r.Variant, csvNum(r.frontierEps()), csvNum(r.ARI), fmt.Sprint(on[r.ID])})
	}
	w.Flush()
	return buf.Bytes()
}

// writeAtomic writes data to a temporary file in path's folder and renames
// it over path, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
