#!/bin/bash
# Anchoring power on the profile's measured energy (predict --anchor) must
# not regress: three hard-suite workloads (graph-bfs, video-encode,
# llc-uncore: the worst counters-only power errors) simulated at fmax with
# the meter's energy, replayed with 4 counters, predicted at 2.13 and 1.60
# GHz with and without anchoring, and compared with --truth traces
# (bench/power-accuracy.sh, the same code as the benchmark).  The truth is
# the simulator's exact energy, the profile's the noisy meter's, so the
# bounds can only be met by carrying a real residual over.  Bounds are well
# above what was measured when they were set (docs/benchmarks.md, "Power:
# anchored on the measured power").  The benchmark's exact meter
# (METER=exact) gives the exact energy back at the profiled frequency,
# where the trace's meter does not.  Then how each output says it, the
# option's refusals, and that calibrate (which fits against that energy)
# knows nothing of it.
. "$SRCDIR/tests/lib.sh"

hard_power graph-bfs video-encode llc-uncore
avg() { power_avg "$@"; }
worst() { power_worst "$@"; }

# Measured on the harder power physics (uncore and DRAM at a fixed
# voltage, clock gating; docs/benchmarks.md, "Power at a fixed voltage"),
# with the machine's energy terms: counters only 1.19 / 0.88% avg, anchored
# 0.34 / 0.59%, worst instance 1.19 / 2.06% at 2.13 / 1.60 GHz (anchored
# 1.50 times better than the counters alone at 1.60 GHz).  The same
# machine fitted without energy terms measured 1.64% counters only, and
# anchored 0.76 / 1.32% (1.24 times better), worst 5.79%: each bound below
# fails on it.
below "counters-only avg at 1.60 GHz, negated" "-$(avg off 1.60)" -0.5
below "counters-only avg power error at 1.60 GHz %" "$(avg off 1.60)" 1.4
below "anchored avg power error at 2.13 GHz %" "$(avg auto 2.13)" 0.55
below "anchored avg power error at 1.60 GHz %" "$(avg auto 1.60)" 0.95
below "anchored worst instance at 1.60 GHz %" "$(worst auto 1.60)" 4.0
below "anchored avg x 1.4 against counters-only at 1.60 GHz" \
	"$(awk -v a="$(avg auto 1.60)" 'BEGIN { print 1.4 * a }')" "$(avg off 1.60)"

# An instance's departure from its phase's residual is carried as its
# interpolation's uncertainty says (docs/models.md, "Anchoring on measured
# power"): server-mix at seed 3, whose worst instance at 1.60 GHz is one
# interval of three behaviours with its LLC misses and prefetches taken
# from unlike intervals, 2.70% with the whole residual split as the
# model's power, 2.32% since.
POWER_SEED=3 hard_power server-mix
below "server-mix seed 3: anchored worst instance at 1.60 GHz %" "$(worst auto 1.60)" 2.5

# --- what each output says ------------------------------------------------
S="$SRCDIR/data/sim/nehalem-i7-920.yaml"
MA="$SRCDIR/data/machines/sim-nehalem-i7-920.yaml"
"$SLEUTH" simulate -q "$SRCDIR/data/workloads/gcc-like.yaml" -m "$S" --intervals 60 \
	-o "$T/g.yaml" || fail "simulate"
"$SLEUTH" run -q --replay "$T/g.yaml" --machine "$MA" -o "$T/g.prof" || fail "replay"
out=$("$SLEUTH" predict "$T/g.prof" --freq 1.6 2>&1) || fail "predict: $out"
grep -q "^  power anchored on the measured power (trace): [-+][0-9.]* W over the counters at 2.66 GHz" \
	<<<"$out" && ok || fail "table: no anchoring line: $out"
out=$("$SLEUTH" predict "$T/g.prof" --freq 1.6 --anchor off 2>&1) || fail "predict off: $out"
grep -q "anchored" <<<"$out" && fail "table: anchored with --anchor off: $out" || ok
"$SLEUTH" predict "$T/g.prof" --freq 1.6 --format json >"$T/a.json" || fail "json"
"$SLEUTH" predict "$T/g.prof" --freq 1.6 --format json --anchor off >"$T/o.json" || fail "json off"
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
a, o = (json.load(open(f)) for f in sys.argv[1:3])
assert a["anchor"]["source"] == "trace" and a["anchor"]["intervals_measured"] == 60, a["anchor"]
assert o["anchor"] is None
# the anchor changes power, never time
for ra, ro in zip(a["rows"], o["rows"]):
    assert ra["time_s"] == ro["time_s"]
