#!/bin/bash
# The vPMU benchmark (docs/benchmarks.md, "Virtual PMU"): real programs
# (bench/vpmu/, built in-tree with -g) run on the virtual PMU, which is
# their ground truth at every frequency.
#   1. memory_latency_ns of sleuth's vPMU model, measured as a latency
#      benchmark would: a pointer chase at two lengths, time per extra step;
#   2. the die's thermal block measured as on hardware: a steady load
#      (vp-memprobe core, an L2-resident loop) warming the die at fmax,
#      mid and fmin, sleuth calibrate --thermal-only (docs/calibration.md);
#      then the power model calibrated (sleuth calibrate) on the TRAINING
#      programs' vPMU runs at every P-state, the measured leakage taken out;
#   3. every program profiled at fmax; predict at mid and fmin; compared
#      with the vPMU's own runs there (bench/vpmu-compare.c): whole-program
#      time error, phase-instance time error (time-weighted mean, worst),
#      mean power and energy errors (power and energy anchored on the fmax
#      run's meter, as predict does by default; power0 and energy0 from the
#      counters alone, --anchor off).  Power is held out for the TEST set;
#   4. phase quality: how many of the program's stage functions lead a
#      phase (are the top function of one);
#   5. the slowdown against the bare program: whole runs (Valgrind's start
#      dominates short programs), cachegrind's on the same run for
#      reference, and marginal (the extra work of a larger input under the
#      vPMU over the same extra work run bare).
#
#   bench/vpmu.sh [BUILDDIR]
# MODELS="stall mlp" predicts time with each of the time models (default
# stall), one row per model, and a summary per model and frequency.  One
# fit, two machines: the default (vpmu-nehalem-i7-920, the stall model's
# events) and the mlp model's (vpmu-nehalem-i7-920-mlp: the same fit, the
# offcore roles of its skeleton and the memory: block bench/memprobe-vpmu.sh
# measures, about 1 more minute; its time_error: measured on the training
# programs recorded again with its pins, calibrate --time-error-only, 36
# more vPMU runs).  Each model's rows predict from a profile
# recorded with its machine (run --pin time: the pins that machine gives);
# the truth runs at mid and fmin are shared.  WRITE_MODEL=1 also installs
# both as data/machines/vpmu-nehalem-i7-920{,-mlp}.yaml.  About 10 minutes
# on one core.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
skeleton=$src/data/machines/vpmu-nehalem-i7-920.skeleton.yaml
mlp_skeleton=$src/data/machines/vpmu-nehalem-i7-920-mlp.skeleton.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-vpmu.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# TRAIN="matmul stream sort interp" gives the split before tree
TRAIN=(${TRAIN:-${VPMU_TRAIN[*]}})
TEST=("${VPMU_TEST[@]}")
FMAX=2.66 MID=2.13 FMIN=1.60
MODELS=(${MODELS:-stall})
declare -A STAGE_FNS=(
	[matmul]="mm_fill mm_ikj mm_strided" [stream]="st_copy st_scale st_triad"
	[chase]="ch_build ch_chase ch_walk" [sort]="so_generate so_quick so_merge"
	[hash]="ht_insert ht_lookup" [zlib]="zl_generate zl_deflate zl_inflate"
	[interp]="in_compile in_run" [stencil]="sc_init sc_sweep sc_norm"
	[crc]="cr_fill cr_crc cr_scan" [tree]="tr_insert tr_lookup sum_in_order")

# total PROFILE: the run's time (its own frequency: measured)
total() {
	"$sleuth" predict "$1" --freq "$(prof_ghz "$1")" --per interval --time-only |
		awk -F, 'NR > 1 { t += $6 } END { printf "%.9f\n", t }'
}
prof_ghz() { basename "$1" .prof | sed 's/.*@//'; }
# bare PROGRAM ARGS...: the fastest of three bare runs, in seconds
bare() {
	local best=1e9 t0 t1
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"${CLEAN_ENV[@]}" "$@" >/dev/null 2>&1
		t1=$(date +%s.%N)
		best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN { d = b - a; print (d < m ? d : m) }')
	done
	echo "$best"
}

# 1. memory latency from a pointer chase: 1M and 3M steps
echo "== memory latency (pointer chase, vb-chase 1 vs 3 million steps, $FMAX GHz)"
vrun "$skeleton" $FMAX "$tmp/chase1@$FMAX.prof" "$progs/vb-chase" 1 >/dev/null
vrun "$skeleton" $FMAX "$tmp/chase3@$FMAX.prof" "$progs/vb-chase" 3 >/dev/null
lat=$(awk -v a="$(total "$tmp/chase1@$FMAX.prof")" -v b="$(total "$tmp/chase3@$FMAX.prof")" \
	'BEGIN { printf "%.1f\n", (b - a) / 2e6 * 1e9 }')
