#!/bin/bash
# Which term of the mlp time model is off in a program's worst phase
# instance on the virtual PMU (docs/benchmarks.md, "The worst instance on
# the virtual PMU, dissected").  Each program runs at fmax and at F on a
# machine naming every event the mlp model reads (and the stall cycles),
# with as many counters as events so that every interval counts every one
# (the vPMU counts what the machine names; no interpolation error), and
# the shipped mlp machine's memory: block.  The mlp model predicts F from
# the fmax run; the instance with the largest |error| against the run at F
# is taken apart, its sums over its intervals (vpmu-sums -r):
#   dram: O, the cycles with a demand miss out, at fmax and at F, the
#         model's (what it put in place of O at F: the prediction less its
#         work and LLC terms, plus the hidden work O - M) and the vPMU's,
#         each as a latency ratio (ns at F over ns at fmax);
#   llc:  the LLC hits' term, the model's change fh (llc(F) F/(llc(f0) f0) - 1)
#         and the vPMU's change of the stall cycles outside the miss
#         epochs (S - M: dependency and mispredict stalls do not move);
#   law:  the model's cycles at F with the vPMU's own O at F in place of its
#         prediction (w + O(F) - hid + LLC term): whether the rest holds;
#   stalls: the stall cycles S, M, the mispredicts and r = O / c at fmax
#         (what the other-stalls rule would read, docs/models.md).
# Sums over the instance, not per interval (M is clipped to O and fh to
# c - O per interval by the model: neither bites in these instances).
#
#   bench/vpmu-worst.sh [BUILDDIR]     # about 1 minute on one core
# PROGS (default "stream chase") and F (default 1.60) choose; INSTANCE=K
# takes instance K apart instead of the worst.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
sums=$build/bench/vpmu-sums
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-vpmu-worst.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PROGS=(${PROGS:-stream chase})
F=${F:-1.60} FMAX=2.66
mlp=$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml
EV=(OFFCORE_L3_MISS_CYCLES LLC_MISS L2_PREFETCH_FILLS L2_MISS STALLS_LLC_MISS STALL_CYCLES
    BR_MISPREDICTED OFFCORE_L3_MISS_OCCUPANCY)
{
	sed '/^events:/,$d; s/programmable: [0-9]*/programmable: 8/' \
		"$src/data/machines/vpmu-nehalem-i7-920.skeleton.yaml"
	echo "events:"
	printf '  %s: %s\n' offcore_cycles "${EV[0]}" llc_misses "${EV[1]}" prefetches "${EV[2]}" \
		llc_references "${EV[3]}" miss_stall_cycles "${EV[4]}" stall_cycles "${EV[5]}" \
		mispredicts "${EV[6]}" offcore_occupancy "${EV[7]}"
	sed -n '/^memory:/,/^[a-z_]*:/p' "$mlp" | sed '$d'
} > "$tmp/all.yaml"
# llc_ns at a P-state, from the machine's memory: latency: list (an
# entry may go on with llc_chase_ns; this machine names no
# l2_miss_stall_cycles, so the model charges each hit llc_ns, as below)
llc_ns() { sed -n "s/.*{ghz: $1, ns: [0-9.]*, llc_ns: \([0-9.]*\)[,}].*/\1/p" "$mlp"; }
l0=$(llc_ns "$FMAX") l1=$(llc_ns "$(awk -v f="$F" 'BEGIN { print f + 0 }')")

