#!/bin/bash
# Time and peak memory against run length (docs/benchmarks.md, "Memory and
# time against run length (#15)").  For each length N (default 10k, 100k
# and 1M intervals): a synthetic 3-phase trace of N intervals with 4 hot
# branches each (tests/collect/mktrace: few branches, so that making the
# profile is cheap; the profile is an ordinary one, written by `sleuth run
# --replay` with the shipped nehalem-i7-920 machine, 9 P-states, 4
# counters), then each command below under /usr/bin/time (whole process).
# The goal: `predict --all --per interval` on 1M intervals under 2 s and
# 500 MB.
#
# usage: bench/scale.sh [BUILDDIR [N...]]
#   BASE=/path/to/older/sleuth bench/scale.sh   also runs every command
#   with that binary on the same profile and cmp's the outputs (the
#   "before" column, and the check that results are byte-identical).
# Prints one line per (N, command, binary): N, command, wall s, CPU
# (user+sys) s, peak RSS MB, and "same"/"DIFFERENT" with BASE.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
B=$(realpath "${1:-build}")
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
T=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-scale.XXXXXX")
trap 'rm -rf "$T"' EXIT
machine=$src/data/machines/nehalem-i7-920.yaml

# measure LABEL N OUTDIR BIN ARGS...: one line; the output is OUTDIR/out
measure() {
	local label=$1 n=$2 dir=$3 bin=$4
	shift 4
	mkdir -p "$dir"
	(cd "$dir" && /usr/bin/time -f '%e %U %S %M' -o "$T/time" "$bin" "$@" \
		>/dev/null 2>"$T/err") || { cat "$T/err" >&2; exit 1; }
	read -r wall user sys kb <"$T/time"
	printf '%8s  %-40s %-6s %6.2f s wall %6.2f s CPU %7.1f MB\n' "$n" "$label" \
		"$(basename "$dir")" "$wall" "$(echo "$user + $sys" | bc -l)" \
		"$(echo "$kb / 1024" | bc -l)"
}

for n in "${sizes[@]}"; do
	repeats=$(( (n - 18 + 7) / 8 ))
	"$B/tests/collect/mktrace" "$T/t.yaml" "$T/m.yaml" "$repeats" 4
	measure "run --replay" "$n" "$T/new" "$B/sleuth" run -q --replay "$T/t.yaml" \
		--machine "$machine" -o "$T/p.prof"
	if [ -n "${BASE:-}" ]; then
		measure "run --replay" "$n" "$T/base" "$BASE" run -q --replay "$T/t.yaml" \
			--machine "$machine" -o "$T/base.prof"
		if cmp -s "$T/p.prof" "$T/base.prof"; then echo "          same output"
		else echo "          DIFFERENT output"; fi
		rm -f "$T/base.prof"
	fi
	rm -f "$T/t.yaml"
	cmds=("predict --all --per interval -o out"
	      "predict --all -o out"
	      "schedule --min-edp -o out"
	      "report -o out")
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086  # the command's words
		set -- $c
		sub=$1
		shift
		measure "$sub P $*" "$n" "$T/new" "$B/sleuth" "$sub" "$T/p.prof" "$@"
		if [ -n "${BASE:-}" ]; then
			measure "$sub P $*" "$n" "$T/base" "$BASE" "$sub" "$T/p.prof" "$@"
			if cmp -s "$T/new/out" "$T/base/out"; then echo "          same output"
			else echo "          DIFFERENT output"; fi
		fi
		rm -f "$T/new/out" "$T/base/out"
	done
	rm -f "$T/p.prof"
done
