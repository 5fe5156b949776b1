#!/bin/bash
# sleuth's power model on real measurements: the ODROID-XU3 Cortex-A15 data
# of the ARMPM work (docs/benchmarks.md, "Real data: ODROID-XU3 Cortex-A15"
# says where to get it).  Held-out interval power error of
#   (a) sleuth calibrate's model with its temperature term,
#   (b) the same events fitted without temperatures,
# and the per-frequency OLS and Ceff-per-P-state baselines (xu3-eval.c).
#
#   bench/xu3/xu3-bench.sh DATA [BUILDDIR]
#
# The split is fixed by a rule on the names, never by results: the
# benchmarks sorted by name (C locale), every third one (the 3rd, 6th, ...)
# held out, the others the training set.  Everything tuned (the number of
# events, by calibrate's leave-one-workload-out error) is tuned on the
# training set alone.  KEEP=DIR keeps the traces and models.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 DATA [BUILDDIR]" >&2; exit 2; }
data=$1
build=$(realpath "${2:-$src/build}")
sleuth=$build/sleuth
tmp=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/sleuth-xu3.XXXXXX")}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

"$src/bench/xu3/xu3-to-sleuth.sh" "$data" "$tmp/t" 2>/dev/null
"$src/bench/xu3/xu3-to-sleuth.sh" -n "$data" "$tmp/n" 2>/dev/null
# the split: every third benchmark by name is held out
(cd "$tmp/t" && LC_ALL=C ls -- *@*.yaml) | sed 's/@.*//' | LC_ALL=C sort -u |
	awk 'NR % 3 == 0' >"$tmp/held-out.txt"
: >"$tmp/train.lst"; : >"$tmp/train-n.lst"; : >"$tmp/test.lst"
for f in $(cd "$tmp/t" && LC_ALL=C ls -- *@*.yaml); do
	if grep -qxF "${f%%@*}" "$tmp/held-out.txt"; then
		echo "$tmp/t/$f" >>"$tmp/test.lst"
	else
		echo "$tmp/t/$f" >>"$tmp/train.lst"
		echo "$tmp/n/$f" >>"$tmp/train-n.lst"
	fi
done
echo "held out: $(tr '\n' ' ' <"$tmp/held-out.txt")"
skel=$tmp/t/xu3-a15.skeleton.yaml

# (a) events chosen on the training set: up to 8 by --select, then as many
# as gave the lowest leave-one-workload-out error
"$sleuth" calibrate -q -m "$skel" --select 8 -o "$tmp/sel.yaml" $(cat "$tmp/train.lst") \
	>"$tmp/sel.txt" 2>&1
k=$(sed -n 's/.*--select \([0-9]*\) would generalise better.*/\1/p' "$tmp/sel.txt")
k=${k:-8}
echo "events: --select $k (lowest training LOWO error of --select 8)"
"$sleuth" calibrate -q -m "$skel" --select "$k" -o "$tmp/xu3-temp.yaml" \
	$(cat "$tmp/train.lst") >"$tmp/a.txt" 2>&1
grep -E '^temperature:|^  [0-9]+\. |all \(interval' "$tmp/a.txt"
# (b) the same events, traces without temperature
{ cat "$skel"; echo "power:"; echo "  terms:"
  sed -n "s/^  - {event: \('\{0,1\}\)\([^',]*\)\1, coeff.*/    - {event: '\2'}/p" "$tmp/xu3-temp.yaml"
} >"$tmp/skel-b.yaml"
"$sleuth" calibrate -q -m "$tmp/skel-b.yaml" -o "$tmp/xu3-notemp.yaml" \
	$(cat "$tmp/train-n.lst") >"$tmp/b.txt" 2>&1
grep -E 'all \(interval' "$tmp/b.txt" | sed 's/^/without temperature:/'
echo
"$build/bench/xu3/xu3-eval" "$tmp/train.lst" "$tmp/test.lst" "$tmp/xu3-temp.yaml" \
	"$tmp/xu3-notemp.yaml"
