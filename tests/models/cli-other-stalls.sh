#!/bin/bash
# The mlp model's stalls with other causes under a miss (models/model.c,
# other_stalls_begin; docs/models.md) must not regress, end to end through
# the CLI (bench/accuracy-workload.sh): workloads of the hard suite whose
# slow phases hide whole misses behind the ROB at 1.60 GHz while their
# miss-stall counter also counts dependency and resource stalls (rob-clip,
# dep-mix and drift of the tuning split, graph-bfs held out), seed 1,
# fmax -> 1.60 GHz, 4 counters.  With the machine's stall probes the worst
# true instance must stay under a bound; without them (the same machine,
# memory: stall_llc_share and stall_per_mispredict removed: the model
# before them) it must stay above one, so the test sees the probes'
# effect and not a workload that got easier.  Then the machine reader:
# one probe without the other, and out of range, are refused.
. "$SRCDIR/tests/lib.sh"

export SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml"
probe="$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml"
sed '/^  stall_llc_share:/d; /^  stall_per_mispredict:/d' "$probe" >"$T/noprobe.yaml"
for w in rob-clip dep-mix drift graph-bfs; do
	for m in probe noprobe; do
		mf=$probe
		[ $m = noprobe ] && mf=$T/noprobe.yaml
		MACHINE=$mf MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
			"$SRCDIR/data/workloads/hard/$w.yaml" "$T" 0 4 1.60 2>"$T/err" |
			sed "s/^/$m /" >>"$T/acc.txt" || fail "$m pipeline on $w: $(cat "$T/err")"
	done
done
[ "$(wc -l <"$T/acc.txt")" = 8 ] && ok || fail "expected 8 result lines: $(cat "$T/acc.txt")"

# fields (after the machine): 2 workload ... 12 true worst instance %
get() { awk -v m="$1" -v w="$2" '$1 == m && $2 == w { print $12 }' "$T/acc.txt"; }
# measured (2026-11-26), worst true instance at 1.60 GHz with / without the
# probes: rob-clip 1.10 / 10.03, dep-mix 1.18 / 6.84, drift 2.91 / 9.90,
# graph-bfs 3.53 / 9.52
below "rob-clip worst true instance % with the probes" "$(get probe rob-clip)" 3.0
below "dep-mix worst true instance % with the probes" "$(get probe dep-mix)" 3.0
below "drift worst true instance % with the probes" "$(get probe drift)" 5.0
below "graph-bfs worst true instance % with the probes" "$(get probe graph-bfs)" 5.5
below "rob-clip without the probes (must be above 6%)" 6 "$(get noprobe rob-clip)"
below "drift without the probes (must be above 6%)" 6 "$(get noprobe drift)"
below "graph-bfs without the probes (must be above 6%)" 6 "$(get noprobe graph-bfs)"

# a phase with only 1 or 2 intervals measuring its rate of other stalls
# takes the smaller of their median and the nearest phase's rate
# (other_stalls_begin): drift's small collide groups at seeds 8 and 11,
# measured (2026-11-26) 7.11 and 9.37% before it, 5.08 and 4.15% after
for s in 8 11; do
	SEED=$s MACHINE=$probe MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
		"$SRCDIR/data/workloads/hard/drift.yaml" "$T" 0 4 1.60 2>"$T/err" |
		sed "s/^/s$s /" >>"$T/acc.txt" || fail "seed $s pipeline on drift: $(cat "$T/err")"
done
below "drift seed 8 worst true instance % with the probes" "$(get s8 drift)" 6.2
below "drift seed 11 worst true instance % with the probes" "$(get s11 drift)" 6.5

# the rate is per cycle of work, not per instruction (other_stalls_begin):
# drift's collide phase drifts, its dependency stalls growing with its
# work, and a rate per instruction from its early intervals shed too
# little late in the run; seeds 3 and 7, measured (2026-11-26) 4.43 and
# 5.71% at 1.60 GHz (4.23 / 5.68% at 2.13) per instruction, 0.62 and
# 2.55% (0.65 / 2.77%) per cycle of work
for s in 3 7; do
	SEED=$s MACHINE=$probe MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
		"$SRCDIR/data/workloads/hard/drift.yaml" "$T" 0 4 1.60 2.13 2>"$T/err" |
		sed "s/^/w$s /" >>"$T/acc.txt" || fail "seed $s pipeline on drift: $(cat "$T/err")"
