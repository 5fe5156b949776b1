#!/bin/bash
# The unseen workloads (data/workloads/unseen/, docs/benchmarks.md,
# "Unseen workloads (written before measurement)") are a held-out set that
# outsiders run: every one of them must stay a valid workload that the
# hard simulated machine runs and sleuth profiles and predicts without an
# error or a warning (an unknown or misspelt key is a warning).  Each is
# simulated at 2.66 GHz (seed 1), replayed with 4 counters on the hard
# machine's model, and predicted with the mlp model at 1.60 GHz; the
# profile must hold as many intervals as the trace, and the set must hold
# its six workloads.  Simulation only: no accuracy is checked here.
. "$(dirname "$0")/../lib.sh"
SIM=$SRCDIR/data/sim/nehalem-i7-920-hard.yaml
MACHINE=$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml
n=0
for w in "$SRCDIR"/data/workloads/unseen/*.yaml; do
	b=$(basename "$w" .yaml)
	n=$((n + 1))
	if ! out=$("$SLEUTH" simulate -q "$w" -m "$SIM" -o "$T/$b.yaml" 2>&1) || [ -n "$out" ]; then
		fail "simulate $b: ${out:-non-zero exit}"; continue
	fi
	ok
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
	t=$(grep -c '^- {t:' "$T/$b.yaml")
	p=$("$SLEUTH" phases "$T/$b.prof" | sed -n 's/.*, \([0-9]*\) intervals, .*/\1/p')
	[ "$t" -gt 100 ] && [ "$p" = "$t" ] && ok || fail "$b: trace $t intervals, profile ${p:-none}"
done
[ "$n" = 6 ] && ok || fail "data/workloads/unseen holds $n workloads, not 6"
finish
