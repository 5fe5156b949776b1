#!/bin/bash
# Collection overhead of the timer backend: wall and CPU time of a
# CPU-bound program (tests/progs/spin, SECONDS of work) bare, under sleuth's
# timer backend, and under `perf record` sampling cpu-clock at the same
# rate.  Runs are interleaved (bare, sleuth, perf, bare, ...) so that load
# from other processes hits all three alike; medians are reported.
#
# Usage: bench/overhead.sh [BUILDDIR]   (env: RUNS=5 SECONDS_=10 HZ=2000)
# To measure the real CLI once it exists, set
#   SLEUTH_CMD='$BUILD/sleuth run --backend timer -o $T/x.prof --'
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${RUNS:-5}
SECS=${SECONDS_:-10}
HZ=${HZ:-2000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SPIN="$BUILD/tests/progs/spin"
PERIOD_NS=$(awk -v hz="$HZ" 'BEGIN { printf "%d", 1e9 / hz }')
SLEUTH_CMD=${SLEUTH_CMD:-'$BUILD/bench/bench_timer --hz $HZ --'}
SLEUTH_CMD=$(eval echo "$SLEUTH_CMD")
PERF_CMD="perf record -q -e cpu-clock:u -c $PERIOD_NS -o $T/perf.data --"
have_perf=1
$PERF_CMD true >/dev/null 2>&1 || have_perf=0

# one NAME CMD...: append "wall cpu" (seconds) of one run to $T/NAME
one() {
	local name=$1; shift
	local TIMEFORMAT='%R %U %S'
	{ time "$@" >/dev/null 2>"$T/err"; } 2>"$T/t" || { cat "$T/err" >&2; exit 1; }
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$T/t" >>"$T/$name"
}

for _ in $(seq "$RUNS"); do
	one bare "$SPIN" "$SECS"
	# shellcheck disable=SC2086
	one sleuth $SLEUTH_CMD "$SPIN" "$SECS"
	[ $have_perf = 1 ] && one perf $PERF_CMD "$SPIN" "$SECS"
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bw=$(cut -d' ' -f1 "$T/bare" | median); bc=$(cut -d' ' -f2 "$T/bare" | median)
row() { # NAME LABEL
	local w c
	w=$(cut -d' ' -f1 "$T/$1" | median); c=$(cut -d' ' -f2 "$T/$1" | median)
	awk -v l="$2" -v w="$w" -v c="$c" -v bw="$bw" -v bc="$bc" 'BEGIN {
		printf "| %s | %.3f | %+.2f%% | %.3f | %+.2f%% |\n", l, w, 100 * (w / bw - 1), c, 100 * (c / bc - 1) }'
}
echo "spin $SECS s of work, $RUNS interleaved runs each, sampling at $HZ Hz; medians"
echo "| run | wall s | wall overhead | CPU s (user+sys) | CPU overhead |"
echo "| --- | --- | --- | --- | --- |"
printf '| bare | %.3f | | %.3f | |\n' "$bw" "$bc"
row sleuth "sleuth timer backend"
[ $have_perf = 1 ] && row perf "perf record -e cpu-clock:u -c $PERIOD_NS"
exit 0
