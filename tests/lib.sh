# Shared helpers for CLI tests (sourced).  Environment from meson:
# SLEUTH (the binary), SRCDIR, BUILDDIR.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
passes=0

ok()   { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# need_vpmu [PROGRAM...]: skip the test (exit 77) unless valgrind, the
# vPMU tool and every PROGRAM (executables) are there.
need_vpmu() {
	local p
	command -v valgrind >/dev/null && ls "$BUILDDIR"/vpmu/vpmu-*-* >/dev/null 2>&1 || { finish; exit 77; }
	for p in "$@"; do [ -x "$p" ] || { finish; exit 77; }; done
}

# below WHAT VALUE BOUND: VALUE (a number) must be < BOUND.
below() {
	if [ -n "$2" ] && awk -v v="$2" -v b="$3" 'BEGIN { exit !(v < b) }'; then ok
	else fail "$1 = ${2:-missing}, bound $3"; fi
}

# hard_power WORKLOAD...: bench/power-accuracy.sh on those hard-suite
# workloads (seed 1, or $POWER_SEED; --model mlp, 2.13 and 1.60 GHz) into
# $T/off.txt and $T/auto.txt (counters only, anchored); then power_avg /
# power_worst ANCHOR GHZ read the summary's instance-weighted mean power
# error and worst instance, percent.  Each call replaces the last's.
hard_power() {
	local w a
	rm -rf "$T/suite"
	mkdir -p "$T/suite"
	for w in "$@"; do ln -s "$SRCDIR/data/workloads/hard/$w.yaml" "$T/suite/"; done
	for a in off auto; do
		MACHINE="$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml" \
		SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml" SUITE="$T/suite" MODEL=mlp \
		SEED=${POWER_SEED:-1} ANCHOR=$a "$SRCDIR/bench/power-accuracy.sh" "$BUILDDIR" 2.13 1.60 \
			>"$T/$a.txt" 2>&1 || fail "bench with ANCHOR=$a: $(tail -3 "$T/$a.txt")"
	done
}
power_avg() { sed -nE "s/^$2 +mean power: avg ([0-9.]+)%.*/\1/p" "$T/$1.txt"; }
power_worst() { sed -nE "s/^$2 +mean power: .*worst instance ([0-9.]+)%.*/\1/p" "$T/$1.txt"; }

# expect_exit CODE REGEX -- CMD...: run CMD, check its exit code and that
# its stderr is ONE line (plus an optional "Try 'sleuth help CMD'." line
# after it) that starts "sleuth" and matches REGEX (extended).
expect_exit() {
	local code=$1 re=$2; shift 3
	local out rc first rest
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" != "$code" ]; then
		fail "'$*' exited $rc, wanted $code; stderr: $out"; return
	fi
	first=${out%%$'\n'*}
	rest=${out#"$first"}
	rest=${rest#$'\n'}
	if [ -n "$rest" ] && ! [[ $rest =~ ^Try\ \'sleuth\ help\ [a-z]+\'\.$ ]]; then
		fail "'$*': stderr is not one line: $out"; return
	fi
	if [[ $first != sleuth* ]] || ! printf '%s\n' "$first" | grep -Eq -- "$re"; then
		fail "'$*': stderr's line does not match /$re/: $out"; return
	fi
	ok
}

# expect_status CODE -- CMD...: CMD (sleuth running a program) exits CODE,
# the program's status; its stderr is the program's, not checked.
expect_status() {
	local code=$1 rc; shift 2
	"$@" >/dev/null 2>&1; rc=$?
	[ "$rc" = "$code" ] && ok || fail "'$*' exited $rc, wanted $code"
}

# expect_ok -- CMD...: must exit 0.
expect_ok() {
	shift
	local out
	if ! out=$("$@" 2>&1); then
		fail "'$*' failed: $out"; return
	fi
	ok
}

# expect_absent FILE: a failed command left no output behind.
expect_absent() {
	if [ -e "$1" ] || ls "$1".tmp.* >/dev/null 2>&1; then
		fail "$1 (or a temporary of it) exists after a failure"; return
	fi
	ok
}

finish() {
	echo "$passes passed, $fails failed"
	[ "$fails" = 0 ]
}
