# sleuth doctor: exits 0, one line per check, each saying what follows; on a
# machine without a PMU it says so plainly and what still works.
. "$SRCDIR/tests/lib.sh"
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/collect/lsan-papi.supp:print_suppressions=0"

expect_ok -- "$SLEUTH" doctor
out=$("$SLEUTH" doctor 2>&1) ||
	fail "line $LINENO: sleuth exited $?: $out"
# lines fit 100 columns; a long reason wraps, indented under its value
printf '%s\n' "$out" | sed 's/—/-/g' | awk 'length > 100 { bad = 1 } END { exit bad }' && ok ||
	fail "doctor: lines wider than 100 columns: $out"
out=$(printf '%s\n' "$out" | awk '/^            +[^ ]/ { sub(/^ +/, " "); printf "%s", $0; next }
	NR > 1 { print "" } { printf "%s", $0 } END { print "" }')
for key in 'cpu:' 'pmu \(libpfm4\):' 'hardware events:' 'precise sampling:' \
	'software events:' 'perf_event_paranoid:' 'rapl energy:' 'cpufreq:'; do
	printf '%s\n' "$out" | grep -Eq "^$key .* — .+" && ok || fail "doctor: no '$key' line: $out"
done
printf '%s\n' "$out" | grep -q '^sleuth can: ' && ok || fail "doctor: no summary"
if printf '%s\n' "$out" | grep -q '^hardware events: *no'; then
	printf '%s\n' "$out" | grep -q 'sleuth cannot: measure hardware events' && ok ||
		fail "doctor: no-PMU summary missing"
	printf '%s\n' "$out" | grep -q -- "--backend timer" && ok || fail "doctor: no timer hint"
fi
# the PMU libpfm4 detects is named
LIBPFM_FORCE_PMU=nhm "$SLEUTH" doctor | grep -q '^pmu (libpfm4): *nhm (Intel Nehalem)' && ok ||
	fail "doctor: forced nhm not shown"
"$SLEUTH" help doctor | grep -q '^usage: sleuth doctor' && ok || fail "help doctor"
expect_exit 2 "unexpected argument 'extra'" -- "$SLEUTH" doctor extra
finish
