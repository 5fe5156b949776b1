#!/bin/bash
# `sleuth predict` end to end on synthetic profiles (gen-profile): the
# output of each format and unit (docs/formats.md, prediction table), the models'
# basic laws through the CLI, and every refusal with its exit code.
. "$SRCDIR/tests/lib.sh"
GEN="$BUILDDIR/tests/models/gen-profile"
NHM="$SRCDIR/data/machines/nehalem-i7-920.yaml"
SIM="$SRCDIR/data/machines/sim-nehalem-i7-920.skeleton.yaml"

"$GEN" "$T/app.prof" 300 || fail "gen-profile"
"$GEN" "$T/timer.prof" 20 --timer || fail "gen-profile --timer"
"$GEN" "$T/bare.prof" 20 --no-machine || fail "gen-profile --no-machine"

# --- the default table ---------------------------------------------------
cd "$T" && cp app.prof sleuth.prof
expect_ok -- "$SLEUTH" predict --freq 1.6
out=$("$SLEUTH" predict --freq 1.6 --freq 2.666) ||
	fail "line $LINENO: sleuth exited $?: $out"
grep -q "^Predictions for sleuth.prof: 300 intervals" <<<"$out" && ok || fail "table header: $out"
grep -q "machine nehalem-i7-920 (embedded in the profile)" <<<"$out" && ok || fail "machine origin"
grep -Eq "^total " <<<"$out" && ok || fail "no total row"
wide=$(awk 'length > 80' <<<"$out")
[ -z "$wide" ] && ok || fail "table wider than 80 columns: $wide"
grep -q "instance" <<<"$out" && grep -q "clamped" <<<"$out" && ok || fail "no shares/clamps"

# --- CSV: header and row counts per unit ----------------------------------
"$SLEUTH" predict app.prof --all --per interval --format csv -o "$T/iv.csv" || fail "csv"
[ "$(head -1 "$T/iv.csv")" = "ghz,interval,phase,instance,instructions,time_s,power_w,energy_j" ] \
	&& ok || fail "interval header: $(head -1 "$T/iv.csv")"
[ "$(wc -l <"$T/iv.csv")" = $((1 + 9 * 300)) ] && ok || fail "interval rows: $(wc -l <"$T/iv.csv")"
# intervals count from 0 in execution order at each frequency
awk -F, 'NR > 1 && $2 != (NR - 2) % 300 { bad = 1 } END { exit bad }' "$T/iv.csv" \
	&& ok || fail "interval numbering"

# the profile read into memory instead of mapped: the same predictions
SLEUTH_PROFILE_MMAP=0 "$SLEUTH" predict app.prof --all --per interval -o "$T/iv0.csv" ||
	fail "csv, SLEUTH_PROFILE_MMAP=0"
cmp -s "$T/iv.csv" "$T/iv0.csv" && ok || fail "the mapped and read profiles predict differently"

"$SLEUTH" predict app.prof --freq 2.0 --per instance >"$T/in.csv" || fail "per instance"
[ "$(head -1 "$T/in.csv")" = "ghz,instance,phase,first_interval,intervals,instructions,time_s,power_w,energy_j" ] \
	&& ok || fail "instance header"
# instances tile the intervals
awk -F, 'NR > 1 { if ($4 != next_first) bad = 1; next_first = $4 + $5 } END { exit bad || next_first != 300 }' \
	"$T/in.csv" && ok || fail "instances do not tile the profile"

"$SLEUTH" predict app.prof --freq 2.0 --per phase --format csv >"$T/ph.csv" || fail "per phase"
[ "$(head -1 "$T/ph.csv")" = "ghz,phase,intervals,instances,instructions,time_s,power_w,energy_j" ] \
	&& ok || fail "phase header"
# the phases' intervals and instances add up; power is energy / time
awk -F, 'NR > 1 { iv += $3; ins += $4; if ($7 - $8 / $6 > 1e-6 * $7 || $8 / $6 - $7 > 1e-6 * $7) bad = 1 }
	END { exit bad || iv != 300 }' "$T/ph.csv" && ok || fail "phase sums"
[ "$(awk -F, 'NR > 1 { n += $4 } END { print n }' "$T/ph.csv")" = "$(($(wc -l <"$T/in.csv") - 1))" ] \
	&& ok || fail "instances per phase do not add up to the instances"

# --- the models through the CLI --------------------------------------------
# linear: time scales exactly with 1/f; stall: memory-bound time scales less
"$SLEUTH" predict app.prof --freq 1.6 --freq 2.666 --per phase --format csv --model linear >"$T/lin.csv"
awk -F, 'NR > 1 { t[$1 "," $2] = $6; ph[$2] = 1 }
	END { for (p in ph) { r = t["1.6," p] / t["2.666," p]; if (r < 1.66624 || r > 1.66626) exit 1 } }' \
	"$T/lin.csv" && ok || fail "linear model: time not proportional to 1/f"
