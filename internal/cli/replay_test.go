package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/dpscope/dpscope/core/method/dcan" // method "dcan"
	_ "github.com/dpscope/dpscope/core/method/dpmd" // dpmd
	_ "github.com/dpscope/dpscope/core/method/fed"  // fl, fl-dp, ppml-omics, fedsc
	"github.com/dpscope/dpscope/datasets"

	"github.com/dpscope/dpscope/internal/israce"
)

// tinyTenX writes a small simulated 10x folder (150 cells × 300 genes, three
// cell types, labels.tsv) so that every method runs in seconds.
func tinyTenX(tb testing.TB) string {
	tb.Helper()
	g := datasets.GroupConfig{Prob: 1, DEProb: 0.2, DEDownProb: 0.5, DEFacLoc: 0.3, DEFacScale: 0.4}
	d, _, err := datasets.Simulate(datasets.SimConfig{
		Cells: 150, Genes: 300, Groups: []datasets.GroupConfig{g, g, g},
		MeanShape: 0.6, MeanRate: 0.3, LibLoc: 8.5, LibScale: 0.2, BCVCommon: 0.1, Seed: 3,
	})
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(tb.TempDir(), "tiny10x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	var mtx, feat, bc, lab strings.Builder
	fmt.Fprintf(&mtx, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", d.Genes(), d.Cells(), d.X.NNZ())
	for i := range d.Cells() {
		cols, vals := d.X.Row(i)
		for k, j := range cols {
			fmt.Fprintf(&mtx, "%d %d %g\n", j+1, i+1, vals[k])
		}
		fmt.Fprintf(&bc, "%s\n", d.Barcodes[i])
		fmt.Fprintf(&lab, "%s\t%s\n", d.Barcodes[i], d.Classes[d.Labels[i]])
	}
	for j := range d.Genes() {
		fmt.Fprintf(&feat, "%s\t%s\n", d.GeneIDs[j], d.GeneNames[j])
	}
	for name, s := range map[string]string{"matrix.mtx": mtx.String(), "features.tsv": feat.String(), "barcodes.tsv": bc.String(), "labels.tsv": lab.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// readSummary reads summary.json of a result folder without the fields that
// differ between two runs of the same configuration (the time taken).
func readSummary(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "seconds")
	return m
}

// TestReplaySameResult: the config.toml written by --out replays to the same
// summary, for every method (issue 14 point 15). The builtin sets are too
// big for a unit test; a 150-cell folder keeps it to seconds per method.
func TestReplaySameResult(t *testing.T) {
	israce.SkipNumerics(t)
	if testing.Short() {
		t.Skip("trains every method twice")
	}
	data := tinyTenX(t)
	cases := [][]string{
		{"--method", "dcan", "--mode", "sound", "--epochs", "2,1", "--epsilon", "8"},
		{"--method", "dcan", "--mode", "nonprivate", "--epochs", "1,1"},
		{"--method", "fl", "--mode", "nonprivate", "--epochs", "2", "--clients", "3"},
		{"--method", "fl-dp", "--mode", "sound", "--epochs", "2", "--clients", "3", "--epsilon", "8"},
		{"--method", "ppml-omics", "--mode", "paper", "--epochs", "2", "--clients", "3", "--epsilon", "8", "--clip", "5"},
		{"--method", "fedsc", "--mode", "sound", "--epochs", "2", "--clients", "3", "--epsilon", "8"},
		{"--method", "dpmd", "--mode", "paper", "--manifold", "circle", "--n", "300", "--queries", "20", "--sigma", "0.1", "--epsilon", "8"},
	}
	for _, args := range cases {
		t.Run(args[1]+"-"+args[3], func(t *testing.T) {
			first := filepath.Join(t.TempDir(), "first")
			base := []string{"run", "--seed", fmt.Sprint(uint64(maxSeed)), "--out", first}
			if args[1] != "dpmd" {
				base = append(base, "--data", data)
			}
			code, _, stderr := run(t, append(base, args...)...)
			if code != ExitOK {
				t.Fatalf("run %q: exit %d: %s", args, code, stderr)
			}
			second := filepath.Join(t.TempDir(), "second")
			code, _, stderr = run(t, "run", "--config", filepath.Join(first, "config.toml"), "--out", second)
			if code != ExitOK {
				t.Fatalf("replay of %q: exit %d: %s", args, code, stderr)
			}
			a, b := readSummary(t, first), readSummary(t, second)
			if steps, _ := a["steps"].(float64); steps < 1 || a["stopped"] != false || a["error"] != nil {
				t.Errorf("run %q: steps %v, stopped %v, error %v; want a finished run", args, a["steps"], a["stopped"], a["error"])
			}
			// Every method that clusters writes its clusters (the default,
			// dcan, did not); dpmd denoises and writes its points only.
			want := []string{"assignments.tsv", "config.toml", "embedding.tsv", "events.jsonl", "summary.json"}
			if args[1] == "dpmd" {
				want = []string{"config.toml", "embedding.tsv", "events.jsonl", "summary.json"}
			}
			if got := dirNames(t, first); !reflect.DeepEqual(got, want) {
				t.Errorf("run %q wrote %v, want %v", args, got, want)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("replay of %q differs:\nfirst  %v\nsecond %v", args, a, b)
			}
			cfgA, _ := os.ReadFile(filepath.Join(first, "config.toml"))
			cfgB, _ := os.ReadFile(filepath.Join(second, "config.toml"))
			if string(cfgA) != string(cfgB) {
				t.Errorf("replayed config differs:\n%s\n%s", cfgA, cfgB)
			}
		})
	}
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestReplayFromAnotherFolder: a relative --data is written as an absolute
// path, so config.toml replays from anywhere.
func TestReplayFromAnotherFolder(t *testing.T) {
	data := tinyTenX(t)
	t.Chdir(filepath.Dir(data))
	first := filepath.Join(t.TempDir(), "first")
	code, _, stderr := run(t, "run", "--method", "fl", "--mode", "nonprivate", "--epochs", "1", "--clients", "2",
		"--data", filepath.Base(data), "--out", first)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Chdir(t.TempDir())
	second := filepath.Join(t.TempDir(), "second")
	code, _, stderr = run(t, "run", "--config", filepath.Join(first, "config.toml"), "--out", second)
	if code != ExitOK {
		t.Fatalf("replay from another folder: exit %d: %s", code, stderr)
	}
	if a, b := readSummary(t, first), readSummary(t, second); !reflect.DeepEqual(a["ari"], b["ari"]) || a["steps"] != b["steps"] {
		t.Errorf("replay from another folder: ARI %v, steps %v; first run %v, %v", b["ari"], b["steps"], a["ari"], a["steps"])
	}
}

// TestInspectPrintsWarnings: what a reader found odd reaches the user.
func TestInspectPrintsWarnings(t *testing.T) {
	data := tinyTenX(t)
	labels := filepath.Join(t.TempDir(), "one.tsv")
	b, _ := os.ReadFile(filepath.Join(data, "barcodes.tsv"))
	var s strings.Builder
	for _, bc := range strings.Fields(string(b)) {
		s.WriteString(bc + "\tT cell\n")
	}
	os.WriteFile(labels, []byte(s.String()), 0o644)
	for _, asJSON := range []bool{false, true} {
		args := []string{"data", "inspect", data, "--labels", labels}
		if asJSON {
			args = append(args, "--json")
		}
		code, stdout, stderr := run(t, args...)
		if code != ExitOK || !strings.Contains(stdout, "warning") || !strings.Contains(stdout, "same label") {
			t.Errorf("inspect with one-class labels (json %v): exit %d, %s %s; want a warning", asJSON, code, stdout, stderr)
		}
	}
}
