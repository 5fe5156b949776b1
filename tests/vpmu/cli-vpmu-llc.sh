#!/bin/bash
# The LLC hits' exposure on the virtual PMU (docs/models.md, "The LLC hits'
# exposure"): the binary-tree program bench/vpmu/vb-tree (a training
# program), whose descents wait for LLC hits, profiled at 2.66 GHz with the
# shipped -mlp machine (run --pin time) and predicted at 1.60 GHz with the
# mlp model, against the vPMU's own 1.60 GHz run.  With the machine's
# l2_miss_stall_cycles role (the hits' stall counted, scaled as the
# llcchase probe's exposed hit) the whole program and its worst phase
# instance must stay under bounds; without the role (the same machine: the
# llc probe's cost per hit, the model before it) the worst instance must
# stay above one, so that the test sees the term and not a program that got
# easier.  Then the stall episodes (docs/models.md, "The LLC hits' stall
# episodes"): tests/progs/llccopy copies rows out of an LLC-resident table,
# a few cycles of each epoch's hits exposed, which fall away at 1.60 GHz
# faster than the latency: with the machine's l2_miss_stall_episodes and
# miss_stall_episodes roles the whole program must be within a bound,
# without them (the exposure scaled as the latency) above one.  Skipped
# (77) when valgrind or the vPMU tool is missing.
. "$SRCDIR/tests/lib.sh"
TREE="$BUILDDIR/bench/vpmu/vb-tree"
MACHINE="$SRCDIR/data/machines/vpmu-nehalem-i7-920-mlp.yaml"
RUN=(run -q --backend vpmu --interval 2M --sample-period 2003 --machine "$MACHINE")
need_vpmu "$TREE"
grep -q '^  l2_miss_stall_cycles: ROB_FULL_CYCLES$' "$MACHINE" && grep -q 'llc_chase_ns: ' "$MACHINE" &&
	ok || fail "$MACHINE names no l2_miss_stall_cycles or has no llc_chase_ns"
sed '/^  l2_miss_stall_cycles:/d' "$MACHINE" >"$T/norole.yaml"
"$SLEUTH" machine show "$MACHINE" | grep -q '^  LLC hits (mlp model)  exposure counted' &&
	ok || fail "machine show: the LLC hits' exposure"
"$SLEUTH" machine show "$T/norole.yaml" | grep -q '^  LLC hits (mlp model)  cost per hit of the llc probe' &&
	ok || fail "machine show: the LLC hits without the role"
# runs NAME PROGRAM: its profile at 2.66 GHz ($T/NAME.prof) and the truth
# per interval (its 1.60 GHz run's own time, $T/NAME.truth), which must
# hold MIN intervals or more (the third argument)
runs() {
	expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --pin time --freq 2.66 \
		-o "$T/$1.prof" -- "$2"
	expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --freq 1.60 -o "$T/$1-lo.prof" -- "$2"
	"$SLEUTH" predict "$T/$1-lo.prof" --freq 1.60 --per interval --format csv --time-only |
		awk -F, 'NR > 1 { print $6 }' >"$T/$1.truth"
	[ "$(wc -l <"$T/$1.truth")" -ge "$3" ] && ok || fail "$1's 1.60 GHz run has too few intervals"
}
# errors MACHINE NAME: "whole worst", the whole program's and the worst
# instance's |error| in % of NAME's profile predicted at 1.60 GHz
errors() {
	"$SLEUTH" predict "$T/$2.prof" --machine "$1" --freq 1.60 --model mlp --per interval \
		--format csv --time-only | awk -F, 'NR > 1 { print $4, $6 }' | paste -d' ' - "$T/$2.truth" |
		awk '{ p[$1] += $2; t[$1] += $3; P += $2; T += $3 }
		END { for (i in p) { e = 100 * (p[i] - t[i]) / t[i]; e = e < 0 ? -e : e; if (e > w) w = e }
		      e = 100 * (P - T) / T; printf "%.2f %.2f\n", e < 0 ? -e : e, w }'
}
runs tree "$TREE" 50
read -r whole worst whole0 worst0 < <(paste -d' ' <(errors "$MACHINE" tree) <(errors "$T/norole.yaml" tree))
echo "vb-tree with the role: $whole / $worst; without: $whole0 / $worst0"
# measured (2026-11-26), whole / worst instance: with the role 2.40 / 3.87,
# without it 3.73 / 8.93; measured again (2026-11-27, the vPMU runs move with
# their directory): with the role 1.90 / 5.47, without 3.70 / 8.93
below "vb-tree whole-program |error| % at 1.60 GHz with the LLC hits' exposure" "$whole" 3.2
below "vb-tree worst instance |error| % at 1.60 GHz with the LLC hits' exposure" "$worst" 6.2
below "vb-tree worst instance without the role (must be above 6.5%)" 6.5 "$worst0"

COPY="$BUILDDIR/tests/progs/llccopy"
grep -q '^  l2_miss_stall_episodes: ROB_FULL_EPISODES$' "$MACHINE" &&
	grep -q '^  miss_stall_episodes: STALLS_LLC_MISS_EPISODES$' "$MACHINE" &&
	ok || fail "$MACHINE names no stall episodes"
sed '/^  l2_miss_stall_episodes:/d; /^  miss_stall_episodes:/d' "$MACHINE" >"$T/noeps.yaml"
"$SLEUTH" machine show "$MACHINE" | grep -q "each stall episode less a hit's latency drop" &&
	ok || fail "machine show: the stall episodes"
runs copy "$COPY" 20
read -r whole _ whole0 _ < <(paste -d' ' <(errors "$MACHINE" copy) <(errors "$T/noeps.yaml" copy))
echo "llccopy with the episodes: $whole; without: $whole0"
# measured (2026-11-27), whole program: with the episodes 0.76, without 3.98
below "llccopy whole-program |error| % at 1.60 GHz with the stall episodes" "$whole" 2.0
below "llccopy without the episodes (must be above 2.8%)" 2.8 "$whole0"
finish
