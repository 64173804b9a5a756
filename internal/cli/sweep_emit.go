package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/dpscope/dpscope/core/sweep"
)

// runResources is what one run of a grid asks a scheduler for.
type runResources struct {
	MemMB   int // memory, MB (Slurm --mem)
	Threads int // CPUs (Slurm --cpus-per-task; OpenBLAS's and Go's threads)
}

// The memory rule, stated before measuring (commit 47d78a5): a run's peak
// RSS is modelled as a + b·S, with S = 12·nnz + 8·cells·genes bytes (the
// raw sparse matrix as read, then the preprocessed float32 matrix and its
// raw counts) and a, b the largest intercept and slope over the registered
// methods measured at 1 epoch (memory does not grow with epochs) on
// builtin:default (S = 46 MB) and pbmc_4k (S = 78 MB). Measured peaks, MB
// (/usr/bin/time -f %M): dppca 48→55, dcan-sound 55→57, fedsc 116→160,
// dcan 214→269, dpmd 167→352, fl-dp 1129→1207, ppml-omics 1130→1210:
// largest slope dpmd's 5.8, largest intercept fl-dp's ≈ 1017 MB. The
// request is twice the model (Slurm kills a job at its limit; an idle half
// of a request costs less than a failed run), rounded up to 256 MB, at
// least 1 GB.
const (
	memFixedMB    = 1024 // a, rounded up
	memPerByte    = 6    // b, rounded up
	memSafety     = 2
	memStepMB     = 256
	memMinMB      = 1024
	threadsCutoff = 1_000_000 // cells × genes from which a run gets 2 threads
)

// resourcesFor applies the rule to a data set of nnz stored values whose
// preprocessed matrix is cells × genes. Threads: 1 below 10⁶ entries (the
// products are too small for BLAS threads to pay), else 2 (a grid scales
// better over more runs than over more threads per run).
func resourcesFor(nnz, cells, genes int) runResources {
	sMB := (12*float64(nnz) + 8*float64(cells)*float64(genes)) / (1 << 20)
	mem := memSafety * (memFixedMB + memPerByte*sMB)
	r := runResources{MemMB: max(memMinMB, int(math.Ceil(mem/memStepMB))*memStepMB), Threads: 1}
	if float64(cells)*float64(genes) >= threadsCutoff {
		r.Threads = 2
	}
	return r
}

// maxArrayTasks caps the tasks of the emitted Slurm job array: many
// clusters set MaxArraySize near 1000, so a larger grid is split into 1000
// shards of several runs each.
const maxArrayTasks = 1000

// workflow is what the emitted files are written from.
type workflow struct {
	Version, Hash, Data string
	WF, Cwd, Exe        string
	Runs                []sweep.Point
	N, ArrayTasks       int
	Cells, Genes, NNZ   int
	Res                 runResources
	Report              bool // this dpscope has `report`: the default target includes it
}

