#!/bin/bash
# Measure the memory system of a simulated machine the way one measures it
# on hardware, with microbenchmarks and the PMU, never by reading the
# simulator's parameters.  Prints YAML lines for a sleuth-machine/1:
#
#   memory_latency_ns: L    the stall model's latency.  A pointer chase
#       (data/workloads/train/train-chase: each load's address comes from
#       the previous one, so misses never overlap) at the highest and the
#       lowest P-state: DRAM latency is (mostly) fixed time, so
#           cycles(f) = A + X * L * f   =>   L = (C1 - C2) / (X * (f1 - f2))
#       with X the LLC misses counted (the same at both: same program and
#       seed).  Core work, mispredicts, the ROB's hidden work cancel; the
#       few LLC hits' uncore time does not (a small error, as on hardware).
#   memory:                  the mlp time model's measurements (docs/models.md)
#     latency: [{ghz, ns, llc_ns}]  at every P-state:
#       ns: the DRAM latency as the core sees it at that clock (an uncore
#       clock that follows the core's shows here): where the PMU counts
#       offcore occupancy (demand misses outstanding, summed over cycles,
#       Q), the chase's L(f) = Q / (X * f); else memory_latency_ns;
#       llc_ns: what an LLC hit costs: data/workloads/probe/llc.yaml (a loop
#       whose loads hit the LLC) minus probe/core.yaml (the same loop,
#       L2-resident), in time, per LLC hit (L2 misses - LLC misses);
#     bandwidth_gbps: B     data/workloads/probe/stream.yaml (a copy loop with
#       far more traffic than DRAM carries) at fmax and fmin: if its time
#       moves by under 5% while the clock drops to fmin, it is
#       bandwidth-bound, and B = (LLC misses + prefetches) * 64 B / time
#       at fmax (where the PMU counts prefetches); else B is left out;
#     stall_llc_share, stall_per_mispredict  (where the PMU counts stall
#       cycles and mispredicts) what the stall counter counts besides the
#       stalls on misses: probe/llc.yaml less probe/core.yaml, stall cycles
#       per cycle; probe/branch.yaml (the core loop with mispredicts) less
#       probe/core.yaml, stall cycles per mispredict; at fmax;
#     background_gbps: G  (where the PMU has the memory controller's read
#       counter, role dram_reads) the other agents' reads it counts too:
#       its count * 64 B / time over probe/core.yaml, which reads no DRAM;
#     loaded: [{gbps, ns}]  (with B and offcore occupancy) the latency demand
#       misses see under load: data/workloads/probe/loaded.yaml at fmax,
#       one phase per load level (its first, mixed, interval left out),
#       after the chase's own point (the lightest load).
#
#   bench/memprobe-sim.sh SLEUTH SIM_MACHINE.yaml
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SLEUTH SIM_MACHINE.yaml" >&2; exit 2; }
sleuth=$1 sim=$2
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/memprobe-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-memprobe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ghz=($(grep -Eo '\{ *ghz: *[0-9.]+' "$sim" | grep -Eo '[0-9.]+$' | sort -gr))
fmax=${ghz[0]} fmin=${ghz[${#ghz[@]} - 1]}

# sums TRACE: "time cycles llc_misses l2_misses prefetches occupancy" over
# the run (an event the trace lacks sums to -1)
sums() {
	awk '
	BEGIN { split("LLC_MISSES L2_RQSTS:MISS L2_RQSTS:PREFETCH_MISS OFFCORE_REQUESTS_OUTSTANDING:DEMAND_READ_DATA", want, " ")
		for (j = 1; j <= 4; j++) col[j] = 0 }
	/^events:/ { ev = 1; next }
	ev && /^- / { k++; for (j = 1; j <= 4; j++) if ($2 == want[j]) col[j] = k; next }
	ev && !/^- / { ev = 0 }
	/^- \{t: / {
		s = $0; sub(/^- \{t: /, "", s); sub(/,.*/, "", s); t += s
		s = $0; sub(/.* n: \[/, "", s); sub(/\].*/, "", s)
		split(s, v, ", "); c += v[1]
		for (j = 1; j <= 4; j++) x[j] += col[j] ? v[col[j]] : 0
	}
	END { printf "%.9g %.0f", t, c
	      for (j = 1; j <= 4; j++) printf " %.0f", col[j] ? x[j] : -1
	      printf "\n" }' "$1"
}
run() { # WORKLOAD GHZ -> sums
	local f=$tmp/$(basename "$1" .yaml)-$2.yaml
	"$sleuth" simulate -q "$1" -m "$sim" -f "$2" -o "$f"
	sums "$f"
}

chase=$src/data/workloads/train/train-chase.yaml
read -r t1 c1 x1 l21 p1 q1 < <(run "$chase" "$fmax")
read -r t2 c2 x2 l22 p2 q2 < <(run "$chase" "$fmin")
ch_t=$t1 ch_x=$x1 ch_q=$q1
[ "$x1" = "$x2" ] && [ "$x1" -gt 0 ] ||
	{ echo "memprobe-sim: the chase's LLC misses differ between P-states or are zero" >&2; exit 1; }
mp_latency "$c1" "$c2" "$x1" "$fmax" "$fmin" | tee "$tmp/lat"

echo "memory:"
stream=$src/data/workloads/probe/stream.yaml
read -r t1 c1 x1 l21 p1 q1 < <(run "$stream" "$fmax")
read -r t2 c2 x2 l22 p2 q2 < <(run "$stream" "$fmin")
! mp_bound "$t1" "$t2" || mp_bandwidth "$t1" "$x1" "$p1"

if [ "$q1" -ge 0 ] && mp_bound "$t1" "$t2"; then
	echo "  loaded:"
	# the lightest load: the chase itself
	mp_loaded "$ch_t" "$ch_x" -1 "$ch_q" "$fmax"
	"$sleuth" simulate -q "$src/data/workloads/probe/loaded.yaml" -m "$sim" -f "$fmax" \
		-o "$tmp/loaded.yaml"
	awk '
	/^events:/ { ev = 1; next }
	ev && /^- / { k++; if ($2 == "LLC_MISSES") cx = k; if ($2 == "L2_RQSTS:PREFETCH_MISS") cp = k
		      if ($2 == "OFFCORE_REQUESTS_OUTSTANDING:DEMAND_READ_DATA") cq = k; next }
	ev && !/^- / { ev = 0 }
	/^- \{t: / {
		lb = $0; sub(/.*label: /, "", lb); sub(/[,}].*/, "", lb)
		if (lb != last) { last = lb; next } # the mixed first interval
		if (!(lb in t)) order[++n] = lb
		s = $0; sub(/^- \{t: /, "", s); sub(/,.*/, "", s); t[lb] += s
		s = $0; sub(/.* n: \[/, "", s); sub(/\].*/, "", s); split(s, v, ", ")
		x[lb] += v[cx]; p[lb] += v[cp]; q[lb] += v[cq]
	}
	END { for (i = 1; i <= n; i++) { l = order[i]; print t[l], x[l], p[l], q[l] } }' \
		"$tmp/loaded.yaml" | while read -r t x p q; do mp_loaded "$t" "$x" "$p" "$q" "$fmax"; done
fi

# evsum TRACE EVENT: the sum of EVENT over the trace's intervals (-1: the
# trace lacks it)
evsum() {
	awk -v want="$2" '
	/^events:/ { ev = 1; next }
	ev && /^- / { k++; if ($2 == want) col = k; next }
	ev && !/^- / { ev = 0 }
	/^- \{t: / && col { s = $0; sub(/.* n: \[/, "", s); sub(/\].*/, "", s)
			    split(s, v, ", "); x += v[col] }
	END { printf "%.0f\n", col ? x : -1 }' "$1"
}
stall=UOPS_EXECUTED:PORT015_STALL_CYCLES misp=BR_MISP_EXEC:ANY
for p in core llc branch; do
	"$sleuth" simulate -q "$src/data/workloads/probe/$p.yaml" -m "$sim" -f "$fmax" -o "$tmp/st-$p.yaml"
done
if [ "$(evsum "$tmp/st-core.yaml" "$stall")" -ge 0 ] && [ "$(evsum "$tmp/st-core.yaml" "$misp")" -ge 0 ]; then
	mp_stall "$(evsum "$tmp/st-llc.yaml" "$stall")" "$(evsum "$tmp/st-core.yaml" "$stall")" \
		"$(evsum "$tmp/st-llc.yaml" cycles)" "$(evsum "$tmp/st-core.yaml" cycles)" \
		"$(evsum "$tmp/st-branch.yaml" "$stall")" "$(evsum "$tmp/st-branch.yaml" "$misp")" \
		"$(evsum "$tmp/st-core.yaml" "$misp")"
fi

# the socket's other DRAM readers, where the PMU has the memory
# controller's read counter (role dram_reads, an uncore event): what it
# counts while probe/core.yaml, which reads no DRAM of its own, runs
dram=$(sed -n 's/.*name: *"\([^"]*\)", *counts: *dram_reads.*/\1/p' "$sim" | head -1)
if [ -n "$dram" ]; then
	read -r tc _ < <(sums "$tmp/st-core.yaml")
	mp_background "$(evsum "$tmp/st-core.yaml" "$dram")" "$tc"
fi

lat2=$(sed -n 's/^memory_latency_ns: //p' "$tmp/lat")
echo "  latency:"
for f in "${ghz[@]}"; do
	read -r t c x l2 p q < <(run "$chase" "$f")
	read -r tl cl xl l2l pl ql < <(run "$src/data/workloads/probe/llc.yaml" "$f")
	read -r tc cc xc l2c pc qc < <(run "$src/data/workloads/probe/core.yaml" "$f")
	mp_latency_point "$f" "$q" "$x" "$lat2" "$tl" "$tc" "$((l2l - xl))"
done
