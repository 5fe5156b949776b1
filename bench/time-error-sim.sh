#!/bin/bash
# Measure a fitted simulated machine's time_error: anew (docs/formats.md;
# what `sleuth schedule --confidence` allows for) on a set of training
# workloads, leaving its power model and everything else as they are:
#
#   1. simulate each training workload at several P-states (as
#      bench/calibrate-sim.sh does, same seed, same frequencies);
#   2. `sleuth run --replay` each trace with the machine (PIN: --pin);
#   3. `sleuth calibrate --time-error-only` on those profiles: each
#      workload's fastest profile predicts its slower ones through every
#      time model the machine supports.
#
# With the training folders bench/calibrate-sim.sh was given, this writes the
# rows it wrote (the same runs); with more folders, the time models' error
# is measured on more of the effects they can meet, and the power fit stays
# byte for byte (docs/benchmarks.md, "The stall model's margin").
#
# Usage: bench/time-error-sim.sh [BUILD_DIR]   (default: build)
# Environment: MACHINE (default data/machines/sim-nehalem-i7-920-hard.yaml, the
#   fitted machine), SIM (default data/sim/nehalem-i7-920-hard.yaml, the
#   simulated machine), TRAIN (default "data/workloads/train
#   data/workloads/train/uncore data/workloads/train/stalls": the folders of
#   training workloads), FREQS (default "2.66 2.13 1.60"), PIN (run --pin,
#   default none, as calibrate-sim), OUT (default MACHINE), KEEP=DIR keeps
#   the intermediate files there.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
SLEUTH=$BUILD/sleuth
MACHINE=${MACHINE:-data/machines/sim-nehalem-i7-920-hard.yaml}
SIMMACHINE=${SIM:-data/sim/nehalem-i7-920-hard.yaml}
TRAIN=${TRAIN:-data/workloads/train data/workloads/train/uncore data/workloads/train/stalls}
FREQS=${FREQS:-2.66 2.13 1.60}
PIN=${PIN:-}
OUT=${OUT:-$MACHINE}
case $MACHINE in /*) ;; *) MACHINE=$SRC/$MACHINE ;; esac
case $SIMMACHINE in /*) ;; *) SIMMACHINE=$SRC/$SIMMACHINE ;; esac
case $OUT in /*) ;; *) OUT=$SRC/$OUT ;; esac
die() { echo "time-error-sim: $*" >&2; exit 1; }
[ -x "$SLEUTH" ] || die "no $SLEUTH; build first (meson setup build && ninja -C build)"
[ -f "$MACHINE" ] || die "no machine $MACHINE"
. "$SRC/bench/train-lib.sh"
train_scratch time-error-sim
train_list "$SRC" "$TRAIN"
profs=()
for wl in "${train[@]}"; do
	n=$(basename "$wl" .yaml)
	for f in $FREQS; do
		"$SLEUTH" simulate -q "$wl" -m "$SIMMACHINE" -f "$f" -o "$W/$n-$f.trace.yaml"
		"$SLEUTH" run -q --replay "$W/$n-$f.trace.yaml" --machine "$MACHINE" \
			${PIN:+--pin "$PIN"} -o "$W/$n-$f.prof"
		profs+=("$n-$f.prof")
	done
done
# relative names in the comment calibrate writes: the scratch directory's
# name means nothing
(cd "$W" && "$SLEUTH" calibrate -q --time-error-only --machine "$MACHINE" \
	-o "$W/out.yaml" "${profs[@]}")
sed "s|^# time_error: sleuth calibrate|# time_error: bench/time-error-sim.sh (TRAIN=\"$TRAIN\" FREQS=\"$FREQS\"${PIN:+ PIN=$PIN}): sleuth calibrate|" \
	"$W/out.yaml" >"$OUT.tmp.$$"
mv "$OUT.tmp.$$" "$OUT"
echo "wrote $OUT (TRAIN=\"$TRAIN\")" >&2
