#!/bin/bash
# Fit the shipped power model of the simulated Nehalem i7-920
# (data/machines/sim-nehalem-i7-920.yaml) the way a user fits their own machine:
#
#   0. measure the memory system with microbenchmarks (bench/memprobe-sim.sh:
#      a pointer chase, a copy loop, an LLC-resident loop) and put the
#      results in a copy of the skeleton: the models' latency, bandwidth and
#      LLC-hit time are measured, never read from the simulator's parameters;
#   1. simulate the training suite (data/workloads/train/) at several
#      P-states with the power meter's log, plus one idle log;
#   2. choose the power events: greedy leave-one-workload-out selection on
#      the full-information traces (every event counted), among event counts
#      (not the machine's cycle counts unless SELECT_CYCLES=1, calibrate's
#      --select-cycles; each count also as energy per event at a fixed
#      voltage when SELECT_ENERGY=1, --select-energy), unless SELECT=0
#      keeps the skeleton's terms;
#   3. `sleuth run --replay` each trace with a machine listing those events,
#      so the profiles are multiplexed exactly as later profiles will be;
#   4. `sleuth calibrate` on PROFILE:LOG.csv pairs with the idle log.
#
# Usage: bench/calibrate-sim.sh [BUILD_DIR]   (default: build)
# Environment: FREQS (default "2.66 2.13 1.60"), SELECT (default 5), SELECT_CYCLES (default 0),
#   SELECT_ENERGY (default 0), TRAIN (default data/workloads/train: the
#   folders of training workloads; "data/workloads/train
#   data/workloads/train/uncore" adds the ones that excite power at a fixed
#   voltage),
#   SKEL (default data/machines/sim-nehalem-i7-920.skeleton.yaml), OUT (default
#   data/machines/sim-nehalem-i7-920.yaml),
#   SIM (default data/sim/nehalem-i7-920.yaml, the simulated machine),
#   KEEP=DIR keeps the intermediate files there.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
SLEUTH=$BUILD/sleuth
SKEL=${SKEL:-$SRC/data/machines/sim-nehalem-i7-920.skeleton.yaml}
OUT=${OUT:-$SRC/data/machines/sim-nehalem-i7-920.yaml}
SIMMACHINE=${SIM:-$SRC/data/sim/nehalem-i7-920.yaml}
FREQS=${FREQS:-2.66 2.13 1.60}
SELECT=${SELECT:-5}
SELECT_CYCLES=${SELECT_CYCLES:-0}
SELECT_ENERGY=${SELECT_ENERGY:-0}
sc=()
[ "$SELECT_CYCLES" = 0 ] || sc=(--select-cycles)
[ "$SELECT_ENERGY" = 0 ] || sc+=(--select-energy)
die() { echo "calibrate-sim: $*" >&2; exit 1; }
. "$SRC/bench/train-lib.sh"
train_scratch calibrate-sim
[ -x "$SLEUTH" ] || die "no $SLEUTH; build first (meson setup build && ninja -C build)"
[ -f "$SKEL" ] || die "no skeleton $SKEL"

# The model's P-states must be the simulated machine's, voltages included,
# or f*V^2 is wrong for every interval.  A skeleton without voltages (as
# 'sleuth machine init' writes on most machines) is compared by frequency
# only: calibrate fits its relative voltages.
pstates() { grep -Eo '\{ *ghz: *[0-9.]+(, *volts: *[0-9.]+)?' "$1" |
	awk -F'[:,]' -v v="$(grep -q 'volts:' "$SKEL" && echo 1)" \
		'{ if (v) printf "%.3f %.4f\n", $2, $4; else printf "%.3f\n", $2 }'; }
if ! diff <(pstates "$SIMMACHINE") <(pstates "$SKEL") >/dev/null; then
	die "the P-states of $SKEL differ from the simulated machine's ($SIMMACHINE):
$(diff <(pstates "$SIMMACHINE") <(pstates "$SKEL") | grep '^[<>]')"
fi

echo "0. measuring the memory system (bench/memprobe-sim.sh)" >&2
"$SRC/bench/memprobe-sim.sh" "$SLEUTH" "$SIMMACHINE" >"$W/memory.yaml"
lat=$(sed -n 's/^memory_latency_ns: //p' "$W/memory.yaml")
echo "   memory_latency_ns: $lat" >&2
grep -q '^memory:' "$SKEL" && die "$SKEL has a memory: section; the probes write it"
{
	sed "s/^memory_latency_ns:.*/memory_latency_ns: $lat   # measured: bench\/memprobe-sim.sh/" "$SKEL"
	sed -n '/^memory:/,$p' "$W/memory.yaml"
} >"$W/skeleton.yaml"
grep -q "^memory_latency_ns: $lat " "$W/skeleton.yaml" || die "no memory_latency_ns line in $SKEL"
SKEL0=$SKEL SKEL=$W/skeleton.yaml

echo "1. simulating the training suite at $FREQS GHz" >&2
pairs=()
TRAIN=${TRAIN:-data/workloads/train}
train_list "$SRC" "$TRAIN"
for wl in "${train[@]}"; do
	n=$(basename "$wl" .yaml)
	for f in $FREQS; do
		"$SLEUTH" simulate -q "$wl" -m "$SIMMACHINE" -f "$f" \
			-o "$W/$n-$f.trace.yaml" --power-log "$W/$n-$f.csv"
		pairs+=("$n-$f")
	done
done
first=${train[0]}
"$SLEUTH" simulate -q "$first" -m "$SIMMACHINE" -o "$W/idle-run.trace.yaml" \
	--idle-log "$W/idle.csv"

machine=$SKEL
if [ "$SELECT" != 0 ]; then
	echo "2. choosing $SELECT power events on the full traces" >&2
	"$SLEUTH" calibrate -q -m "$SKEL" -o "$W/selected.yaml" --select "$SELECT" "${sc[@]}" \
		--idle-log "$W/idle.csv" \
		$(for p in "${pairs[@]}"; do echo "$W/$p.trace.yaml:$W/$p.csv"; done) \
		>"$W/select.txt"
	sed -n '/^events chosen/,/^$/p' "$W/select.txt" >&2
	machine=$W/selected.yaml
fi

echo "3. replaying the traces with sleuth run" >&2
for p in "${pairs[@]}"; do
	"$SLEUTH" run -q --replay "$W/$p.trace.yaml" --machine "$machine" -o "$W/$p.prof"
done

echo "4. calibrating on the replayed profiles" >&2
"$SLEUTH" calibrate -q -m "$machine" -o "$W/model.yaml" --idle-log "$W/idle.csv" \
	$(for p in "${pairs[@]}"; do echo "$W/$p.prof:$W/$p.csv"; done) | tee "$W/report.txt"
# Say how the model was made; the scratch directory's name means nothing.
{
	se=
	[ "$SELECT_ENERGY" = 0 ] || se=" SELECT_ENERGY=$SELECT_ENERGY"
	[ "$TRAIN" = data/workloads/train ] || se="$se TRAIN=\"$TRAIN\""
	echo "# made by bench/calibrate-sim.sh (FREQS=\"$FREQS\" SELECT=$SELECT SELECT_CYCLES=$SELECT_CYCLES$se) from"
	echo "# $(basename "$SKEL0"): memprobe-sim -> simulate -> [calibrate --select] -> run --replay -> calibrate"
	sed "s|$W/||g" "$W/model.yaml"
} >"$OUT.tmp.$$"
mv "$OUT.tmp.$$" "$OUT"
echo "wrote $OUT" >&2
