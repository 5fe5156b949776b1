#!/bin/bash
# The trace reader's canonical-form path against libyaml: CPU time (user +
# sys) and MB/s of `sleuth run --replay` with the fast reader (default) and
# with SLEUTH_TRACE_FAST=0 (libyaml), and of libyaml's scanner alone
# tokenizing the same file (bench/yaml-scan), on a mktrace trace of N
# intervals x 200-400 branches.  Best of R runs each.
# Usage: bench/trace-fast.sh [BUILDDIR] [INTERVALS] [RUNS]
set -euo pipefail
R=${3:-3}
. "$(dirname "$0")/replay-trace.sh" "${1:-build}" "${2:-}" 20000
cat "$T/r.yaml" >/dev/null # in the page cache for every run

best() { # LABEL CMD...: the least CPU time (user+sys) of R runs
	local label=$1 b="" cpu wall rss; shift
	for _ in $(seq "$R"); do
		/usr/bin/time -f '%U %S %e %M' -o "$T/time" "$@" >/dev/null 2>"$T/err" ||
			{ cat "$T/err" >&2; exit 1; }
		read -r u s wall rss <"$T/time"
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		if [ -z "$b" ] || awk -v c="$cpu" -v b="$b" 'BEGIN { exit !(c < b) }'; then
			b=$cpu; bw=$wall; br=$rss
		fi
	done
	printf '| %s | %s s | %s s | %s MB/s | %s MB |\n' "$label" "$b" "$bw" \
		"$(awk -v s="$size" -v t="$b" 'BEGIN { printf "%.0f", s / t / 1e6 }')" \
		"$((br / 1024))"
}
echo "trace: $ivs intervals, $((size / 1000000)) MB"
echo "| what | CPU (user+sys) | wall | MB/s of CPU | peak RSS |"
echo "| --- | --- | --- | --- | --- |"
best "libyaml scanner alone (bench/yaml-scan)" "$B/bench/yaml-scan" "$T/r.yaml"
best "run --replay, canonical-form reader" "$B/sleuth" run -q --replay "$T/r.yaml" \
	--machine "$T/m.yaml" -o "$T/f.prof"
best "run --replay, libyaml (SLEUTH_TRACE_FAST=0)" env SLEUTH_TRACE_FAST=0 "$B/sleuth" \
	run -q --replay "$T/r.yaml" --machine "$T/m.yaml" -o "$T/s.prof"
cmp -s "$T/f.prof" "$T/s.prof" || { echo "the two paths' profiles differ" >&2; exit 1; }
