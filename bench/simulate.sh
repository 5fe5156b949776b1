#!/bin/bash
# Time and peak memory of `sleuth simulate` writing 100k intervals with 200
# branch addresses each (docs/benchmarks.md, "Simulator").
# usage: bench/simulate.sh [BUILDDIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # LABEL ARGS...
	local label=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$out/time" "$B/sleuth" simulate -q bench/simulate-200br.yaml \
		--intervals 100000 -o "$out/trace.yaml" "$@"
	read -r secs user sys kb < "$out/time"
	printf '%-22s %6.2f s wall %6.2f s CPU %6.1f MB peak RSS, trace %s MB\n' "$label" "$secs" \
		"$(echo "$user + $sys" | bc -l)" "$(echo "$kb/1024" | bc -l)" \
		"$(( $(stat -c %s "$out/trace.yaml") / 1048576 ))"
}
run "trace, meter energy"
run "trace, --truth" --truth
run "trace + power log" --power-log "$out/p.csv"
