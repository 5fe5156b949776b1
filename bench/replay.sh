#!/bin/bash
# Replay speed: `sleuth run --replay` of a 100k-interval synthetic trace
# (200 hot branches per phase, so 200-400 per interval), against reading the
# same trace alone.  Usage: bench/replay.sh [BUILDDIR] [INTERVALS]
# Prints the lines recorded in docs/benchmarks.md ("Replay").
set -euo pipefail
. "$(dirname "$0")/replay-trace.sh" "${1:-build}" "${2:-}" 100000

# wall, user and peak RSS of one command (GNU time)
measure() {
	/usr/bin/time -f '%e %U %M' -o "$T/time" "$@" >/dev/null 2>"$T/err" ||
		{ cat "$T/err" >&2; exit 1; }
	cat "$T/time"
}
read -r wall user rss < <(measure "$B/sleuth" run -q --replay "$T/r.yaml" \
	--machine "$T/m.yaml" -o "$T/r.prof")
read -r pwall puser prss < <(measure "$B/sleuth" phases "$T/r.prof")
echo "trace: $ivs intervals x 200-400 branches, $(( size / 1000000 )) MB"
echo "sleuth run --replay: ${wall} s wall, ${user} s user," \
     "$(awk -v n="$ivs" -v t="$wall" 'BEGIN { printf "%.0f", n / t }') intervals/s," \
     "$(awk -v s="$size" -v t="$wall" 'BEGIN { printf "%.1f", s / t / 1e6 }') MB/s," \
     "peak RSS $(( rss / 1024 )) MB"
echo "sleuth phases (profile load + report): ${pwall} s wall, peak RSS $(( prss / 1024 )) MB"
if [ -x "$B/bench/bench-trace" ]; then
	echo "trace reader alone (bench-trace, 100k x 200):"
	(cd "$T" && "$B/bench/bench-trace" "$T/bt.yaml" "$ivs" 200 | grep -E '^(trace|read)')
fi
