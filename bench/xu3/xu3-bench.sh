#!/bin/bash
# sleuth's power model on real measurements: the ODROID-XU3 Cortex-A15 data
# of the ARMPM work (docs/benchmarks.md, "Real data: ODROID-XU3 Cortex-A15"
# says where to get it).  Held-out interval power error of
#   (a) sleuth calibrate's model with its temperature term,
#   (b) the same events fitted without it (--temp-term off),
# and the per-frequency OLS and Ceff-per-P-state baselines (xu3-eval.c).
#
#   bench/xu3/xu3-bench.sh DATA [BUILDDIR]
#
# The split is fixed by a rule on the names, never by results: the
# benchmarks sorted by name (C locale), every third one (the 3rd, 6th, ...)
# held out, the others the training set.  Everything tuned (the number of
# events, by calibrate's leave-one-workload-out error) is tuned on the
# training set alone.  KEEP=DIR keeps the traces and models.  FOLD=1 or 2
# holds out the 1st, 4th, ... or the 2nd, 5th, ... instead (a check of how
# much the figures depend on the split; FOLD=0, the default, is the split
# the figures in docs/benchmarks.md were fixed on).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 DATA [BUILDDIR]" >&2; exit 2; }
data=$1
build=$(realpath "${2:-$src/build}")
sleuth=$build/sleuth
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/sleuth-xu3.XXXXXX")}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

"$src/bench/xu3/xu3-to-sleuth.sh" "$data" "$tmp/t"
# the split: every third benchmark by name is held out
(cd "$tmp/t" && LC_ALL=C ls -- *@*.yaml) | sed 's/@.*//' | LC_ALL=C sort -u |
	awk -v fold="${FOLD:-0}" 'NR % 3 == fold' >"$tmp/held-out.txt"
: >"$tmp/train.lst"; : >"$tmp/test.lst"
for f in $(cd "$tmp/t" && LC_ALL=C ls -- *@*.yaml); do
	if grep -qxF "${f%%@*}" "$tmp/held-out.txt"; then
		echo "$tmp/t/$f" >>"$tmp/test.lst"
	else
		echo "$tmp/t/$f" >>"$tmp/train.lst"
	fi
done
echo "held out: $(tr '\n' ' ' <"$tmp/held-out.txt")"
skel=$tmp/t/xu3-a15.skeleton.yaml
train=$(cat "$tmp/train.lst")

# (a) events chosen on the training set, with the temperature term: up to 8
# by --select, then as many as gave the lowest leave-one-workload-out error
# (or of as many as vary, when fewer)
max=8
if ! "$sleuth" calibrate -q -m "$skel" --temp-term on --select $max -o "$tmp/sel.yaml" \
	$train >"$tmp/sel.txt" 2>&1; then
	max=$(sed -n 's/.*give --select \([0-9]*\) or fewer.*/\1/p' "$tmp/sel.txt")
	[ -n "$max" ] || { cat "$tmp/sel.txt" >&2; exit 1; }
	"$sleuth" calibrate -q -m "$skel" --temp-term on --select $max -o "$tmp/sel.yaml" \
		$train >"$tmp/sel.txt" 2>&1 || { cat "$tmp/sel.txt" >&2; exit 1; }
fi
k=$(sed -n 's/.*--select \([0-9]*\) would generalise better.*/\1/p' "$tmp/sel.txt")
k=${k:-$max}
echo "events: --select $k (lowest training LOWO error of --select $max)"
"$sleuth" calibrate -q -m "$skel" --temp-term on --select "$k" -o "$tmp/xu3-temp.yaml" \
	$train >"$tmp/a.txt" 2>&1 || { cat "$tmp/a.txt" >&2; exit 1; }
grep -E '^temperature:|^  [0-9]+\. |all \(interval' "$tmp/a.txt"
# (b) the same events without the term; and what the default (auto) does
{ cat "$skel"; echo "power:"; echo "  terms:"
  sed -n "s/^  - {event: \('\{0,1\}\)\([^',]*\)\1, coeff.*/    - {event: '\2'}/p" "$tmp/xu3-temp.yaml"
} >"$tmp/skel-b.yaml"
"$sleuth" calibrate -q -m "$tmp/skel-b.yaml" --temp-term off -o "$tmp/xu3-notemp.yaml" \
	$train >"$tmp/b.txt" 2>&1 || { cat "$tmp/b.txt" >&2; exit 1; }
grep -E 'all \(interval' "$tmp/b.txt" | sed 's/^/--temp-term off:/'
"$sleuth" calibrate -q -m "$tmp/skel-b.yaml" -o "$tmp/xu3-auto.yaml" $train 2>&1 |
	grep -E '^temperature:' | sed 's/^/--temp-term auto: /'
echo
"$build/bench/xu3/xu3-eval" "$tmp/train.lst" "$tmp/test.lst" "$tmp/xu3-temp.yaml" \
	"$tmp/xu3-notemp.yaml"
