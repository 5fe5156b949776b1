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
#
#   bench/accuracy-suites.sh [BUILDDIR]
# One line per suite, seed, model and frequency: mean over workloads of the
# instance-weighted error, worst workload, worst instance -- over detected
# instances and over true ones (the simulator's label runs).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-suites.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for seed in ${SEEDS:-1 2 3}; do
	for suite in basic hard; do
		if [ $suite = hard ]; then
			export MACHINE=$src/data/machines/sim-nehalem-i7-920-hard.yaml
			export SIM=$src/data/sim/nehalem-i7-920-hard.yaml
			ws=("$src"/data/workloads/hard/*.yaml)
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
echo "suite seed model ghz | avg% worst_wl% worst_inst% | true: avg% worst_inst% (worst workload)"
awk '{ k = $1 " " $2 " " $6 " " $5; s[k] += $8; n[k]++
       if ($8 > ww[k]) ww[k] = $8; if ($9 > wi[k]) wi[k] = $9
       ts[k] += $12; if ($13 > tw[k]) { tw[k] = $13; tn[k] = $3 } }
     END { for (k in s) printf "%s | %.2f %.2f %.2f | %.2f %.2f (%s)\n", k, s[k] / n[k], ww[k], wi[k],
                              ts[k] / n[k], tw[k], tn[k] }' "$tmp/all.txt" | sort
