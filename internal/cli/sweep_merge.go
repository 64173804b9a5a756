package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpscope/dpscope/core/sweep"
)

// execute runs one of sweep's forms: a grid or one shard of it, --merge,
// or --emit.
func (sf *sweepFlags) execute(cmd *cobra.Command, args []string, env Env) error {
	if sf.merge {
		if err := onlyFlags(cmd, "--merge joins shard folders; it takes", "merge", "out", "json"); err != nil {
			return err
		}
		if len(args) == 0 {
			return usagef("--merge needs the shard folders as arguments (or one folder holding them)")
		}
		if sf.out == "" {
			return usagef("--merge needs --out, the folder of the joined sweep")
		}
		return mergeSweeps(cmd.Context(), args, sf.out, sf.asJSON, env)
	}
	if sf.emit == "" && len(args) > 0 {
		return usagef("sweep takes no arguments (folders follow --merge or --emit snakemake); got %q", args[0])
	}
	g, err := sf.resolveGrid(cmd)
	if err != nil {
		return err
	}
	if sf.emit != "" {
		if sf.emit != "snakemake" {
			return usagef("--emit is %q; the workflow it writes is snakemake", sf.emit)
		}
		if len(args) != 1 {
			return usagef("--emit snakemake takes one argument, the workflow's folder (got %d)", len(args))
		}
		if sf.shard != "" || sf.out != "" {
			return usagef("--emit writes the workflow and its run folders under %s: drop --shard and --out", args[0])
		}
		return emitSnakemake(cmd, g, args[0], env)
	}
	sr := sweepRun{jobs: sf.jobs, out: sf.out, asJSON: sf.asJSON}
	if sf.shard != "" {
		sh, err := sweep.ParseShard(sf.shard)
		if err != nil {
			return usagef("--%v", err)
		}
		sr.shard = &sh
	}
	return executeSweep(cmd.Context(), g, sr, env)
}

// resolveGrid is the grid of the flags, or of --grid's manifest.
func (sf *sweepFlags) resolveGrid(cmd *cobra.Command) (sweep.Grid, error) {
	if sf.gridFile == "" {
		return sf.grid(cmd)
	}
	if err := onlyFlags(cmd, "--grid takes the grid from "+sf.gridFile+"; it takes", "grid", "shard", "out", "json", "jobs", "emit"); err != nil {
		return sweep.Grid{}, err
	}
	if sf.jobs < 1 || sf.jobs > 256 {
		return sweep.Grid{}, usagef("--jobs is %d, must be 1 … 256", sf.jobs)
	}
	m, err := readSweepManifest(sf.gridFile)
	if err != nil {
		return sweep.Grid{}, usagef("--grid %v", err)
	}
	return m.Grid, nil
}

// onlyFlags refuses any flag set on cmd but the allowed ones: a grid flag
// beside --merge or --grid would be silently ignored otherwise.
func onlyFlags(cmd *cobra.Command, what string, allowed ...string) error {
	var extra []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if !slices.Contains(allowed, f.Name) {
			extra = append(extra, "--"+f.Name)
		}
	})
	if len(extra) > 0 {
		return usagef("%s only %s; drop %s", what, "--"+strings.Join(allowed, ", --"), strings.Join(extra, ", "))
	}
	return nil
}

// shardFolder is one folder given to --merge.
type shardFolder struct {
	dir string
	m   sweepManifest
}

// maxListed caps the names an error lists.
const maxListed = 5

