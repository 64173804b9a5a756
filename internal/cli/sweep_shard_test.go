package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/dpscope/dpscope/core/method/dppca" // dppca, the method the shard tests sweep
	"github.com/dpscope/dpscope/internal/fixture"
)

// writeSeparatedMTX writes fixture.Separated as a 10x MatrixMarket folder
// with labels.tsv: a data set small enough for a dppca run in a few tens
// of milliseconds.
func writeSeparatedMTX(t *testing.T) string {
	t.Helper()
	d := fixture.Separated(4, 50, 240, 5)
	dir := filepath.Join(t.TempDir(), "separated")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var m, feats, bars, labels bytes.Buffer
	x := d.X
	fmt.Fprintf(&m, "%%%%MatrixMarket matrix coordinate integer general\n%d %d %d\n", x.Cols, x.Rows, len(x.Data))
	for i := range x.Rows {
		for k := x.Indptr[i]; k < x.Indptr[i+1]; k++ {
			fmt.Fprintf(&m, "%d %d %d\n", x.Indices[k]+1, i+1, int(x.Data[k])) // genes × cells
		}
		fmt.Fprintf(&bars, "%s\n", d.Barcodes[i])
		fmt.Fprintf(&labels, "%s\t%s\n", d.Barcodes[i], d.Classes[d.Labels[i]])
	}
	for _, g := range d.GeneIDs {
		fmt.Fprintf(&feats, "%s\t%s\tGene Expression\n", g, g)
	}
	for name, b := range map[string]*bytes.Buffer{"matrix.mtx": &m, "features.tsv": &feats, "barcodes.tsv": &bars, "labels.tsv": &labels} {
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// jsonLines splits stdout into its JSON lines: the runs, then the summary.
func jsonLines(t *testing.T, stdout string) (runs []map[string]any, last string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for _, l := range lines[:len(lines)-1] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		delete(m, "seconds") // the one field that differs between two runs of a config
		runs = append(runs, m)
	}
	return runs, lines[len(lines)-1]
}

// TestShardMergeEqualsPlainSweep: a dppca grid run as three shards and
// merged prints what the plain sweep of the grid prints — the same final
// line byte for byte, the same run records but for their timings, the
// same table — and the merged folder is the plain sweep's folder: the
// plain command resumes it with nothing left to run.
func TestShardMergeEqualsPlainSweep(t *testing.T) {
	data := writeSeparatedMTX(t)
	grid := []string{"sweep", "--data", data, "--method", "dppca", "--mode", "sound,nonprivate", "--epsilon", "1,8", "--seeds", "0-1", "--genes", "100"}
	code, plain, stderr := run(t, append(grid, "--json")...)
	if code != ExitOK {
		t.Fatalf("plain sweep: exit %d: %s", code, stderr)
	}
	plainRuns, plainLast := jsonLines(t, plain)
	if len(plainRuns) != 6 {
		t.Fatalf("plain sweep: %d run lines, want 2 ε × 2 seeds + 2 nonprivate", len(plainRuns))
	}
	tmp := t.TempDir()
	var shardDirs []string
	total := 0
	for i := 1; i <= 3; i++ {
		dir := filepath.Join(tmp, fmt.Sprintf("part%d", i))
		code, out, stderr := run(t, append(grid, "--shard", fmt.Sprintf("%d/3", i), "--out", dir, "--json")...)
		if code != ExitOK {
			t.Fatalf("shard %d/3: exit %d: %s", i, code, stderr)
		}
		runs, last := jsonLines(t, out)
		total += len(runs)
		if len(runs) != 2 || !strings.Contains(last, fmt.Sprintf(`"shard":{"index":%d,"count":3}`, i)) || !strings.Contains(last, `"reference":null`) {
			t.Errorf("shard %d/3: %d runs, last line %s; want 2 runs, the shard named, no reference lines", i, len(runs), last)
		}
		shardDirs = append(shardDirs, dir)
	}
	if total != 6 {
		t.Errorf("the shards ran %d runs, want the grid's 6", total)
	}
	merged := filepath.Join(tmp, "merged")
	code, out, stderr := run(t, append([]string{"sweep", "--merge", "--json", "--out", merged}, shardDirs[2], shardDirs[0], shardDirs[1])...)
	if code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	mergedRuns, mergedLast := jsonLines(t, out)
	if mergedLast != plainLast {
		t.Errorf("merged final line differs from the plain sweep's:\n%s\n%s", mergedLast, plainLast)
	}
	if len(mergedRuns) != len(plainRuns) {
		t.Fatalf("merge printed %d runs, the plain sweep %d", len(mergedRuns), len(plainRuns))
	}
	key := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) }
	want := map[string]bool{}
	for _, r := range plainRuns {
		want[key(r)] = true
	}
	for _, r := range mergedRuns {
		if !want[key(r)] {
			t.Errorf("merged run record not in the plain sweep: %s", key(r))
		}
	}
	// The table: the merge of a folder merged again (same manifest) and the
	// plain sweep print the same.
	_, plainTable, _ := run(t, grid...)
	code, mergedTable, stderr := run(t, append([]string{"sweep", "--merge", "--out", merged}, shardDirs...)...)
	if code != ExitOK || mergedTable != plainTable {
		t.Errorf("merged table (exit %d, %s):\n%s\nplain:\n%s", code, stderr, mergedTable, plainTable)
	}
	// The plain sweep resumes the merged folder: nothing runs, so it prints
	// only the final line.
	code, resumed, stderr := run(t, append(grid, "--out", merged, "--json")...)
	if code != ExitOK || strings.TrimSpace(resumed) != plainLast {
		t.Errorf("plain sweep into the merged folder: exit %d %s, printed\n%s", code, stderr, resumed)
	}
}

