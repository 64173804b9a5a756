package cli

// The files --emit snakemake writes, as templates of a workflow.

import (
	"strconv"
	"text/template"
)

var emitFuncs = template.FuncMap{
	"py":  strconv.Quote, // Python reads Go's quoted strings (\", \\, \n, \u…)
	"sh":  shellQuote,
	"inc": func(i int) int { return i + 1 },
}

var snakefileTmpl = template.Must(template.New("Snakefile").Funcs(emitFuncs).Parse(`# Snakemake workflow of a dpscope sweep, written by ` + "`dpscope sweep --emit snakemake`" + `
# (dpscope {{.Version}}). The grid ({{.N}} runs, hash {{printf "%.12s" .Hash}}…) is in grid.json.
#
#   one machine: snakemake -s {{.WF}}/Snakefile --profile {{.WF}}/profiles/local
#   Slurm:       snakemake -s {{.WF}}/Snakefile --profile {{.WF}}/profiles/slurm
#   another dpscope binary: add --config dpscope=/path/to/dpscope
#
# Each run is one job, dpscope sweep --grid grid.json --shard K/{{.N}}: with as many
# shards as runs, shard K is exactly the K-th run of the grid. Its record lands in
# shards/NAME/runs/NAME.json; the rule merge joins the shards into merged/ and
# prints the sweep as a plain ` + "`dpscope sweep`" + ` of the grid would (merged.jsonl,
# merged.txt); the rule report writes the report of merged/.
#
# Resources of a run, from the data ({{.Data}}: {{.Cells}} cells × {{.Genes}} genes after
# preprocessing, {{.NNZ}} stored values): {{.Res.Threads}} CPU, {{.Res.MemMB}} MB. The rule:
# memory = 2 × (1024 MB + 6 × S), S = 12·nnz + 8·cells·genes bytes, rounded up to
# 256 MB, at least 1024 MB; 1 CPU below 10^6 cells·genes, else 2.

DPSCOPE = config.get("dpscope", {{py .Exe}})
WF = {{py .WF}}

# Relative paths in the grid (--data, --labels) are read from the folder the
# workflow was written from.
workdir: {{py .Cwd}}

RUNS = {
{{- range $i, $p := .Runs}}
    {{py $p.Name}}: {{inc $i}},
{{- end}}
}
N = {{.N}}
THREADS = {{.Res.Threads}}
MEM_MB = {{.Res.MemMB}}

localrules: all

rule all:
    input:
        WF + "/merged.jsonl",
        WF + "/merged.txt",{{if .Report}}
        WF + "/report.done",{{end}}

rule run:
    output:
        WF + "/shards/{run}/runs/{run}.json",
    log:
        WF + "/logs/{run}.log",
    params:
        shard=lambda w: "%d/%d" % (RUNS[w.run], N),
    threads: THREADS
    resources:
        mem_mb=MEM_MB,
        cpus_per_task=THREADS,
    shell:
        "OPENBLAS_NUM_THREADS={resources.cpus_per_task} GOMAXPROCS={resources.cpus_per_task} {DPSCOPE:q} sweep"
        " --grid {WF:q}/grid.json --shard {params.shard}"
        " --out {WF:q}/shards/{wildcards.run:q} --json > {log:q} 2>&1"

# The merge computes the reference lines (B1 and the methods' nulls) once,
# on the whole data set, so it gets a run's resources.
rule merge:
    input:
        expand(WF + "/shards/{run}/runs/{run}.json", run=RUNS),
    output:
        merged=directory(WF + "/merged"),
        json=WF + "/merged.jsonl",
        table=WF + "/merged.txt",
    threads: THREADS
    resources:
        mem_mb=MEM_MB,
        cpus_per_task=THREADS,
    shell:
        "OPENBLAS_NUM_THREADS={resources.cpus_per_task} GOMAXPROCS={resources.cpus_per_task} {DPSCOPE:q} sweep --merge {WF:q}/shards"
        " --out {output.merged:q} --json > {output.json:q}"
        " && {DPSCOPE:q} sweep --merge {WF:q}/shards --out {output.merged:q} > {output.table:q}"

rule report:
    input:
        WF + "/merged",
        WF + "/merged.jsonl",
    output:
        touch(WF + "/report.done"),
    shell:
        "{DPSCOPE:q} report {WF:q}/merged"
`))

