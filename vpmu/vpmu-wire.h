/*
 * The records the vPMU tool (vpmu-main.c, inside Valgrind) writes to the
 * pipe the host backend (vpmu-backend.c, in libsleuth) reads.  Shared by
 * both sides, so it uses only compiler types: the tool has no libc.
 * Both ends are built by the same compiler for the same machine, so the
 * records are raw structs in host byte order.
 *
 * Stream: records of {vpmu_head, payload}.  INTERVAL carries one interval
 * (struct vpmu_interval, then n_samples unsigned long long branch
 * addresses); MAPS the text of /proc/self/maps at the end of the run; END
 * the client's exit code.  A stream without END means the tool died.
 * EXEC (the path, before an execve the tool does not follow) and
 * EXEC_FAILED (that execve failed: the client goes on) and FORK (the
 * client forked a child the tool does not follow) tell the host that the
 * stream does not hold the whole program's work.
 */
#ifndef SLEUTH_VPMU_WIRE_H
#define SLEUTH_VPMU_WIRE_H

#define VPMU_MAGIC 0x554d5056u /* "VPMU" */
#define VPMU_VERSION 3u /* 2: the offcore events; 3: the DRAM reads */

enum { VPMU_REC_INTERVAL = 1, VPMU_REC_MAPS = 2, VPMU_REC_END = 3, VPMU_REC_EXEC = 4,
       VPMU_REC_EXEC_FAILED = 5, VPMU_REC_FORK = 6 };

/* The vPMU's own event table: what its programmable counters can count,
 * and its memory controller's read counter (an uncore PMU's, beside them).
 * The order is the wire order; names are in vpmu_event_names below. */
enum {
	VPMU_EV_BR_COND,        /* retired conditional branches */
	VPMU_EV_BR_TAKEN,
	VPMU_EV_BR_NOT_TAKEN,
	VPMU_EV_BR_MISP,        /* gshare mispredictions */
	VPMU_EV_LOADS,
	VPMU_EV_STORES,
	VPMU_EV_L1D_HIT,
	VPMU_EV_L1D_MISS,
	VPMU_EV_L2_HIT,
	VPMU_EV_L2_MISS,
	VPMU_EV_LLC_HIT,
	VPMU_EV_LLC_MISS,
	VPMU_EV_PREFETCH,       /* lines the L2 streamer brought in */
	VPMU_EV_STALL_CYCLES,   /* cycles no uop was dispatched */
	VPMU_EV_STALLS_LLC_MISS,/* stall cycles while a DRAM access was pending */
	VPMU_EV_ROB_FULL,       /* cycles the ROB was full behind a miss */
	VPMU_EV_FP_OPS,
	/* appended in version 2 (older profiles name only the events above) */
	VPMU_EV_OFFCORE_CYCLES, /* cycles with >= 1 demand load out to DRAM */
	VPMU_EV_OFFCORE_OCC,    /* demand loads out to DRAM, summed over cycles */
	/* appended in version 3: the memory controller's reads, an uncore
	 * event (its name has a libpfm4 uncore PMU's prefix, so sl_pfm_uncore
	 * says so and the collector counts it beside the programmable
	 * counters, in every interval): lines read from DRAM, demand misses
	 * and prefetch fills; write-backs are writes, not counted */
	VPMU_EV_DRAM_READS,
	/* appended in version 4: stall episodes, as an edge-triggered count
	 * of a stall condition (cmask 1, edge) counts them: epochs whose
	 * stall outlasted the ROB fill, and of those the ones with a DRAM
	 * access (the mlp model's LLC-hit term: each episode's stall falls by
	 * a hit's latency drop, however few cycles of it were exposed) */
	VPMU_EV_ROB_FULL_EPISODES,
	VPMU_EV_STALLS_LLC_MISS_EPISODES,
	VPMU_N_EVENTS
};

#define VPMU_EVENT_NAMES                                                   \
	{ "BR_COND_RETIRED", "BR_COND_TAKEN", "BR_COND_NOT_TAKEN",         \
	  "BR_MISPREDICTED", "MEM_LOADS_RETIRED", "MEM_STORES_RETIRED",    \
	  "L1D_HIT", "L1D_MISS", "L2_HIT", "L2_MISS", "LLC_HIT", "LLC_MISS", \
	  "L2_PREFETCH_FILLS", "STALL_CYCLES", "STALLS_LLC_MISS",          \
	  "ROB_FULL_CYCLES", "FP_OPS", "OFFCORE_L3_MISS_CYCLES",           \
	  "OFFCORE_L3_MISS_OCCUPANCY", "nhm_unc::UNC_QMC_NORMAL_READS:ANY", \
	  "ROB_FULL_EPISODES", "STALLS_LLC_MISS_EPISODES" }

/* Activity no counter exposes, for the energy meter. */
enum {
	VPMU_ACT_IR_OPS,        /* VEX IR operations executed (ALU work) */
	VPMU_ACT_WRONG_PATH,    /* instructions fetched down mispredicted paths */
	VPMU_ACT_WRITEBACKS,    /* dirty LLC lines written back to DRAM */
	VPMU_ACT_DRAM_BYTES,    /* demand + prefetch + writeback traffic */
	VPMU_ACT_MULDIV,        /* integer multiplies and divides */
	VPMU_N_ACT
};

struct vpmu_head {
	unsigned int magic;
	unsigned int type;
	unsigned int len;       /* payload bytes after this header */
	unsigned int n_samples; /* INTERVAL: addresses after the interval */
};

struct vpmu_interval {
	unsigned long long instructions;
	unsigned long long cycles;
	double time_ns;
	double dram_queue_ns;   /* mean queueing delay of this interval's DRAM accesses */
	unsigned long long lost;/* samples dropped (the buffer was full) */
	unsigned long long ev[VPMU_N_EVENTS];
	unsigned long long act[VPMU_N_ACT];
};

struct vpmu_end {
	long long exit_code;
};

#endif
