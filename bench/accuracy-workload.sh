#!/bin/bash
# The time models' accuracy on one simulated workload, through the CLI only,
# as a user would measure it: `sleuth simulate` at fmax, `sleuth run
# --replay` with K counters, `sleuth predict --per instance` at the target
# frequencies, compared with `sleuth simulate --truth` traces of the same
# program (same seed) at those frequencies.  bench/accuracy.sh runs it over
# the suite and tests/models/cli-accuracy.sh on three workloads, so the
# metric has one implementation.
#
#   accuracy-workload.sh SLEUTH WORKLOAD.yaml WORKDIR INTERVALS COUNTERS FREQ...
# INTERVALS 0 = the workload's sequence once; COUNTERS e.g. "4 0" (0 =
# unlimited).  The machine is data/machines/sim-nehalem-i7-920.yaml (calibrated).
# Environment: MACHINE (sleuth's model), SIM (the simulated machine, default
# data/sim/nehalem-i7-920.yaml), MODELS (default "stall linear"), SEED
# (default 1), RUN_SEED (the replay's sampling seed, run --seed; default
# SEED), PIN (run --pin, default time), SAMPLE_PERIOD (run
# --sample-period; default the replay's for the trace's intervals),
# REFINE=F2:FRAC (predict
# --refine with a short run at F2 GHz of the first FRAC of the intervals,
# rounded, at least one: simulated with --intervals, replayed with the same
# machine, counters, pins and seed; docs/models.md, "Refinement by a second
# run"), REFINE_RULE=ratio|param its rule (predict --refine-rule); PREFIX=FRAC without REFINE: the prefix that REFINE=F2:FRAC would
# measure, for the *_out figures of the unrefined model.  DITHER=N:FREQ
# profiles a run dithered every Nth interval to FREQ GHz instead (simulate
# --dither, same seed; docs/models.md, "Dithering"; predict refines from it
# unless DITHER_REFINE=off), TRANSITION_US its frequency switches' time.
# Prints one line per counters, frequency and model:
#   workload counters ghz model instances avg_err worst_err run_err energy_err
#            true_avg_err true_worst_err prefix true_avg_out true_worst_out
#            intervals dither_cost
# errors in %: avg_err is the paper's metric (relative error of each phase
# instance's time, averaged weighted by its intervals), worst_err the worst
# instance, run_err the whole run's time, energy_err the whole run's energy
# (time and power models together); true_* the same over the simulator's
# true phase instances (runs of one label) instead of the detected ones;
# prefix the intervals the refining run measured (0 without REFINE) and
# true_*_out the true-instance errors over the instances that start after
# them (none of whose intervals was measured at F2); dither_cost the
# dithered run's extra time over the run at fmax, % (0 without DITHER).
# Also writes WORKDIR/W-K-MODEL-F.true: one line per true instance,
# "first_interval intervals error%" (signed, predicted over true time).
set -euo pipefail
[ $# -ge 6 ] || { echo "usage: $0 SLEUTH WORKLOAD.yaml WORKDIR INTERVALS COUNTERS FREQ..." >&2; exit 2; }
sleuth=$1 wl=$2 dir=$3 nint=$4 counters=$5
shift 5
src=$(cd "$(dirname "$0")/.." && pwd)
machine=${MACHINE:-$src/data/machines/sim-nehalem-i7-920.yaml}
sim=${SIM:-$src/data/sim/nehalem-i7-920.yaml}
models=${MODELS:-stall linear}
w=$(basename "$wl" .yaml)
len=(-m "$sim" --seed "${SEED:-1}")
[ "$nint" = 0 ] || len+=(--intervals "$nint")

# The truth: per-interval time and exact energy, one "t,e" line per
# interval, from a --truth trace at each target frequency.
"$sleuth" simulate "$wl" "${len[@]}" -o "$dir/$w-max.yaml" -q
cost=0
if [ -n "${DITHER:-}" ]; then
	mv "$dir/$w-max.yaml" "$dir/$w-plain.yaml"
	"$sleuth" simulate "$wl" "${len[@]}" --dither "$DITHER" \
		${TRANSITION_US:+--transition-us "$TRANSITION_US"} -o "$dir/$w-max.yaml" -q
	cost=$(awk '/^- \{t: / { t = $3; sub(",", "", t); s[FILENAME] += t; f[++n] = FILENAME }
		END { printf "%.3f", 100 * (s[ARGV[2]] / s[ARGV[1]] - 1) }' \
		"$dir/$w-plain.yaml" "$dir/$w-max.yaml")
fi
for f in "$@"; do
	"$sleuth" simulate "$wl" "${len[@]}" -f "$f" --truth -o "$dir/$w-$f.yaml" -q
	sed -n 's/^- {t: \([^,]*\),.* e: \([^,}]*\), label: \([^,}]*\).*/\1,\2,\3/p' \
		"$dir/$w-$f.yaml" >"$dir/$w-$f.te"
done

freqs=()
for f in "$@"; do freqs+=(--freq "$f"); done
prefix=0
if [ -n "${REFINE:-}${PREFIX:-}" ]; then
	total=$(grep -c '^- {t:' "$dir/$w-max.yaml")
	prefix=$(awk -v r="${REFINE:-x:$PREFIX}" -v n="$total" 'BEGIN { split(r, a, ":"); k = int(a[2] * n + 0.5)
		print (k < 1 ? 1 : (k > n ? n : k)) }')
fi
if [ -n "${REFINE:-}" ]; then
	"$sleuth" simulate "$wl" -m "$sim" --seed "${SEED:-1}" --intervals "$prefix" \
		-f "${REFINE%%:*}" -o "$dir/$w-ref.yaml" -q
fi
for k in $counters; do
	"$sleuth" run -q --replay "$dir/$w-max.yaml" --machine "$machine" \
		--counters "$k" --pin "${PIN:-time}" --seed "${RUN_SEED:-${SEED:-1}}" \
		${SAMPLE_PERIOD:+--sample-period "$SAMPLE_PERIOD"} -o "$dir/$w-$k.prof"
	refine=()
	if [ -n "${REFINE:-}" ]; then
		"$sleuth" run -q --replay "$dir/$w-ref.yaml" --machine "$machine" \
			--counters "$k" --pin "${PIN:-time}" --seed "${RUN_SEED:-${SEED:-1}}" -o "$dir/$w-$k-ref.prof"
		refine=(--refine "$dir/$w-$k-ref.prof" ${REFINE_RULE:+--refine-rule "$REFINE_RULE"})
	elif [ -n "${DITHER:-}" ]; then
		refine=(${REFINE_RULE:+--refine-rule "$REFINE_RULE"})
		if [ "${DITHER_REFINE:-on}" = off ]; then refine=(--refine off); fi
	fi
	for model in $models; do
		"$sleuth" predict "$dir/$w-$k.prof" "${freqs[@]}" --model "$model" "${refine[@]}" \
			--per instance --format csv -o "$dir/$w-$k-$model.csv"
		"$sleuth" predict "$dir/$w-$k.prof" "${freqs[@]}" --model "$model" "${refine[@]}" \
			--per interval --format csv -o "$dir/$w-$k-$model.iv.csv"
		for f in "$@"; do
			# per true instance: runs of one label in the truth trace
			# (interval CSV: ghz,interval,phase,instance,instructions,time_s,...)
			true_err=$(awk -F, -v f="$f" -v pre="$prefix" -v rows="$dir/$w-$k-$model-$f.true" '
				FNR == NR { lab[NR - 1] = $3; t[NR - 1] = $1; n = NR; next }
				FNR == 1 { next }
				$1 + 0 == f + 0 { p[$2] = $6 }
				END {
					printf "" > rows
					for (i = 0; i <= n; i++) {
						if (i == n || (i && lab[i] != lab[i - 1])) {
							printf "%d %d %.4f\n", i - k, k, 100 * (pt / tt - 1) > rows
							err = (pt > tt ? pt - tt : tt - pt) / tt
							s += err * k; ws += k; if (err > worst) worst = err
							if (i - k >= pre) {
								so += err * k; wo += k
								if (err > worsto) worsto = err
							}
							pt = tt = k = 0
						}
						if (i < n) { pt += p[i]; tt += t[i]; k++ }
					}
					printf "%.3f %.3f %d %.3f %.3f %d", 100 * s / ws, 100 * worst, pre,
					       (wo ? 100 * so / wo : 0), 100 * worsto, n
				}' "$dir/$w-$f.te" "$dir/$w-$k-$model.iv.csv")
			# CSV: ghz,instance,phase,first_interval,intervals,instructions,time_s,power_w,energy_j
			awk -F, -v w="$w" -v k="$k" -v f="$f" -v model="$model" '
				FNR == NR { t[NR - 1] = $1; e[NR - 1] = $2; n = NR; next }
				FNR == 1 { next }
				$1 + 0 == f + 0 {
					if ($4 + $5 > n) { print "instance beyond the truth trace" > "/dev/stderr"; bad = 1; exit 1 }
					tt = 0; et = 0
					for (i = $4; i < $4 + $5; i++) { tt += t[i]; et += e[i] }
					err = ($7 > tt ? $7 - tt : tt - $7) / tt
					sum += err * $5; wsum += $5; m++
					if (err > worst) worst = err
					pt += $7; ttot += tt; pe += $9; etot += et
				}
				END {
					if (bad) exit 1
					if (wsum != n) { print "instances cover " wsum " of " n " intervals" > "/dev/stderr"; exit 1 }
					rt = (pt > ttot ? pt - ttot : ttot - pt) / ttot
					re = (pe > etot ? pe - etot : etot - pe) / etot
					printf "%s %s %s %s %d %.3f %.3f %.3f %.3f %s %s\n", w, (k == 0 ? "unlimited" : k), f,
					       model, m, 100 * sum / wsum, 100 * worst, 100 * rt, 100 * re, te, cost
				}' te="$true_err" cost="$cost" "$dir/$w-$f.te" "$dir/$w-$k-$model.csv"
		done
	done
done
