#!/bin/bash
# Time, peak memory and size of `sleuth report` on a 100,000-interval
# profile (docs/benchmarks.md, "Report"); the targets are under 3 s and
# under 5 MB.  The profile is made by simulating a shipped workload
# repeated to 100k intervals and replaying it (not timed).
# usage: bench/report.sh [BUILDDIR] [INTERVALS]   (default: build 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
N=${2:-100000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$B/sleuth" simulate -q data/workloads/gcc-like.yaml --intervals "$N" -o "$out/trace.yaml"
"$B/sleuth" run -q --replay "$out/trace.yaml" -o "$out/p.prof"
"$B/sleuth" phases "$out/p.prof" | head -1
run() { # LABEL OUTPUT ARGS...
	local label=$1 file=$2; shift 2
	/usr/bin/time -f "%e %U %S %M" -o "$out/time" "$B/sleuth" report -q "$out/p.prof" \
		-o "$out/$file" "$@"
	read -r secs user sys kb < "$out/time"
	printf '%-34s %6.2f s wall %6.2f s CPU %6.1f MB peak RSS, output %5.2f MB\n' "$label" \
		"$secs" "$(echo "$user + $sys" | bc -l)" "$(echo "$kb/1024" | bc -l)" \
		"$(echo "$(stat -c %s "$out/$file")/1048576" | bc -l)"
}
run "html (profiled, fmax, fmin)" r.html
run "html, every P-state" r2.html $(for g in 1.6 1.73 1.86 2.0 2.13 2.26 2.4 2.53 2.66; do echo --freq $g; done)
run "json" r.json --format json
