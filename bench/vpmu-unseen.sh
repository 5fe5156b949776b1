#!/bin/bash
# Unseen real programs on the virtual PMU (docs/benchmarks.md, "Unseen real
# programs on the virtual PMU"): Debian's own binaries (xz, bzip2, sort,
# sqlite3, python3, gzip), stripped and never looked at while sleuth's
# models or the vPMU machines were made, on generated inputs.  A held-out
# set: nothing is calibrated or tuned here; the shipped machines
# data/machines/vpmu-nehalem-i7-920{,-mlp}.yaml predict as they are.
# Each program is profiled at fmax with each model's machine (run --pin
# time: the stall machine pins STALLS_LLC_MISS, the -mlp machine its three
# offcore events), predicted at mid and fmin, and compared with the vPMU's
# own runs there (bench/vpmu-compare.c), as bench/vpmu.sh does: whole-program
# time error, phase-instance time error (time-weighted mean, worst), mean
# power and energy anchored on the fmax run's meter and from the counters
# alone (--anchor off).  Also: instructions, phases, and the vPMU's wall
# time at fmax.
#
#   bench/vpmu-unseen.sh [BUILDDIR]     # about 10 minutes on one core
# PROGS="xz bzip2" chooses among VPMU_UNSEEN (default), VPMU_UNSEEN2, the
# second set, and VPMU_UNSEEN3, the third (bench/vpmu-lib.sh); MODELS
# (default "stall mlp").
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
model=$src/data/machines/vpmu-nehalem-i7-920.yaml
mlp_model=$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-vpmu-unseen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
FMAX=2.66 MID=2.13 FMIN=1.60
MODELS=(${MODELS:-stall mlp})
# The truth runs must retire the same instructions as the profiled one
# (vpmu-compare refuses otherwise): the unseen set's environment
# (bench/vpmu-lib.sh).
CLEAN_ENV=("${UNSEEN_ENV[@]}")

PROGS=(${PROGS:-${VPMU_UNSEEN[*]}})
# each program's tool, and the Debian package it comes in where that is
# not the tool's own name
declare -A PKG=([xmllint]=libxml2-utils [sha256sum]=coreutils [cut]=coreutils [sort]=coreutils)
for p in "${PROGS[@]}"; do
	[ -n "${VPMU_UNSEEN_CMD[$p]:-}" ] || { echo "bench/vpmu-unseen.sh: no program '$p';" \
		"use names of VPMU_UNSEEN, VPMU_UNSEEN2 or VPMU_UNSEEN3 (bench/vpmu-lib.sh)" >&2; exit 1; }
	tool=${VPMU_UNSEEN_CMD[$p]%% *}
	command -v "$tool" >/dev/null || { echo "bench/vpmu-unseen.sh: $p needs $tool;" \
		"install the Debian package ${PKG[$tool]:-$tool}" >&2; exit 1; }
done
cd "$tmp"
unseen_inputs
machine_for() { if [ "$1" = mlp ]; then echo "$mlp_model"; else echo "$model"; fi; }

echo "== unseen programs, prediction from $FMAX GHz (errors in %: time, instance mean," \
	"instance worst, power, energy; power0 energy0: --anchor off)"
printf "%-8s %5s %8s %8s %8s %8s %8s %8s %8s %6s %7s %7s %6s\n" program GHz time inst-avg \
	inst-max power energy power0 energy0 phases Minstr vpmu-s model
for p in "${PROGS[@]}"; do
	read -r -a cmd <<< "${VPMU_UNSEEN_CMD[$p]}"
	wall=$(vrun "$model" $FMAX "$tmp/$p@$FMAX.prof" "${cmd[@]}")
	nph=$("$sleuth" phases "$tmp/$p@$FMAX.prof" | head -2 | tr -s ' \n' '  ' |
		sed 's/.* \([0-9]*\) phases.*/\1/')
	minstr=$("$sleuth" predict "$tmp/$p@$FMAX.prof" --freq $FMAX --per interval --format csv \
		--time-only 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions") c = i }
			NR > 1 && c { s += $c } END { printf "%.0f\n", s / 1e6 }')
	for f in $MID $FMIN; do
		vrun "$model" "$f" "$tmp/$p@$f.prof" "${cmd[@]}" >/dev/null
		for tm in "${MODELS[@]}"; do
			mach=$(machine_for "$tm")
			prof=$tmp/$p@$FMAX.prof
			if [ "$tm" = mlp ]; then
				prof=$tmp/$p.mlp@$FMAX.prof
				[ -e "$prof" ] || vrun "$mach" $FMAX "$prof" "${cmd[@]}" >/dev/null
			fi
			for anchor in auto off; do
				"$sleuth" predict "$prof" --machine "$mach" --freq "$f" --per interval \
					--model "$tm" --format csv --anchor $anchor 2>/dev/null > "$tmp/pred-$anchor.csv"
			done
			# (a run that is not the same deterministic run: dashes)
			read -r te ia iw pe ee <<< "$("$compare" "$prof" "$tmp/pred-auto.csv" \
				"$tmp/$p@$f.prof" || echo - - - - -)"
			read -r _ _ _ pe0 ee0 <<< "$("$compare" "$prof" "$tmp/pred-off.csv" \
				"$tmp/$p@$f.prof" || echo - - - - -)"
			printf "%-8s %5s %8s %8s %8s %8s %8s %8s %8s %6s %7s %7s %6s\n" "$p" "$f" "$te" "$ia" \
				"$iw" "$pe" "$ee" "$pe0" "$ee0" "$nph" "$minstr" "$wall" "$tm" | tee -a "$tmp/rows.txt"
		done
	done
done
echo "== summary over the unseen programs, mean |error| in % (worst instance: max)"
awk '$3 != "-" { k = $NF " " $2; n[k]++; t[k] += $3 < 0 ? -$3 : $3; a[k] += $4
       p[k] += $6 < 0 ? -$6 : $6; p0[k] += $8 < 0 ? -$8 : $8
       if (!(k in w) || $5 > w[k]) { w[k] = $5; wp[k] = $1 } }
     END { for (k in n) printf "%-11s time %.2f  instance avg %.2f  worst %.2f (%s)  power %.2f  power0 %.2f\n",
			       k, t[k] / n[k], a[k] / n[k], w[k], wp[k], p[k] / n[k], p0[k] / n[k] }' \
	"$tmp/rows.txt" | sort
