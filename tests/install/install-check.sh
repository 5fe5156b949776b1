#!/bin/bash
# The installed sleuth, as a user gets it: a release build installed into a
# prefix (here, by tests/run-all.sh), checked from outside the source tree.
#   - nothing under share/ is a source file (.c/.h): data only;
#   - a program built with `pkg-config --cflags --libs sleuth` alone,
#     including every installed header, links and runs;
#   - every symbol libsleuth exports is sl_-prefixed;
#   - the installed binary runs the README's main job from its own datadir,
#     from a directory outside the tree and with no SLEUTH_DATADIR.
# Usage: install-check.sh PREFIX
set -euo pipefail
prefix=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
ok()   { passes=$((passes + 1)); }
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

src=$(find "$prefix/share" \( -name '*.c' -o -name '*.h' \) | head -5)
[ -z "$src" ] && ok || fail "sources installed under share/: $src"

pc=$(dirname "$(find "$prefix" -name sleuth.pc | head -1)")
[ -n "$pc" ] && [ -f "$pc/sleuth.pc" ] && ok || fail "no sleuth.pc installed"
headers=$(cd "$prefix/include" && find sleuth -name '*.h' | sort)
[ -n "$headers" ] && ok || fail "no headers installed under include/sleuth"
for h in $headers; do echo "#include <$h>"; done >"$T/all-headers.h"
cp "$here/consumer.c" "$T/"
export PKG_CONFIG_PATH="$pc"
if flags=$(pkg-config --cflags --libs sleuth) &&
	cc -std=gnu11 -Wall -Wextra -Werror -o "$T/consumer" "$T/consumer.c" \
		-I"$T" $flags 2>"$T/cc.err"; then
	ok
else
	fail "building against the installed libsleuth: $(head -5 "$T/cc.err")"
fi
machine="$prefix/share/sleuth/data/machines/nehalem-i7-920.yaml"
if [ -x "$T/consumer" ] && out=$("$T/consumer" "$machine") &&
	grep -q '^nehalem-i7-920: [0-9]* P-states' <<<"$out"; then
	ok
else
	fail "consumer did not read $machine: ${out:-}"
fi

lib=$(find "$prefix" -name libsleuth.a | head -1)
bad=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /[TDBRCV]/ && $3 !~ /^sl_/ {print $3}' | sort -u)
[ -z "$bad" ] && ok || fail "libsleuth exports symbols without sl_: $bad"

# The installed binary finds its data under its own prefix, not the tree.
if (cd "$T" && env -u SLEUTH_DATADIR "$prefix/bin/sleuth" demo -o "$T/demo" >"$T/demo.log" 2>&1); then
	ok
else
	fail "installed sleuth demo: $(tail -3 "$T/demo.log")"
fi

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
