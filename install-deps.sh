#!/bin/sh
# Installs what building and testing sleuth needs on Debian (run as root).
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	gcc libc6-dev pkg-config meson ninja-build \
	libpfm4-dev libpapi-dev libgsl-dev libyaml-dev libdw-dev libelf-dev \
	libcmocka-dev zlib1g-dev valgrind >/dev/null
# Headless Chromium renders `sleuth report` pages in tests/report/cli-report.sh.
apt-get install -y -qq --no-install-recommends chromium >/dev/null
# libiberty: C++ and Rust demangling of symbol names (collect/symbols.c);
# g++ builds the C++ test program whose names must come out demangled.
apt-get install -y -qq --no-install-recommends libiberty-dev g++ >/dev/null
# clang and its libFuzzer runtime build the fuzz harnesses (tests/fuzz).
apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
