#!/bin/bash
# Behaviour phases end to end (docs/phases.md, "Behaviour phases"): two
# hard workloads whose phases run the same code on other data must be
# separated with the default --split (ARI >= 0.9; measured 1.00 and 0.98
# at seed 1) and are not without it (measured 0.17 and 0.21: the check
# that the test can fail), and a basic workload gets no extra phase.
# graph-bfs (same loop, two behaviours 0.6-1.0 apart in log space) must be
# split and drift (behaviour drifting 0.3 every 20 intervals) must not be
# cut into pieces: ARI >= 0.9 for both (measured 1.00 and 0.98 at seed 1;
# graph-bfs was 0.23 with the old 1.2 threshold, drift 0.67 with 0.8 and
# a running-mean centroid).  Drift at seed 3 (its behaviour jumps by 0.9
# log units between two instances, so the centroid left behind founds a
# second group) must be one phase again at the end of the run, the
# successor merged into the group it followed: ARI >= 0.9 (measured 1.00;
# 0.76 without the merge).  At seed 4, drift (a successor group that the
# old one still takes now and then; its code drifts past the clustering
# threshold and founds a second code phase) and gradual (a ramp of 3-4
# intervals into the next phase, met in runs of just over 2) must reach
# ARI >= 0.95 (measured 1.00 and 0.98; 0.90 and 0.92 before the
# successor, code merge and ramp rules).  Drift at seed 5 (a second code
# phase, and a behaviour drifting over more than the threshold and back,
# in turns between two groups) must reach 0.95 too (measured 1.00; 0.50
# before, 0.66 without the code merge, 0.62 without the turn-takers).
# Drift at seeds 6 and 8 (two groups taking turns whose ranges leave a gap
# of 0.09 and 0.05, less than half the threshold) must reach 0.95
# (measured 1.00; 0.87 and 0.94 when the ranges had to overlap), and
# server-mix at seed 1 must keep 0.97 (measured 0.977; 0.964 when a
# transient group merged into one group may close the gap to another:
# compress and its ramp).  Graph-bfs at seeds 4 and 8 (frontier and edges
# under the threshold apart share one group until frontier drifts away
# and founds its own; the intervals go to the nearest group mean at the
# end) must reach 0.95 (measured 0.975; 0.53 and 0.75 without).
# Server-mix at seed 14 (cache_miss's group, lasting, took a transient
# group of 11 one-interval runs, which made it look transient in turn
# and merged it into cache_hit's, 3.4 away) must reach 0.99 (measured
# 1.000; 0.864 while a group's being transient was judged after earlier
# merges).
# On the unseen workloads (development data for these rules since
# docs/phases.md, "Short instances of their own"): nn-infer at seed 2
# (GEMM's code on other data in two-interval instances of its own, taken
# for a transient group and merged into GEMM) and web-serve at seed 3 (two
# behaviours of one copy loop, whose ranges the last, mixed, interval of a
# run brought within half the threshold) must reach 0.95 (measured 1.000
# and 0.961; 0.199 and 0.799 before).  Stream-bw at seed 1 keeps its group
# of one-interval entries to a code phase, 3 phases (2 if a group without
# a core range could take turns).
# Two tight behaviours of one code under the threshold apart that take
# turns by runs of their code (docs/phases.md, "Two behaviours that take
# turns"): sat-solver's two search modes (0.53-0.63 apart in two features,
# 3-6 of their own standard deviations) and option-pricer's paths and
# paths_bump, at seed 1, must reach ARI >= 0.85 and 0.9 (measured 0.947
# and 1.000; 0.399 and 0.712 before the end-of-run split), and drift at
# seed 1 (its runs spread over 0.6 but move across it in order) must stay
# 2 phases.
# A second behaviour visited inside runs of its code (docs/phases.md,
# "A second behaviour inside one run of its code"): climate-stencil at
# seed 2 (dynamics_fine, 1-2 intervals after dynamics in each run of
# dynamics' code, beyond both of its neighbours) must reach ARI >= 0.95
# (measured 1.000; 0.836 while it was folded into dynamics as a
# transition), and many-phases at seed 2 (p2's pure intervals, whose
# other group holds only the mixed ones at changes of code) must keep
# 13 phases (14 if they were kept apart).
# Two behaviours of one code in blocks (docs/phases.md, "Two behaviours in
# blocks"): mol-docking's intermolecular energy on rigid, then flexible,
# then rigid ligands and qc-integrals' integrals for Fock builds, then for
# MP2 batches, at seed 1, must reach ARI >= 0.95 (measured 1.000 and
# 1.000; 0.574 and 0.755 while the split asked for turns), and drift at
# seeds 1 and 3 (whose sides lie 4.31 and 4.05 pooled deviations apart)
# stays as above.
# The memory controller's reads as a behaviour feature (docs/phases.md,
# "The memory controller's reads as a behaviour feature"): order-match
# at seed 3 (a journal replay through the matcher's code that streams from
# DRAM, its core stalls like the matcher's on books in the caches) must
# reach ARI >= 0.95 (measured 0.967); without the count, on the hard
# machine less its dram_reads line, the core's events part them only in
# blocks 4.5-5 pooled deviations apart, which the block split takes since
# its bound came down to 4.5 ("Two behaviours in blocks", 2026-11-27):
# it must reach 0.95 too (measured 0.987; 0.559 at the old bound of 5),
# both sampled every 49999 branches as when it was measured (the default for its 2.5·10⁷-instruction intervals is
# 12500 since 2026-11-27, whose samples tell the code apart alone: 0.987); qc-integrals at seed 2 (the MP2 batches'
# integrals, 4.08 deviations from the Fock builds' without the count) must
# reach 0.95 (measured 1.000; 0.755).  A ramp's intervals merged into a
# group are not its behaviour in the end-of-run split: btree-db at seed 2
# (the hot lookups' last intervals mixed with a checkpoint's DRAM
# traffic) must reach 0.95 (measured 0.965; 0.916 while they counted).
# A younger group met with the older one in every run of its own, in 4
# runs or more, is a stage of its code's runs, not a turn-taker
# (docs/phases.md, "A stage of a code's runs"): nbody-tree at seed 1 (the
# force walk going on past the LLC in the merger's steps, after three
# intervals of the ordinary walk) and kv-lsm at seed 2 must reach 0.95
# (measured 1.000 and 1.000; 0.270 and 0.907 while merged as turn-takers).
# The replay's sampling period follows the trace's interval
# (docs/phases.md, "The replay's period follows the interval"):
# robot-mpc at seed 2 (intervals of 1.5·10⁷ instructions) and mqtt-broker
# at seed 3 (10⁷) must reach 0.95 (measured 1.000 and 1.000; 0.519 and
# 0.654 at a period of 49999, their code split into copies).
# js-bundle (unseen12) at seed 1, two behaviours of one code under half
# the threshold apart that take turns run by run, must reach 0.95
# (docs/phases.md, "Two behaviours that take turns closely"; measured
# 1.000, 0.712 before); so must spiking-net (unseen21) at seed 1, a
# second behaviour held flat as a stage inside each run of its code
# ("A stage inside the runs of a code"; 0.984, 0.693 before); so must
# tensor-cpd (unseen31) at seed 1, three data sets of one code taking
# turns run by run ("Groups that take turns run by run are no drift";
# 1.000, 0.404 before).  The profile says which phases run one code:
# same-code's two phases are listed by `sleuth phases` and named by the
# report (HTML, and JSON's same_code_as), and not with --split off.
. "$SRCDIR/tests/lib.sh"
cd "$T" || exit 1
hard=$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml
ari() { sed -n 's/^score: ari \([0-9.-]*\) .*/\1/p'; }
# at_least W SEED MIN: hard workload W simulated at SEED (its trace kept
# as W-SEED.yaml) must score ARI >= MIN with the default --split
at_least() {
	"$SLEUTH" simulate -q "${WDIR:-$SRCDIR/data/workloads/hard}/$1.yaml" --seed "$2" \
		-m "$SRCDIR/data/sim/nehalem-i7-920-hard.yaml" -o "$1-$2.yaml" || fail "simulate $1, seed $2"
	a=$("$SLEUTH" run -q --replay "$1-$2.yaml" --machine "$hard" --score ${RUNOPT:-} \
		-o "$1-$2.prof" | ari)
	awk -v a="$a" -v m="$3" 'BEGIN { exit !(a >= m) }' && ok || fail "$1, seed $2: ARI '$a' < $3 with --split"
}
at_least graph-bfs 1 0.9
at_least drift 1 0.9
at_least drift 3 0.9
at_least drift 4 0.95
at_least gradual 4 0.95
at_least drift 5 0.95
at_least drift 6 0.95
at_least drift 8 0.95
at_least server-mix 1 0.97
at_least graph-bfs 4 0.95
at_least graph-bfs 8 0.95
at_least server-mix 14 0.99
WDIR=$SRCDIR/data/workloads/unseen at_least nn-infer 2 0.95
WDIR=$SRCDIR/data/workloads/unseen at_least web-serve 3 0.95
WDIR=$SRCDIR/data/workloads/unseen4 at_least sat-solver 1 0.85
WDIR=$SRCDIR/data/workloads/unseen3 at_least option-pricer 1 0.9
WDIR=$SRCDIR/data/workloads/unseen3 at_least climate-stencil 2 0.95
WDIR=$SRCDIR/data/workloads/unseen6 at_least mol-docking 1 0.95
WDIR=$SRCDIR/data/workloads/unseen6 at_least qc-integrals 1 0.95
RUNOPT="--sample-period 49999" WDIR=$SRCDIR/data/workloads/unseen8 at_least order-match 3 0.95
WDIR=$SRCDIR/data/workloads/unseen6 at_least qc-integrals 2 0.95
WDIR=$SRCDIR/data/workloads/unseen3 at_least btree-db 2 0.95
WDIR=$SRCDIR/data/workloads/unseen10 at_least nbody-tree 1 0.95
WDIR=$SRCDIR/data/workloads/unseen2 at_least kv-lsm 2 0.95
sed '/^  dram_reads:/d' "$hard" > nodram.yaml
a=$("$SLEUTH" run -q --replay order-match-3.yaml --machine nodram.yaml --score \
	--sample-period 49999 -o off.prof | ari)
