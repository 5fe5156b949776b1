#!/bin/bash
# What the memory controller's read count (role dram_reads) does for the
# mlp time model on the virtual PMU, alone (docs/benchmarks.md, "DRAM
# reads from the memory controller on the virtual PMU"): each program is
# profiled once at fmax with the shipped -mlp machine (run --pin time,
# bench/vpmu.sh's intervals and environment), run at 2.13 and 1.60 GHz for
# the truth, and that one profile is predicted with the machine and with
# the same machine less its dram_reads line (the model then reads
# LLC_MISS + L2_PREFETCH_FILLS, interpolated where not counted), compared
# by bench/vpmu-compare: "program GHz with|without time inst-avg inst-max
# power energy".  One profile for both, because the vPMU's runs move with
# the environment and the starting directory (docs/vpmu.md, "Determinism").
#
#   bench/vpmu-dram-ab.sh [BUILDDIR] [PROGRAM...]
# PROGRAM: a bench/vpmu program (stream, chase, ...) or python3 (the
# unseen set's script); default the ten bench/vpmu programs.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
shift || true
PROGS=("$@")
[ ${#PROGS[@]} -gt 0 ] || PROGS=("${VPMU_TRAIN[@]}" "${VPMU_TEST[@]}")
mlp=$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml
def=$src/data/machines/vpmu-nehalem-i7-920.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-dram-ab.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sed '/^  dram_reads:/d' "$mlp" > "$tmp/without.yaml"
cd "$tmp"
sed -n '/^cat > dict-float.py/,/^EOF$/p' "$src/bench/vpmu-unseen.sh" | sed '1d;$d' > dict-float.py
for p in "${PROGS[@]}"; do
	cmd=("$progs/vb-$p") CLEAN_ENV=(env -i PATH=/usr/bin:/bin)
	[ "$p" = python3 ] && cmd=(python3 dict-float.py 200000) CLEAN_ENV=(env -i PATH=/usr/bin:/bin PYTHONHASHSEED=0)
	vrun "$mlp" 2.66 "$tmp/$p.prof" "${cmd[@]}" >/dev/null
	for f in 2.13 1.60; do
		vrun "$def" "$f" "$tmp/$p@$f.prof" "${cmd[@]}" >/dev/null
		for m in with without; do
			mf=$mlp
			[ $m = without ] && mf=$tmp/without.yaml
			"$sleuth" predict "$tmp/$p.prof" --machine "$mf" --freq "$f" --per interval \
				--model mlp --format csv > "$tmp/pred.csv" 2>/dev/null
			echo "$p $f $m $("$compare" "$tmp/$p.prof" "$tmp/pred.csv" "$tmp/$p@$f.prof" || echo -)"
		done
	done
done
