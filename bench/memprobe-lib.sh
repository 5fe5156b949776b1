# The arithmetic of the memory probes, shared by bench/memprobe-sim.sh (the
# simulator) and bench/memprobe-vpmu.sh (the virtual PMU): each measures
# its machine its own way and hands its sums here, so that both write the
# memory: block of a sleuth-machine/1 from the same formulas
# (docs/models.md, "mlp").  Sourced, not run.  Counts are sums over a run
# (or a difference of two runs); an event the PMU did not count is -1.

# mp_latency C1 C2 X F1 F2: the stall model's latency from a pointer chase
# at two clocks, cycles(f) = A + X * L * f  =>  L = (C1 - C2) / (X (F1 - F2))
mp_latency() {
	awk -v c1="$1" -v c2="$2" -v x="$3" -v f1="$4" -v f2="$5" \
		'BEGIN { printf "memory_latency_ns: %.1f\n", (c1 - c2) / (x * (f1 - f2)) }'
}

# mp_bound T1 T2: whether a copy loop timed T1 at fmax and T2 at fmin is
# bandwidth-bound (its time moved by under 5% while the clock fell)
mp_bound() {
	awk -v t1="$1" -v t2="$2" 'BEGIN { exit !(t2 / t1 - 1 < 0.05) }'
}

# mp_bandwidth T X P: the bandwidth line of a bandwidth-bound copy loop,
# its misses and prefetches (P -1: not counted) moved in T seconds
mp_bandwidth() {
	awk -v t="$1" -v x="$2" -v p="$3" \
		'BEGIN { printf "  bandwidth_gbps: %.3f\n", (x + (p > 0 ? p : 0)) * 64 / t / 1e9 }'
}

# mp_background N T: the other agents' DRAM reads the memory controller's
# read counter (role dram_reads) counts too, from its count N over a probe
# that reads no DRAM of its own, run for T seconds (N -1: not counted,
# nothing printed)
mp_background() {
	awk -v n="$1" -v t="$2" \
		'BEGIN { if (n >= 0) printf "  background_gbps: %.4g\n", n * 64 / t / 1e9 }'
}

# mp_loaded T X P Q F: one point of the loaded-latency curve: the traffic
# (misses + prefetches) and the latency the demand misses saw (occupancy
# per miss) at F GHz
mp_loaded() {
	awk -v t="$1" -v x="$2" -v p="$3" -v q="$4" -v f="$5" \
		'BEGIN { printf "    - {gbps: %.3f, ns: %.2f}\n", (x + (p > 0 ? p : 0)) * 64 / t / 1e9, q / (x * f) }'
}

# mp_latency_point F Q X L2 TL TC H [TK K]: the latency line of P-state F:
# the chase's DRAM latency (occupancy per miss, Q/(X F); without occupancy,
# L2 = memory_latency_ns), what an LLC hit costs (the LLC-resident loop TL
# less the L2-resident one TC, per LLC hit H) and, given the LLC-resident
# dependent walk's time TK over its K steps, an exposed LLC hit's latency
mp_latency_point() {
	awk -v f="$1" -v q="$2" -v x="$3" -v l2="$4" -v tl="$5" -v tc="$6" -v h="$7" \
		-v tk="${8:-}" -v k="${9:-}" 'BEGIN {
		printf "    - {ghz: %s, ns: %.2f, llc_ns: %.3f", f,
		       (q >= 0 ? q / (x * f) : l2), (tl - tc) * 1e9 / h
		if (k > 0)
			printf ", llc_chase_ns: %.3f", tk * 1e9 / k
		printf "}\n"
	}'
}

# mp_stall SL SC CL CC SB MB MC: what the stall counter counts besides the
# stalls on misses (the mlp model's other stalls, docs/models.md): the
# share of an LLC hit's cycles (the LLC-resident loop less the L2-resident
# one: stall cycles SL - SC over cycles CL - CC) and its cycles per
# mispredict (the mispredicting loop less the L2-resident one: stall
# cycles SB - SC over mispredicts MB - MC)
mp_stall() {
	awk -v sl="$1" -v sc="$2" -v cl="$3" -v cc="$4" -v sb="$5" -v mb="$6" -v mc="$7" 'BEGIN {
		if (cl <= cc || mb <= mc) {
			print "memprobe: the LLC loop took no more cycles than the L2 one, or the " \
			      "branch loop mispredicted no more: the probes measure nothing here; " \
			      "check the probe workloads and the machine'"'"'s events" > "/dev/stderr"
			exit 1
		}
		printf "  stall_llc_share: %.3f\n  stall_per_mispredict: %.2f\n",
		       (sl - sc) / (cl - cc), (sb - sc) / (mb - mc)
	}'
}