awk -v a="$a" 'BEGIN { exit !(a >= 0.95) }' && ok || fail "order-match, seed 3: ARI '$a' < 0.95 without dram_reads"
WDIR=$SRCDIR/data/workloads/unseen14 at_least robot-mpc 2 0.95
WDIR=$SRCDIR/data/workloads/unseen16 at_least mqtt-broker 3 0.95
at_least many-phases 2 0.95
at_least stream-bw 1 0.9
n() { "$SLEUTH" phases "$1" | sed -n 's/.* intervals, \([0-9]*\) phases.*/\1/p'; }
[ "$(n stream-bw-1.prof)" = 3 ] && ok || fail "stream-bw, seed 1: $(n stream-bw-1.prof) phases, want 3"
[ "$(n drift-1.prof)" = 2 ] && ok || fail "drift, seed 1: $(n drift-1.prof) phases, want 2"
[ "$(n many-phases-2.prof)" = 13 ] && ok || fail "many-phases, seed 2: $(n many-phases-2.prof) phases, want 13"
for w in same-code chase-stream; do
	at_least "$w" 1 0.9
	a=$("$SLEUTH" run -q --replay "$w-1.yaml" --machine "$hard" --score --split off -o "$w-off.prof" | ari)
	awk -v a="$a" 'BEGIN { exit !(a < 0.5) }' && ok || fail "$w: ARI '$a' >= 0.5 without --split"
