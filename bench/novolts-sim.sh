#!/bin/bash
# What not knowing the P-states' voltages costs the power model, on the
# simulated Nehalem (docs/benchmarks.md, "Machines without voltages"):
# calibrate as bench/calibrate-sim.sh does from three skeletons — the true
# voltages, none (calibrate fits relative ones), and V = 1 everywhere — and
# score each on the held-out workloads with bench/power-accuracy.sh.
#
#   bench/novolts-sim.sh [BUILD_DIR] [FREQS...]   (default: build; 2.66 2.40 2.13 1.60)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
shift || true
freqs=("$@")
[ ${#freqs[@]} -gt 0 ] || freqs=(2.66 2.40 2.13 1.60)
sleuth=$build/sleuth
w=$(mktemp -d "${TMPDIR:-/tmp}/novolts.XXXXXX")
trap 'rm -rf "$w"' EXIT
skel=$src/data/machines/sim-nehalem-i7-920.skeleton.yaml

sed 's/, volts: [0-9.]*//' "$skel" >"$w/nv.skeleton.yaml"
SKEL=$skel OUT=$w/true.yaml "$src/bench/calibrate-sim.sh" "$build" >"$w/true.txt" 2>&1
KEEP=$w/nv SKEL=$w/nv.skeleton.yaml OUT=$w/nv.yaml "$src/bench/calibrate-sim.sh" "$build" \
	>"$w/nv.txt" 2>&1
# V = 1: calibrate-sim.sh refuses voltages unlike the simulator's, so the
# same steps by hand on the traces kept above
(
	cd "$w/nv"
	pairs=$(ls ./*.trace.yaml | grep -v idle-run | sed 's|^\./||; s|\.trace\.yaml$||')
	sed -E 's/(ghz: [0-9.]+), volts: [0-9.]+/\1/; s/(ghz: [0-9.]+)\}/\1, volts: 1}/' \
		"$skel" >v1.skeleton.yaml
	"$sleuth" calibrate -q -m v1.skeleton.yaml -o v1-selected.yaml --select 5 \
		--idle-log idle.csv $(for p in $pairs; do echo "$p.trace.yaml:$p.csv"; done) &>/dev/null
	mkdir -p v1
	for p in $pairs; do
		"$sleuth" run -q --replay "$p.trace.yaml" --machine v1-selected.yaml -o "v1/$p.prof"
	done
	"$sleuth" calibrate -q -m v1-selected.yaml -o "$w/v1.yaml" --idle-log idle.csv \
		$(for p in $pairs; do echo "v1/$p.prof:$p.csv"; done) >"$w/v1.txt"
)
printf '%-32s %-14s' "skeleton" "training CV"
printf ' %8s' "${freqs[@]}"
printf '\n'
for v in true nv v1; do
	case $v in
	true) name="true voltages" ;;
	nv) name="no voltages (relative V fitted)" ;;
	v1) name="V = 1 everywhere" ;;
	esac
	cv=$(sed -n 's/^  all (interval-weighted) .* \([0-9.]*%\)$/\1/p' "$w/$v.txt")
	MACHINE=$w/$v.yaml "$src/bench/power-accuracy.sh" "$build" "${freqs[@]}" >"$w/$v.acc" 2>&1
	printf '%-32s %-14s' "$name" "$cv"
	for f in "${freqs[@]}"; do
		printf ' %8s' "$(sed -n "s/^$f  mean power: avg \([0-9.]*%\).*/\1/p" "$w/$v.acc")"
	done
	printf '\n'
done
