#!/bin/sh
# One sitting of issue 18 point 1 (docs/PERFORMANCE.md, "core/method/dcan:
# DCAN against its PyTorch peer"): ROUNDS rounds, each running back to back
# the PyTorch peer (../shared/peers/dcan_torch.py --threads 1
# --no-epoch-metrics) and dpscope's BenchmarkTrainPBMC4k, nonprivate and
# then DP (the peer's --dp noises every layer at σ = 1, C = 0.1; dpscope's
# sound mode at the same σ and C), on pbmc_4k. Prints each stage's cells/s
# and the load average before each run. Run it from the repository with
# ../shared beside it:
#
#   sh docs/dcan_sitting.sh
#
# Variables: ROUNDS (3), EPOCHS ("20,20", both programs), PEERS
# (../shared/peers), DATA (../shared/data/pbmc_4k), PY (/usr/bin/python3,
# which has torch), TIMEOUTS (empty: dpscope runs once a round as the
# environment says; e.g. "28 20 4": once per OPENBLAS_THREAD_TIMEOUT
# value, in that order, to choose compute.ThreadTimeout), GEMMS ("auto":
# dpscope runs once per DPSCOPE_SGEMM value; "auto openblas" adds a run
# with OpenBLAS's sgemm_ instead of the AVX-512 kernel).
set -e
ROUNDS=${ROUNDS:-3}
TIMEOUTS=${TIMEOUTS:-}
GEMMS=${GEMMS:-auto}
EPOCHS=${EPOCHS:-20,20}
PEERS=$(cd "${PEERS:-../shared/peers}" && pwd)
DATA=$(cd "${DATA:-../shared/data/pbmc_4k}" && pwd)
PY=${PY:-/usr/bin/python3}
BIN=$(mktemp -d)/dcan.test
go test -c -o "$BIN" ./core/method/dcan
PKG=$(pwd)/core/method/dcan
echo "epochs $EPOCHS; $(grep -o -m1 'avx512f' /proc/cpuinfo || echo 'no avx512f'); $(grep -o -m1 'avx2' /proc/cpuinfo || echo 'no avx2')"
peer() { # $1 = round, $2 = label, rest = extra flags
	r=$1 label=$2
	shift 2
	out=$(mktemp)
	load=$(cut -d' ' -f1 /proc/loadavg)
	(cd "$PEERS" && "$PY" dcan_torch.py --data "$DATA" --threads 1 --no-epoch-metrics --epochs "$EPOCHS" --quiet --json "$out" "$@" >/dev/null 2>&1)
	"$PY" -c "import json; d=json.load(open('$out')); print('round $r torch  %-10s stage1 %6.0f stage2 %6.0f cells/s  ARI %.3f  load $load' % ('$label', d['stage1']['cells_per_s'], d['stage2']['cells_per_s'], d['ari']))"
	rm -f "$out"
}
ours() { # $1 = round, $2 = sub-benchmark
	for g in $GEMMS; do
		label=$2
		if [ "$GEMMS" != auto ]; then
			label=$2/$g
		fi
		if [ -z "$TIMEOUTS" ]; then
			ours1 "$1" "$2" "$label" "" "$g"
			continue
		fi
		for t in $TIMEOUTS; do
			ours1 "$1" "$2" "$label/T$t" "$t" "$g"
		done
	done
}
ours1() { # $1 = round, $2 = sub-benchmark, $3 = label, $4 = OPENBLAS_THREAD_TIMEOUT or none, $5 = DPSCOPE_SGEMM
	load=$(cut -d' ' -f1 /proc/loadavg)
	(if [ -n "$4" ]; then export OPENBLAS_THREAD_TIMEOUT="$4"; fi; export DPSCOPE_SGEMM="$5"; cd "$PKG" && DCAN_BENCH_EPOCHS=$EPOCHS "$BIN" -test.run XXX -test.bench "TrainPBMC4k/$2" -test.benchtime 1x) |
		awk -v r="$1" -v m="$3" -v l="$load" '/TrainPBMC4k/ {
			for (i = 2; i <= NF; i++) v[$i] = $(i - 1)
			printf "round %s dpscope %-10s stage1 %6.0f stage2 %6.0f cells/s  ARI %.3f  load %s\n", r, m, v["stage1-cells/s"], v["stage2-cells/s"], v["ARI"], l
		}'
}
for r in $(seq "$ROUNDS"); do
	peer "$r" nonprivate
	ours "$r" nonprivate
	peer "$r" dp --dp --sigma 1
	ours "$r" sound
done
