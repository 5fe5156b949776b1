# sleuth demo: the README's main job runs the whole pipeline and its
# predictions stay close to the simulator's truth.
. "$SRCDIR/tests/lib.sh"

out=$("$SLEUTH" demo -o "$T/d" 2>&1) && ok || fail "demo failed: $out"
for f in trace.yaml power.csv sleuth.prof schedule.yaml report.html truth-fmin.yaml scheduled.yaml; do
	[ -s "$T/d/$f" ] && ok || fail "demo did not write $f"
done
# every step is echoed as the command a user would type
for cmd in simulate run phases predict schedule report; do
	printf '%s\n' "$out" | grep -q "^\$ sleuth $cmd " && ok || fail "demo did not show 'sleuth $cmd'"
done
# the final check: |error| under 10% for time and energy, at fmin and scheduled
errs=$(printf '%s\n' "$out" | sed -n 's/.*error \([-+][0-9.]*\)%.*/\1/p')
[ "$(printf '%s\n' "$errs" | wc -l)" = 4 ] && ok || fail "expected 4 error figures, got: $errs"
for e in $errs; do
	awk -v e="$e" 'BEGIN { exit !(e < 10 && e > -10) }' && ok || fail "prediction error $e% is 10% or more"
done
printf '%s\n' "$out" | grep -q "warning" && fail "demo printed a warning: $out" || ok

expect_exit 2 "unknown option '--nope'" -- "$SLEUTH" demo --nope
expect_exit 2 "unexpected argument" -- "$SLEUTH" demo extra
: >"$T/afile"
expect_exit 1 "cannot create the directory .*afile: a file of that name exists; give another with -o DIR" -- \
	"$SLEUTH" demo -o "$T/afile"
expect_exit 1 "cannot find the workload" -- "$SLEUTH" demo -o "$T/e" --workload "$T/missing.yaml"
finish
