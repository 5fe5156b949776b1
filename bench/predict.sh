#!/bin/bash
# Benchmark of `sleuth predict --all --per interval --format csv` over a
# synthetic profile of N intervals (default 1,000,000) at the 9 P-states of
# data/machines/nehalem-i7-920.yaml: 9N rows.  Prints elapsed time, CPU time, peak
# memory and output size; docs/benchmarks.md ("Predict") records results.
#
#   bench/predict.sh [BUILDDIR] [N]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
n=${2:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$build/tests/models/gen-profile" "$tmp/big.prof" "$n"
echo "profile: $n intervals, $(du -h "$tmp/big.prof" | cut -f1)"
fmt="%e s elapsed, %U s user, %S s sys, %M KB peak"
cmd=("$build/sleuth" predict "$tmp/big.prof" --all --per interval --format csv)
# to a file, and to stdout on /dev/null (never -o /dev/null: -o renames a
# temporary file over its target)
/usr/bin/time -f "to a file:   $fmt" "${cmd[@]}" -o "$tmp/out.csv"
/usr/bin/time -f "to /dev/null: $fmt" "${cmd[@]}" >/dev/null
echo "rows: $(($(wc -l <"$tmp/out.csv") - 1)), $(du -h "$tmp/out.csv" | cut -f1)"
