package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestResourcesFor pins the rule of sweep_emit.go: memory 2 × (1024 MB +
// 6 × S), S = 12·nnz + 8·cells·genes bytes, rounded up to 256 MB; 2 CPUs
// from 10⁶ cells·genes.
func TestResourcesFor(t *testing.T) {
	for _, tc := range []struct {
		nnz, cells, genes int
		want              runResources
	}{
		{0, 100, 100, runResources{MemMB: 2304, Threads: 1}},                // 2 × (1024 + 0.46) = 2049 → 2304
		{870065, 4271, 1989, runResources{MemMB: 3072, Threads: 2}},         // pbmc_4k: S = 74.8 MB, 2945 → 3072
		{100_000_000, 50_000, 2000, runResources{MemMB: 25088, Threads: 2}}, // S = 1907 MB: 2 × 12468 = 24936 → 25088
		{0, 999, 1000, runResources{MemMB: 2304, Threads: 1}},
		{0, 1000, 1000, runResources{MemMB: 2304, Threads: 2}},
	} {
		if got := resourcesFor(tc.nnz, tc.cells, tc.genes); got != tc.want {
			t.Errorf("resourcesFor(%d, %d, %d) = %+v, want %+v", tc.nnz, tc.cells, tc.genes, got, tc.want)
		}
	}
}

// TestEmitSnakemake: the emitted workflow names every run once, in grid
// order, with the rule's resources; its grid.json is the plain sweep's
// grid; running each job's command and then the merge's, as Snakemake
// would, gives the plain sweep's result. The folder of another grid is
// refused, the same grid's is written again.
func TestEmitSnakemake(t *testing.T) {
	data := writeSeparatedMTX(t)
	grid := []string{"sweep", "--data", data, "--method", "test-graded", "--mode", "sound,nonprivate", "--epsilon", "1,2", "--seeds", "0-1"}
	wf := filepath.Join(t.TempDir(), "wf")
	code, out, stderr := run(t, append(grid, "--emit", "snakemake", wf)...)
	if code != ExitOK {
		t.Fatalf("emit: exit %d: %s", code, stderr)
	}
	// 200 cells × 240 genes (none dropped), 1 CPU, 2 × (1024 + 6·S) MB.
	if !strings.Contains(out, "workflow of 6 runs") || !strings.Contains(out, "1 CPU, 2304 MB") {
		t.Errorf("emit said:\n%s", out)
	}
	snake, err := os.ReadFile(filepath.Join(wf, "Snakefile"))
	if err != nil {
		t.Fatal(err)
	}
	plainDir := filepath.Join(t.TempDir(), "plain")
	code, plain, stderr := run(t, append(grid, "--json", "--out", plainDir)...)
	if code != ExitOK {
		t.Fatalf("plain sweep: exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(plainDir, "runs"))
	runs := regexp.MustCompile(`(?m)^    "([^"]+)": (\d+),$`).FindAllStringSubmatch(string(snake), -1)
	if len(runs) != 6 || len(entries) != 6 {
		t.Fatalf("Snakefile lists %d runs, the plain sweep saved %d; want 6", len(runs), len(entries))
	}
	for i, r := range runs {
		if r[2] != fmt.Sprint(i+1) {
			t.Errorf("run %s is shard %s, want %d", r[1], r[2], i+1)
		}
		if _, err := os.Stat(filepath.Join(plainDir, "runs", r[1]+".json")); err != nil {
			t.Errorf("Snakefile run %s is no run of the plain sweep", r[1])
		}
	}
	for _, want := range []string{"THREADS = 1", "MEM_MB = 2304", "rule merge:", "rule report:", " report {WF:q}/merged", "N = 6"} {
		if !strings.Contains(string(snake), want) {
			t.Errorf("Snakefile lacks %q", want)
		}
	}
	// The default target asks for the report exactly when this dpscope has
	// a report command (the rule is there either way).
	root := newRootCmd(Env{})
	if got, has := strings.Contains(string(snake), `WF + "/report.done",`), hasSubcommand(root, "report"); got != has {
		t.Errorf("rule all asks for the report: %v; dpscope has a report command: %v", got, has)
	}
	if !hasSubcommand(root, "sweep") || hasSubcommand(root, "no-such-command") {
		t.Error("hasSubcommand does not tell sweep from no-such-command")
	}
	for _, f := range []string{"profiles/local/config.yaml", "profiles/slurm/config.yaml", "slurm/array.sbatch", "slurm/submit.sh"} {
		b, err := os.ReadFile(filepath.Join(wf, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(f, "slurm") && !strings.Contains(string(b), "2304") {
			t.Errorf("%s does not ask for the run's 2304 MB:\n%s", f, b)
		}
	}
	array, _ := os.ReadFile(filepath.Join(wf, "slurm/array.sbatch"))
	if !strings.Contains(string(array), "#SBATCH --array=1-6%100") || !strings.Contains(string(array), `--shard "$k/6"`) {
		t.Errorf("array.sbatch:\n%s", array)
	}
	// The jobs, as the rule runs them, then the merge.
	for _, r := range runs {
		dir := filepath.Join(wf, "shards", r[1])
		if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil { // as Snakemake does
			t.Fatal(err)
		}
		code, _, stderr := run(t, "sweep", "--grid", filepath.Join(wf, "grid.json"), "--shard", r[2]+"/6", "--out", dir, "--json")
		if code != ExitOK {
			t.Fatalf("job %s: exit %d: %s", r[1], code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "runs", r[1]+".json")); err != nil {
			t.Errorf("job %s did not write its declared output: %v", r[1], err)
		}
	}
	code, merged, stderr := run(t, "sweep", "--merge", filepath.Join(wf, "shards"), "--out", filepath.Join(wf, "merged"), "--json")
	if code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	_, mergedLast := jsonLines(t, merged)
	if _, plainLast := jsonLines(t, plain); mergedLast != plainLast {
		t.Errorf("merged:\n%s\nplain:\n%s", mergedLast, plainLast)
	}
	// Again into the same folder: written again; another grid: refused.
	if code, _, stderr := run(t, append(grid, "--emit", "snakemake", wf)...); code != ExitOK {
		t.Errorf("emit again: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "sweep", "--data", data, "--method", "test-graded", "--epsilon", "3", "--emit", "snakemake", wf)
	if code != ExitUsage || !strings.Contains(stderr, "workflow of another sweep") {
		t.Errorf("emit of another grid into the folder: exit %d, %s", code, stderr)
	}
	code, _, stderr = run(t, append(grid, "--emit", "snakemake", filepath.Join(wf, "shards"))...)
	if code != ExitUsage || !strings.Contains(stderr, "content but no grid.json") {
		t.Errorf("emit into a folder with content: exit %d, %s", code, stderr)
	}
}
