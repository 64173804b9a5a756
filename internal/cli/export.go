package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

func newExportCmd(env Env) *cobra.Command {
	var lf loadFlags
	var format, out string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the preprocessed matrix dpscope trains on as MTX, CSV or .h5ad",
		Long: `export reads and preprocesses a data set exactly as run and sweep do (same
flags, same cache) and writes the matrix the models train on — cells × selected
genes after normalisation, log1p and scaling — with the gene and cell names, the
labels and the size factors, so that scanpy, R or the peers read exactly it:

  --format mtx   a 10x folder: matrix.mtx (genes × cells), features.tsv,
                 barcodes.tsv, labels.tsv and obs.tsv (size_factor, label);
                 scanpy.read_10x_mtx and dpscope read it back
  --format csv   a folder: matrix.csv (cells × genes, barcode first),
                 obs.csv and var.csv; pandas.read_csv(..., index_col=0)
  --format h5ad  an AnnData file: X (float32), obs (size_factor, label as a
                 categorical), var (gene names, gene_ids); needs libhdf5

--out must not exist: export never overwrites. Sound-mode methods that
preprocess privately (dppca, dcan-sound) select their own genes from noisy
statistics; their runs report that matrix's shape on their "data" line.`,
		Example: "  dpscope data export --data ../shared/data/pbmc_4k --format h5ad --out pbmc_prep.h5ad\n  dpscope data export --data builtin:default --genes 500 --format mtx --out prep_mtx",
		Args:    cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out is empty: name the new file (h5ad) or folder (mtx, csv) to write")
			}
			if !slices.Contains(datasets.ExportFormats, format) {
				return usagef("--format is %q, want one of %s", format, strings.Join(datasets.ExportFormats, ", "))
			}
			if err := checkFormatsAvailable([]string{format}); err != nil {
				return err
			}
			data, err := lf.load(cmd)
			if err != nil {
				return err
			}
			for _, w := range data.Summary().Warnings {
				fmt.Fprintln(env.Stderr, "dpscope: warning: "+w)
			}
			if err := datasets.WriteTable(format, out, datasets.TableOf(data.Prep, version())); err != nil {
				return err
			}
			p := data.Prep
			fmt.Fprintf(env.Stdout, "wrote %s (%s): %d cells × %d genes, the preprocessed matrix of %s\n", out, format, p.Cells, p.Genes, data.Config.Data)
			return nil
		}),
	}
	lf.register(cmd, "builtin:default")
	f := cmd.Flags()
	f.StringVar(&format, "format", "h5ad", "mtx, csv or h5ad")
	f.StringVar(&out, "out", "", "the new file (h5ad) or folder (mtx, csv) to write")
	return cmd
}

// checkFormatsAvailable fails early, before any work, when a format needs
// libhdf5 and it cannot be loaded; the error says how to install it.
func checkFormatsAvailable(formats []string) error {
	if !slices.Contains(formats, "h5ad") {
		return nil
	}
	if _, _, err := datasets.HDF5Library(); err != nil {
		return fmt.Errorf("writing .h5ad needs libhdf5 (or choose --format mtx or csv): %w", err)
	}
	return nil
}

// parseOutFormats reads run's --out-format: extra formats of the
// embedding and assignments, comma-separated ("" for none).
func parseOutFormats(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts, err := parseCSV("out-format", s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range parts {
		if !slices.Contains(datasets.ExportFormats, p) {
			return nil, usagef("--out-format has %q, want %s", p, strings.Join(datasets.ExportFormats, ", "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, checkFormatsAvailable(out)
}

// resultExportName is the name, in a run folder, of the result written in
// format: a file for h5ad, a folder for the others.
func resultExportName(format string) string {
	if format == "h5ad" {
		return "result.h5ad"
	}
	return "result_" + format
}

// resultTable is a run's result as an export table: the embedding as X
// (features z1…zd, or pc1 and pc2 for the 2-D view of methods with no
// final result), the cluster of each cell as a categorical column, and
// the embedding again as obsm/X_dpscope for scanpy.
func resultTable(res *core.ResultEvent, emb *core.EmbeddingEvent) (*datasets.Table, error) {
	t := &datasets.Table{Obsm: "X_dpscope", Version: version()}
	var cluster []int
	switch {
	case res != nil:
		t.Cells, t.Features, t.X, cluster = res.Cells, res.Dim, res.Embedding, res.Cluster
		for k := range res.Dim {
			t.FeatureNames = append(t.FeatureNames, "z"+strconv.Itoa(k+1))
		}
		for i := range res.Cells {
			t.Barcodes = append(t.Barcodes, barcode(res.Barcodes, i))
		}
	case emb != nil:
		n := min(len(emb.X), len(emb.Y))
		t.Cells, t.Features, t.FeatureNames, cluster = n, 2, []string{"pc1", "pc2"}, emb.Cluster
		for i := range n {
			t.X = append(t.X, float32(emb.X[i]), float32(emb.Y[i]))
			t.Barcodes = append(t.Barcodes, barcode(nil, i))
		}
	default:
		return nil, errors.New("the run reported no embedding")
	}
	if len(cluster) == t.Cells && t.Cells > 0 {
		k := slices.Max(cluster) + 1
		cats := make([]string, max(k, 0))
		for c := range cats {
			cats[c] = strconv.Itoa(c)
		}
		codes := make([]int, len(cluster))
		for i, c := range cluster {
			codes[i] = max(c, -1) // a negative cluster is no cluster
		}
		t.Columns = append(t.Columns, datasets.Column{Name: "dpscope_cluster", Codes: codes, Categories: cats})
	}
	return t, nil
}

// writeResultExports writes the result in each format into dir.
func writeResultExports(dir string, formats []string, res *core.ResultEvent, emb *core.EmbeddingEvent) error {
	if len(formats) == 0 {
		return nil
	}
	t, err := resultTable(res, emb)
	if err != nil {
		return err
	}
	for _, f := range formats {
		if err := datasets.WriteTable(f, filepath.Join(dir, resultExportName(f)), t); err != nil {
			return err
		}
	}
	return nil
}
