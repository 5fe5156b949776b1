#!/bin/bash
# Phase detection on dithered runs (docs/benchmarks.md, "Dithering inside
# the one run"): every workload of both simulated suites simulated at fmax
# with and without --dither N:FREQ (same seed), replayed with 4 counters and
# the time model's events pinned, and scored against the simulator's
# labels (sleuth run --score: the adjusted Rand index, and the phase
# predictor's accuracy).  A dithered interval's CPI was counted at another
# clock; this shows whether detection is hurt by it.
#
#   bench/dither-score.sh [BUILDDIR]      DITHER (default 16:1.60), SEEDS (default 1)
# One line per suite, seed and workload: ARI and predictor accuracy without
# and with dithering; then the means per suite and seed.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-dscore.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
score() { # TRACE MACHINE SEED -> "ari accuracy"
	"$build/sleuth" run --replay "$1" --machine "$2" --counters 4 --pin time --seed "$3" \
		-o "$tmp/s.prof" --score 2>&1 |
		sed -n 's/.*ari \([0-9.]*\) .*accuracy \([0-9.na]*\).*/\1 \2/p'
}
echo "suite seed workload | ari acc | dithered: ari acc"
for seed in ${SEEDS:-1}; do
	for suite in basic hard; do
		if [ $suite = hard ]; then
			m=$src/data/machines/sim-nehalem-i7-920-hard.yaml
			sim=$src/data/sim/nehalem-i7-920-hard.yaml
			ws=("$src"/data/workloads/hard/*.yaml)
		else
			m=$src/data/machines/sim-nehalem-i7-920-mlp.yaml
			sim=$src/data/sim/nehalem-i7-920-offcore.yaml
			ws=("$src"/data/workloads/*.yaml)
		fi
		for w in "${ws[@]}"; do
			"$build/sleuth" simulate "$w" -m "$sim" --seed "$seed" -o "$tmp/p.yaml" -q
			"$build/sleuth" simulate "$w" -m "$sim" --seed "$seed" -o "$tmp/d.yaml" -q \
				--dither "${DITHER:-16:1.60}"
			echo "$suite $seed $(basename "$w" .yaml) | $(score "$tmp/p.yaml" "$m" "$seed") |" \
				"$(score "$tmp/d.yaml" "$m" "$seed")"
		done
	done
done | tee "$tmp/all.txt"
echo
echo "suite seed | mean ari acc | dithered: mean ari acc | workloads whose ari fell"
awk '{ k = $1 " " $2; n[k]++; a[k] += $5; p[k] += $6; da[k] += $8; dp[k] += $9
       if ($8 < $5 - 1e-4) fell[k] = fell[k] " " $3 }
     END { for (k in n) printf "%s | %.4f %.4f | %.4f %.4f |%s\n", k, a[k] / n[k], p[k] / n[k],
                                 da[k] / n[k], dp[k] / n[k], fell[k] ? fell[k] : " none" }' \
	"$tmp/all.txt" | sort
