#!/bin/bash
# Phase detection on both simulated suites (docs/phases.md, "Behaviour
# phases"; docs/benchmarks.md): every workload simulated at 2.66 GHz --
# basic (data/workloads/*.yaml) on the default simulated machine and
# replayed with the default machine model, hard (data/workloads/hard/*.yaml)
# on data/sim/nehalem-i7-920-hard.yaml replayed with
# data/machines/sim-nehalem-i7-920-hard.yaml -- 4 counters, `--pin time`,
# and scored with `sleuth run --replay TRACE --score --seed S`.
#
#   bench/phases-suites.sh [BUILDDIR]
# SEEDS (default "1 2 3"; seed 1 is the tuning split, the others are held
# out, and graph-bfs and video-encode are held out at every seed).
# SUITES (default "basic hard"): the suites to run; a directory instead of
# a name (e.g. data/workloads/unseen) is a suite of its own, named after
# the directory, run as the hard suite (same machines) and held out.
# RUN_SEED=N the replay's sampling seed (`run --seed`; default 1, as in the
# documented figures; RUN_SEED=sim: the simulation's seed).
# RUN="OPTIONS" adds options to `sleuth run` (e.g. RUN="--split off").
# TRACES=DIR keeps the simulated traces there and reuses them (they do not
# depend on the build's phase detection).
# One line per run: suite seed workload ari phases; then per suite and
# split: runs, mean and worst ARI, runs below 0.95, phases.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
sleuth=$build/sleuth
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-phsuites.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
traces=${TRACES:-$tmp}
mkdir -p "$traces"
for seed in ${SEEDS:-1 2 3}; do
	for suite in ${SUITES:-basic hard}; do
		if [ "$suite" != basic ]; then
			machine=(--machine "$src/data/machines/sim-nehalem-i7-920-hard.yaml")
			sim=(-m "$src/data/sim/nehalem-i7-920-hard.yaml")
			dir=$src/data/workloads/hard
			[ "$suite" = hard ] || { dir=$(realpath "$suite"); suite=$(basename "$dir"); }
			ws=("$dir"/*.yaml)
		else
			machine=()
			sim=()
			ws=("$src"/data/workloads/*.yaml)
		fi
		for w in "${ws[@]}"; do
			n=$(basename "$w" .yaml)
			t=$traces/$suite-$n-$seed.yaml
			rs=${RUN_SEED:-1}; [ "$rs" = sim ] && rs=$seed
			[ -s "$t" ] || "$sleuth" simulate -q "$w" "${sim[@]}" -f 2.66 --seed "$seed" -o "$t"
			# shellcheck disable=SC2086
			a=$("$sleuth" run -q --replay "$t" "${machine[@]}" --score --seed "$rs" \
				${RUN:-} -o "$tmp/p.prof" | sed -n 's/^score: ari \([0-9.-]*\) .*/\1/p')
			k=$("$sleuth" phases "$tmp/p.prof" | sed -n 's/.* intervals, \([0-9]*\) phases.*/\1/p')
			echo "$suite $seed $n $a $k"
		done
	done
done | tee "$tmp/all.txt"
echo
echo "suite split | runs | mean ARI | worst ARI (run) | runs < 0.95 | phases"
awk '{ s = ($1 != "basic" && $1 != "hard") || $3 == "graph-bfs" || $3 == "video-encode" ? "held-out-wl" \
             : ($2 == 1 ? "tuning" : "held-out-seeds")
       k = $1 " " s; n[k]++; sum[k] += $4; ph[k] += $5
       if (!(k in w) || $4 < w[k]) { w[k] = $4; wn[k] = $3 " s" $2 }
       if ($4 < 0.95) bad[k]++ }
     END { for (k in n) printf "%s | %d | %.3f | %.3f (%s) | %d | %d\n",
                                 k, n[k], sum[k] / n[k], w[k], wn[k], bad[k] + 0, ph[k] }' \
	"$tmp/all.txt" | sort
