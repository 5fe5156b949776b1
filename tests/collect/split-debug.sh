#!/bin/sh
# split-debug.sh LIB OUT DEBUGROOT: OUT is LIB stripped of its symbol table
# and debug information (only .dynsym left), and its debug information goes
# where gdb, perf and libdwfl look for it by build-id:
# DEBUGROOT/.build-id/<first 2 hex digits>/<the rest>.debug
set -e
lib=$1 out=$2 root=$3
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || { echo "split-debug.sh: $lib has no build-id" >&2; exit 1; }
dir=$root/.build-id/$(echo "$id" | cut -c1-2)
mkdir -p "$dir"
objcopy --only-keep-debug "$lib" "$dir/$(echo "$id" | cut -c3-).debug"
strip -s -o "$out" "$lib"
