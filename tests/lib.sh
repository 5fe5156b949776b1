# Shared helpers for CLI tests (sourced).  Environment from meson:
# SLEUTH (the binary), SRCDIR, BUILDDIR.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
passes=0

ok()   { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# below WHAT VALUE BOUND: VALUE (a number) must be < BOUND.
below() {
	if [ -n "$2" ] && awk -v v="$2" -v b="$3" 'BEGIN { exit !(v < b) }'; then ok
	else fail "$1 = ${2:-missing}, bound $3"; fi
}

# expect_exit CODE REGEX -- CMD...: run CMD, check exit code and that stderr
# matches REGEX (extended) and is one line (plus an optional "Try" line).
expect_exit() {
	local code=$1 re=$2; shift 3
	local out rc
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" != "$code" ]; then
		fail "'$*' exited $rc, wanted $code; stderr: $out"; return
	fi
	if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
		fail "'$*': stderr does not match /$re/: $out"; return
	fi
	ok
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
