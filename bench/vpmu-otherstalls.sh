#!/bin/bash
# Whether the mlp model's other-stalls rule (docs/models.md, "Stalls with
# other causes under a miss") helps real programs on the virtual PMU
# (docs/benchmarks.md, "The stall probes on the virtual PMU"): the stall
# probes measured on the vPMU (bench/memprobe-vpmu.sh, ONLY=stall), added
# to the shipped mlp machine with the mispredicts role (the rule on), and
# every program of bench/vpmu.sh profiled at fmax with that machine's pins
# and predicted at 2.13 and 1.60 GHz by the mlp model with the shipped
# machine (rule off) and with the probed one (rule on), against the
# vPMU's own runs there.  Prints, per program, split and frequency, the
# whole-program time error and the phase-instance error (mean, worst) in %
# (bench/vpmu-compare.c) of each, then the mean over each split.
#
#   bench/vpmu-otherstalls.sh [BUILDDIR]     # about 2 minutes on one core
# KEEP=DIR keeps the profiles and machines there (and reuses them).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
. "$src/bench/train-lib.sh"
train_scratch sleuth-vpmu-otherstalls
tmp=$W
TRAIN=("${VPMU_TRAIN[@]}")
TEST=("${VPMU_TEST[@]}")
base=$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml
truth=$src/data/machines/vpmu-nehalem-i7-920.yaml

echo "== the stall probes (bench/memprobe-vpmu.sh, ONLY=stall)"
[ -s "$tmp/stall.txt" ] || ONLY=stall "$src/bench/memprobe-vpmu.sh" "$build" > "$tmp/stall.txt"
cat "$tmp/stall.txt"
# the shipped machine with the probes and the mispredicts role
awk -v probes="$tmp/stall.txt" '
	/^  bandwidth_gbps:/ { print; while ((getline l < probes) > 0) print l; next }
	/^  miss_stall_cycles:/ { print; print "  mispredicts: BR_MISPREDICTED"; next }
	{ print }' "$base" > "$tmp/probed.yaml"

printf "%-8s %-5s %5s %8s %8s %8s %8s %8s %8s\n" program split GHz \
	time inst-avg inst-max time+ inst-avg+ inst-max+
for p in "${TRAIN[@]}" "${TEST[@]}"; do
	split=test
	[[ " ${TRAIN[*]} " == *" $p "* ]] && split=train
	prof=$tmp/$p@2.66.prof
	[ -e "$prof" ] || vrun "$tmp/probed.yaml" 2.66 "$prof" "$progs/vb-$p" >/dev/null
	for f in 2.13 1.60; do
		[ -e "$tmp/$p@$f.prof" ] || vrun "$truth" "$f" "$tmp/$p@$f.prof" "$progs/vb-$p" >/dev/null
		row=()
		for m in "$base" "$tmp/probed.yaml"; do
			"$sleuth" predict "$prof" --machine "$m" --freq "$f" --per interval --model mlp \
				--format csv 2>/dev/null > "$tmp/pred.csv"
			read -r te ia iw _ < <("$compare" "$prof" "$tmp/pred.csv" "$tmp/$p@$f.prof")
			row+=("$te" "$ia" "$iw")
		done
		printf "%-8s %-5s %5s %8s %8s %8s %8s %8s %8s\n" "$p" "$split" "$f" "${row[@]}" |
			tee -a "$tmp/rows.txt"
	done
done
echo "== mean |time error|, mean instance error, worst instance, in %: rule off -> on"
awk '{ k = $2 " " $3; n[k]++; t[k] += $4 < 0 ? -$4 : $4; a[k] += $5; if ($6 > w[k]) w[k] = $6
       t2[k] += $7 < 0 ? -$7 : $7; a2[k] += $8; if ($9 > w2[k]) w2[k] = $9 }
     END { for (k in n) printf "%-10s time %.2f -> %.2f  instance %.2f -> %.2f  worst %.2f -> %.2f\n",
			       k, t[k] / n[k], t2[k] / n[k], a[k] / n[k], a2[k] / n[k], w[k], w2[k] }' \
	"$tmp/rows.txt" | sort
rm -f "$tmp/rows.txt"
