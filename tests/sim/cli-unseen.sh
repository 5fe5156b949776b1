#!/bin/bash
# The unseen workloads are held-out sets that outsiders run: every one of
# them must stay a valid workload that the hard simulated machine runs
# without an error or a warning (an unknown or misspelt key is a
# warning).  data/workloads/unseen/ (docs/benchmarks.md, "Unseen workloads
# (written before measurement)") is measured, so each of its workloads is
# also replayed with 4 counters on the hard machine's model and predicted
# with the mlp model at 1.60 GHz, its profile holding as many intervals as
# the trace.  data/workloads/unseen2/ to data/workloads/unseen31/ were
# each measured once, blind (docs/benchmarks.md); data/workloads/unseen32/
# (the newest) is not measured yet and is to be measured once, blind (its
# README.md).
# Of the thirty-two sets, the workloads of these thirty-one are only
# simulated here, and no model runs on them.  Each is simulated at
# 2.66 GHz (seed 1); each set must hold its six workloads.
# No accuracy is checked here.
. "$(dirname "$0")/../lib.sh"
SIM=$SRCDIR/data/sim/nehalem-i7-920-hard.yaml
MACHINE=$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml

# check_set DIR MODEL: simulate every workload of data/workloads/DIR;
# with MODEL = yes also profile and predict it.
check_set() {
	local n=0 w b out t p
	for w in "$SRCDIR/data/workloads/$1"/*.yaml; do
		b=$1-$(basename "$w" .yaml)
		n=$((n + 1))
		if ! out=$("$SLEUTH" simulate -q "$w" -m "$SIM" -o "$T/$b.yaml" 2>&1) || [ -n "$out" ]; then
			fail "simulate $b: ${out:-non-zero exit}"; continue
		fi
		ok
		t=$(grep -c '^- {t:' "$T/$b.yaml")
		[ "$t" -gt 100 ] && ok || fail "$b: trace of $t intervals"
		[ "$2" = yes ] || continue
		if ! out=$("$SLEUTH" run -q --replay "$T/$b.yaml" --machine "$MACHINE" --counters 4 \
			-o "$T/$b.prof" 2>&1) || [ -n "$out" ]; then
			fail "run --replay $b: ${out:-non-zero exit}"; continue
		fi
		ok
		if ! out=$("$SLEUTH" predict "$T/$b.prof" --model mlp --freq 1.60 --format csv \
			-o "$T/$b.csv" 2>&1); then
			fail "predict $b: $out"; continue
		fi
		ok
		# the header "PROFILE: NAME, N intervals, ..." wraps when long
		p=$("$SLEUTH" phases "$T/$b.prof" | tr '\n' ' ' |
			sed -n 's/^[^,]*, *\([0-9]*\) *intervals,.*/\1/p')
		[ "$p" = "$t" ] && ok || fail "$b: trace $t intervals, profile ${p:-none}"
	done
	[ "$n" = 6 ] && ok || fail "data/workloads/$1 holds $n workloads, not 6"
}
check_set unseen yes
check_set unseen2 no
check_set unseen3 no
check_set unseen4 no
check_set unseen5 no
check_set unseen6 no
check_set unseen7 no
check_set unseen8 no
check_set unseen9 no
check_set unseen10 no
check_set unseen11 no
check_set unseen12 no
check_set unseen13 no
check_set unseen14 no
check_set unseen15 no
check_set unseen16 no
check_set unseen17 no
check_set unseen18 no
check_set unseen19 no
check_set unseen20 no
check_set unseen21 no
check_set unseen22 no
check_set unseen23 no
check_set unseen24 no
check_set unseen25 no
check_set unseen26 no
check_set unseen27 no
check_set unseen28 no
check_set unseen29 no
check_set unseen30 no
check_set unseen31 no
check_set unseen32 no
finish
