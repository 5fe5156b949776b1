# sleuth calibrate records the time models' residuals (machine time_error:,
# docs/formats.md): given profiles of the same workload at two frequencies,
# each model predicts the slower from the faster, and the per-phase error is
# written per model and frequency pair, and reported.  The stall model must
# be closer than the linear one on a memory-bound workload (linear takes all
# time to scale with 1/f); profiles that do not pair up record nothing.
. "$SRCDIR/tests/lib.sh"

SIMM=$SRCDIR/data/sim/nehalem-i7-920.yaml
M=$SRCDIR/data/machines/sim-nehalem-i7-920.yaml
for w in train-chase train-alu; do
	for f in 2.66 1.60; do
		expect_ok -- "$SLEUTH" simulate -q -m "$SIMM" "$SRCDIR/data/workloads/train/$w.yaml" \
			-f $f --intervals 60 -o "$T/$w-$f.yaml" --power-log "$T/$w-$f.csv"
		expect_ok -- "$SLEUTH" run -q --replay "$T/$w-$f.yaml" --machine "$M" -o "$T/$w-$f.prof"
	done
done
pairs=()
for w in train-chase train-alu; do
	for f in 2.66 1.60; do pairs+=("$T/$w-$f.prof:$T/$w-$f.csv"); done
done
"$SLEUTH" calibrate -m "$M" -o "$T/m.yaml" "${pairs[@]}" >"$T/report" 2>&1 || fail "calibrate: $(cat "$T/report")"
grep -q '^time models, per-phase error predicting 2 slower runs' "$T/report" && ok ||
	fail "report: $(cat "$T/report")"
# field FILE MODEL KEY
field() { sed -nE "/^- \{model: $2, /,/\}/p" "$1" | tr -d '\n' | sed -nE "s/.*[{ ]$3: ([^,}]*).*/\1/p"; }
for mdl in stall linear; do
	[ "$(field "$T/m.yaml" $mdl from_ghz)" = 2.66 ] && [ "$(field "$T/m.yaml" $mdl ghz)" = 1.6 ] &&
		ok || fail "$mdl entry: $(grep -A1 "model: $mdl" "$T/m.yaml")"
done
s=$(field "$T/m.yaml" stall rms) l=$(field "$T/m.yaml" linear rms)
awk -v s="$s" -v l="$l" 'BEGIN {exit !(s >= 0 && s < 0.1 && l > 2 * s)}' && ok ||
	fail "rms: stall $s, linear $l"
# the machine reads back, and schedule uses what it recorded
"$SLEUTH" schedule "$T/train-chase-2.66.prof" --min-energy --machine "$T/m.yaml" >"$T/s" 2>&1 &&
	grep -q "stall model's residuals" "$T/s" && ok || fail "schedule with the new machine: $(cat "$T/s")"
# each workload at one frequency: nothing to compare, no time_error
"$SLEUTH" calibrate -m "$M" -o "$T/n.yaml" "${pairs[0]}" "${pairs[3]}" >/dev/null 2>&1 ||
	fail "calibrate, one frequency"
grep -q '^time_error:' "$T/n.yaml" && fail "time_error: without pairs" || ok
# --time-error-only: the machine given (here the one fitted without pairs)
# is kept as it is, its time_error: measured on the profiles: the same rows
# as the full calibrate's on the same runs, the power model untouched
profs=("$T"/train-*.prof)
"$SLEUTH" calibrate --time-error-only -m "$T/n.yaml" -o "$T/te.yaml" "${profs[@]}" >"$T/report" 2>&1 ||
	fail "calibrate --time-error-only: $(cat "$T/report")"
grep -q '^time models, per-phase error predicting 2 slower runs' "$T/report" && ok ||
	fail "--time-error-only report: $(cat "$T/report")"
[ "$(sed -n '/^time_error:/,/^[a-z]/p' "$T/te.yaml")" = "$(sed -n '/^time_error:/,/^[a-z]/p' "$T/m.yaml")" ] &&
	ok || fail "--time-error-only rows differ from calibrate's: $(grep -A2 '^time_error:' "$T/te.yaml")"
diff <(grep -v '^#' "$T/n.yaml") <(awk '/^time_error:/ { s = 1; next } s && /^[a-z]/ { s = 0 } !s && !/^#/' "$T/te.yaml") >/dev/null &&
	ok || fail "--time-error-only changed more than time_error:"
grep -q '^# fitted by sleuth calibrate' "$T/te.yaml" && grep -q '^# time_error: sleuth calibrate .* --time-error-only' "$T/te.yaml" &&
	ok || fail "--time-error-only comment: $(grep '^#' "$T/te.yaml")"
# measured again: its own line replaces the last run's
"$SLEUTH" calibrate --time-error-only -m "$T/te.yaml" -o "$T/te2.yaml" "${profs[@]}" >/dev/null 2>&1 ||
	fail "calibrate --time-error-only on its own output"
[ "$(grep -c '^# time_error: ' "$T/te2.yaml")" = 1 ] && grep -q '^# fitted by sleuth calibrate' "$T/te2.yaml" &&
	ok || fail "--time-error-only again: $(grep '^#' "$T/te2.yaml")"
# it fits nothing, and needs pairs: one-line errors naming the fix
expect_exit 2 "drop --select" -- "$SLEUTH" calibrate --time-error-only --select 3 -m "$T/n.yaml" -o "$T/x.yaml" "${profs[@]}"
expect_exit 1 "at several P-states" -- "$SLEUTH" calibrate --time-error-only -m "$T/n.yaml" -o "$T/x.yaml" "${profs[0]}"

# bench/time-error-sim.sh (how the shipped hard machine's rows are made):
# only time_error: changes, and the stalls training program is one where the
# stall model's residual is large (its polluted stall counters), not a
# program it already predicts: at 1.60 GHz its rms is over 5%
H=$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml
MACHINE=$H TRAIN=data/workloads/train/stalls OUT=$T/h.yaml "$SRCDIR/bench/time-error-sim.sh" \
	"$BUILDDIR" >"$T/tes.out" 2>&1 && ok || fail "time-error-sim: $(cat "$T/tes.out")"
notime() { awk '/^time_error:/ { s = 1; next } s && /^[a-z]/ { s = 0 } !s && !/^#/' "$1"; }
diff <(notime "$H") <(notime "$T/h.yaml") >/dev/null && ok || fail "time-error-sim changed more than time_error:"
grep -q '^# time_error: bench/time-error-sim.sh (TRAIN="data/workloads/train/stalls"' "$T/h.yaml" && ok ||
	fail "time-error-sim comment: $(grep '^# time_error' "$T/h.yaml")"
rms=$(awk '/^- \{model: stall, from_ghz: 2.66, ghz: 1.6,/ { sub(/.*rms: /, ""); sub(/,.*/, ""); print }' \
	"$T/h.yaml")
awk -v r="${rms:-0}" 'BEGIN {exit !(r > 0.05)}' && ok || fail "stall rms on the stalls program: '$rms'"
finish
