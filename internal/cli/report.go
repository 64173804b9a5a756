package cli

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/internal/report"
)

func newReportCmd(env Env) *cobra.Command {
	var ff figureFlags
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Write an HTML and a Markdown report of a run or sweep folder",
		Long: `report writes DIR/report.html — one self-contained page, figures inlined —
and DIR/report.md, with the figures it links in DIR/figures (PNG and SVG):

  the data set and its preprocessing, the shape each method trained on;
  each method and mode with the guarantee its runs reported and the reasons;
  the sweep table (ARI and NMI mean ± sd per method, mode and ε, the ε spent,
  the guarantees, the B1 and null reference lines, the privacy of the whole
  sweep) or, for a run folder, its ε, metrics and references;
  the figures of 'dpscope plot';
  the commands that reproduce it: for a sweep, its grid as 'dpscope sweep'
  flags with the manifest's base settings in a TOML file shown in full.

An interrupted sweep's folder gives a report of the runs that finished, and
says how many are missing.`,
		Example: "  dpscope report sweeps/pbmc\n  dpscope report results/run1 --no-labels",
		Args:    exactArgs(1, "a run or sweep folder"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			fo, err := ff.options()
			if err != nil {
				return err
			}
			dir := args[0]
			fd, err := loadFolder(cmd.Context(), dir, fo)
			if err != nil {
				return err
			}
			dest := out
			if dest == "" {
				dest = dir
			}
			paths, err := writeReport(fd, dest, ff.width)
			for _, p := range paths {
				fmt.Fprintln(env.Stdout, p)
			}
			return err
		}),
	}
	ff.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder for report.html, report.md and figures/ (default DIR)")
	return cmd
}

// writeReport draws the figures into dest/figures and writes
// dest/report.html and dest/report.md; it returns the paths written.
func writeReport(fd *folderData, dest, width string) ([]string, error) {
	var doc report.Doc
	if fd.sweep != nil {
		doc = sweepDoc(fd)
	} else {
		doc = runDoc(fd)
	}
	for _, s := range fd.skipped {
		doc.Notes = append(doc.Notes, "Figure not drawn: "+s)
	}
	paths, err := writeFigures(fd.figs, filepath.Join(dest, "figures"), []string{"png", "svg"}, width)
	if err != nil {
		return paths, err
	}
	for _, f := range fd.figs {
		b, err := renderFigure(f, "png", width)
		if err != nil {
			return paths, err
		}
		doc.Figures = append(doc.Figures, report.Figure{Name: f.name, Caption: f.caption, PNG: b, File: "figures/" + f.name + ".png"})
	}
	for _, r := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"report.html", func(b *bytes.Buffer) error { return doc.HTML(b) }},
		{"report.md", func(b *bytes.Buffer) error { return doc.Markdown(b) }},
	} {
		var buf bytes.Buffer
		if err := r.write(&buf); err != nil {
			return paths, fmt.Errorf("%s: %w", r.name, err)
		}
		p := filepath.Join(dest, r.name)
		if err := writeFileAtomic(p, buf.Bytes()); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
