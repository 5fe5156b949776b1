#!/bin/bash
# The whole test suite: a normal build, an AddressSanitizer+UBSan build, and
# the unit tests under valgrind's leak checker.  Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

setup() { # DIR [meson options]
	local dir=$1; shift
	if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null
	else meson setup "$dir" "$@" >/dev/null; fi
	ninja -C "$dir" >/dev/null
}

echo "== build (debugoptimized)"
setup build
meson test -C build --print-errorlogs --num-processes 2

echo "== build with -fsanitize=address,undefined"
setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 3

echo "== unit tests under valgrind"
meson test -C build --suite unit --print-errorlogs --num-processes 2 --timeout-multiplier 10 \
	--wrapper 'valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect'
