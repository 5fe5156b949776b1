#!/bin/bash
# The mlp model's DRAM traffic from the memory controller's read counter
# (role dram_reads, an uncore event counted in every interval beside the
# four core counters; models/model.c, mlp_lines; docs/models.md, "DRAM
# reads from the memory controller") must not regress, end to end through
# the CLI (bench/accuracy-workload.sh), mlp model, 4 counters, --pin time,
# fmax -> 1.60 GHz, on the two worst runs of the fifth blind set at its
# measurement: video-decode seed 3 and cfd-implicit seed 1, whose
# one-interval instances borrowed their prefetches from other phases.
# With the role the worst true instance must stay under a bound; without
# it (the same machine, the role removed: the core counters alone) above
# one, so the test sees the count's effect and not a workload that got
# easier.  Both at the sampling period of that measurement (49999, run
# --sample-period): the default for these 2.5·10⁷-instruction intervals
# is 12500 since 2026-11-27 (docs/phases.md, "The replay's period follows
# the interval"), whose phases leave the core counters alone 5.5% off on
# video-decode.  Then the machine reader: background_gbps out of range is
# refused, and machine show names the role.
. "$SRCDIR/tests/lib.sh"

export SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml"
dram="$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml"
sed '/^  dram_reads:/d' "$dram" >"$T/nodram.yaml"
for run in "3 video-decode" "1 cfd-implicit"; do
	set -- $run
	for m in dram nodram; do
		mf=$dram
		[ $m = nodram ] && mf=$T/nodram.yaml
		SEED=$1 MACHINE=$mf MODELS=mlp PIN=time SAMPLE_PERIOD=49999 \
			"$SRCDIR/bench/accuracy-workload.sh" \
			"$SLEUTH" "$SRCDIR/data/workloads/unseen5/$2.yaml" "$T" 0 4 1.60 2>"$T/err" |
			sed "s/^/$m /" >>"$T/acc.txt" || fail "$m pipeline on $2: $(cat "$T/err")"
	done
done
[ "$(wc -l <"$T/acc.txt")" = 4 ] && ok || fail "expected 4 result lines: $(cat "$T/acc.txt")"

# fields (after the machine): 2 workload ... 12 true worst instance %;
# measured (2026-11-26) without / with the role: video-decode s3 10.60 /
# 2.97%, cfd-implicit s1 9.39 / 2.68%
tw() { awk -v m="$1" -v w="$2" '$1 == m && $2 == w { print $12 }' "$T/acc.txt"; }
below "video-decode seed 3 worst true instance % with dram_reads" "$(tw dram video-decode)" 5.0
below "cfd-implicit seed 1 worst true instance % with dram_reads" "$(tw dram cfd-implicit)" 5.0
below "video-decode seed 3 without dram_reads (must be above 7%)" 7 "$(tw nodram video-decode)"
below "cfd-implicit seed 1 without dram_reads (must be above 7%)" 7 "$(tw nodram cfd-implicit)"

# the machine reader: the background rate is a rate
sed 's/^  background_gbps: .*/  background_gbps: -1/' "$dram" >"$T/bad.yaml"
expect_exit 1 "background_gbps" -- "$SLEUTH" machine show "$T/bad.yaml"
"$SLEUTH" machine show "$dram" >"$T/show.txt" 2>&1 &&
	grep -q "dram_reads" "$T/show.txt" && ok || fail "machine show: $(cat "$T/show.txt")"
finish
