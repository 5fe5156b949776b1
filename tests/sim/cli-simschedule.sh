# `sleuth simulate --schedule`: a schedule with every phase at one P-state is
# the fixed-frequency run (t, e, counts, branches, labels); under a
# two-frequency schedule every interval is the fixed run's interval at its
# phase's frequency; switch costs; where the profile is looked for; and every
# bad input (one line, exit 1 or 2, no output left behind).
. "$SRCDIR/tests/lib.sh"

W=$SRCDIR/data/workloads/astar-like.yaml
sim() { "$SLEUTH" simulate -q --seed 3 "$W" "$@"; }

# the profile: astar-like at fmax, replayed
expect_ok -- sim -o "$T/a.yaml"
expect_ok -- "$SLEUTH" run -q --replay "$T/a.yaml" -o "$T/a.prof"
# the phase the profile detected in each interval
"$SLEUTH" predict "$T/a.prof" --freq 2.66 --per interval --time-only --format csv \
	>"$T/pred.csv" || fail "predict --per interval: exit $?"
awk -F, 'NR > 1 {print $3}' "$T/pred.csv" > "$T/phase"
[ "$(wc -l < "$T/phase")" = 660 ] && ok || fail "profile phases: $(wc -l < "$T/phase") intervals"
[ "$(sort -u "$T/phase" | wc -l)" -ge 2 ] && ok || fail "astar-like should show two phases"

# schedule FILE PROFILE GHZ0 GHZ1 [EXTRA]: a sleuth-schedule/1 by hand
schedule() {
	cat > "$1" <<YAML
format: sleuth-schedule/1
profile: $2
machine: sim-nehalem-i7-920
objective: min-edp
max_slowdown: 0.10
scope: global
baseline: {ghz: 2.66, time_s: 40, energy_j: 2500}
predicted: {time_s: 42, energy_j: 2200, edp: 92400, slowdown: 0.05}
${5:-}
phases:
  - {phase: 0, ghz: $3, time_s: 20, energy_j: 1100}
  - {phase: 1, ghz: $4, time_s: 22, energy_j: 1100}
YAML
}
# the trace without the per-interval ghz keys and the header frequency
plain() { sed -E -e 's/, ghz: [0-9.]*\}$/}/' -e '/^frequency_ghz: /d' "$1"; }
# per-interval t (and e) with full precision
col() { sed -nE "s/^- \{t: ([^,]*),.*, e: ([^,]*), label.*/\\$2/p" "$1"; }

# --- every phase at one P-state = the fixed run ------------------------------
for f in 1.6 2.13 2.66; do
	schedule "$T/u.yaml" a.prof $f $f
	expect_ok -- sim -o "$T/fixed.yaml" --freq $f --power-log "$T/fixed.csv"
	expect_ok -- sim -o "$T/u-trace.yaml" --schedule "$T/u.yaml" --power-log "$T/u.csv"
	cmp -s <(plain "$T/fixed.yaml") <(plain "$T/u-trace.yaml") && ok ||
		fail "every phase at $f GHz differs from the fixed run at $f GHz"
	cmp -s <(sed 1d "$T/fixed.csv") <(sed 1d "$T/u.csv") && ok || fail "power log at $f GHz differs"
	grep -q "^# .* own frequency" "$T/u.csv" && ok || fail "power log comment"
	[ "$(grep -c ", ghz: $f}\$" "$T/u-trace.yaml")" = 660 ] && ok || fail "ghz keys at $f"
done
grep -q '^frequency_ghz: 2.66$' "$T/u-trace.yaml" && ok || fail "header frequency is not the baseline"
expect_ok -- sim -o "$T/fixed.yaml" --freq 1.6 --truth
schedule "$T/u.yaml" a.prof 1.6 1.6 "transition_us: 100"
expect_ok -- sim -o "$T/u-trace.yaml" --schedule "$T/u.yaml" --truth
cmp -s <(plain "$T/fixed.yaml") <(plain "$T/u-trace.yaml") && ok ||
	fail "--truth: one P-state for all differs from the fixed run (or a switch was charged)"