done
# the profile says which phases run one code: `phases` lists them with
# their cycles per instruction, the report names the phase whose code a
# phase runs; not without --split (every phase its own code)
same=$("$SLEUTH" phases same-code-1.prof | grep '^  phases [0-9]')
echo "$same" | grep -Eq '^  phases [0-9]+, [0-9]+: [0-9.]+, [0-9.]+; [A-Z_]' && ok ||
	fail "same-code: phases prints '$same' for the phases of one code"
"$SLEUTH" phases same-code-off.prof | grep -q 'of one code' && fail "same-code: one code without --split" || ok
"$SLEUTH" report same-code-1.prof --format json -o sc.json 2>/dev/null &&
	grep -Eq '"same_code_as": [0-9]+' sc.json && ok || fail "same-code: no same_code_as in the JSON report"
"$SLEUTH" report same-code-1.prof -o sc.html 2>/dev/null &&
	grep -Eq 'The code of phase [0-9]+, run with other event rates' sc.html && ok ||
	fail "same-code: the HTML report does not say whose code a phase runs"
# js-bundle (unseen12) at seed 1: its parse of its own and its vendored
# modules take turns run by run 0.18 apart, under half the threshold,
# split since docs/phases.md, "Two behaviours that take turns closely"
# (measured 1.000; 0.712 before)
WDIR=$SRCDIR/data/workloads/unseen12 at_least js-bundle 1 0.95
# spiking-net (unseen21) at seed 1: its synchronous bursts hold flat for
# five or six intervals inside each run of the asynchronous loop's code,
# split since docs/phases.md, "A stage inside the runs of a code"
# (measured 0.984; 0.693 before)
WDIR=$SRCDIR/data/workloads/unseen21 at_least spiking-net 1 0.95
# tensor-cpd (unseen31) at seed 1: three modes of one MTTKRP code in turn,
# each in its own runs of two to four intervals between dense updates,
# 0.8-1.3 apart, stay three phases since docs/phases.md, "Groups that take
# turns run by run are no drift" (measured 1.000; 0.404 merged as
# turn-takers)
WDIR=$SRCDIR/data/workloads/unseen31 at_least tensor-cpd 1 0.95
"$SLEUTH" simulate -q "$SRCDIR/data/workloads/gcc-like.yaml" -o gcc.yaml || fail "simulate gcc-like"
"$SLEUTH" run -q --replay gcc.yaml -o on.prof && "$SLEUTH" run -q --replay gcc.yaml --split off -o off.prof ||
	fail "run gcc-like"
