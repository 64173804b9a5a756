package tui

import (
	"context"
	"errors"
	"fmt"

	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/dpscope/dpscope/datasets"
)

// writeMTXFolder writes a small 10x folder: 6 genes × 4 cells, two classes.
func writeMTXFolder(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"matrix.mtx":   "%%MatrixMarket matrix coordinate integer general\n6 4 5\n1 1 3\n2 2 1\n3 3 7\n4 4 2\n6 1 1\n",
		"features.tsv": "g1\nA\ng2\nB\ng3\nC\ng4\nD\ng5\nE\ng6\nF\n",
		"barcodes.tsv": "c1\nc2\nc3\nc4\n",
		"labels.tsv":   "barcode\tlabel\nc1\tT\nc2\tB\nc3\tT\nc4\tT\n",
	}
	for n, s := range files {
		if n == "features.tsv" {
			s = "g1\tA\ng2\tB\ng3\tC\ng4\tD\ng5\tE\ng6\tF\n"
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDataPickerLoadsBuiltin peeks at builtin:default, loads it, and checks
// it became the data of the next runs in every pane.
func TestDataPickerLoadsBuiltin(t *testing.T) {
	t.Setenv("DPSCOPE_CACHE", "off")
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = press(t, m, "d")
	if !m.picker.open {
		t.Fatal("d did not open the picker")
	}
	m = press(t, m, "enter")
	spec, _ := datasets.GetBuiltinSpec("default")
	if pk := m.picker.peek; pk == nil || pk.Spec != "builtin:default" || pk.Cells != spec.Cells || pk.Genes != spec.Genes {
		t.Fatalf("peek %+v, want builtin:default at %d × %d", pk, spec.Cells, spec.Genes)
	}
	if v := text(m); !strings.Contains(v, "classes") || !strings.Contains(v, "preprocessing") {
		t.Errorf("the peek shows no classes or preprocessing:\n%s", v)
	}
	m = press(t, m, "space")
	if m.c.Config.Data != "builtin:default" || m.c.Config.Summary.Name != "default" || m.c.Config.Summary.KeptCells == 0 {
		t.Fatalf("after the load: data %q summary %+v", m.c.Config.Data, m.c.Config.Summary)
	}
	if d := runPaneOf(m).Params().Data; d != "builtin:default" {
		t.Errorf("Run pane data %q", d)
	}
	if d := m.Pane(TabBudget).(*budgetPane).params.Data; d != "builtin:default" {
		t.Errorf("Budget pane data %q", d)
	}
	if !strings.Contains(m.Status(), "the next runs use it") || !strings.Contains(text(m), "✔ loaded") {
		t.Errorf("status %q; screen:\n%s", m.Status(), text(m))
	}
	if cfg := m.c.Config.runConfig(runPaneOf(m).Params()); cfg.Data != "builtin:default" {
		t.Errorf("next run's data %q", cfg.Data)
	}
}

// TestDataPickerLoadErrorKeepsData loads a folder whose matrix header is
// fine but whose genes file is missing: the error is shown and the data
// stays what it was.
func TestDataPickerLoadErrorKeepsData(t *testing.T) {
	t.Setenv("DPSCOPE_CACHE", "off")
	root := t.TempDir()
	bad := filepath.Join(root, "bad")
	writeMTXFolder(t, bad)
	os.Remove(filepath.Join(bad, "features.tsv"))
	m := testModel(t, fakeFast)
	m.c.Config.DataRoot = root
	m.picker = newDataPicker(m.c)
	m = sized(t, m, 120, 40)
	m = press(t, m, "d", "tab", "enter")
	if pk := m.picker.peek; pk == nil || pk.Cells != 4 || pk.Genes != 6 {
		t.Fatalf("peek of the folder %+v (%v), want 4 cells × 6 genes", pk, m.picker.peekErr)
	}
	m = press(t, m, "space")
	if m.c.Config.Data != "builtin:toy" || runPaneOf(m).Params().Data != "builtin:toy" {
		t.Errorf("a failed load changed the data to %q", m.c.Config.Data)
	}
	if !m.errored || !strings.Contains(m.Status(), "features.tsv") || !strings.Contains(text(m), "not loaded") {
		t.Errorf("status %q (error %v); screen:\n%s", m.Status(), m.errored, text(m))
	}
}

// TestDataPickerCancel cancels a running load with ctrl+c: the app goes
// on, and the load's late result changes nothing.
func TestDataPickerCancel(t *testing.T) {
	t.Setenv("DPSCOPE_CACHE", "off")
	m := sized(t, testModel(t, fakeFast), 120, 40)
	m = press(t, m, "d", "enter")
	next, loadCmd := m.Update(kp("space"))
	m = next.(Model)
	if !m.picker.Loading() || !strings.Contains(text(m), "ctrl+c cancels") {
		t.Fatalf("space did not start a load:\n%s", text(m))
	}
	next, cmd := m.Update(kp("ctrl+c"))
	m = next.(Model)
	if cmd != nil {
		if _, quit := runCmd(cmd).(interface{ String() string }); quit {
			t.Fatal("ctrl+c quit the app")
		}
	}
	if m.picker.Loading() || !strings.Contains(m.Status(), "cancelled") {
		t.Fatalf("after ctrl+c: loading %v status %q", m.picker.Loading(), m.Status())
	}
	m, _ = settle(t, m, loadCmd) // the load ends and is dropped
	if m.c.Config.Data != "builtin:toy" {
		t.Errorf("a cancelled load changed the data to %q", m.c.Config.Data)
	}
}

// TestDataPickerStaysInRoot checks that a symlink leading out of the data
// root can be neither opened nor peeked, and that the picker does not go
// above the root.
func TestDataPickerStaysInRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeMTXFolder(t, filepath.Join(outside, "secret"))
	writeMTXFolder(t, filepath.Join(root, "ok"))
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "esc")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink(filepath.Join(root, "ok"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	rr, _ := filepath.EvalSymlinks(root)
	for path, want := range map[string]bool{
		filepath.Join(root, "ok"): true, filepath.Join(root, "inner"): true, filepath.Join(root, "esc"): false,
		filepath.Join(root, "esc", "matrix.mtx"): false, filepath.Join(root, ".."): false, outside: false,
		filepath.Join(root, "missing"): false, root: true,
	} {
		if got := within(rr, path); got != want {
			t.Errorf("within(root, %s) = %v, want %v", path, got, want)
		}
	}
	m := testModel(t, fakeFast)
	m.c.Config.DataRoot = root
	m.picker = newDataPicker(m.c)
	m = sized(t, m, 120, 40)
	m = press(t, m, "d", "tab")
	// Entries: ok/ (folder), then esc and inner (links sort as files).
	m = press(t, m, "j", "enter")
	if m.picker.peek != nil || m.picker.peekErr == nil || !strings.Contains(m.picker.peekErr.Error(), "outside the data root") {
		t.Fatalf("enter on the escaping link: peek %+v err %v", m.picker.peek, m.picker.peekErr)
	}
	if m.picker.fp.CurrentDirectory != rr {
		t.Errorf("the picker went into %s", m.picker.fp.CurrentDirectory)
	}
	m = press(t, m, "j", "enter") // inner → ok, inside the root
	if pk := m.picker.peek; pk == nil || pk.Cells != 4 {
		t.Errorf("the inner link: peek %+v err %v", pk, m.picker.peekErr)
	}
	m = press(t, m, "h", "h", "h") // up to the root, and no further
	if m.picker.fp.CurrentDirectory != rr {
		t.Errorf("after going up: in %s, want the root %s", m.picker.fp.CurrentDirectory, rr)
	}
	if v := text(m); strings.Contains(v, outside) || strings.Contains(v, rr) || !strings.Contains(v, "esc → outside the data root") || !strings.Contains(v, "inner → /ok") {
		t.Errorf("the screen shows a path outside the picker's relative view:\n%s", text(m))
	}
	// A spec handed in directly is checked too.
	if cmd := m.picker.peekCmd(filepath.Join(root, "esc")); cmd == nil || m.picker.peekErr == nil {
		t.Error("peekCmd accepted the escaping link")
	}
}

// TestDataPickerBadRoot names a data root that does not exist: the folder
// list is off and says why, and the built-in sets still load.
func TestDataPickerBadRoot(t *testing.T) {
	m := testModel(t, fakeFast)
	m.c.Config.DataRoot = filepath.Join(t.TempDir(), "nowhere")
	m.picker = newDataPicker(m.c)
	m = sized(t, m, 80, 24)
	m = press(t, m, "d", "tab")
	if m.picker.list != pickBuiltin || !strings.Contains(text(m), "folder list off") || !strings.Contains(text(m), "no such file") {
		t.Errorf("a missing root: list %d, screen:\n%s", m.picker.list, text(m))
	}
	m = press(t, m, "enter")
	if m.picker.peek == nil || m.picker.peek.Spec != "builtin:default" {
		t.Errorf("built-in peek with a bad root: %+v %v", m.picker.peek, m.picker.peekErr)
	}
	checkFits(t, m.View().Content, 80, 24)
}

// TestDataPickerH5ADLabels peeks an .h5ad with a categorical obs column
// and raw.X: the picker shows its shape from the file's extents, starts
// unlabelled, c picks cell_type and shows its classes, r reads raw.X, and
// the load carries both into the session and the next run.
func TestDataPickerH5ADLabels(t *testing.T) {
	if _, _, err := datasets.HDF5Library(); err != nil {
		t.Skip("libhdf5 not loaded:", err)
	}
	t.Setenv("DPSCOPE_CACHE", "off")
	root := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "datasets", "testdata", "h5", "pbmc_csr.h5ad"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pbmc.h5ad"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m := testModel(t, fakeFast)
	m.c.Config.DataRoot = root
	m.picker = newDataPicker(m.c)
	m = sized(t, m, 120, 40)
	m = press(t, m, "d", "tab", "enter")
	pk := m.picker.peek
	if pk == nil || pk.Cells != 72 || pk.Genes != 1000 || !pk.HasRaw || len(pk.ObsColumns) != 2 {
		t.Fatalf("peek %+v (%v), want 72 × 1000 with raw.X and 2 obs columns", pk, m.picker.peekErr)
	}
	v := text(m)
	if !strings.Contains(v, "72 cells × 1000 genes") || !strings.Contains(v, "labels none") || !strings.Contains(v, "cell_type (8), donor (2)") || !strings.Contains(v, "matrix X") {
		t.Errorf("the peek does not offer the columns and raw.X:\n%s", v)
	}
	m = press(t, m, "c", "r")
	if m.picker.obsCol != 0 || len(m.picker.obsClasses) != 8 || !m.picker.useRaw {
		t.Fatalf("after c, r: column %d classes %v raw %v", m.picker.obsCol, m.picker.obsClasses, m.picker.useRaw)
	}
	if v := text(m); !strings.Contains(v, "labels obs/cell_type") || !strings.Contains(v, "classes 8:") || !strings.Contains(v, "matrix raw.X") {
		t.Errorf("the chosen column and matrix are not shown:\n%s", v)
	}
	m = press(t, m, "space")
	c := m.c.Config
	if c.LabelsColumn != "cell_type" || !c.UseRaw || len(c.Summary.Classes) != 8 || c.Summary.ValueType != datasets.Counts.String() {
		t.Fatalf("after the load: column %q raw %v summary %+v (%s)", c.LabelsColumn, c.UseRaw, c.Summary, m.Status())
	}
	if cfg := c.runConfig(runPaneOf(m).Params()); cfg.LabelsColumn != "cell_type" || !cfg.UseRaw {
		t.Errorf("next run's labels column %q raw %v", cfg.LabelsColumn, cfg.UseRaw)
	}
	// A new peek starts from the session's column; cycling past the last
	// column comes back to none.
	m = press(t, m, "enter")
	if m.picker.obsCol != 0 || !m.picker.useRaw {
		t.Errorf("peek after the load: column %d raw %v, want the session's cell_type and raw.X", m.picker.obsCol, m.picker.useRaw)
	}
	m = press(t, m, "c", "c")
	if m.picker.obsCol != -1 {
		t.Errorf("two c from cell_type: column %d, want none", m.picker.obsCol)
	}
}

// TestDataPickerCancelStopsLoad cancels the load of a ~7 MB MTX folder
// with ctrl+c: the load's command returns context.Canceled (its parsing
// stopped) and the data stays as it was.
func TestDataPickerCancelStopsLoad(t *testing.T) {
	t.Setenv("DPSCOPE_CACHE", "off")
	root := t.TempDir()
	dir := filepath.Join(root, "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var mtx strings.Builder
	const genes, cells, per = 2000, 3000, 200
	fmt.Fprintf(&mtx, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", genes, cells, cells*per)
	for c := 1; c <= cells; c++ {
		for k := 0; k < per; k++ {
			fmt.Fprintf(&mtx, "%d %d 1\n", (c*7+k*13)%genes+1, c)
		}
	}
	var feats, bcs strings.Builder
	for g := 1; g <= genes; g++ {
		fmt.Fprintf(&feats, "G%d\tG%d\n", g, g)
	}
	for c := 1; c <= cells; c++ {
		fmt.Fprintf(&bcs, "c%d\n", c)
	}
	for n, s := range map[string]string{"matrix.mtx": mtx.String(), "features.tsv": feats.String(), "barcodes.tsv": bcs.String()} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := testModel(t, fakeFast)
	m.c.Config.DataRoot = root
	m.picker = newDataPicker(m.c)
	m = sized(t, m, 120, 40)
	m = press(t, m, "d", "tab", "enter")
	if pk := m.picker.peek; pk == nil || pk.Cells != cells {
		t.Fatalf("peek %+v (%v)", pk, m.picker.peekErr)
	}
	next, loadCmd := m.Update(kp("space"))
	m = next.(Model)
	next, _ = m.Update(kp("ctrl+c"))
	m = next.(Model)
	batch, ok := loadCmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("the load's command is %T, want a batch (load, tick)", loadCmd())
	}
	var loaded *pickerLoadedMsg
	for _, c := range batch {
		if msg, ok := c().(pickerLoadedMsg); ok {
			loaded = &msg
		}
	}
	if loaded == nil || !errors.Is(loaded.err, context.Canceled) || loaded.prep != nil {
		t.Fatalf("the cancelled load ended with %+v, want context.Canceled", loaded)
	}
	m, _ = settle(t, m, func() tea.Msg { return *loaded })
	if m.c.Config.Data != "builtin:toy" || !strings.Contains(m.Status(), "cancelled") {
		t.Errorf("after the cancel: data %q status %q", m.c.Config.Data, m.Status())
	}
}