"$SLEUTH" predict app.prof --freq 1.6 --freq 2.666 --per phase --format csv >"$T/st.csv"
awk -F, 'NR > 1 { t[$1 "," $2] = $6; ph[$2] = 1 }
	END { lo = 9; for (p in ph) { r = t["1.6," p] / t["2.666," p]; if (r < lo) lo = r; if (r > 1.66626) exit 1 }
	      exit lo > 1.4 }' "$T/st.csv" && ok || fail "stall model: no phase is memory-bound"
# a frequency between P-states, and beyond them with --extrapolate
expect_ok -- "$SLEUTH" predict app.prof --freq 2.05
out=$("$SLEUTH" predict app.prof --freq 3.0 --extrapolate) ||
	fail "line $LINENO: sleuth exited $?: $out"
grep -q "(extrapolated)" <<<"$out" && ok || fail "extrapolation not shown"

# --- JSON ------------------------------------------------------------------
"$SLEUTH" predict app.prof --freq 1.6 --per instance --format json >"$T/p.json" || fail "json"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["rows"] and "energy_j" in d["rows"][0]' \
		"$T/p.json" && ok || fail "invalid JSON"
	# the example in docs/formats.md has the keys the output has
	"$SLEUTH" predict app.prof --freq 1.6 --format json >"$T/ph.json" || fail "json"
	awk '/^```json/ { on = 1; next } /^```/ { on = 0 } on' "$SRCDIR/docs/formats.md" >"$T/doc.json"
	python3 -c '
import json, sys
doc, got = (json.load(open(f)) for f in sys.argv[1:3])
keys = lambda d: sorted(d)
assert keys(doc) == keys(got), (keys(doc), keys(got))
assert keys(doc["rows"][0]) == keys(got["rows"][0])
assert keys(doc["interpolation"]) == keys(got["interpolation"])
assert keys(doc["clamped"]) == keys(got["clamped"])' "$T/doc.json" "$T/ph.json" \
		&& ok || fail "docs/formats.md JSON example differs from the output"
fi

# --- time only -----------------------------------------------------------------
"$SLEUTH" predict app.prof --machine "$SIM" --freq 1.6 --time-only --per interval >"$T/to.csv" \
	|| fail "--time-only"
[ "$(sed -n 2p "$T/to.csv" | grep -c ',,$')" = 1 ] && ok || fail "time only: power not empty"

# --- refusals -------------------------------------------------------------------
expect_exit 2 "no frequency" -- "$SLEUTH" predict app.prof
expect_exit 2 "--freq" -- "$SLEUTH" predict app.prof --freq fast
expect_exit 2 "exclude" -- "$SLEUTH" predict app.prof --freq 2 --all
# every P-state side by side would be 300 columns: two per block, 100 at most
"$SLEUTH" predict app.prof --all >"$T/all.txt" && awk 'length > 100 { bad = 1 } END { exit bad }' \
	"$T/all.txt" && [ "$(grep -c '^phase   time s' "$T/all.txt")" -ge 2 ] && ok ||
	fail "predict --all: lines wider than 100 columns or one block: $(head -12 "$T/all.txt")"
expect_exit 2 "unknown option '--bogus'" -- "$SLEUTH" predict app.prof --freq 2 --bogus
expect_exit 2 "needs a value" -- "$SLEUTH" predict app.prof --freq
expect_exit 2 "--model" -- "$SLEUTH" predict app.prof --freq 2 --model cubic
expect_exit 2 "--per" -- "$SLEUTH" predict app.prof --freq 2 --per loop
expect_exit 2 "--format" -- "$SLEUTH" predict app.prof --freq 2 --format xml
expect_exit 2 "the table shows phases" -- "$SLEUTH" predict app.prof --freq 2 --per interval --format table
expect_exit 2 "unexpected argument" -- "$SLEUTH" predict app.prof other.prof --freq 2
expect_exit 1 "outside machine nehalem-i7-920's P-states.*--extrapolate" -- \
	"$SLEUTH" predict app.prof --freq 3.5 -o "$T/x.out"
expect_absent "$T/x.out"
expect_exit 1 "no event counts \(backend 'timer'\)" -- "$SLEUTH" predict timer.prof --freq 2 -o "$T/x.out"
expect_absent "$T/x.out"
# no dead ends: a skeleton predicts time only, a profile without a machine
# model time with the linear model, each saying so; the same numbers as asked
# for explicitly
"$SLEUTH" predict app.prof --machine "$SIM" --freq 2 --per interval -o "$T/sk.csv" 2>"$T/err" &&
	ok || fail "skeleton: $(cat "$T/err")"
grep -q "no fitted power model.*run sleuth calibrate.*predicting time only" "$T/err" && ok ||
	fail "skeleton fallback not said: $(cat "$T/err")"
"$SLEUTH" predict app.prof --machine "$SIM" --freq 2 --per interval --time-only -o "$T/sk2.csv"
cmp -s "$T/sk.csv" "$T/sk2.csv" && ok || fail "skeleton fallback differs from --time-only"
"$SLEUTH" predict bare.prof --freq 2 --per interval -o "$T/b1.csv" 2>"$T/err" && ok ||
	fail "bare: $(cat "$T/err")"
grep -q "embeds no machine model: predicting time only, with the linear model" "$T/err" && ok ||
	fail "bare fallback not said: $(cat "$T/err")"
