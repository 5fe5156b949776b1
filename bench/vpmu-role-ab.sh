#!/bin/bash
# What machine roles do for the mlp time model on the virtual PMU, alone:
# each program is profiled once at fmax with the shipped -mlp machine (run
# --pin time, bench/vpmu.sh's intervals and environment), run at 2.13 and
# 1.60 GHz for the truth, and that one profile is predicted with the
# machine and with the same machine less the roles' lines, compared by
# bench/vpmu-compare: "program GHz with|without time inst-avg inst-max
# power energy".  One profile for both, because the vPMU's runs move with
# the environment and the starting directory (docs/vpmu.md,
# "Determinism").  ROLES (default dram_reads: docs/benchmarks.md, "DRAM
# reads from the memory controller on the virtual PMU", where the model
# then reads LLC_MISS + L2_PREFETCH_FILLS, interpolated where not
# counted; "l2_miss_stall_episodes miss_stall_episodes": "The LLC hits'
# stall episodes on the virtual PMU").
#
#   bench/vpmu-role-ab.sh [BUILDDIR] [PROGRAM...]
# PROGRAM: a bench/vpmu program (stream, chase, sort, ...) or one of the
# unseen set's (xz, bzip2, sqlite3, python3, gzip-d, unseen:sort:
# bench/vpmu-unseen.sh's commands, inputs and environment); default the
# ten bench/vpmu programs.  KEEP=DIR keeps the runs there and reuses them
# (a profile and its truth runs; delete them to run again): the A/B of a
# model change on the same runs, with the build as it is now.  AGAINST=FILE
# compares the -mlp machine with another machine file instead of one less
# the roles (e.g. the tree's machine before a change: `git show
# REV:data/machines/vpmu-nehalem-i7-920-mlp.yaml`).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
shift || true
PROGS=("$@")
[ ${#PROGS[@]} -gt 0 ] || PROGS=("${VPMU_TRAIN[@]}" "${VPMU_TEST[@]}")
mlp=$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml
def=$src/data/machines/vpmu-nehalem-i7-920.yaml
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	tmp=$(realpath "$KEEP")
else
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-role-ab.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi
cp "${AGAINST:-$mlp}" "$tmp/without.yaml"
for r in $([ -n "${AGAINST:-}" ] || echo "${ROLES:-dram_reads}"); do
	grep -q "^  $r:" "$mlp" || { echo "vpmu-role-ab.sh: $mlp has no role $r" >&2; exit 2; }
	sed -i "/^  $r:/d" "$tmp/without.yaml"
done
cd "$tmp"
unseen_inputs
for p in "${PROGS[@]}"; do
	cmd=("$progs/vb-$p") CLEAN_ENV=(env -i PATH=/usr/bin:/bin)
	u=${p#unseen:}
	if { [ "$u" != "$p" ] || [ ! -x "$progs/vb-$p" ]; } && [ -n "${VPMU_UNSEEN_CMD[$u]:-}" ]; then
		read -r -a cmd <<< "${VPMU_UNSEEN_CMD[$u]}"
		CLEAN_ENV=("${UNSEEN_ENV[@]}")
	fi
	[ -s "$tmp/$p.prof" ] || vrun "$mlp" 2.66 "$tmp/$p.prof" "${cmd[@]}" >/dev/null
	for f in 2.13 1.60; do
		[ -s "$tmp/$p@$f.prof" ] || vrun "$def" "$f" "$tmp/$p@$f.prof" "${cmd[@]}" >/dev/null
		for m in with without; do
			mf=$mlp
			[ $m = without ] && mf=$tmp/without.yaml
			"$sleuth" predict "$tmp/$p.prof" --machine "$mf" --freq "$f" --per interval \
				--model mlp --format csv > "$tmp/pred.csv" 2>/dev/null
			echo "$p $f $m $("$compare" "$tmp/$p.prof" "$tmp/pred.csv" "$tmp/$p@$f.prof" || echo -)"
		done
	done
done
