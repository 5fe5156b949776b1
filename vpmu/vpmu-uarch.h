/*
 * The micro-architecture of the vPMU's virtual core (vpmu-uarch.c): three
 * levels of set-associative caches, an L2 stream prefetcher, a gshare
 * branch predictor and the timing of misses against a reorder buffer.  It
 * runs inside the Valgrind tool, so it uses Valgrind's VG_() library only.
 * docs/vpmu.md gives every equation.
 */
#ifndef SLEUTH_VPMU_UARCH_H
#define SLEUTH_VPMU_UARCH_H

#include "pub_tool_basics.h"

#include "vpmu-wire.h"

typedef struct {
	UInt size, assoc, line; /* bytes, ways, bytes */
} vpmu_cache_cfg;

typedef struct {
	/* core */
	UInt width;             /* instructions dispatched per cycle */
	UInt rob;               /* reorder buffer entries */
	UInt mshr;              /* outstanding L1D misses */
	UInt misp_penalty;      /* cycles to refill the front end */
	UInt gshare_bits;       /* log2 of the pattern table */
	/* caches and their latencies */
	vpmu_cache_cfg l1, l2, llc;
	UInt l2_cycles, llc_cycles; /* core cycles */
	UInt llc_uncore_ps;     /* LLC hit time in the fixed-clock uncore */
	UInt dram_ps;           /* DRAM latency, unloaded */
	UInt dram_mbps;         /* peak DRAM bandwidth, MB/s */
	UInt prefetch_degree;   /* lines ahead the streamer fetches; 0: off */
	UInt freq_mhz;          /* the virtual core clock */
} vpmu_cfg;

typedef struct {
	ULong tag;   /* line address + 1; 0: invalid */
	Bool dirty;
} vpmu_way;

typedef struct {
	vpmu_way *w;
	UInt sets, assoc, line_shift;
} vpmu_cache;

/* One stream of the L2 prefetcher. */
typedef struct {
	ULong page, last;
	Int dir, conf;
} vpmu_stream;

#define VPMU_MAX_MSHR 64

typedef struct {
	vpmu_cfg c;
	double ghz;
	vpmu_cache l1, l2, llc;
	vpmu_stream streams[16];
	UChar *pht;
	ULong ghist, pht_mask;

	/* the current epoch of overlapping misses */
	Bool ep_open;
	ULong ep_start;         /* instruction index of its first miss */
	double ep_end;          /* cycles after its start when its last miss returns */
	Bool ep_dram;
	double ep_done[VPMU_MAX_MSHR]; /* completion times, a ring */
	ULong ep_line[VPMU_MAX_MSHR];  /* the lines in flight */
	UInt ep_n;
	double *ep_ms, *ep_me;  /* its DRAM demand loads: issue, done */
	UInt ep_nm, ep_cap;
	ULong last_val;         /* value the last 64-bit load returned */
	double last_ready;      /* when it was ready, in the epoch (0: at once) */

	/* the DRAM bandwidth window */
	double win_start_ns, win_bytes, rho;

	/* per interval */
	ULong ev[VPMU_N_EVENTS];
	ULong act[VPMU_N_ACT];
	double stall_cycles;    /* memory epochs, mispredicts */
	double llc_stall, rob_full;
	ULong stall_eps, llc_stall_eps; /* epochs that stalled; with DRAM */
	double off_cycles, off_occ; /* DRAM demand loads out: >= 1, summed */
	double queue_ns_sum;
	ULong queue_n;
	double core_units;      /* dependency stalls in 1/16 cycles */

	/* totals, for the clock */
	ULong icount;           /* retired instructions so far */
	double cycles_before;   /* cycles of the intervals already emitted */
	ULong icount_before;
} vpmu_core;

void vpmu_core_init(vpmu_core *k, const vpmu_cfg *c);
/* A data access of `size` bytes at `addr` by instruction `idx` (a global
 * instruction index); `val` is the value a 64-bit load returned. */
void vpmu_access(vpmu_core *k, Addr addr, UInt size, Bool store, ULong idx, ULong val);
/* A retired conditional branch at pc; 1 when it was mispredicted. */
Bool vpmu_branch_outcome(vpmu_core *k, Addr pc, Bool taken);
/* The cycles of the current interval so far (closing no epoch). */
double vpmu_interval_cycles(const vpmu_core *k);
/* Close the open epoch, fill *iv with the interval's figures and start a
 * new interval. */
void vpmu_interval_take(vpmu_core *k, struct vpmu_interval *iv);

#endif
