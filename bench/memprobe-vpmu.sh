#!/bin/bash
# Measure the virtual PMU's memory system the way one measures a real
# machine's: small C programs (bench/vpmu/vp-memprobe.c) run on the vPMU and
# its counters, never data/sim/vpmu-*.yaml.  The same probes and arithmetic
# as bench/memprobe-sim.sh (bench/memprobe-lib.sh), and the same output:
# memory_latency_ns and the memory: block of a sleuth-machine/1 (the mlp
# time model's, docs/models.md).  Every probe runs at two lengths and the
# difference of the two runs' sums is used (set-up, warm-up and Valgrind's
# start-up cancel), on a machine naming only its four events (counted throughout):
#   chase   at every P-state: the DRAM latency L(f) = occupancy / (X f);
#           at fmax and fmin: memory_latency_ns;
#   llc, core  at every P-state: what an LLC hit costs, (t_llc - t_core) / hits;
#   llcchase   at every P-state: a dependent walk over 4 MiB (LLC hits that
#           wait for each other): llc_chase_ns, an exposed hit's latency,
#           time per step (the mlp model scales the LLC hits' counted
#           stall cycles with it, docs/models.md);
#   copy    at fmax and fmin: bandwidth_gbps if it is bandwidth-bound;
#   fill    (stores only) at fmax: if the copy is not bandwidth-bound, the
#           most traffic the copy or the fill reached is bandwidth_gbps (the
#           mlp model takes it as a floor on time, which must not be above
#           what a program can do: the vPMU's stores never wait);
#   loaded  the chase with K lines read per step, K = LOADED (at fmax):
#           the loaded-latency curve after the chase's own point (its
#           points kept while the traffic grows).
#   core    (at fmax, on the probes' machine with the memory controller's
#           read counter, role dram_reads of the -mlp skeleton, an uncore
#           event beside the four counters) background_gbps, as
#           memprobe-sim.sh measures it: what that counter counts over a
#           probe that reads no DRAM of its own (the L2-resident loop), the
#           other agents' reads; ~0 on the vPMU, which sees one process;
#   core, llc, branch  (ONLY=stall; at fmax, on a second machine naming
#           the stall cycles, mispredicts, L2 and LLC misses) what the stall
#           counter counts besides the stalls on misses, as memprobe-sim.sh's
#           probe/core, llc and branch: stall_llc_share, the llc loop less
#           the core one, stall cycles per cycle; stall_per_mispredict, the
#           branch loop (the core loop with a branch on a random bit) less
#           the core one, stall cycles per mispredict.  Left out of the
#           memory: block: the vPMU's miss stall counter counts no other
#           stalls, and the mlp model's other-stalls rule these two lines
#           turn on made a held-out program worse (docs/benchmarks.md,
#           "The stall probes on the virtual PMU").
# Unlike memprobe-sim.sh, the loaded curve is written whenever occupancy is
# counted, bandwidth-bound copy or not (the mlp model reads them apart).
#
#   bench/memprobe-vpmu.sh [BUILDDIR]     (about 2 minutes on one core)
# ONLY=stall prints only the two stall lines (seconds).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
sleuth=$build/sleuth
probe=$build/bench/vpmu/vp-memprobe
sums=$build/bench/vpmu-sums
skeleton=$src/data/machines/vpmu-nehalem-i7-920.skeleton.yaml
. "$src/bench/memprobe-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-memprobe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ghz=($(grep -Eo '\{ *ghz: *[0-9.]+' "$skeleton" | grep -Eo '[0-9.]+$' | sort -gr))
fmax=${ghz[0]} fmin=${ghz[${#ghz[@]} - 1]}
LOADED=${LOADED:-1 2 4 8 16 32 64 128}
EVENTS=(LLC_MISS L2_MISS L2_PREFETCH_FILLS OFFCORE_L3_MISS_OCCUPANCY)
# the probes' machine: the skeleton's P-states and only the four events the
# probes read, so that the vPMU's four counters count them throughout
{
	sed '/^events:/,$d' "$skeleton"
	echo "events:"
	printf '  %s: %s\n' llc_misses "${EVENTS[0]}" llc_references "${EVENTS[1]}" \
		prefetches "${EVENTS[2]}" offcore_occupancy "${EVENTS[3]}"
} > "$tmp/probe.yaml"
STALL_EVENTS=(STALL_CYCLES BR_MISPREDICTED L2_MISS LLC_MISS)
{
	sed '/^events:/,$d' "$skeleton"
	echo "events:"
	printf '  %s: %s\n' stall_cycles "${STALL_EVENTS[0]}" mispredicts "${STALL_EVENTS[1]}" \
		llc_references "${STALL_EVENTS[2]}" llc_misses "${STALL_EVENTS[3]}"
} > "$tmp/stall.yaml"
# the memory controller's read counter, where the -mlp skeleton names it
# (role dram_reads): the probes' machine with it, beside the four counters
DRAM=$(sed -n 's/^  dram_reads: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' \
	"$src/data/machines/vpmu-nehalem-i7-920-mlp.skeleton.yaml")
if [ -n "$DRAM" ]; then
	{ cat "$tmp/probe.yaml"; printf '  dram_reads: "%s"\n' "$DRAM"; } > "$tmp/dram.yaml"
fi

# one GHZ SHORT LONG ARGS...: the vPMU run of vp-memprobe ARGS... LONG less
# its run with SHORT: "time cycles llc_misses l2_misses prefetches occupancy"
# (with MACHINE=stall: "time cycles stall_cycles mispredicts l2_misses
# llc_misses"; with MACHINE=dram the DRAM reads after the six)
one() {
	local f=$1 n1=$2 n2=$3 n mach=$tmp/probe.yaml ev=("${EVENTS[@]}")
	shift 3
	[ "${MACHINE:-}" = stall ] && mach=$tmp/stall.yaml ev=("${STALL_EVENTS[@]}")
	[ "${MACHINE:-}" = dram ] && mach=$tmp/dram.yaml ev=("${EVENTS[@]}" "$DRAM")
	for n in "$n1" "$n2"; do
		env -i PATH=/usr/bin:/bin "$sleuth" run -q --backend vpmu --freq "$f" --interval 2M \
			--machine "$mach" --pin none \
			-o "$tmp/p$n.prof" -- "$probe" "$@" "$n" >/dev/null
		"$sums" "$tmp/p$n.prof" "${ev[@]}" > "$tmp/s$n"
	done
	paste -d' ' "$tmp/s$n1" "$tmp/s$n2" | awk '{
		n = NF / 2
		for (j = 1; j <= n; j++) {
			d = $j < 0 || $(j + n) < 0 ? -1 : $(j + n) - $j
			printf "%s%.9g", (j > 1 ? " " : ""), d
		}
		printf "\n" }'
}
chase() { one "$1" 200 600 chase; }

# the stall probes at fmax: mp_stall's sums from one (differences of two
# lengths), L2-resident, LLC-resident and mispredicting loops
stall_lines() {
	local tc cc sc mc tl cl sl tb cb sb mb _
	read -r tc cc sc mc _ < <(MACHINE=stall one "$fmax" 1000 3000 core)
	read -r tl cl sl _ < <(MACHINE=stall one "$fmax" 1000 3000 llc)
	read -r tb cb sb mb _ < <(MACHINE=stall one "$fmax" 1000 3000 branch)
	mp_stall "$sl" "$sc" "$cl" "$cc" "$sb" "$mb" "$mc"
}
if [ "${ONLY:-}" = stall ]; then
	stall_lines
	exit 0
fi

read -r t1 c1 x1 l21 p1 q1 < <(chase "$fmax")
read -r t2 c2 x2 l22 p2 q2 < <(chase "$fmin")
ch_t=$t1 ch_x=$x1 ch_q=$q1
[ "$x1" = "$x2" ] && [ "$x1" -gt 0 ] ||
	{ echo "memprobe-vpmu: the chase's LLC misses differ between P-states or are zero" >&2; exit 1; }
mp_latency "$c1" "$c2" "$x1" "$fmax" "$fmin" | tee "$tmp/lat"

echo "memory:"
read -r t1 c1 x1 l21 p1 q1 < <(one "$fmax" 100 400 copy)
read -r t2 c2 x2 l22 p2 q2 < <(one "$fmin" 100 400 copy)
read -r tf cf xf l2f pf qf < <(one "$fmax" 100 400 fill)
if mp_bound "$t1" "$t2"; then
	mp_bandwidth "$t1" "$x1" "$p1"
else # the most any probe reached: the model's floor must not be above it
	{ mp_bandwidth "$t1" "$x1" "$p1"; mp_bandwidth "$tf" "$xf" "$pf"; } | sort -t: -k2 -g | tail -1
fi

if [ "$ch_q" -ge 0 ]; then
	echo "  loaded:"
	{
		echo "$ch_t $ch_x -1 $ch_q"
		for k in $LOADED; do
			read -r t c x l2 p q < <(one "$fmax" 50 150 loaded "$k")
			echo "$t $x $p $q"
		done
	} | while read -r t x p q; do mp_loaded "$t" "$x" "$p" "$q" "$fmax"; done | tee "${MP_DEBUG:-/dev/null}" |
		awk '{ g = $3; sub(/,/, "", g) } NR == 1 || g + 0 > last { print; last = g + 0 }'
fi

# the socket's other DRAM readers (memprobe-sim.sh's rule): the DRAM reads
# over the L2-resident loop, which reads no DRAM of its own (two lengths:
# its set-up's reads cancel)
if [ -n "$DRAM" ]; then
	read -r tc _ _ _ _ _ nc < <(MACHINE=dram one "$fmax" 1000 3000 core)
	mp_background "$nc" "$tc"
fi

lat2=$(sed -n 's/^memory_latency_ns: //p' "$tmp/lat")
echo "  latency:"
for f in "${ghz[@]}"; do
	read -r t c x l2 p q < <(chase "$f")
	read -r tl cl xl l2l pl ql < <(one "$f" 1000 3000 llc)
	read -r tc cc xc l2c pc qc < <(one "$f" 1000 3000 core)
	read -r tk _ < <(one "$f" 200 600 llcchase)
	mp_latency_point "$f" "$q" "$x" "$lat2" "$tl" "$tc" "$(awk -v a="$l2l" -v b="$xl" 'BEGIN { print a - b }')" \
		"$tk" 400000
done
