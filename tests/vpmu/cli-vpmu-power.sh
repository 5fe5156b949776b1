#!/bin/bash
# Power of a memory-bound real program on the virtual PMU (issue 12): the
# pointer chase of bench/vpmu/vb-chase (held out of the vPMU machine's
# power fit) profiled at 2.66 GHz, its mean power predicted at 1.60 GHz
# with the shipped machine and compared with the vPMU's own 1.60 GHz run.
# The law P = static_w(V) + Ceff f V^2 alone put it 25% low (anchored on
# the meter) and 84% high (from the counters); the stall term the fit keeps
# with the latency-bound training program, and an idle floor that lets a
# stalled core fall below static_w, bring it within a few percent
# (docs/benchmarks.md, "Memory-bound programs' power on the virtual PMU").
# Skipped (77) when valgrind or the vPMU tool is missing.
. "$SRCDIR/tests/lib.sh"
CHASE="$BUILDDIR/bench/vpmu/vb-chase"
MACHINE="$SRCDIR/data/machines/vpmu-nehalem-i7-920.yaml"
RUN=(run -q --backend vpmu --interval 2M --sample-period 2003 --machine "$MACHINE")
need_vpmu "$CHASE"
grep -q 'event: STALL_CYCLES, coeff: -' "$MACHINE" && ok ||
	fail "$MACHINE has no negative STALL_CYCLES term"
expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --freq 2.66 -o "$T/hi.prof" -- "$CHASE"
expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --freq 1.60 -o "$T/lo.prof" -- "$CHASE"
# mean_power PROFILE GHZ [ANCHOR]: energy / time of the prediction at GHZ
# (at the profile's own frequency, anchored: the meter's reading)
mean_power() {
	"$SLEUTH" predict "$1" --freq "$2" --per interval --format csv --anchor "${3:-auto}" |
		awk -F, 'NR > 1 { t += $6; e += $8 } END { printf "%.6f\n", e / t }'
}
truth=$(mean_power "$T/lo.prof" 1.60)
for spec in auto:8 off:20; do
	anchor=${spec%:*} bound=${spec#*:}
	pred=$(mean_power "$T/hi.prof" 1.60 "$anchor")
	err=$(awk -v p="$pred" -v t="$truth" 'BEGIN { printf "%.2f", 100 * (p - t) / t }')
	awk -v e="$err" -v b="$bound" 'BEGIN { exit !(e < b && e > -b) }' && ok ||
		fail "chase at 1.60 GHz, --anchor $anchor: $pred W vs the vPMU's $truth W ($err%, bound $bound%)"
done
finish