[ "$(n on.prof)" = "$(n off.prof)" ] && ok || fail "gcc-like: $(n on.prof) phases with --split, $(n off.prof) without"
"$SLEUTH" run -q --replay gcc.yaml --split 0 -o x.prof 2>err.txt; [ $? = 2 ] && ok || fail "--split 0 accepted"
# The code merge leaves alone a younger code phase met in runs shorter
# than SL_BEHAVE_MIN_RUN (docs/phases.md, "Code that drifts"): milc-like
# at seed 1 keeps its boundary intervals (26 one-interval instances) a
# phase of their own; merged into update they cost the time model.
"$SLEUTH" simulate -q "$SRCDIR/data/workloads/milc-like.yaml" -o milc.yaml || fail "simulate milc-like"
"$SLEUTH" run -q --replay milc.yaml -o milc.prof || fail "run milc-like"
b=$("$SLEUTH" phases milc.prof | awk '$1 ~ /^[0-9]+$/ && $2 > 0 && $2 == $3 { n += $2 } END { print n + 0 }')
[ "$b" -ge 13 ] && ok || fail "milc-like: $b intervals in phases of one-interval instances, want >= 13"
# Groups that take turns across a gap must both last (runs of
# SL_BEHAVE_MIN_RUN or more): bzip2-like at seed 2 on the offcore machine
# keeps the group of its code phase's first intervals (one a run, 0.09
# from the main group's range) apart, 4 phases (3 when it was merged,
# which cost the mlp time model there: docs/benchmarks.md).
"$SLEUTH" simulate -q "$SRCDIR/data/workloads/bzip2-like.yaml" --seed 2 \
	-m "$SRCDIR/data/sim/nehalem-i7-920-offcore.yaml" -o bz.yaml || fail "simulate bzip2-like"
"$SLEUTH" run -q --replay bz.yaml --machine "$SRCDIR/data/machines/sim-nehalem-i7-920-mlp.yaml" \
	--seed 2 -o bz.prof || fail "run bzip2-like"
k=$("$SLEUTH" phases bz.prof | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $2 > 0 { k++ } END { print k + 0 }')
[ "$k" = 4 ] && ok || fail "bzip2-like, seed 2: $k phases with intervals, want 4"
finish
