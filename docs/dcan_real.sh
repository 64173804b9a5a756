#!/bin/sh
# DCAN / DP-DCAN on the real data sets of ../shared/data (docs/RESULTS.md,
# "DP-DCAN on real data"). Appends one TSV line per run to $OUT and prints
# the table of means ± sample sds with docs/dcan_table.py.
#
#   go build -o /tmp/dpscope-dcan .
#   sh docs/dcan_real.sh yan biase goolam pollen            # all configurations, seeds 1-3
#   EPOCHS=10,5 sh docs/dcan_real.sh pbmc_4k mouse_bladder  # fewer epochs (said in the table)
#   python3 docs/dcan_table.py /tmp/dcan_real.tsv
#
# Variables: BIN (/tmp/dpscope-dcan), DATA (../shared/data), OUT
# (/tmp/dcan_real.tsv), SEEDS ("1 2 3"), EPOCHS (empty: the trainer's
# defaults), CONFIGS (default: all six below), NICE (5).
set -eu
BIN=${BIN:-/tmp/dpscope-dcan}
DATA=${DATA:-../shared/data}
OUT=${OUT:-/tmp/dcan_real.tsv}
SEEDS=${SEEDS:-"1 2 3"}
EPOCHS=${EPOCHS:-}
NICE=${NICE:-5}
CONFIGS=${CONFIGS:-"dcan paper13 dpe sound8 sound6 sound4"}
for set in "$@"; do
	for c in $CONFIGS; do
		case $c in
		dcan) args="--mode nonprivate" ;;
		paper13) args="--mode paper --layers 1-3 --epsilon 8" ;;
		dpe) args="--mode paper --layers 1-6 --epsilon 8" ;;
		sound8) args="--mode sound --epsilon 8" ;;
		sound6) args="--mode sound --epsilon 6" ;;
		sound4) args="--mode sound --epsilon 4" ;;
		*) echo "unknown configuration $c" >&2; exit 2 ;;
		esac
		for seed in $SEEDS; do
			ep=""
			[ -n "$EPOCHS" ] && ep="--epochs $EPOCHS"
			# shellcheck disable=SC2086
			line=$(nice -n "$NICE" "$BIN" run --method dcan --data "$DATA/$set" $args $ep --seed "$seed" --json | tail -n 1)
			printf '%s\t%s\t%s\t%s\t%s\n' "$set" "$c" "${EPOCHS:-default}" "$seed" "$line" >>"$OUT"
			echo "$set $c seed $seed: $(echo "$line" | python3 -c 'import json,sys; s=json.load(sys.stdin); print("ARI", s.get("ari"), "NMI", s.get("nmi"), "s", round(s.get("seconds") or 0), s.get("error",""))')"
		done
	done
done