// gradedShards runs the test-graded grid over ε (args) on data as n
// shards into folders under a new temporary folder and returns them. The
// data are writeSeparatedMTX's, on which a merge's B1 line takes
// milliseconds.
func gradedShards(t *testing.T, data string, n int, args ...string) []string {
	t.Helper()
	args = append([]string{"--data", data}, args...)
	tmp := t.TempDir()
	var dirs []string
	for i := 1; i <= n; i++ {
		dir := filepath.Join(tmp, fmt.Sprintf("part%d", i))
		code, _, stderr := run(t, append([]string{"sweep", "--method", "test-graded", "--mode", "sound", "--seeds", "0-2",
			"--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir}, args...)...)
		if code != ExitOK {
			t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, stderr)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// editManifest rewrites dir's manifest through f.
func editManifest(t *testing.T, dir string, f func(*sweepManifest)) {
	t.Helper()
	m, err := readSweepManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	f(&m)
	b, err := marshalManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMergeRefuses: every way the folders can disagree or fall short is
// refused with a message naming the folders and what differs, and nothing
// is written to --out.
func TestMergeRefuses(t *testing.T) {
	smallData := writeSeparatedMTX(t)
	a := gradedShards(t, smallData, 2, "--epsilon", "1,2")
	other := gradedShards(t, smallData, 2, "--epsilon", "1,4")
	three := gradedShards(t, smallData, 3, "--epsilon", "1,2")
	whole := filepath.Join(t.TempDir(), "whole")
	if code, _, stderr := run(t, "sweep", "--data", smallData, "--method", "test-graded", "--mode", "sound", "--epsilon", "1,2", "--seeds", "0-2", "--out", whole); code != ExitOK {
		t.Fatal(stderr)
	}
	oldVersion := gradedShards(t, smallData, 2, "--epsilon", "1,2")
	editManifest(t, oldVersion[1], func(m *sweepManifest) { m.Version = "v0.0.1" })
	bothOld := gradedShards(t, smallData, 2, "--epsilon", "1,2")
	editManifest(t, bothOld[0], func(m *sweepManifest) { m.Version = "v0.0.1" })
	editManifest(t, bothOld[1], func(m *sweepManifest) { m.Version = "v0.0.1" })
	edited := gradedShards(t, smallData, 2, "--epsilon", "1,2")
	editManifest(t, edited[1], func(m *sweepManifest) { m.Grid.Seeds = []uint64{7} })
	lost := gradedShards(t, smallData, 2, "--epsilon", "1,2")
	if err := os.Remove(filepath.Join(lost[1], "runs", "test-graded_sound_eps2_seed0.json")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dirs []string
		code int
		want []string
	}{
		{"other grid", []string{a[0], other[1]}, ExitUsage, []string{"different grids", a[0], other[1]}},
		{"other split", []string{a[0], three[1], three[2]}, ExitUsage, []string{"shard 1/2", "shard 2/3", "split two ways"}},
		{"other version", oldVersion, ExitUsage, []string{"dpscope v0.0.1", oldVersion[1]}},
		{"version of the merger", bothOld, ExitUsage, []string{"made by dpscope v0.0.1", "merge with the dpscope that ran them"}},
		{"edited grid", edited, ExitUsage, []string{edited[1], "edited or damaged"}},
		{"shard twice", []string{a[0], a[0], a[1]}, ExitUsage, []string{"both hold shard 1/2"}},
		{"shard missing", a[:1], ExitUsage, []string{"1 of the 2 shards missing (2/2)"}},
		{"whole sweep", []string{whole}, ExitUsage, []string{whole, "not a shard"}},
		{"no manifest", []string{t.TempDir()}, ExitUsage, []string{"no manifest.json"}},
		{"run missing", lost, ExitRuntime, []string{"1 of the grid's 6 runs", "test-graded_sound_eps2_seed0 (shard 2/2 in " + lost[1], "run those shards again"}},
	} {
		out := filepath.Join(t.TempDir(), "merged")
		code, _, stderr := run(t, append([]string{"sweep", "--merge", "--out", out}, tc.dirs...)...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: %q does not say %q", tc.name, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: --out was written", tc.name)
		}
	}
	// The shards given as the folder that holds them merge; the merged
	// folder cannot be one of the shards'.
	parent := filepath.Dir(a[0])
	code, out, stderr := run(t, "sweep", "--merge", parent, "--out", filepath.Join(t.TempDir(), "m"))
	if code != ExitOK || !strings.Contains(out, "0.677 ± 0.010") {
		t.Errorf("merge of the shards' parent folder: exit %d %s\n%s", code, stderr, out)
	}
	code, _, stderr = run(t, "sweep", "--merge", a[0], a[1], "--out", a[0])
	if code != ExitUsage || !strings.Contains(stderr, "holds shard 1/2 of this grid; this is the whole grid") {
		t.Errorf("merge into a shard's folder: exit %d, %s", code, stderr)
	}
}

// TestShardUsage: --shard values and the flags --merge and --grid leave no
// room for are refused, and a shard's folder is not resumed as another
// shard or the whole grid.
func TestShardUsage(t *testing.T) {
	smallData := writeSeparatedMTX(t)
	dirs := gradedShards(t, smallData, 2, "--epsilon", "1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/2"}, `shard is "3/2"`},
		{[]string{"--shard", "0/2"}, `shard is "0/2"`},
		{[]string{"--shard", "x"}, "INDEX/COUNT"},
		{[]string{"--merge", dirs[0]}, "needs --out"},
		{[]string{"--merge", "--out", "x"}, "needs the shard folders"},
		{[]string{"--merge", dirs[0], "--out", "x", "--epsilon", "3"}, "drop --epsilon"},
		{[]string{"--grid", dirs[0], "--seeds", "3"}, "drop --seeds"},
		{[]string{"--grid", filepath.Join(t.TempDir(), "none.json")}, "none.json"},
		{[]string{"extra"}, `got "extra"`},
		{[]string{"--emit", "make", "x"}, `--emit is "make"`},
		{[]string{"--emit", "snakemake"}, "one argument"},
		{[]string{"--data", smallData, "--epsilon", "1", "--seeds", "0-2", "--shard", "1/2", "--out", dirs[1]}, "holds shard 2/2 of this grid; this is shard 1/2"},
		{[]string{"--data", smallData, "--epsilon", "1", "--seeds", "0-2", "--out", dirs[1]}, "this is the whole grid"},
	} {
		prefix := []string{"sweep", "--method", "test-graded", "--mode", "sound"}
		if tc.args[0] == "--merge" || tc.args[0] == "--grid" {
			prefix = prefix[:1]
		}
		code, _, stderr := run(t, append(prefix, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want a usage error saying %q", tc.args, code, stderr, tc.want)
		}
	}
	// --grid reruns a folder's grid: the shard's folder resumes, nothing left.
	code, out, stderr := run(t, "sweep", "--grid", dirs[0], "--shard", "1/2", "--out", dirs[0], "--json")
	if code != ExitOK || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"shard":{"index":1,"count":2}`) {
		t.Errorf("--grid resume: exit %d %s\n%s", code, stderr, out)
	}
}
