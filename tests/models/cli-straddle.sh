#!/bin/bash
# The mlp model's straddles in two parts (models/model.c, straddle_parts;
# docs/models.md, "Straddles in two parts") must not regress, end to end
# through the CLI (bench/accuracy-workload.sh), mlp model, 4 counters,
# --pin time, fmax -> 1.60 GHz: video-encode at seed 2, whose rate-control
# burst straddling into a frame copy (the copy saturates the DRAM, rate
# control's ROB hides its misses) was the worst true instance, and
# stream-bw at the tuning seed 1, whose triad/reduce changes are
# straddles.  Taken as one set of counts, each was too fast by the
# bounds below and more.  Then a straddle's part that must take its own
# cycles at f0 (chess-search) and the edge of a longer instance in two
# parts (dense-lu).  And the other way: an interval that is no straddle
# must not be taken for one (last check).
. "$SRCDIR/tests/lib.sh"

export SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml"
export MACHINE="$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml"
# stream-bw on the core counters alone (the machine without the memory
# controller's dram_reads), as its straddles were measured: with the
# controller's count its worst detected instance is a reduce interval that
# is no straddle, whose LLC misses its phase's straddles lend it (2.22%)
sed '/^  dram_reads:/d' "$MACHINE" >"$T/nodram.yaml"
for run in "2 video-encode $MACHINE" "1 stream-bw $T/nodram.yaml"; do
	set -- $run
	SEED=$1 MACHINE=$3 MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
		"$SRCDIR/data/workloads/hard/$2.yaml" "$T" 0 4 1.60 2>"$T/err" >>"$T/acc.txt" ||
		fail "pipeline on $2 seed $1: $(cat "$T/err")"
	cp "$T/$2-4-mlp-1.60.true" "$T/$2.true" || fail "$2: no true-instance rows"
done
[ "$(wc -l <"$T/acc.txt")" = 2 ] && ok || fail "expected 2 result lines: $(cat "$T/acc.txt")"

# fields: 1 workload ... 7 worst detected instance %, 11 worst true one %
get() { awk -v w="$1" -v f="$2" '$1 == w { print $f }' "$T/acc.txt"; }
# |error| in % at 1.60 GHz of the true instance (the run of one label)
# holding interval I of workload W (bench/accuracy-workload.sh's rows)
inst_err() {
	awk -v i="$2" '$1 <= i && i < $1 + $2 { e = $3 < 0 ? -$3 : $3; printf "%.3f\n", e }' "$T/$1.true"
}
# measured (2026-11-26), before / after the split: video-encode s2's
# rate-control burst straddling into a frame copy (interval 102) 4.41 /
# 0.34% too fast (it was the run's worst true instance, 5.95 / 3.25%,
# before a phase measured its rate of other stalls in one interval);
# stream-bw s1 worst detected instance 2.69 / 0.73%
below "video-encode seed 2 straddle instance %" "$(inst_err video-encode 102)" 2.0
below "stream-bw seed 1 worst detected instance %" "$(get stream-bw 7)" 1.8

# A straddle's part at f0 takes the cycles it was given (models/model.c,
# mlp_cycles): chess-search (unseen17, development data since its one
# measurement) at seed 2, whose first move generation after the
# transposition table's clear (interval 89) straddles the clear, split at
# its neighbours' rates into a part with nearly all the traffic and too
# few cycles to carry it: 6.35% too slow at 2.13 GHz taken as it came,
# 0.73% since (measured 2026-11-27).
SEED=2 MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
	"$SRCDIR/data/workloads/unseen17/chess-search.yaml" "$T" 0 4 2.13 2>"$T/err" >"$T/cs.txt" ||
	fail "pipeline on chess-search seed 2: $(cat "$T/err")"
below "chess-search seed 2 straddle instance % at 2.13" \
	"$(awk '$1 == 89 { e = $3 < 0 ? -$3 : $3; print e }' "$T/chess-search-4-mlp-2.13.true")" 2.5

# The last interval of a longer instance that holds the start of the next
# phase runs in two parts too (models/interp.c, mix_edges): dense-lu
# (unseen2) at seed 2, whose panel factorisation at 104-106 ends inside
# interval 106 with the row swaps after it, 2.42% too fast at 1.60 GHz
# as one set of counts (106 alone 7.01%), 0.82% in two parts (measured
# 2026-11-27).
SEED=2 MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
	"$SRCDIR/data/workloads/unseen2/dense-lu.yaml" "$T" 0 4 1.60 2>"$T/err" >"$T/dl.txt" ||
	fail "pipeline on dense-lu seed 2: $(cat "$T/err")"
below "dense-lu seed 2 panel instance at 104 % at 1.60" \
	"$(awk '$1 == 104 { e = $3 < 0 ? -$3 : $3; print e }' "$T/dense-lu-4-mlp-1.60.true")" 1.6

# A one-interval phase that recurs between other phases is no straddle
# (models/interp.c, nearest_member): dedup-backup's pack write at seed 1,
# taken for a mix of its neighbours, was 13.27% too slow at 2.13 GHz (its
# offcore occupancy 27% high); 1.64% as its phase's.
SEED=1 MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
	"$SRCDIR/data/workloads/unseen4/dedup-backup.yaml" "$T" 0 4 2.13 2>"$T/err" >"$T/dd.txt" ||
	fail "pipeline on dedup-backup seed 1: $(cat "$T/err")"
below "dedup-backup seed 1 worst true instance % at 2.13" "$(awk '{ print $11 }' "$T/dd.txt")" 5
finish
