#!/bin/bash
# The mlp time model (docs/models.md) must not regress, end to end through
# the CLI (bench/accuracy-workload.sh): three workloads of the hard suite on
# the hard simulated machine (bandwidth-bound streaming, LLC hits on the
# uncore clock, dependency-polluted stall counters) and one basic one
# (mcf-like on the basic physics with offcore events), 120 intervals each,
# 4 counters, fmax -> 1.60 GHz, against --truth traces.  The stall model
# runs on the same traces (pinning its own events) and must lose by far on
# the hard ones.  Bounds are well above what was measured when they were
# set (docs/benchmarks.md, "Harder truth").
. "$SRCDIR/tests/lib.sh"

hard=(MACHINE="$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml"
      SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml")
for w in stream-bw llc-uncore dep-mix; do
	env "${hard[@]}" MODELS=stall PIN=stall_cycles,llc_misses "$SRCDIR/bench/accuracy-workload.sh" \
		"$SLEUTH" "$SRCDIR/data/workloads/hard/$w.yaml" "$T" 120 4 1.60 >>"$T/acc.txt" ||
		fail "stall pipeline on $w"
	env "${hard[@]}" MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" \
		"$SLEUTH" "$SRCDIR/data/workloads/hard/$w.yaml" "$T" 120 4 1.60 >>"$T/acc.txt" ||
		fail "mlp pipeline on $w"
done
MACHINE="$SRCDIR/data/machines/sim-nehalem-i7-920-mlp.yaml" \
SIM="$SRCDIR/data/sim/nehalem-i7-920-offcore.yaml" MODELS=mlp \
	"$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" "$SRCDIR/data/workloads/mcf-like.yaml" \
	"$T" 120 4 1.60 >>"$T/acc.txt" || fail "mlp pipeline on mcf-like"
[ "$(wc -l <"$T/acc.txt")" = 7 ] && ok || fail "expected 7 result lines: $(cat "$T/acc.txt")"

# fields: 1 workload 2 counters 3 ghz 4 model 5 instances 6 avg% 7 worst%
#         8 run% 9 energy% 10 true avg% 11 true worst%
get() { awk -v w="$1" -v m="$2" -v f="$3" '$1 == w && $4 == m { print $f }' "$T/acc.txt"; }
# measured (avg / worst instance): stream-bw 0.34 / 2.00, llc-uncore 0.07 /
# 0.19, dep-mix 2.37 / 6.17 (the ROB clip it cannot see), mcf-like 0.24 /
# 0.85 (worst true instance); before behaviour phases and pinning
# llc_references: 0.49 / 1.25, 0.35 / 1.43, 2.40 / 6.16, 0.21 / 0.51.
# stream-bw's worst is over true instances (the issue's measure): with the
# power events chosen among event counts the rotation measures its rotating
# inputs in other intervals, and its worst detected instance, one interval
# long, went from 1.85 to 4.55% (true: 0.73 to 1.29%; average 0.34 -> 0.35)
below "stream-bw mlp error %" "$(get stream-bw mlp 6)" 1.5
below "stream-bw mlp worst true instance %" "$(get stream-bw mlp 11)" 3.0
below "llc-uncore mlp error %" "$(get llc-uncore mlp 6)" 1.2
below "llc-uncore mlp worst instance %" "$(get llc-uncore mlp 7)" 3.0
below "dep-mix mlp error %" "$(get dep-mix mlp 6)" 4.0
below "dep-mix mlp worst instance %" "$(get dep-mix mlp 7)" 9.0
below "mcf-like (basic) mlp error %" "$(get mcf-like mlp 6)" 1.0
below "mcf-like (basic) mlp worst true instance %" "$(get mcf-like mlp 11)" 2.0
# the stall model on the same programs (measured 7.98, 5.28, 9.26%): the
# mlp model must be at least twice as good on each
for w in stream-bw llc-uncore dep-mix; do
	below "$w: 2 x mlp error vs stall" \
		"$(awk -v m="$(get $w mlp 6)" 'BEGIN { print 2 * m }')" "$(get $w stall 6)"
done
finish