// mergeSweeps joins the folders of every shard of one grid into the sweep
// folder out, then reports as a plain sweep of the grid does (all its runs
// are then found in out, so none runs again). The folders must agree on
// the grid (its hash covers every setting), the dpscope version and the
// number of shards, hold each shard once and every shard, and have been
// made by this dpscope: the joined folder is stamped with its version.
func mergeSweeps(ctx context.Context, args []string, out string, asJSON bool, env Env) error {
	dirs, err := expandShardDirs(args)
	if err != nil {
		return err
	}
	var parts []shardFolder
	for _, d := range dirs {
		m, err := readSweepManifest(d)
		if err != nil {
			return usagef("--merge %v", err)
		}
		if m.Shard == nil {
			return usagef("--merge: %s holds a whole sweep (made without --shard), not a shard: nothing to join", d)
		}
		parts = append(parts, shardFolder{d, m})
	}
	first := parts[0]
	n := first.m.Shard.Count
	for _, p := range parts[1:] {
		switch {
		case p.m.Hash != first.m.Hash:
			return usagef("--merge: %s and %s hold shards of different grids (grid %.12s… and %.12s…: another data set, method, ε, seed or setting): join the shards of one sweep", first.dir, p.dir, first.m.Hash, p.m.Hash)
		case p.m.Version != first.m.Version:
			return usagef("--merge: %s was made by dpscope %s and %s by dpscope %s: run every shard with the same dpscope", first.dir, first.m.Version, p.dir, p.m.Version)
		case p.m.Shard.Count != n:
			return usagef("--merge: %s is shard %s and %s is shard %s: the grid was split two ways; join the shards of one split", first.dir, first.m.Shard, p.dir, p.m.Shard)
		}
	}
	if v := version(); first.m.Version != v {
		return usagef("--merge: the shards were made by dpscope %s, this is dpscope %s: merge with the dpscope that ran them", first.m.Version, v)
	}
	owner := make([]string, n+1)
	for _, p := range parts {
		i := p.m.Shard.Index
		if owner[i] != "" {
			return usagef("--merge: %s and %s both hold shard %s: give each shard once", owner[i], p.dir, p.m.Shard)
		}
		owner[i] = p.dir
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if owner[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return usagef("--merge: %d of the %d shards missing (%s): give every shard's folder", len(missing), n, listSome(missing))
	}
	g := first.m.Grid
	points, err := g.Points()
	if err != nil {
		return usagef("--merge: the shards' grid: %v", err)
	}
	records := make([]sweepRecord, len(points))
	var absent []string
	for k, p := range points {
		sh := sweep.Shard{Index: k%n + 1, Count: n}
		r, ok := (&sweepDir{path: owner[sh.Index]}).load(p.Name)
		if !ok {
			absent = append(absent, fmt.Sprintf("%s (shard %s in %s)", p.Name, sh, owner[sh.Index]))
			continue
		}
		records[k] = r
	}
	if len(absent) > 0 {
		return fmt.Errorf("--merge: %d of the grid's %d runs are not in their shard's folder: %s; run those shards again (they resume) and merge again", len(absent), len(points), listSome(absent))
	}
	dir, err := openSweepDir(out, newSweepManifest(g, nil))
	if err != nil {
		return err
	}
	w := &stickyWriter{w: env.Stdout}
	for k, p := range points {
		if err := dir.save(p.Name, records[k]); err != nil {
			return err
		}
		if asJSON {
			b, err := json.Marshal(records[k])
			if err != nil {
				return err
			}
			w.line(b)
		}
	}
	if w.err != nil {
		return fmt.Errorf("writing the results: %w", w.err)
	}
	return executeSweep(ctx, g, sweepRun{jobs: 1, out: out, asJSON: asJSON}, env)
}

// expandShardDirs turns each argument into shard folders: a folder with a
// manifest is one; a folder without one stands for its subfolders that have
// one (so a workflow can pass shards/ instead of thousands of names, beyond
// the command line's length limit).
func expandShardDirs(args []string) ([]string, error) {
	var dirs []string
	for _, a := range args {
		if _, err := os.Stat(filepath.Join(a, manifestName)); err == nil {
			dirs = append(dirs, a)
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("--merge %s: %v", a, err)
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, usagef("--merge %s: %v", a, err)
		}
		var found []string
		for _, e := range entries {
			sub := filepath.Join(a, e.Name())
			if _, err := os.Stat(filepath.Join(sub, manifestName)); e.IsDir() && err == nil {
				found = append(found, sub)
			}
		}
		if len(found) == 0 {
			return nil, usagef("--merge %s: no %s in it or in its subfolders: not a shard folder", a, manifestName)
		}
		dirs = append(dirs, found...)
	}
	return dirs, nil
}

// listSome joins up to maxListed items and says how many more there are.
func listSome(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}
