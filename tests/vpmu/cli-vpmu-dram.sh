#!/bin/bash
# The virtual PMU's memory controller read counter (docs/vpmu.md, "The
# memory controller's reads"): the event nhm_unc::UNC_QMC_NORMAL_READS:ANY,
# an uncore PMU's name, so the collector counts it beside the k
# programmable counters in every interval (sl_pfm_uncore, sl_mux_uncore)
# and the vPMU backend must accept k core events plus it.  It counts the
# lines the vPMU's hierarchy reads from DRAM: demand misses and prefetch
# fills, not write-backs.  On the streaming program bench/vpmu/vb-stream
# (arrays far past the LLC, written back as it goes; its prefetches are
# nine tenths of its DRAM lines) it must lie within LLC_MISS and LLC_MISS +
# L2_PREFETCH_FILLS in every interval and near the sum over the run (a
# count of demand misses alone, or one with the write-backs, fails); with
# 4 counters and six core events rotating, every interval counts exactly 4
# core events and it; the shipped -mlp machine names it as dram_reads and
# counts it in every interval under its pins.  Skipped (77) when valgrind
# or the vPMU tool is missing.
. "$SRCDIR/tests/lib.sh"
STREAM="$BUILDDIR/bench/vpmu/vb-stream"
SUMS="$BUILDDIR/bench/vpmu-sums"
MLP_MACHINE="$SRCDIR/data/machines/vpmu-nehalem-i7-920-mlp.yaml"
DRAM="nhm_unc::UNC_QMC_NORMAL_READS:ANY"
RUN=(run -q --backend vpmu --interval 2M --sample-period 2003)
need_vpmu "$STREAM" "$SUMS"
skel() { sed '/^events:/,$d' "$SRCDIR/data/machines/vpmu-nehalem-i7-920.skeleton.yaml"; }

# every event counted throughout (8 counters, --pin none)
{
	skel | sed 's/programmable: [0-9]*/programmable: 8/'
	printf 'events:\n  llc_misses: LLC_MISS\n  prefetches: L2_PREFETCH_FILLS\n'
	printf '  llc_references: L2_MISS\n  dram_reads: "%s"\n' "$DRAM"
} >"$T/all.yaml"
expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --pin none --machine "$T/all.yaml" \
	-o "$T/all.prof" -- "$STREAM"
n=$("$SLEUTH" predict "$T/all.prof" --freq 2.66 --per interval --time-only --format csv 2>/dev/null |
	awk -F, 'NR > 1' | wc -l)
[ "$n" -ge 10 ] && ok || fail "vb-stream: $n intervals, wanted 10 or more"
read -r _ _ x p d < <("$SUMS" "$T/all.prof" LLC_MISS L2_PREFETCH_FILLS "$DRAM")
echo "vb-stream: LLC_MISS $x, L2_PREFETCH_FILLS $p, DRAM reads $d"
# prefetches must weigh, or the test could not tell demand misses alone
awk -v x="$x" -v p="$p" 'BEGIN { exit !(x > 0 && p > x) }' && ok ||
	fail "vb-stream: LLC_MISS $x, L2_PREFETCH_FILLS $p (wanted prefetches above misses)"
# measured (2026-11-26): 216643 + 3717103 = 3933746, every prefetch from DRAM
awk -v x="$x" -v p="$p" -v d="$d" 'BEGIN { exit !(d >= 0.97 * (x + p) && d <= x + p) }' && ok ||
	fail "vb-stream: DRAM reads $d, wanted demand + prefetch lines $x + $p (3% margin below)"
bad=0
for ((i = 0; i < n; i++)); do
	read -r _ _ xi pi di < <("$SUMS" -r "$i:1" "$T/all.prof" LLC_MISS L2_PREFETCH_FILLS "$DRAM")
	awk -v x="$xi" -v p="$pi" -v d="$di" 'BEGIN { exit !(x >= 0 && p >= 0 && d >= x && d <= x + p) }' ||
		{ bad=$((bad + 1)); echo "interval $i: LLC_MISS $xi, L2_PREFETCH_FILLS $pi, DRAM reads $di"; }
done
[ "$bad" = 0 ] && ok || fail "$bad intervals of $n with DRAM reads missing or outside [misses, misses + prefetches]"

# it takes no counter: 4 counters, six core events rotating (--pin none),
# every interval counts exactly 4 of them and the DRAM reads
CORE="LLC_MISS L2_PREFETCH_FILLS L2_MISS STALL_CYCLES BR_MISPREDICTED ROB_FULL_CYCLES"
{
	skel | sed 's/programmable: [0-9]*/programmable: 4/'
	printf 'events:\n  llc_misses: LLC_MISS\n  prefetches: L2_PREFETCH_FILLS\n'
	printf '  llc_references: L2_MISS\n  stall_cycles: STALL_CYCLES\n'
	printf '  mispredicts: BR_MISPREDICTED\n  resource_stalls: ROB_FULL_CYCLES\n'
	printf '  dram_reads: "%s"\n' "$DRAM"
} >"$T/k4.yaml"
expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --pin none --machine "$T/k4.yaml" \
	-o "$T/k4.prof" -- "$STREAM"
bad=0
for ((i = 0; i < n; i++)); do
	got=$("$SUMS" -r "$i:1" "$T/k4.prof" $CORE "$DRAM" |
		awk '{ for (j = 3; j < NF; j++) c += $j >= 0; print c, ($NF >= 0) }')
	[ "$got" = "4 1" ] || { bad=$((bad + 1)); echo "interval $i: core events counted, DRAM reads counted: $got"; }
done
[ "$bad" = 0 ] && ok || fail "$bad intervals of $n without exactly 4 core events and the DRAM reads"

# the shipped -mlp machine: the role, and the count in every interval
# beside its three pins and one rotating counter
grep -q "^  dram_reads: \"$DRAM\"\$" "$MLP_MACHINE" && ok || fail "$MLP_MACHINE names no dram_reads"
"$SLEUTH" machine show "$MLP_MACHINE" | grep -q "DRAM traffic (mlp) *$DRAM in every interval (an uncore event" &&
	ok || fail "machine show: the -mlp machine's DRAM traffic is not the uncore count"
expect_ok -- env -i PATH=/usr/bin:/bin "$SLEUTH" "${RUN[@]}" --machine "$MLP_MACHINE" \
	-o "$T/mlp.prof" -- "$STREAM"
read -r _ _ dm < <("$SUMS" "$T/mlp.prof" "$DRAM")
[ "$dm" = "$d" ] && ok || fail "-mlp machine's profile: DRAM reads $dm, wanted $d in every interval"
finish