// emitSnakemake writes the Snakemake workflow of g into dir: grid.json
// (the grid's manifest, which every job reads with --grid), the Snakefile,
// profiles/local and profiles/slurm, and slurm/array.sbatch with
// slurm/submit.sh (a plain Slurm job array, as Snakemake 7 submits one job
// per run and has no arrays). dir must be new, empty or a workflow of the
// same grid (whose files are then written again).
func emitSnakemake(cmd *cobra.Command, g sweep.Grid, dir string, env Env) error {
	points, err := g.Points()
	if err != nil {
		return usageError{err}
	}
	wf := workflow{Version: version(), Hash: g.Hash(), Data: g.Base.Data, Runs: points, N: len(points)}
	wf.ArrayTasks = min(wf.N, maxArrayTasks)
	if wf.WF, err = filepath.Abs(dir); err != nil {
		return fmt.Errorf("--emit %s: %w", dir, err)
	}
	if wf.Cwd, err = os.Getwd(); err != nil {
		return err
	}
	if wf.Exe, err = os.Executable(); err != nil {
		return fmt.Errorf("--emit: the path of this dpscope: %w", err)
	}
	wf.Report = hasSubcommand(cmd.Root(), "report")
	// The data set's size sets each run's resources; loading it also
	// checks, before anything is queued, that every job can read it.
	prep, err := g.Base.LoadData()
	if err != nil {
		return usagef("--emit: data %s: %v", g.Base.Data, err)
	}
	s := prep.Summary()
	wf.Cells, wf.Genes, wf.NNZ = s.KeptCells, s.SelectedGenes, s.NonZero
	wf.Res = resourcesFor(s.NonZero, s.KeptCells, s.SelectedGenes)

	m := newSweepManifest(g, nil)
	if err := checkEmitDir(wf.WF, m); err != nil {
		return err
	}
	files := map[string]*template.Template{
		"Snakefile":                  snakefileTmpl,
		"profiles/local/config.yaml": localProfileTmpl,
		"profiles/slurm/config.yaml": slurmProfileTmpl,
		"slurm/array.sbatch":         arrayTmpl,
		"slurm/submit.sh":            submitTmpl,
	}
	for name, t := range files {
		var b bytes.Buffer
		if err := t.Execute(&b, wf); err != nil {
			return err
		}
		path := filepath.Join(wf.WF, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("--emit: %w", err)
		}
		if err := writeFileAtomic(path, b.Bytes()); err != nil {
			return err
		}
		if strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".sbatch") {
			if err := os.Chmod(path, 0o755); err != nil {
				return err
			}
		}
	}
	mb, err := marshalManifest(m)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(wf.WF, gridFileName), mb); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote a Snakemake workflow of %d runs to %s (each run: %d CPU, %d MB, from %d cells × %d genes, %d stored values)\n"+
		"  one machine: snakemake -s %s --profile %s\n"+
		"  Slurm:       snakemake -s %s --profile %s   (set slurm_account and slurm_partition in it first)\n"+
		"  Slurm array: %s\n",
		wf.N, wf.WF, wf.Res.Threads, wf.Res.MemMB, wf.Cells, wf.Genes, wf.NNZ,
		filepath.Join(wf.WF, "Snakefile"), filepath.Join(wf.WF, "profiles", "local"),
		filepath.Join(wf.WF, "Snakefile"), filepath.Join(wf.WF, "profiles", "slurm"),
		filepath.Join(wf.WF, "slurm", "submit.sh"))
	return nil
}

// hasSubcommand reports whether root has the subcommand name (Find
// returns root itself for an unknown name).
func hasSubcommand(root *cobra.Command, name string) bool {
	c, _, err := root.Find([]string{name})
	return err == nil && c != root && c.Name() == name
}

// gridFileName is the grid's manifest in an emitted workflow's folder.
const gridFileName = "grid.json"

// checkEmitDir accepts a new or empty folder, or one whose grid.json is
// the same grid's: a workflow never overwrites another's runs.
func checkEmitDir(dir string, m sweepManifest) error {
	old, err := readSweepManifest(filepath.Join(dir, gridFileName))
	switch {
	case err == nil:
		if old.Hash != m.Hash || old.Version != m.Version {
			return usagef("--emit: %s holds the workflow of another sweep (grid %.12s…, dpscope %s); this is grid %.12s…, dpscope %s: choose another folder", dir, old.Hash, old.Version, m.Hash, m.Version)
		}
		return nil
	case errors.Is(err, fs.ErrNotExist):
		entries, rerr := os.ReadDir(dir)
		if rerr == nil && len(entries) > 0 {
			return usagef("--emit: %s is a folder with content but no %s: choose an empty or new folder", dir, gridFileName)
		}
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return fmt.Errorf("--emit %s: %w", dir, rerr)
		}
		return nil
	default:
		return usagef("--emit: %v", err)
	}
}