# --- phase 0 at 2.66, phase 1 at 1.60 ------------------------------------------
expect_ok -- sim -o "$T/hi.yaml" --truth
expect_ok -- sim -o "$T/lo.yaml" --truth --freq 1.6
schedule "$T/two.yaml" a.prof 2.66 1.6
expect_ok -- sim -o "$T/two-trace.yaml" --schedule "$T/two.yaml" --truth
sed -nE 's/.*, ghz: ([0-9.]*)\}$/\1/p' "$T/two-trace.yaml" > "$T/ghz"
paste -d' ' "$T/phase" "$T/ghz" | awk '($1 == 0 && $2 != 2.66) || ($1 == 1 && $2 != 1.6) {bad++}
	END {exit bad > 0}' && ok || fail "an interval does not run at its phase's frequency"
# each interval, t and e, is the fixed run's at its frequency (text-identical)
for k in 1 2; do
	paste -d' ' "$T/phase" <(col "$T/hi.yaml" $k) <(col "$T/lo.yaml" $k) |
		awk '{print $1 == 0 ? $2 : $3}' > "$T/want$k"
	cmp -s "$T/want$k" <(col "$T/two-trace.yaml" $k) && ok ||
		fail "column $k of the scheduled trace is not the fixed runs' at the scheduled frequencies"
done
tot() { awk '{s += $1} END {printf "%.9f", s}' "$1"; }
t_two=$(col "$T/two-trace.yaml" 1 | tot /dev/stdin)
t_hi=$(col "$T/hi.yaml" 1 | tot /dev/stdin)
t_lo=$(col "$T/lo.yaml" 1 | tot /dev/stdin)
[ "$t_two" = "$(tot "$T/want1")" ] && ok || fail "total $t_two is not the sum $(tot "$T/want1")"
awk -v a="$t_hi" -v b="$t_two" -v c="$t_lo" 'BEGIN {exit !(a < b && b < c)}' && ok ||
	fail "the mixed run's time $t_two is not between $t_hi and $t_lo"
# the summary line reports the run's totals and the frequency changes
changes=$(awk 'NR > 1 && $1 != p {n++} {p = $1} END {print n + 0}' "$T/ghz")
"$SLEUTH" simulate --seed 3 "$W" -o "$T/two-trace.yaml" --schedule "$T/two.yaml" --truth 2> "$T/sum"
grep -Eq "under .*two.yaml in .* s: [0-9.]+ s, [0-9.]+ J, EDP [0-9.e+]+ J\\*s, $changes frequency changes" \
	"$T/sum" && ok || fail "summary line: $(cat "$T/sum") (want $changes changes)"

# a scheduled run replayed is not a dithered one: predict names it
expect_ok -- "$SLEUTH" run -q --replay "$T/two-trace.yaml" -o "$T/two.prof"
expect_exit 1 "intervals [0-9]+ and [0-9]+ both ran at 1.60 GHz, the run at 2.66 GHz .a scheduled run.." -- \
	"$SLEUTH" predict "$T/two.prof" --freq 1.6

# --- switch costs: 100 us each, from the schedule or the command line ---------
schedule "$T/two-c.yaml" a.prof 2.66 1.6 "transition_us: 100"
expect_ok -- sim -o "$T/c1.yaml" --schedule "$T/two-c.yaml" --truth
expect_ok -- sim -o "$T/c2.yaml" --schedule "$T/two.yaml" --transition-us 100 --truth
cmp -s "$T/c1.yaml" "$T/c2.yaml" && ok || fail "transition_us of the schedule != --transition-us"
t_c=$(col "$T/c1.yaml" 1 | tot /dev/stdin)
awk -v a="$t_c" -v b="$t_two" -v n="$changes" 'BEGIN {d = a - b - n * 1e-4; exit !(d < 1e-8 && d > -1e-8)}' &&
	ok || fail "switch time: $t_c - $t_two is not $changes x 100 us"