assert any(ra["power_w"] != ro["power_w"] for ra, ro in zip(a["rows"], o["rows"]))' \
		"$T/a.json" "$T/o.json" && ok || fail "JSON anchor key"
fi
# CSV: the rows as ever (its readers take no comment), the note on stderr
"$SLEUTH" predict "$T/g.prof" --all --per instance --format csv -o "$T/a.csv" 2>"$T/err" ||
	fail "csv"
head -1 "$T/a.csv" | grep -q '^ghz,instance,' && ok || fail "CSV header: $(head -1 "$T/a.csv")"
grep -q "^sleuth: power anchored on the measured power (trace); --anchor off" "$T/err" && ok ||
	fail "CSV: no note on stderr: $(cat "$T/err")"
expect_ok -- "$SLEUTH" schedule --predictions "$T/a.csv" --min-energy
# a profile without energy: nothing to anchor, nothing said
sed '/^ *e: /d; s/, e: [0-9.e+-]*//' "$T/g.yaml" >"$T/ne.yaml"
"$SLEUTH" run -q --replay "$T/ne.yaml" --machine "$MA" -o "$T/ne.prof" || fail "replay no energy"
out=$("$SLEUTH" predict "$T/ne.prof" --freq 1.6 2>&1) || fail "predict no energy: $out"
grep -q "anchored" <<<"$out" && fail "anchored without energy: $out" || ok
# report and schedule take it too
expect_ok -- "$SLEUTH" report -q "$T/g.prof" --anchor off --format json -o "$T/r-off.json"
expect_ok -- "$SLEUTH" report -q "$T/g.prof" --format json -o "$T/r.json"
grep -q "anchored on the measured power of trace" "$T/r.json" && ok || fail "report: not anchored"
grep -q "anchored" "$T/r-off.json" && fail "report: anchored with --anchor off" || ok
expect_ok -- "$SLEUTH" schedule "$T/g.prof" --min-energy --anchor off
expect_ok -- "$SLEUTH" schedule "$T/g.prof" --min-energy --anchor auto

# The benchmark's exact meter (METER=exact): the trace's metered energy at
# the profiled frequency replaced by the exact one, so that the anchored
# prediction there (the stall model gives the measured time back) is the
# exact energy of every instance, where the meter's own reading is not.
rm -rf "$T/suite"
mkdir -p "$T/suite"
ln -s "$SRCDIR/data/workloads/hard/many-phases.yaml" "$T/suite/"
for m in "" exact; do
	METER=$m MACHINE="$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml" \
		SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml" SUITE="$T/suite" \
		"$SRCDIR/bench/power-accuracy.sh" "$BUILDDIR" 2.66 >"$T/${m:-meter}.txt" 2>&1 ||
		fail "bench with METER=$m: $(tail -3 "$T/${m:-meter}.txt")"
done
below "worst instance at f0, exact meter %" "$(power_worst exact 2.66)" 0.02
below "worst instance at f0, the trace's meter %, negated" "-$(power_worst meter 2.66)" -0.1
METER=bogus "$SRCDIR/bench/power-accuracy.sh" "$BUILDDIR" 2.66 >"$T/mb.txt" 2>&1 &&
	fail "METER=bogus accepted" || ok
grep -q "only METER=exact" "$T/mb.txt" && ok || fail "METER=bogus: $(cat "$T/mb.txt")"

# --- refusals -----------------------------------------------------------------
for cmd in predict schedule report; do
	expect_exit 2 "--anchor: unknown anchoring 'bogus'; use 'auto'.*or 'off'" -- \
		"$SLEUTH" $cmd "$T/g.prof" --anchor bogus
done
expect_exit 2 "--anchor chooses how a profile's power is predicted" -- \
	"$SLEUTH" schedule --predictions "$T/a.csv" --min-energy --anchor off
# calibrate fits the power model against the measured energy: anchoring it
# on that energy would be circular, and it has no such option
expect_exit 2 "anchor" -- "$SLEUTH" calibrate -m "$MA" -o "$T/c.yaml" --anchor auto "$T/g.yaml"
"$SLEUTH" help calibrate | grep -q -- "--anchor" && fail "calibrate documents --anchor" || ok
finish