echo "memory_latency_ns: $lat"
sed "s/^memory_latency_ns: .*/memory_latency_ns: $lat   # bench\/vpmu.sh: pointer chase/" \
	"$skeleton" > "$tmp/skeleton.yaml"
want_mlp=0
[[ " ${MODELS[*]} " == *" mlp "* || "${WRITE_MODEL:-0}" = 1 ]] && want_mlp=1
if [ $want_mlp = 1 ]; then
	echo "== memory system for the mlp model (bench/memprobe-vpmu.sh)"
	"$src/bench/memprobe-vpmu.sh" "$build" | sed -n '/^memory:/,$p' | tee "$tmp/memory.yaml"
fi

# 2. the die's thermal block from a steady load at three P-states (a
# loop over L2-resident data: its power changes only as the die warms),
# long enough to come near its steady temperature; then training runs at
# every P-state on the default skeleton (no offcore roles); calibrate.  The training runs pin only the stall model's event
# (memory_stall_cycles), so three counters rotate over the power events:
# with the mlp model's three time events pinned one counter would be left
# for the power events, and the fit would rest on interpolated counts.
echo "== thermal block: a steady load (vp-memprobe core ${HEAT_STEPS:-1200000}) at $FMAX, $MID, $FMIN GHz"
heat=()
for f in $FMAX $MID $FMIN; do
	PIN=memory_stall_cycles INTERVAL=20M vrun "$tmp/skeleton.yaml" "$f" "$tmp/heat@$f.prof" \
		"$progs/vp-memprobe" core "${HEAT_STEPS:-1200000}" >/dev/null
	heat+=("$tmp/heat@$f.prof")
done
"$sleuth" calibrate -q --thermal-only --machine "$tmp/skeleton.yaml" -o "$tmp/skeleton-th.yaml" \
	"${heat[@]}"
mv "$tmp/skeleton-th.yaml" "$tmp/skeleton.yaml"
echo "== calibration on ${TRAIN[*]} at ${#PSTATES[@]} P-states"
inputs=()
for p in "${TRAIN[@]}"; do
	for f in "${PSTATES[@]}"; do
		PIN=memory_stall_cycles vrun "$tmp/skeleton.yaml" "$f" "$tmp/$p@$f.prof" "$progs/vb-$p" >/dev/null
		inputs+=("$tmp/$p@$f.prof")
	done
done
"$sleuth" calibrate -q --machine "$tmp/skeleton.yaml" -o "$tmp/model.yaml" "${inputs[@]}"
model=$tmp/model.yaml
# the mlp model's machine: the fit with the -mlp skeleton's name and events
# (the offcore roles) and the measured memory: block
mlp_model=$tmp/model-mlp.yaml
if [ $want_mlp = 1 ]; then
	{
		echo "# vpmu-nehalem-i7-920-mlp: the fit below with the events of" \
			"$(basename "$mlp_skeleton") and the memory: block of bench/memprobe-vpmu.sh"
		awk -v skel="$mlp_skeleton" '
			BEGIN { while ((getline l < skel) > 0) {
					if (l ~ /^name:/) name = l
					if (l ~ /^events:/) inev = 1
					else if (inev && l !~ /^ /) inev = 0
					if (inev) ev = ev l "\n" } }
			/^name:/ { print name; next }
			/^events:/ { printf "%s", ev; skip = 1; next }
			skip && /^ / { next }
			{ skip = 0; print }' "$model"
		cat "$tmp/memory.yaml"
	} > "$mlp_model"
	# its time_error: (what schedule --confidence allows for) from the
	# training programs recorded with its own pins (the mlp model's events,
	# run --pin time) at every P-state: the mlp rows need the offcore
	# counts, and each model's residuals are measured on profiles like the
	# ones it predicts from.  Nothing is fitted: the power model is the
	# fit above.
	echo "== time_error of the mlp machine: ${TRAIN[*]} at ${#PSTATES[@]} P-states, its pins"
	te_inputs=()
	for p in "${TRAIN[@]}"; do
		for f in "${PSTATES[@]}"; do
			vrun "$mlp_model" "$f" "$tmp/$p.te-mlp@$f.prof" "$progs/vb-$p" >/dev/null
			te_inputs+=("$tmp/$p.te-mlp@$f.prof")
		done
	done
	"$sleuth" calibrate -q --time-error-only --machine "$mlp_model" -o "$tmp/model-mlp.te.yaml" \
		"${te_inputs[@]}"
	mv "$tmp/model-mlp.te.yaml" "$mlp_model"
fi
if [ "${WRITE_MODEL:-0}" = 1 ]; then
	cp "$model" "$src/data/machines/vpmu-nehalem-i7-920.yaml"
	cp "$mlp_model" "$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml"
	echo "wrote data/machines/vpmu-nehalem-i7-920.yaml and vpmu-nehalem-i7-920-mlp.yaml"