done
dw() { awk -v m="$1" -v f="$2" '$1 == m && $2 == "drift" && $4 == f { print $12 }' "$T/acc.txt"; }
below "drift seed 3 worst true instance % at 1.60 GHz" "$(dw w3 1.60)" 2.0
below "drift seed 3 worst true instance % at 2.13 GHz" "$(dw w3 2.13)" 2.0
below "drift seed 7 worst true instance % at 1.60 GHz" "$(dw w7 1.60)" 4.0
below "drift seed 7 worst true instance % at 2.13 GHz" "$(dw w7 2.13)" 4.0

# a phase none of whose intervals measured its rate (video-encode's
# phase of rate-control straddles, all one-interval instances) takes the
# nearest rated phase's rate and largest r (other_stalls_begin): seed 5's
# worst true instance and seed 26's average at 1.60 GHz, measured
# (2026-11-26) 3.89 and 0.533% before it, 3.22 and 0.365% after, on the
# core counters alone (without the memory controller's dram_reads: with
# it, seed 5's worst is a straddle into a frame copy whose occupancy its
# rate-control instance lends it, 4.06%)
sed '/^  dram_reads:/d' "$probe" >"$T/nodram.yaml"
for s in 5 26; do
	SEED=$s MACHINE=$T/nodram.yaml MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
		"$SRCDIR/data/workloads/hard/video-encode.yaml" "$T" 0 4 1.60 2>"$T/err" |
		sed "s/^/v$s /" >>"$T/acc.txt" || fail "seed $s pipeline on video-encode: $(cat "$T/err")"
done
va() { awk -v m="$1" -v c="$2" '$1 == m && $2 == "video-encode" { print $c }' "$T/acc.txt"; }
below "video-encode seed 5 worst true instance % at 1.60 GHz" "$(va v5 12)" 3.6
below "video-encode seed 26 true instances' average % at 1.60 GHz" "$(va v26 11)" 0.45

# the first or last interval of an instance sheds its phase's other
# stalls under no larger a share of cycles with a miss out than the
# intervals that measured the rate (other_stalls_share): video-encode's
# entropy coding ending in a rate-control burst, seed 1, measured
# (2026-11-26) 5.00 / 3.66% at 1.60 / 2.13 GHz before it, 2.91 / 1.90%
# after
SEED=1 MACHINE=$probe MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
	"$SRCDIR/data/workloads/hard/video-encode.yaml" "$T" 0 4 1.60 2.13 2>"$T/err" |
	sed "s/^/edge /" >>"$T/acc.txt" || fail "pipeline on video-encode: $(cat "$T/err")"
ve() { awk -v f="$1" '$1 == "edge" && $2 == "video-encode" && $4 == f { print $12 }' "$T/acc.txt"; }
below "video-encode worst true instance % at 1.60 GHz" "$(ve 1.60)" 4.0
below "video-encode worst true instance % at 2.13 GHz" "$(ve 2.13)" 2.8

# a phase whose two rated intervals agree takes their median, not the
# smaller of it and the pooled rate (rates_agree): graph-bfs at seed 3,
# whose phase of the bookkeeping's short instances measured its other
# stalls twice, measured (2026-11-26) 9.04% at 1.60 GHz with the smaller,
# 2.25% with their median
SEED=3 MACHINE=$probe MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" \
	"$SRCDIR/data/workloads/hard/graph-bfs.yaml" "$T" 0 4 1.60 2>"$T/err" |
	sed "s/^/agree /" >>"$T/acc.txt" || fail "seed 3 pipeline on graph-bfs: $(cat "$T/err")"
below "graph-bfs seed 3 worst true instance % at 1.60 GHz" "$(get agree graph-bfs)" 4.5

# machine show says whether the mlp model separates the other stalls
"$SLEUTH" machine show "$probe" | grep -q '^  time (mlp model) *yes: .*; other stalls under a miss separated (memory: stall_llc_share 0.85, stall_per_mispredict 10.2)$' &&
	ok || fail "machine show: the stall probes"
"$SLEUTH" machine show "$T/noprobe.yaml" | grep -q '^  time (mlp model) *yes: misses outstanding counted by [^;]*$' &&
	ok || fail "machine show: stall probes without them"

# the reader: both probes or neither, each in range, written back
sed '/^  stall_per_mispredict:/d' "$probe" >"$T/one.yaml"
expect_exit 1 "give both or neither" -- "$SLEUTH" machine show "$T/one.yaml"
sed 's/^  stall_llc_share: .*/  stall_llc_share: 3/' "$probe" >"$T/range.yaml"
expect_exit 1 "stall_llc_share" -- "$SLEUTH" machine show "$T/range.yaml"
finish
