#!/bin/bash
# Measure the memory latency sleuth's stall model uses (`memory_latency_ns`
# of a sleuth-machine/1) on the simulated machine, the way one measures it
# on hardware: run a pointer chase (each load's address comes from the
# previous load, so misses never overlap; data/workloads/train/train-chase)
# at two P-states and see how many more cycles it takes at the higher one.
# DRAM latency is (mostly) fixed time, so its cycles grow with f:
#
#     cycles(f) = A + X * L * f      =>      L = (C1 - C2) / (X * (f1 - f2))
#
# with X the LLC misses the PMU counts (the same at both frequencies: same
# program, same seed).  Everything else the chase does (core work, branch
# mispredicts, the ROB's hidden work) is cycles that do not move with f, so
# it cancels.  What is not cancelled -- the few LLC hits' uncore time, any
# part of the latency that runs on a clock tied to the core's -- is error of
# the measurement, as on hardware; the simulator's parameters are never read.
#
#   bench/memlat-sim.sh SLEUTH SIM_MACHINE.yaml [F1 F2]   (default: the
#   machine's highest and lowest P-states) -> prints the latency in ns
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SLEUTH SIM_MACHINE.yaml [F1 F2]" >&2; exit 2; }
sleuth=$1 sim=$2
src=$(cd "$(dirname "$0")/.." && pwd)
chase=$src/data/workloads/train/train-chase.yaml
if [ $# -ge 4 ]; then
	f1=$3 f2=$4
else
	read -r f1 f2 < <(grep -Eo '\{ *ghz: *[0-9.]+' "$sim" | grep -Eo '[0-9.]+$' |
		sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print hi, lo }')
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-memlat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for f in "$f1" "$f2"; do
	"$sleuth" simulate -q "$chase" -m "$sim" -f "$f" -o "$tmp/$f.yaml"
done
# sums of cycles (first counter) and LLC_MISSES (by its place in events:)
sums() {
	awk '
	/^events:/ { ev = 1; next }
	ev && /^- / { k++; if ($2 == "LLC_MISSES") col = k; next }
	ev && !/^- / { ev = 0 }
	/^- \{t: / {
		if (!col) { print "no LLC_MISSES event in the trace" > "/dev/stderr"; exit 1 }
		s = $0; sub(/.* n: \[/, "", s); sub(/\].*/, "", s)
		split(s, v, ", "); c += v[1]; x += v[col]
	}
	END { printf "%.0f %.0f\n", c, x }' "$1"
}
read -r c1 x1 < <(sums "$tmp/$f1.yaml")
read -r c2 x2 < <(sums "$tmp/$f2.yaml")
[ "$x1" = "$x2" ] && [ "$x1" != 0 ] ||
	{ echo "memlat-sim: LLC misses differ between the runs ($x1, $x2) or are zero" >&2; exit 1; }
awk -v c1="$c1" -v c2="$c2" -v x="$x1" -v f1="$f1" -v f2="$f2" \
	'BEGIN { printf "%.1f\n", (c1 - c2) / (x * (f1 - f2)) }'
