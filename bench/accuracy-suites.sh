#!/bin/bash
# The time models on both simulated suites, tuning and held-out splits
# (docs/benchmarks.md, "Harder truth"):
#   basic: data/workloads/*.yaml on data/sim/nehalem-i7-920-offcore.yaml
#          (the basic physics, with the offcore events exposed), sleuth's
#          model data/machines/sim-nehalem-i7-920-mlp.yaml;
#   hard:  data/workloads/hard/*.yaml on data/sim/nehalem-i7-920-hard.yaml,
#          model data/machines/sim-nehalem-i7-920-hard.yaml.
# Each workload is simulated at fmax, replayed with 4 counters and predicted
# at 1.60 (fmin) and 2.13 GHz: the stall model from a profile pinning its
# events (stall_cycles,llc_misses), the mlp model from one pinning its own
# (--pin time on these machines).  Seeds: SEEDS (default "1 2 3"); seed 1
# is the tuning split, the others are held out (docs/benchmarks.md).
# SUITES (default "basic hard"): the suites to run; a directory instead of
# a name (e.g. data/workloads/unseen) is a suite of its own, named after
# the directory, run as the hard suite (same machines), and held out at
# every seed in the split table.
#
# REFINE=F2:FRAC refines every prediction with a short run at F2 GHz of the
# first FRAC of the intervals (predict --refine; bench/accuracy-workload.sh);
# PREFIX=FRAC alone gives the unrefined figures after that prefix;
# REFINE_RULE=ratio|param the refinement's rule (predict --refine-rule).
# DITHER=N:FREQ profiles runs dithered every Nth interval to FREQ GHz
# instead, refined by their own dithered intervals (DITHER_REFINE=off: not;
# TRANSITION_US: the switches' time); the split table then ends with the
# dithered runs' extra time over the runs at fmax, mean and worst %
# (docs/benchmarks.md, "Dithering inside the one run").
#
# HARD_MACHINE=FILE: sleuth's model for the hard suite and the directory
# suites instead (e.g. the shipped one without its dram_reads role: the
# core counters alone; docs/benchmarks.md, "DRAM reads from the memory
# controller").
#
#   bench/accuracy-suites.sh [BUILDDIR]
# One line per suite, seed, model and frequency: mean over workloads of the
# instance-weighted error, worst workload, worst instance -- over detected
# instances and over true ones (the simulator's label runs); then, with
# REFINE, the same true-instance figures over the instances that start
# after the refining run's prefix, and the prefix's share of the intervals.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-suites.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for seed in ${SEEDS:-1 2 3}; do
	for suite in ${SUITES:-basic hard}; do
		if [ "$suite" != basic ]; then
			export MACHINE=${HARD_MACHINE:-$src/data/machines/sim-nehalem-i7-920-hard.yaml}
			export SIM=$src/data/sim/nehalem-i7-920-hard.yaml
			dir=$src/data/workloads/hard
			[ "$suite" = hard ] || { dir=$(realpath "$suite"); suite=$(basename "$dir"); }
			ws=("$dir"/*.yaml)
		else
			export MACHINE=$src/data/machines/sim-nehalem-i7-920-mlp.yaml
			export SIM=$src/data/sim/nehalem-i7-920-offcore.yaml
			ws=("$src"/data/workloads/*.yaml)
		fi
		for w in "${ws[@]}"; do
			SEED=$seed PIN=stall_cycles,llc_misses MODELS=stall \
				"$src/bench/accuracy-workload.sh" "$build/sleuth" "$w" "$tmp" 0 4 1.60 2.13
			SEED=$seed PIN=time MODELS=mlp \
				"$src/bench/accuracy-workload.sh" "$build/sleuth" "$w" "$tmp" 0 4 1.60 2.13
		done | sed "s/^/$suite $seed /"
	done
done | tee "$tmp/all.txt" >"${KEEP:-/dev/null}"
after=${REFINE:-${PREFIX:-}}
echo "suite seed model ghz | avg% worst_wl% worst_inst% | true: avg% worst_inst% (worst workload)" \
	"${after:+| after the prefix: avg% worst_inst% (worst workload) | prefix share%}"
awk -v refine="$after" '{ k = $1 " " $2 " " $6 " " $5; s[k] += $8; n[k]++
       if ($8 > ww[k]) ww[k] = $8; if ($9 > wi[k]) wi[k] = $9
       ts[k] += $12; if ($13 > tw[k]) { tw[k] = $13; tn[k] = $3 }
       os[k] += $15; if ($16 > ow[k]) { ow[k] = $16; on[k] = $3 }
       pre[k] += $14; all[k] += $17 }
     END { for (k in s) {
               printf "%s | %.2f %.2f %.2f | %.2f %.2f (%s)", k, s[k] / n[k], ww[k], wi[k],
                      ts[k] / n[k], tw[k], tn[k]
               if (refine != "")
                   printf " | %.2f %.2f (%s) | %.1f", os[k] / n[k], ow[k], on[k], 100 * pre[k] / all[k]
               printf "\n" } }' "$tmp/all.txt" | sort
# The same by split (docs/benchmarks.md, "Harder truth"): tuning = seed 1
# of the 13 basic and the first 12 hard workloads; held out = seeds 2 and 3
# of those, and graph-bfs and video-encode at every seed, and every
# workload of a suite given as a directory.  Means over the workload runs
# of a split, worst over them.
echo
echo "suite split model ghz | true: avg% worst_inst% (worst workload)" \
	"${after:+| after the prefix: avg% worst_inst% (worst workload)}" \
	"${DITHER:+| dither cost: mean% worst%}"
awk -v refine="$after" -v dither="${DITHER:-}" '{
       split_ = ($1 != "basic" && $1 != "hard") ? "held-out-wl" \
                : ($3 == "graph-bfs" || $3 == "video-encode") ? ($2 == 1 ? "held-out-wl-seed1" : "held-out-wl-seeds") \
                : ($2 == 1 ? "tuning" : "held-out-seeds")
       k = $1 " " split_ " " $6 " " $5; n[k]++
       ts[k] += $12; if ($13 > tw[k]) { tw[k] = $13; tn[k] = $3 " s" $2 }
       os[k] += $15; if ($16 > ow[k]) { ow[k] = $16; on[k] = $3 " s" $2 }
       dc[k] += $18; if ($18 > dw[k]) dw[k] = $18 }
     END { for (k in n) {
               printf "%s | %.2f %.2f (%s)", k, ts[k] / n[k], tw[k], tn[k]
               if (refine != "")
                   printf " | %.2f %.2f (%s)", os[k] / n[k], ow[k], on[k]
               if (dither != "")
                   printf " | %.2f %.2f", dc[k] / n[k], dw[k]
               printf "\n" } }' "$tmp/all.txt" | sort