expect_ok -- sim -o "$T/c3.yaml" --schedule "$T/two-c.yaml" --transition-us 0 --truth
cmp -s "$T/c3.yaml" "$T/two-trace.yaml" && ok || fail "--transition-us 0 still charged switches"

# --- where the profile is found ------------------------------------------------
mkdir -p "$T/d/e"
cp "$T/a.prof" "$T/d/e/p.prof"
schedule "$T/d/e/s.yaml" p.prof 2.66 1.6        # next to the schedule
(cd "$T" && "$SLEUTH" simulate -q --seed 3 "$W" -o x1.yaml -s d/e/s.yaml --truth) && ok ||
	fail "profile next to the schedule not found"
schedule "$T/d/s2.yaml" d/e/p.prof 2.66 1.6      # as written, from the current directory
(cd "$T" && "$SLEUTH" simulate -q --seed 3 "$W" -o x2.yaml -s d/s2.yaml --truth) && ok ||
	fail "profile relative to the current directory not found"
schedule "$T/d/s3.yaml" nowhere.prof 2.66 1.6    # --profile overrides
expect_ok -- sim -o "$T/x3.yaml" -s "$T/d/s3.yaml" -p "$T/a.prof" --truth
for x in x1 x2 x3; do
	cmp -s "$T/$x.yaml" "$T/two-trace.yaml" && ok || fail "$x differs from the same schedule"
done

# --- bad input: one line, exit 1 (usage: 2), nothing written -------------------
O=$T/out.yaml
expect_exit 1 "profile .*a.prof has 660 intervals but astar-like runs 100" -- \
	sim -o "$O" -s "$T/two.yaml" --intervals 100
grep -v 'phase: 1,' "$T/two.yaml" > "$T/miss.yaml"
expect_exit 1 "miss.yaml \(profile .*\): phase 1 \(interval [0-9]+\) has no frequency in the schedule" -- \
	sim -o "$O" -s "$T/miss.yaml"
schedule "$T/bad.yaml" a.prof 2.66 1.7
expect_exit 1 "bad.yaml \(profile .*\): phase 1: 1.7 GHz is not a P-state of nehalem-i7-920; use one of 2.66, .*1.60" -- \
	sim -o "$O" -s "$T/bad.yaml"
sed 's/ghz: 2.66, time_s: 40/ghz: 2.7, time_s: 40/' "$T/two.yaml" > "$T/base.yaml"
expect_exit 1 "baseline frequency: 2.7 GHz is not a P-state" -- sim -o "$O" -s "$T/base.yaml"
schedule "$T/gone.yaml" gone.prof 2.66 1.6
expect_exit 1 "cannot find profile gone.prof named by .*gone.yaml .*give --profile FILE" -- \
	sim -o "$O" -s "$T/gone.yaml"
expect_exit 1 "cannot open profile .*nope" -- sim -o "$O" -s "$T/two.yaml" -p "$T/nope"
expect_exit 1 "cannot open profile|not a sleuth profile|profile" -- sim -o "$O" -s "$T/two.yaml" -p "$W"
sed 's/sleuth-schedule\/1/sleuth-schedule\/2/' "$T/two.yaml" > "$T/fmt.yaml"
expect_exit 1 "fmt.yaml:1: .*format" -- sim -o "$O" -s "$T/fmt.yaml"
expect_exit 1 "nothing.yaml" -- sim -o "$O" -s "$T/nothing.yaml"
expect_exit 2 "--freq and --schedule exclude each other" -- sim -o "$O" -s "$T/two.yaml" --freq 1.6
expect_exit 2 "--profile goes with --schedule" -- sim -o "$O" -p "$T/a.prof"
expect_exit 2 "--transition-us goes with --schedule or --dither" -- sim -o "$O" --transition-us 5
expect_exit 2 "--transition-us: '-1' is not a time" -- sim -o "$O" -s "$T/two.yaml" --transition-us -1
expect_absent "$O"

finish
