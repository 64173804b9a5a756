package serve

import (
	"fmt"
	"strings"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// checkData confines cfg's data and labels paths to the data folder,
// rewriting them to their real form (the one that was checked is the one
// read), and refuses a data set with more than MaxCells cells. A built-in
// set's size comes from its specification; a file's from loading it
// through the data cache, which the run then reads again for free.
func (s *Server) checkData(cfg *core.Config) error {
	if cfg.Labels != "" {
		real, err := Confine(s.cfg.DataDir, cfg.Labels)
		if err != nil {
			return fmt.Errorf("labels: %w", err)
		}
		cfg.Labels = real
	}
	if cfg.Data == "" {
		return nil // a synthetic manifold: no data set
	}
	var cells int
	if name, ok := strings.CutPrefix(cfg.Data, datasets.BuiltinPrefix); ok {
		spec, err := datasets.GetBuiltinSpec(name)
		if err != nil {
			return err
		}
		cells = spec.Cells
	} else {
		real, err := Confine(s.cfg.DataDir, cfg.Data)
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
		cfg.Data = real
		orient, err := datasets.ParseOrientation(cfg.Orientation)
		if err != nil {
			return err
		}
		opts := datasets.OpenOptions{Labels: cfg.Labels, Orientation: orient, LabelsColumn: cfg.LabelsColumn, UseRaw: cfg.UseRaw}
		d, _, err := datasets.DefaultCache().Load(real, opts)
		if err != nil {
			return err
		}
		cells = d.Cells()
	}
	if cells > s.cfg.MaxCells {
		return fmt.Errorf("%s has %d cells; this server takes data sets of at most %d cells (--max-cells)", cfg.Data, cells, s.cfg.MaxCells)
	}
	return nil
}
