#!/bin/bash
# Which power terms and training programs carry a memory-bound program's
# power on the virtual PMU (docs/benchmarks.md, "Memory-bound programs'
# power on the virtual PMU"): one set of vPMU runs, calibrated with each
# skeleton variant on the old training programs (matmul stream sort interp)
# and with vb-tree added, each fit judged by its leave-one-workload-out
# error (the training programs alone) and by its power error on the
# held-out programs (chase hash zlib stencil crc) predicted at 2.13 and
# 1.60 GHz from their 2.66 GHz profiles, anchored on the meter (predict's
# default) and from the counters alone (--anchor off).
#
# Every run is recorded with one skeleton naming every candidate term
# (the vPMU skeleton's six, STALL_CYCLES, and L2_PREFETCH_FILLS as
# energy), so that each variant is fitted and evaluated on the same
# profiles; more events rotate over the counters than in bench/vpmu.sh,
# whose figures therefore differ a little.
#
#   bench/vpmu-terms.sh [BUILDDIR]      # about 5 minutes
# KEEP=DIR keeps the profiles and fits there.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
. "$src/bench/train-lib.sh"
train_scratch sleuth-vpmu-terms
tmp=$W
OLD=(matmul stream sort interp)
TEST=("${VPMU_TEST[@]}")

# the skeleton every run is recorded with: the vPMU's six terms and both
# candidates (no keep: key, so every variant's events are counted)
sed '/keep: auto/d' "$src/data/machines/vpmu-nehalem-i7-920.skeleton.yaml" > "$tmp/base.yaml"
{ cat "$tmp/base.yaml"
  echo "    - {event: STALL_CYCLES}"
  echo "    - {event: L2_PREFETCH_FILLS, kind: energy}"; } > "$tmp/all.yaml"

echo "== vPMU runs: ${OLD[*]} tree at ${#PSTATES[@]} P-states; ${TEST[*]} at 2.66, 2.13, 1.60"
for p in "${OLD[@]}" tree; do
	for f in "${PSTATES[@]}"; do
		[ -e "$tmp/$p@$f.prof" ] ||
			PIN=memory_stall_cycles vrun "$tmp/all.yaml" "$f" "$tmp/$p@$f.prof" "$progs/vb-$p" >/dev/null
	done
done
for p in "${TEST[@]}"; do
	for f in 2.66 2.13 1.60; do
		[ -e "$tmp/$p@$f.prof" ] || vrun "$tmp/all.yaml" "$f" "$tmp/$p@$f.prof" "$progs/vb-$p" >/dev/null
	done
done

# variant NAME TERM-LINES...: the base skeleton plus these terms
variant() {
	local name=$1; shift
	{ cat "$tmp/base.yaml"; for l in "$@"; do echo "    $l"; done; } > "$tmp/sk-$name.yaml"
}
variant six
variant stall "- {event: STALL_CYCLES}"
variant prefetch "- {event: L2_PREFETCH_FILLS, kind: energy}"
variant both "- {event: STALL_CYCLES}" "- {event: L2_PREFETCH_FILLS, kind: energy}"
variant auto "- {event: STALL_CYCLES, keep: auto}" "- {event: L2_PREFETCH_FILLS, kind: energy, keep: auto}"

# held-out power errors of a model: "anchored@2.13 anchored@1.60 counters@2.13 counters@1.60"
# (mean |error| over the programs) and chase's and hash's anchored error at
# 1.60 GHz (signed); per program into $tmp/rows-MODEL.txt
held_out() {
	local m=$1 rows=$tmp/rows-$(basename "$1" .yaml).txt
	: > "$rows"
	for p in "${TEST[@]}"; do
		for f in 2.13 1.60; do
			for a in auto off; do
				"$sleuth" predict "$tmp/$p@2.66.prof" --machine "$m" --freq "$f" --per interval \
					--format csv --anchor $a 2>/dev/null > "$tmp/pred-$a.csv"
			done
			read -r _ _ _ pa _ < <("$compare" "$tmp/$p@2.66.prof" "$tmp/pred-auto.csv" "$tmp/$p@$f.prof")
			read -r _ _ _ po _ < <("$compare" "$tmp/$p@2.66.prof" "$tmp/pred-off.csv" "$tmp/$p@$f.prof")
			echo "$p $f $pa $po" >> "$rows"
		done
	done
	awk '{ k = $2; n[k]++; a[k] += $3 < 0 ? -$3 : $3; o[k] += $4 < 0 ? -$4 : $4 }
	     $2 == "1.60" && ($1 == "chase" || $1 == "hash") { s[$1] = $3 }
	     END { printf "%.2f %.2f %.2f %.2f %s %s\n", a["2.13"] / n["2.13"], a["1.60"] / n["1.60"],
			   o["2.13"] / n["2.13"], o["1.60"] / n["1.60"], s["chase"], s["hash"] }' "$rows"
}

echo "== fits (LOWO: leave-one-workload-out error of the training programs; held out: mean |power error| %, 2.13 / 1.60 GHz)"
printf "%-9s %-5s %8s  %-15s %-15s  %-16s %s\n" skeleton train LOWO "anchored" "counters only" \
	"chase,hash@1.60" "terms kept"
for train in old tree; do
	ps=("${OLD[@]}")
	[ $train = tree ] && ps+=(tree)
	inputs=()
	for p in "${ps[@]}"; do for f in "${PSTATES[@]}"; do inputs+=("$tmp/$p@$f.prof"); done; done
	for v in six stall prefetch both auto; do
		m=$tmp/model-$v-$train.yaml
		"$sleuth" calibrate -q --machine "$tmp/sk-$v.yaml" -o "$m" "${inputs[@]}" > "$tmp/cal-$v-$train.txt"
		cv=$(grep -o 'leave-one-workload-out error [0-9.]*%' "$m" | awk '{ print $NF }')
		read -r a1 a2 o1 o2 ch ha < <(held_out "$m")
		kept=$(sed -n '/^power:/,/^[a-z_]*:$/p' "$m" | grep -o 'event: [A-Z0-9_]*\(, kind: energy\)\?' |
			sed -n '7,$p' | sed 's/event: //; s/, kind: energy/ (energy)/' | paste -sd, -)
		printf "%-9s %-5s %8s  %-15s %-15s  %-16s %s\n" $v $train "$cv" "$a1 / $a2" "$o1 / $o2" \
			"$ch / $ha" "${kept:--}"
	done
done
echo "== per program, signed % (anchored, counters only), skeleton auto trained with tree vs six without"
paste "$tmp/rows-model-six-old.txt" "$tmp/rows-model-auto-tree.txt" |
	awk '{ printf "%-8s %s  six, old: %7.2f %8.2f   auto, tree: %7.2f %8.2f\n", $1, $2, $3, $4, $7, $8 }'