"$SLEUTH" predict bare.prof --freq 2 --per interval --machine "$NHM" --model linear --time-only \
	-o "$T/b2.csv"
cmp -s "$T/b1.csv" "$T/b2.csv" && ok || fail "bare fallback differs from the linear model"
expect_exit 1 "embeds no machine model; pass --machine" -- "$SLEUTH" predict bare.prof --freq 2 \
	--model stall
# a run too short for the counters to rotate to every event: a power term
# never measured degrades to time only with the stall model (said, the fix
# named), the same numbers as --time-only; a time-model event never measured
# names a shorter --interval and the --pin that would have held it
"$SLEUTH" simulate -q "$SRCDIR/data/workloads/mcf-like.yaml" --intervals 1 -o "$T/one.yaml"
"$SLEUTH" run -q --replay "$T/one.yaml" -o "$T/one.prof"
"$SLEUTH" predict "$T/one.prof" --freq 1.6 --per interval -o "$T/one1.csv" 2>"$T/err" && ok ||
	fail "short run: $(cat "$T/err")"
grep -q "never measured .*its 1 interval ended before the counters rotated to it; record again with a shorter --interval; predicting time only" "$T/err" &&
	ok || fail "short run's fallback not said: $(cat "$T/err")"
"$SLEUTH" predict "$T/one.prof" --freq 1.6 --per interval --time-only -o "$T/one2.csv"
cmp -s "$T/one1.csv" "$T/one2.csv" && ok || fail "short run's fallback differs from --time-only"
"$SLEUTH" simulate -q "$SRCDIR/data/workloads/mcf-like.yaml" --intervals 1 \
	-m "$SRCDIR/data/sim/nehalem-i7-920-offcore.yaml" -o "$T/one-o.yaml"
"$SLEUTH" run -q --replay "$T/one-o.yaml" -o "$T/one-o.prof" \
	--machine "$SRCDIR/data/machines/sim-nehalem-i7-920-mlp.yaml"
expect_exit 1 "never measured LLC_MISSES \(llc_misses\).*its 1 interval ended before the counters rotated to it.*shorter --interval, or with --pin llc_misses" -- \
	"$SLEUTH" predict "$T/one-o.prof" --freq 1.6 --model mlp -o "$T/x.out"
expect_absent "$T/x.out"
# a machine without the stall model's events: linear, said; refused if asked
grep -v -E '^  (stall_cycles|llc_misses):' "$NHM" >"$T/nostall.yaml"
"$SLEUTH" predict app.prof --machine "$T/nostall.yaml" --freq 2 >/dev/null 2>"$T/err" && ok ||
	fail "no stall events: $(cat "$T/err")"
grep -q "names no stall_cycles and llc_misses.*using the linear model" "$T/err" && ok ||
	fail "stall fallback not said: $(cat "$T/err")"
expect_exit 1 "names no stall_cycles" -- "$SLEUTH" predict app.prof --machine "$T/nostall.yaml" \
	--freq 2 --model stall
expect_ok -- "$SLEUTH" predict bare.prof --freq 2 --machine "$NHM"
expect_exit 1 "missing.prof" -- "$SLEUTH" predict missing.prof --freq 2
expect_exit 1 "none.yaml" -- "$SLEUTH" predict app.prof --freq 2 --machine "$T/none.yaml"

# --temp: static power + temp_coeff * V * (T - temp_ref); V(1.6) = 1.018
sed 's/^  constant: 0$/  constant: 0\n  temp_ref_c: 50\n  temp_coeff: 0.5/' "$NHM" >"$T/nhm-t.yaml"
grep -q temp_coeff "$T/nhm-t.yaml" || fail "could not make the temperature model"
p50=$("$SLEUTH" predict app.prof --machine "$T/nhm-t.yaml" --freq 1.6 --format csv --temp 50 |
	awk -F, 'NR > 1 { e += $NF; t += $(NF-2) } END { printf "%.6f", e / t }')
p70=$("$SLEUTH" predict app.prof --machine "$T/nhm-t.yaml" --freq 1.6 --format csv --temp 70 |
	awk -F, 'NR > 1 { e += $NF; t += $(NF-2) } END { printf "%.6f", e / t }')
pno=$("$SLEUTH" predict app.prof --machine "$T/nhm-t.yaml" --freq 1.6 --format csv |
	awk -F, 'NR > 1 { e += $NF; t += $(NF-2) } END { printf "%.6f", e / t }')
awk -v a="$p50" -v b="$p70" 'BEGIN { d = b - a; exit !(d > 10.18 - 0.3 && d < 10.18 + 0.3) }' &&
	ok || fail "--temp 70 vs 50: $p70 - $p50 W, wanted about 10.18"
[ "$pno" = "$p50" ] && ok || fail "without --temp the reference temperature: $pno vs $p50"
expect_exit 2 "--temp 'hot'" -- "$SLEUTH" predict app.prof --freq 1.6 --temp hot
"$SLEUTH" predict app.prof --freq 1.6 --temp 70 2>&1 >/dev/null | grep -q "no temperature term" &&
	ok || fail "--temp on a machine without a temperature term: no warning"
finish