for p in "${PROGS[@]}"; do
	for f in $FMAX $F; do
		PIN=none vrun "$tmp/all.yaml" "$f" "$tmp/$p@$f.prof" "$progs/vb-$p" >/dev/null
	done
	"$sleuth" predict "$tmp/$p@$FMAX.prof" --freq "$F" --model mlp --per interval \
		--format csv --time-only 2>/dev/null > "$tmp/pred.csv"
	# the instances: "instance first n predicted_s"; the worst against the run at F
	awk -F, 'NR > 1 { if (!($4 in t)) { first[$4] = $2; o[++n] = $4 }; t[$4] += $6; m[$4]++ }
		END { for (j = 1; j <= n; j++) print o[j], first[o[j]], m[o[j]], t[o[j]] }' "$tmp/pred.csv" |
	while read -r k first n pt; do
		read -r tt _ < <("$sums" -r "$first:$n" "$tmp/$p@$F.prof")
		echo "$k $first $n $pt $tt"
	done | awk -v want="${INSTANCE:-}" '{ e = ($4 - $5) / $5; a = e < 0 ? -e : e
		if (want != "" ? $1 == want : a > w) { w = a; l = $0 } } END { print l }' > "$tmp/worst"
	read -r k first n pt tt < "$tmp/worst" ||
		{ echo "vpmu-worst: $p has no instance ${INSTANCE:-}" >&2; exit 1; }
	read -r t0 c0 o0 x0 p0 r0 m0 s0 b0 _ < <("$sums" -r "$first:$n" "$tmp/$p@$FMAX.prof" "${EV[@]}")
	read -r t1 c1 o1 x1 p1 r1 m1 s1 _ < <("$sums" -r "$first:$n" "$tmp/$p@$F.prof" "${EV[@]}")
	awk -v p="$p" -v k="$k" -v first="$first" -v n="$n" -v pt="$pt" -v tt="$tt" -v f0="$FMAX" \
		-v f1="$F" -v c0="$c0" -v o0="$o0" -v x0="$x0" -v p0="$p0" -v r0="$r0" -v m0="$m0" \
		-v s0="$s0" -v t0="$t0" -v c1="$c1" -v o1="$o1" -v m1="$m1" -v s1="$s1" -v l0="$l0" \
		-v l1="$l1" -v b0="$b0" 'BEGIN {
		fh = (r0 - x0) * l0 * f0; if (fh > c0 - o0) fh = c0 - o0
		mst = m0 < o0 ? m0 : o0; hid = o0 - mst; w = c0 - fh - mst
		dfh = fh * (l1 * f1 / (l0 * f0) - 1)
		cm = pt * f1 * 1e9
		om = cm - w - fh - dfh + hid  # the model O at F
		printf "== %s at %s GHz: worst instance %s (intervals %d-%d): predicted %.6f s, vPMU %.6f s, %+.2f%%\n",
		       p, f1, k, first, first + n - 1, pt, tt, 100 * (pt - tt) / tt
		printf "  cycles at %s: %.0f; at %s: model %.0f, vPMU %.0f (%+.0f)\n", f0, c0, f1, cm, c1, cm - c1
		printf "  traffic (misses + prefetches) at %s: %.2f GB/s\n", f0, (x0 + p0) * 64 / t0 / 1e9
		if (o0 > 0)
			printf "  dram: O %.0f at %s; at %s model %.0f, vPMU %.0f (%+.0f); latency ratio model %.3f, vPMU %.3f; hidden work O - M %.0f at %s, %.0f at %s\n",
			       o0, f0, f1, om, o1, om - o1, om / o0 * f0 / f1, o1 / o0 * f0 / f1, hid, f0, o1 - m1, f1
		printf "  llc: %.0f hits, fh %.0f; change at %s model %+.0f, vPMU (S - M) %+.0f (%+.0f)\n",
		       r0 - x0, fh, f1, dfh, (s1 - m1) - (s0 - m0), dfh - ((s1 - m1) - (s0 - m0))
		printf "  law with the vPMU O at %s: %.0f cycles (%+.2f%%)\n", f1,
		       w + (o1 > hid ? o1 - hid : 0) + fh + dfh, 100 * (w + (o1 > hid ? o1 - hid : 0) + fh + dfh - c1) / c1
		printf "  stalls at %s: S %.0f, M %.0f, mispredicts %.0f, r = O / c %.3f\n", f0, s0, m0, b0, o0 / c0
	}'
done