fi
# machine_for MODEL: the machine a time model's profiles are recorded with
machine_for() { if [ "$1" = mlp ]; then echo "$mlp_model"; else echo "$model"; fi; }

# 3 and 4: every program at fmax, mid, fmin
echo "== prediction from $FMAX GHz (errors in %: time, instance mean, instance worst, power, energy)"
printf "%-8s %-5s %5s %8s %8s %8s %8s %8s %8s %8s %7s %6s %9s %10s %6s\n" program split GHz time inst-avg \
	inst-max power energy power0 energy0 phases stages slowdown cachegrind model
for p in "${TRAIN[@]}" "${TEST[@]}"; do
	split=test
	[[ " ${TRAIN[*]} " == *" $p "* ]] && split=train
	wall=$(vrun "$model" $FMAX "$tmp/$p@$FMAX.prof" "$progs/vb-$p")
	native=$(bare "$progs/vb-$p")
	cg=$(bare valgrind --tool=cachegrind -q --cachegrind-out-file=/dev/null \
		--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 "$progs/vb-$p")
	"$sleuth" phases "$tmp/$p@$FMAX.prof" > "$tmp/phases.txt"
	# (the header wraps at 100 columns: its first two lines joined)
	nph=$(head -2 "$tmp/phases.txt" | tr -s ' \n' '  ' | sed 's/.* \([0-9]*\) phases.*/\1/')
	fns=(${STAGE_FNS[$p]})
	led=0
	for fn in "${fns[@]}"; do
		grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+% +$fn [0-9]+%" "$tmp/phases.txt" &&
			led=$((led + 1))
	done
	for f in $MID $FMIN; do
		[ -e "$tmp/$p@$f.prof" ] || vrun "$model" "$f" "$tmp/$p@$f.prof" "$progs/vb-$p" >/dev/null
		for tm in "${MODELS[@]}"; do
			# the profile at fmax recorded with this model's machine
			mach=$(machine_for "$tm")
			prof=$tmp/$p@$FMAX.prof
			if [ "$mach" != "$model" ]; then
				prof=$tmp/$p.$tm@$FMAX.prof
				[ -e "$prof" ] || vrun "$mach" $FMAX "$prof" "$progs/vb-$p" >/dev/null
			fi
			for anchor in auto off; do
				# power anchored on the profile's meter, and from the counters alone
				"$sleuth" predict "$prof" --machine "$mach" --freq "$f" --per interval \
					--model "$tm" --format csv --anchor $anchor 2>/dev/null > "$tmp/pred-$anchor.csv"
			done
			read -r te ia iw pe ee < <("$compare" "$prof" "$tmp/pred-auto.csv" "$tmp/$p@$f.prof")
			read -r _ _ _ pe0 ee0 < <("$compare" "$prof" "$tmp/pred-off.csv" "$tmp/$p@$f.prof")
			printf "%-8s %-5s %5s %8s %8s %8s %8s %8s %8s %8s %7s %6s %9s %10s %6s\n" "$p" "$split" "$f" "$te" \
				"$ia" "$iw" "$pe" "$ee" "$pe0" "$ee0" "$nph" "$led/${#fns[@]}" \
				"$(awk -v w="$wall" -v n="$native" 'BEGIN { printf "%.0fx", w / n }')" \
				"$(awk -v w="$cg" -v n="$native" 'BEGIN { printf "%.0fx", w / n }')" "$tm" |
				tee -a "$tmp/rows.txt"
		done
	done
done
echo "== time summary: whole-program mean |error|, instance error (mean over programs, worst), in %"
awk '{ k = $NF " " $3; n[k]++; t[k] += $4 < 0 ? -$4 : $4; a[k] += $5
       if (!(k in w) || $6 > w[k]) { w[k] = $6; wp[k] = $1 } }
     END { for (k in n) printf "%-12s time %.2f  instance avg %.2f  worst %.2f (%s)\n",
			       k, t[k] / n[k], a[k] / n[k], w[k], wp[k] }' "$tmp/rows.txt" | sort

echo "== marginal slowdown (vPMU at $FMAX GHz; extra work of the larger input)"
for spec in "$build/tests/progs/stages 1 4" "$progs/vb-chase 1 4"; do
	read -r prog small large <<< "$spec"
	ws=$(vrun "$model" $FMAX "$tmp/s.prof" "$prog" "$small")
	wl=$(vrun "$model" $FMAX "$tmp/l.prof" "$prog" "$large")
	ns=$(bare "$prog" "$small")
	nl=$(bare "$prog" "$large")
	awk -v p="$(basename "$prog") $small->$large" -v ws="$ws" -v wl="$wl" -v ns="$ns" -v nl="$nl" \
		'BEGIN { printf "%-18s vPMU %.2f s -> %.2f s, bare %.3f s -> %.3f s: %.0fx\n", p, ws, wl, ns, nl, (wl - ws) / (nl - ns) }'
done
