#!/bin/sh
# One sitting of issue 4 point 9 (docs/PERFORMANCE.md, "core/nn and
# core/dpsgd: training"): ROUNDS alternated rounds of dpscope's
# BenchmarkDPSGDEpoch and BenchmarkNonPrivateEpoch, then the peers' PyTorch
# non-private and ghost-norm DP-SGD epochs, on the peers' configuration.
# Run it from the repository with ../shared beside it, on a quiet machine:
#
#   sh docs/speed_sitting.sh            # the environment as set
#   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE sh docs/speed_sitting.sh
#
# Variables: ROUNDS (3), PEERS (../shared/peers), DATA
# (/tmp/synth_4271x2000.npy, written by the peers' make_data.make() when
# missing), PY (/usr/bin/python3, which has torch), TIMEOUTS (empty: the
# Go benchmarks run once a round as the environment says; e.g. "28 20 4":
# once per OPENBLAS_THREAD_TIMEOUT value, to choose compute.ThreadTimeout),
# GEMMS ("auto openblas": the Go benchmarks run once per DPSCOPE_SGEMM
# value, the AVX-512 kernel (auto, the default) and OpenBLAS's sgemm_),
# SPARSE ("auto", dpscope's default: the Go benchmarks run once per
# DPSCOPE_SPARSE value; "on off" times the products that skip the ReLU
# zeros against the dense ones), SPINS (empty: as the environment says;
# e.g. "0,0 0,200us 1ms,1ms": the Go benchmarks run once per pair
# idle,wait of DPSCOPE_SPLIT_SPIN and DPSCOPE_SPLIT_WAIT_SPIN, how long
# compute.Split's idle helper and a caller waiting for it poll before they
# park), PEAKS (5: after the rounds, each DPSCOPE_SGEMM value's
# BenchmarkDPSGDEpochPeak in that many alternated processes, at the
# sparse products' default, for the share of the sgemm peak; 0 skips it).
#
# It ends with issue 18.2's two figures for each path: the median over the
# rounds of DP-SGD's samples/s over torch's non-private ones (goal 1.2×),
# and the median share of the peak (goal 0.70). Each side's samples/s is
# the statistic the peer reports, the median epoch after a first one
# (torch_ae.py: one warm-up epoch, then the median of seven;
# BenchmarkDPSGDEpoch's median-samples/s: of the 19 after the first); the
# ratio of dpscope's mean over all 20 epochs, first included, is printed
# beside it, as the sittings up to the twenty-seventh session read it.
#
# Each round also prints where the host has put the two vCPUs: the round
# trip of a cache line between them (internal/cpuplace; on the Zen 4
# hosts about 50–65 or 290–340 ns), before and after each of dpscope's
# benchmarks (its roundtrip-before-ns and roundtrip-after-ns) and before
# torch's runs. DP-SGD's epochs lose about 13 % at the longer
# (docs/PERFORMANCE.md, "The slow state is where the host puts the two
# vCPUs"), so read a round's ratio with its placement.
set -e
ROUNDS=${ROUNDS:-3}
TIMEOUTS=${TIMEOUTS:-}
GEMMS=${GEMMS:-auto openblas}
SPARSE=${SPARSE:-auto}
SPINS=${SPINS:-}
PEAKS=${PEAKS:-5}
LOG=$(mktemp)
PEERS=$(cd "${PEERS:-../shared/peers}" && pwd)
DATA=${DATA:-/tmp/synth_4271x2000.npy}
PY=${PY:-/usr/bin/python3}
BIN=$(mktemp -d)/dpsgd.test
go test -c -o "$BIN" ./core/dpsgd
PLACE=$(dirname "$BIN")/cpuplace.test
go test -c -o "$PLACE" ./internal/cpuplace
# placement prints the two vCPUs' cache-line round trip in ns.
placement() {
	"$PLACE" -test.run XXX -test.bench RoundTrip -test.benchtime 20x |
		awk '/RoundTrip/ { for (i = 2; i <= NF; i++) if ($i == "roundtrip-ns") printf "%.0f", $(i-1) }'
}
# sitting prints the rounds, then the peak shares.
sitting() {
	if [ ! -f "$DATA" ]; then
		(cd "$PEERS" && "$PY" -c "import make_data, numpy; numpy.save('$DATA', make_data.make()[0])")
	fi
	echo "OpenBLAS core: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-<unset>}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
	for r in $(seq "$ROUNDS"); do
		for g in $GEMMS; do
			for sp in $SPARSE; do
				for t in ${TIMEOUTS:-env}; do
				for spin in ${SPINS:-env}; do
					if [ "$t" = env ]; then
						set -- env DPSCOPE_SGEMM="$g" DPSCOPE_SPARSE="$sp"
					else
						set -- env DPSCOPE_SGEMM="$g" DPSCOPE_SPARSE="$sp" OPENBLAS_THREAD_TIMEOUT="$t"
					fi
					if [ "$spin" != env ]; then
						set -- "$@" DPSCOPE_SPLIT_SPIN="${spin%,*}" DPSCOPE_SPLIT_WAIT_SPIN="${spin#*,}"
					fi
					# Metrics are found by their units (their order is the
					# units' alphabetical one, and benchmarks differ).
					"$@" "$BIN" -test.run XXX -test.bench 'Epoch$' -test.benchtime 20x |
						awk -v r="$r" -v t="$t" -v g="$g" -v sp="$sp" -v spin="$spin" '/Epoch/ {
							for (i = 2; i <= NF; i++) { if ($i == "samples/s") s = $(i-1); if ($i == "GFLOP/s") f = $(i-1); if ($i == "median-samples/s") m = $(i-1)
								if ($i == "roundtrip-before-ns") rb = $(i-1); if ($i == "roundtrip-after-ns") ra = $(i-1) }
							printf "round %s %-28s sgemm %-8s sparse %-3s T %-3s spin %-11s %8.0f samples/s %6.1f GFLOP/s %8.0f median-samples/s  round trip %.0f/%.0f ns\n", r, $1, g, sp, t, spin, s, f, m, rb, ra }'
				done
				done
			done
		done
		echo "round $r placement before torch: $(placement) ns round trip"
		for m in nonprivate ghost_all; do
			out=$(mktemp)
			(cd "$PEERS" && BENCH_NO_WAIT=1 "$PY" torch_ae.py --mode $m --threads 1 --epochs 7 --data "$DATA" --json "$out" >/dev/null 2>&1)
			"$PY" -c "import json,sys; d=json.load(open('$out')); print('round $r torch %-22s %8.0f samples/s (median of 7; foreign CPU share %.2f)' % ('$m', d['samples_per_s_median'], d['foreign_share_max']))"
			rm -f "$out"
		done
	done
	for i in $(seq "$PEAKS"); do
		for g in $GEMMS; do
			DPSCOPE_SGEMM="$g" "$BIN" -test.run XXX -test.bench EpochPeak -test.benchtime 10x |
				awk -v g="$g" '/EpochPeak/ { for (i = 2; i <= NF; i++) { if ($i == "peak-share") s = $(i-1); if ($i == "cold-share") c = $(i-1) }
					printf "peak sgemm %-8s share %s (cold %s)\n", g, s, c }'
		done
	done
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
sitting | tee "$LOG"
# The two figures of issue 18.2, path by path (medians; an even count
# takes the upper middle).
awk '
function med(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1]+0 > a[j]+0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return a[int(n/2) + 1]
}
/BenchmarkDPSGDEpoch-/ { key = $5 " sparse " $7 " T " $9 " spin " $11; dp[$2, key] = $16; mean[$2, key] = $12; keys[key] = 1 }
/torch nonprivate/ { torch[$2] = $5 }
/^peak sgemm/ { share[$3] = share[$3] " " $5 }
END {
	for (k in keys) {
		split(k, f, " "); r = ""; rm = ""
		for (n in torch) if ((n, k) in dp) { r = r " " dp[n, k] / torch[n]; rm = rm " " mean[n, k] / torch[n] }
		printf "18.2 sgemm %s: DP-SGD / torch %.3fx (epoch medians, as the peer reports; by the means over all epochs %.3fx)", k, med(r), med(rm)
		if (share[f[1]] != "") printf ", share of the peak %.3f", med(share[f[1]])
		printf "\n"
	}
}' "$LOG"
rm -f "$LOG"
