package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpscope/dpscope/core"
	"github.com/dpscope/dpscope/datasets"
)

// TestDataExportIsTheTrainedMatrix exports builtin:default and reads it
// back with dpscope's own reader: the values, names and labels must be
// those of the matrix runs train on (core.Config.LoadData with the same
// preprocessing flags).
func TestDataExportIsTheTrainedMatrix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prep")
	code, stdout, stderr := run(t, "data", "export", "--data", "builtin:default", "--genes", "40", "--format", "mtx", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "× 40 genes") {
		t.Errorf("stdout %q does not give the shape", stdout)
	}
	pre := datasets.DefaultPreprocessConfig()
	pre.NTopGenes = 40
	want, err := (&core.Config{Data: "builtin:default", Preprocess: &pre}).LoadData()
	if err != nil {
		t.Fatal(err)
	}
	got, err := datasets.Open(dir, datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := want.Data
	if got.Cells() != p.Cells || got.Genes() != p.Genes || !slices.Equal(got.GeneNames, p.GeneNames) || !slices.Equal(got.Barcodes, p.Barcodes) {
		t.Fatalf("read %d × %d, want %d × %d with the same names", got.Cells(), got.Genes(), p.Cells, p.Genes)
	}
	for i := range p.Cells {
		cols, vals := got.X.Row(i)
		for k, j := range cols {
			if w := p.X[i*p.Genes+int(j)]; vals[k] != w {
				t.Fatalf("cell %d gene %d: %v read, %v trained on", i, j, vals[k], w)
			}
		}
		if got.Classes[got.Labels[i]] != p.Classes[p.Labels[i]] {
			t.Fatalf("cell %d label %s, want %s", i, got.Classes[got.Labels[i]], p.Classes[p.Labels[i]])
		}
	}
}

func TestDataExportErrors(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--format", "loom", "--out", filepath.Join(tmp, "x")}, ExitUsage, `--format is "loom"`},
		{[]string{"--format", "csv"}, ExitUsage, "--out is empty"},
		{[]string{"--format", "csv", "--out", tmp}, ExitRuntime, "exists"},
	} {
		code, _, stderr := run(t, append([]string{"data", "export", "--data", "builtin:default", "--genes", "20"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("export %q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}

// readTSV reads a TSV with a header into its rows.
func readTSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		rows = append(rows, strings.Split(l, "\t"))
	}
	return rows
}

// TestRunOutFormats writes the result as MTX and CSV beside the TSV files
// and checks that they hold the same embedding and clusters; --force may
// replace a folder holding them.
func TestRunOutFormats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--method", "test-scripted", "--no-reference", "--out", dir, "--out-format", "mtx,csv"}
	if code, _, stderr := run(t, args...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	emb := readTSV(t, filepath.Join(dir, "embedding.tsv"))
	asg := readTSV(t, filepath.Join(dir, "assignments.tsv"))
	got, err := datasets.Open(filepath.Join(dir, "result_mtx"), datasets.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Cells() != len(emb) || got.Genes() != len(emb[0])-1 {
		t.Fatalf("result_mtx is %d × %d, embedding.tsv %d × %d", got.Cells(), got.Genes(), len(emb), len(emb[0])-1)
	}
	for i, row := range emb {
		cols, vals := got.X.Row(i)
		dense := make([]float32, got.Genes())
		for k, j := range cols {
			dense[j] = vals[k]
		}
		for j, s := range row[1:] {
			v, _ := strconv.ParseFloat(s, 32)
			if dense[j] != float32(v) || got.Barcodes[i] != row[0] {
				t.Fatalf("cell %d z%d: %v in result_mtx, %s in embedding.tsv", i, j+1, dense[j], s)
			}
		}
	}
	obs := readTSV(t, filepath.Join(dir, "result_mtx", "obs.tsv"))
	for i, r := range asg {
		if obs[i][0] != r[0] || obs[i][1] != r[1] {
			t.Fatalf("obs.tsv row %d %q, assignments.tsv %q", i, obs[i], r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "result_csv", "matrix.csv")); err != nil {
		t.Error(err)
	}
	if code, _, stderr := run(t, append(args, "--force")...); code != ExitOK {
		t.Errorf("--force over a folder with exports: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "run", "--out-format", "csv"); code != ExitUsage || !strings.Contains(stderr, "needs --out") {
		t.Errorf("--out-format without --out: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(t, "run", "--out", dir, "--out-format", "parquet"); code != ExitUsage || !strings.Contains(stderr, "parquet") {
		t.Errorf("--out-format parquet: exit %d, %q", code, stderr)
	}
}

// TestExportWithoutHDF5 runs this test binary again with DPSCOPE_HDF5
// naming no library: .h5ad export and run --out-format h5ad must fail
// before any work with a message saying how to install libhdf5, and the
// other formats must still work.
func TestExportWithoutHDF5(t *testing.T) {
	if os.Getenv("DPSCOPE_TEST_NO_HDF5") == "1" {
		out := filepath.Join(os.Getenv("DPSCOPE_TEST_DIR"), "x")
		for _, args := range [][]string{
			{"data", "export", "--data", "builtin:default", "--genes", "20", "--format", "h5ad", "--out", out + ".h5ad"},
			{"run", "--method", "test-scripted", "--out", out + "_run", "--out-format", "h5ad"},
			{"data", "export", "--data", "builtin:default", "--genes", "20", "--format", "csv", "--out", out + "_csv"},
		} {
			code, _, stderr := run(t, args...)
			os.Stdout.WriteString(fmt.Sprintf("EXIT %d %s\n", code, strings.ReplaceAll(stderr, "\n", " ")))
		}
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExportWithoutHDF5$")
	cmd.Env = append(os.Environ(), "DPSCOPE_TEST_NO_HDF5=1", "DPSCOPE_TEST_DIR="+dir, "DPSCOPE_HDF5=/nonexistent/libhdf5.so")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var exits []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "EXIT ") {
			exits = append(exits, l)
		}
	}
	if len(exits) != 3 {
		t.Fatalf("output:\n%s", b)
	}
	for _, l := range exits[:2] {
		if !strings.HasPrefix(l, "EXIT 1 ") || !strings.Contains(l, "needs libhdf5") || !strings.Contains(l, "apt-get install libhdf5") {
			t.Errorf("without libhdf5: %s", l)
		}
	}
	if !strings.HasPrefix(exits[2], "EXIT 0 ") {
		t.Errorf("csv export without libhdf5: %s", exits[2])
	}
	if _, err := os.Stat(filepath.Join(dir, "x_run")); err == nil {
		t.Error("the run went ahead although its h5ad output could not be written")
	}
}
