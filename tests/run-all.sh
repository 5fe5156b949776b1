#!/bin/bash
# The whole test suite: a normal build, an AddressSanitizer+UBSan build, the
# threaded trace reader/writer under ThreadSanitizer, a release build
# installed into a prefix and used from outside (pkg-config, data), and the
# unit tests under valgrind's leak checker.  Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

configure() { # DIR [meson options]
	local dir=$1; shift
	if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null
	else meson setup "$dir" "$@" >/dev/null; fi
}
setup() { # DIR [meson options]
	configure "$@"
	ninja -C "$1" >/dev/null
}

echo "== build (debugoptimized)"
setup build
meson test -C build --print-errorlogs --num-processes 2

echo "== build with -fsanitize=address,undefined"
setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 3

echo "== trace unit test with -fsanitize=thread (reader and writer threads)"
configure build-tsan -Db_sanitize=thread -Db_lundef=false
ninja -C build-tsan tests/test-trace >/dev/null
TSAN_OPTIONS=halt_on_error=1 meson test -C build-tsan --no-rebuild --print-errorlogs trace

echo "== release build (-O3, tests disabled), installed into a prefix and used from outside"
rm -rf build-release
setup build-release --buildtype=release -Dtests=disabled --prefix="$PWD/build-release/prefix"
meson install -C build-release --quiet >/dev/null
tests/install/install-check.sh build-release/prefix

echo "== unit tests under valgrind"
meson test -C build --suite unit --print-errorlogs --num-processes 2 --timeout-multiplier 10 \
	--wrapper 'valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect'

echo "== fuzz harnesses (clang libFuzzer + ASan/UBSan), ${FUZZ_SECONDS:-25} s each"
CC=clang configure build-fuzz -Dfuzz=enabled -Db_sanitize=address,undefined -Db_lundef=false
tests/fuzz/run.sh build-fuzz "${FUZZ_SECONDS:-25}"