var localProfileTmpl = template.Must(template.New("local").Parse(`# Snakemake profile for one machine: runs as many jobs at once as the
# cores allow, each with its threads.
cores: all
printshellcmds: true
rerun-incomplete: true
`))

var slurmProfileTmpl = template.Must(template.New("slurm").Parse(`# Snakemake 7 profile for Slurm: its built-in executor submits every run
# as one sbatch job with --cpus-per-task from the rules' cpus_per_task
# ({{.Res.Threads}}; their threads would be capped at 1 here, as no --cores is given)
# and --mem from their mem_mb ({{.Res.MemMB}} MB). Snakemake 7 has no job arrays; for one
# array of {{.ArrayTasks}} tasks use ../../slurm/submit.sh instead.
slurm: true
jobs: 200              # jobs queued at once
latency-wait: 60       # shared file systems show a job's files late
rerun-incomplete: true
retries: 1
printshellcmds: true
default-resources:
  - runtime=120        # minutes per run: raise it for trained methods on large data
  # - slurm_account=YOUR_ACCOUNT
  # - slurm_partition=YOUR_PARTITION
`))

var arrayTmpl = template.Must(template.New("array").Funcs(emitFuncs).Parse(`#!/usr/bin/env bash
# One Slurm job array for the {{.N}} runs of the sweep in grid.json: task K
# runs shard K/{{.ArrayTasks}} (runs K, K+{{.ArrayTasks}}, K+2·{{.ArrayTasks}}, … of the grid, one at a time)
# into array/shards/K. Submit with slurm/submit.sh, which queues the merge after it.
#SBATCH --job-name=dpscope-sweep
#SBATCH --array=1-{{.ArrayTasks}}%100
#SBATCH --cpus-per-task={{.Res.Threads}}
#SBATCH --mem={{.Res.MemMB}}M
#SBATCH --time=02:00:00
#SBATCH --output={{.WF}}/logs/array-%a.log
set -euo pipefail
DPSCOPE=${DPSCOPE:-{{sh .Exe}}}
WF={{sh .WF}}
k=${SLURM_ARRAY_TASK_ID:?run this through sbatch, or set SLURM_ARRAY_TASK_ID to 1 … {{.ArrayTasks}}}
cd {{sh .Cwd}}
export OPENBLAS_NUM_THREADS={{.Res.Threads}} GOMAXPROCS={{.Res.Threads}}
exec "$DPSCOPE" sweep --grid "$WF/grid.json" --shard "$k/{{.ArrayTasks}}" --out "$WF/array/shards/$k" --json
`))

var submitTmpl = template.Must(template.New("submit").Funcs(emitFuncs).Parse(`#!/usr/bin/env bash
# Queues the job array of slurm/array.sbatch, then the merge once every task
# has succeeded (afterok). Pass sbatch options (account, partition) as
# arguments: slurm/submit.sh -A myaccount -p short
set -euo pipefail
DPSCOPE=${DPSCOPE:-{{sh .Exe}}}
WF={{sh .WF}}
mkdir -p "$WF/logs"
array=$(sbatch --parsable --export=ALL,DPSCOPE="$DPSCOPE" "$@" "$WF/slurm/array.sbatch")
merge=$(sbatch --parsable "$@" --dependency=afterok:"$array" --job-name=dpscope-merge \
  --cpus-per-task={{.Res.Threads}} --mem={{.Res.MemMB}}M --time=02:00:00 --output="$WF/logs/merge.log" \
  --chdir={{sh .Cwd}} \
  --wrap="$(printf '%q ' "$DPSCOPE") sweep --merge $(printf '%q' "$WF/array/shards") --out $(printf '%q' "$WF/array/merged") --json > $(printf '%q' "$WF/array/merged.jsonl")")
echo "queued the array $array ({{.ArrayTasks}} tasks) and the merge $merge; the sweep lands in $WF/array/merged.jsonl"
`))
