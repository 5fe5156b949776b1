#!/bin/bash
# End-to-end accuracy of the time models on the shipped simulated suite:
# for every workload, simulate its fmax trace and --truth traces at the
# other frequencies (same seed: the same program), replay the fmax trace
# with 4 counters and with unlimited counters, and compare each phase
# instance's predicted time with the truth (bench-accuracy: the paper's
# metric, relative error of instance times weighted by their intervals).
#
#   bench/accuracy.sh [BUILDDIR] [FREQS...]     (default: 1.60 2.13)
# One line per workload, counters, target and model; then the averages.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
shift || true
freqs=("$@")
[ ${#freqs[@]} -gt 0 ] || freqs=(1.60 2.13)
machine=$src/models/sim-nehalem-i7-920.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-acc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

printf "%-18s %-9s %-5s %-6s %8s %9s\n" workload counters ghz model avg_err worst_err
for wl in "$src"/data/workloads/*.yaml; do
	w=$(basename "$wl" .yaml)
	"$build/sleuth" simulate "$wl" -o "$tmp/$w-max.yaml" -q
	for f in "${freqs[@]}"; do
		"$build/sleuth" simulate "$wl" -f "$f" --truth -o "$tmp/$w-$f.yaml" -q
	done
	for k in 4 0; do
		"$build/sleuth" run -q --replay "$tmp/$w-max.yaml" --machine "$machine" \
			--counters "$k" -o "$tmp/$w-$k.prof"
		for f in "${freqs[@]}"; do
			"$build/bench/bench-accuracy" "$tmp/$w-$k.prof" "$tmp/$w-$f.yaml" |
				awk -v w="$w" -v k="$([ "$k" = 0 ] && echo unlimited || echo "$k")" -v f="$f" \
				'NR > 1 { printf "%-18s %-9s %-5s %-6s %8s %9s\n", w, k, f, $1, $3, $4 }'
		done
	done
done | tee "$tmp/all.txt"
echo
awk '{ sub("%", "", $5); sub("%", "", $6); key = $2 " " $3 " " $4
       s[key] += $5; n[key]++; if ($6 > w[key]) w[key] = $6 }
     END { for (k in s) printf "mean over workloads  %-22s avg %5.2f%%  worst instance %5.2f%%\n",
                               k, s[k] / n[k], w[k] }' "$tmp/all.txt" | sort
