/*
 * The vPMU's virtual core: what its counters count and how long it takes,
 * simulated from the program's own accesses and branches.  It is richer
 * than sleuth's time model on purpose (the truth must not obey the model's
 * law): misses overlap only inside a reorder-buffer window, a miss whose
 * address came from the previous miss's data waits for it, fill buffers
 * are few, DRAM queues as its bandwidth fills, LLC hits are partly uncore
 * time, and the ROB hides the first cycles of every miss.  The equations
 * are in docs/vpmu.md.  Runs inside Valgrind: VG_() only, no libc.
 */
#include "vpmu-uarch.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#define SL_VMAX(a, b) ((a) > (b) ? (a) : (b))

static UInt log2u(UInt v)
{
	UInt n = 0;
	while ((1u << n) < v)
		n++;
	return n;
}

static void cache_init(vpmu_cache *c, const vpmu_cache_cfg *g)
{
	c->assoc = g->assoc;
	c->sets = g->size / (g->line * g->assoc);
	tl_assert(c->sets > 0 && (c->sets & (c->sets - 1)) == 0);
	c->line_shift = log2u(g->line);
	c->w = VG_(calloc)("vpmu.cache", (SizeT)c->sets * c->assoc, sizeof *c->w);
}

/*
 * Look `line` up, LRU order kept by moving the hit way to the front (the
 * ways of a set are few).  On a miss the line is filled at the front and
 * the last way falls out: its line and dirtiness in *victim / *vdirty
 * (victim 0 when the way was empty).  A store marks the line dirty.
 */
static Bool cache_access(vpmu_cache *c, ULong line, Bool store, ULong *victim, Bool *vdirty)
{
	vpmu_way *s = c->w + (line & (c->sets - 1)) * c->assoc;
	ULong tag = line + 1;
	*victim = 0;
	*vdirty = False;
	if (s[0].tag == tag) {
		s[0].dirty |= store;
		return True;
	}
	for (UInt i = 1; i < c->assoc; i++)
		if (s[i].tag == tag) {
			vpmu_way w = s[i];
			for (UInt j = i; j > 0; j--)
				s[j] = s[j - 1];
			w.dirty |= store;
			s[0] = w;
			return True;
		}
	vpmu_way last = s[c->assoc - 1];
	for (UInt j = c->assoc - 1; j > 0; j--)
		s[j] = s[j - 1];
	s[0].tag = tag;
	s[0].dirty = store;
	if (last.tag) {
		*victim = last.tag - 1;
		*vdirty = last.dirty;
	}
	return False;
}

/* Whether `line` is present; mark it dirty if asked (no LRU change). */
static Bool cache_probe(vpmu_cache *c, ULong line, Bool make_dirty)
{
	vpmu_way *s = c->w + (line & (c->sets - 1)) * c->assoc;
	for (UInt i = 0; i < c->assoc; i++)
		if (s[i].tag == line + 1) {
			s[i].dirty |= make_dirty;
			return True;
		}
	return False;
}

void vpmu_core_init(vpmu_core *k, const vpmu_cfg *c)
{
	VG_(memset)(k, 0, sizeof *k);
	k->c = *c;
	if (k->c.mshr > VPMU_MAX_MSHR)
		k->c.mshr = VPMU_MAX_MSHR;
	if (!k->c.mshr)
		k->c.mshr = 1;
	k->ghz = c->freq_mhz / 1000.0;
	cache_init(&k->l1, &c->l1);
	cache_init(&k->l2, &c->l2);
	cache_init(&k->llc, &c->llc);
	k->pht_mask = (1ull << c->gshare_bits) - 1;
	k->pht = VG_(malloc)("vpmu.pht", (SizeT)k->pht_mask + 1);
	VG_(memset)(k->pht, 1, (SizeT)k->pht_mask + 1); /* weakly not taken */
	/* an epoch spans rob instructions, each with at most two lines of
	 * load: room for all its DRAM loads (more are merged, never lost) */
	k->ep_cap = 2 * k->c.rob + 2;
	k->ep_ms = VG_(malloc)("vpmu.epoch", k->ep_cap * sizeof *k->ep_ms);
	k->ep_me = VG_(malloc)("vpmu.epoch", k->ep_cap * sizeof *k->ep_me);
}

double vpmu_interval_cycles(const vpmu_core *k)
{
	return (double)(k->icount - k->icount_before) / k->c.width + k->core_units / 16.0 +
	       k->stall_cycles;
}

/* Account DRAM traffic to the bandwidth window; recompute the utilisation
 * every 20 us of virtual time from the bytes moved in it. */
static void dram_traffic(vpmu_core *k, double bytes)
{
	k->act[VPMU_ACT_DRAM_BYTES] += (ULong)bytes;
	k->win_bytes += bytes;
	double now = (k->cycles_before + vpmu_interval_cycles(k)) / k->ghz;
	double span = now - k->win_start_ns;
	if (span >= 20000.0) {
		double peak = k->c.dram_mbps * 1e-3; /* bytes per ns */
		double rho = k->win_bytes / span / peak;
		k->rho = rho > 0.98 ? 0.98 : rho;
		k->win_start_ns = now;
		k->win_bytes = 0;
	}
}

/* Queueing delay of one DRAM access now: M/D/1 with one line's transfer
 * time as the service time. */
static double dram_queue_ns(const vpmu_core *k)
{
	double service = 64.0 / (k->c.dram_mbps * 1e-3);
	return service * k->rho / (2.0 * (1.0 - k->rho));
}

/* A line read from DRAM (a demand miss or a prefetch fill): the memory
 * controller's read counter (VPMU_EV_DRAM_READS) and the bandwidth window.
 * Write-backs move bytes too but are writes (write_back). */
static void dram_read(vpmu_core *k)
{
	k->ev[VPMU_EV_DRAM_READS]++;
	dram_traffic(k, 64);
}

/* A dirty line leaving level `from` (0 = L1, 1 = L2, 2 = LLC). */
static void write_back(vpmu_core *k, int from, ULong line)
{
	if (from == 0 && cache_probe(&k->l2, line, True))
		return;
	if (from <= 1 && cache_probe(&k->llc, line, True))
		return;
	k->act[VPMU_ACT_WRITEBACKS]++;
	dram_traffic(k, 64);
}

/* Look `line` up in level 1 (L2) or 2 (LLC), bringing it in on a miss
 * and writing back a dirty victim; whether it hit. */
static Bool lookup_fill(vpmu_core *k, int level, ULong line)
{
	ULong v;
	Bool d;
	Bool hit = cache_access(level == 1 ? &k->l2 : &k->llc, line, False, &v, &d);
	if (!hit && v && d)
		write_back(k, level, v);
	return hit;
}

/* The L2 streamer: 16 streams, one per page hash, trained on every L2
 * access; two steps of one line in the same direction within a 4 KiB page
 * start prefetching `degree` lines ahead. */
static void prefetch_train(vpmu_core *k, ULong line)
{
	ULong page = line >> 6;
	vpmu_stream *s = &k->streams[(page ^ (page >> 4)) & 15];
	if (s->page != page + 1) {
		*s = (vpmu_stream){.page = page + 1, .last = line};
		return;
	}
	Long d = (Long)(line - s->last);
	if (d == 0)
		return;
	if ((d == 1 || d == -1) && d == s->dir)
		s->conf++;
	else if (d == 1 || d == -1) {
		s->dir = (Int)d;
		s->conf = 1;
	} else {
		s->conf = 0;
		s->dir = 0;
	}
	s->last = line;
	if (s->conf < 2)
		return;
	for (UInt j = 1; j <= k->c.prefetch_degree; j++) {
		ULong pl = line + (ULong)((Long)s->dir * j);
		if ((pl >> 6) != page || cache_probe(&k->l2, pl, False))
			continue;
		k->ev[VPMU_EV_PREFETCH]++;
		if (!lookup_fill(k, 2, pl))
			dram_read(k);
		lookup_fill(k, 1, pl);
	}
}

/* The cycles of the epoch with at least one demand load out to DRAM (an
 * LLC miss, as the L3-miss offcore events of later Intel cores count
 * them): the union of their [issue, done] spans, as an offcore counter
 * with a threshold of 1 sees them (an address dependency or a full set of fill
 * buffers can issue a load before an earlier one: sorted first). */
static double dram_outstanding(vpmu_core *k)
{
	double *s = k->ep_ms, *e = k->ep_me, sum = 0, cur_s = 0, cur_e = -1;
	for (UInt i = 1; i < k->ep_nm; i++)
		for (UInt j = i; j > 0 && s[j - 1] > s[j]; j--) {
			double ts = s[j], te = e[j];
			s[j] = s[j - 1];
			e[j] = e[j - 1];
			s[j - 1] = ts;
			e[j - 1] = te;
		}
	for (UInt i = 0; i < k->ep_nm; i++) {
		if (s[i] > cur_e) {
			sum += cur_e > cur_s ? cur_e - cur_s : 0;
			cur_s = s[i];
			cur_e = e[i];
		} else if (e[i] > cur_e)
			cur_e = e[i];
	}
	return sum + (cur_e > cur_s ? cur_e - cur_s : 0);
}

/* Close the epoch of overlapping misses: the core ran on for rob/width
 * cycles while the ROB filled behind the first miss; the rest is stall. */
static void epoch_close(vpmu_core *k)
{
	if (!k->ep_open)
		return;
	k->off_cycles += dram_outstanding(k);
	k->ep_nm = 0;
	double s = k->ep_end - (double)k->c.rob / k->c.width;
	if (s > 0) {
		k->stall_cycles += s;
		k->rob_full += s;
		k->stall_eps++;
		if (k->ep_dram) {
			k->llc_stall += s;
			k->llc_stall_eps++;
		}
	}
	k->ep_open = False;
	k->last_ready = 0;
}

/* A load missing L1 by instruction idx, needing its address from a value
 * ready at `dep` (0: at once), with latency lat; its completion time. */
static double epoch_add(vpmu_core *k, ULong idx, ULong line, double lat, Bool dram, double dep)
{
	if (!k->ep_open || idx >= k->ep_start + k->c.rob) {
		epoch_close(k);
		k->ep_open = True;
		k->ep_start = idx;
		k->ep_end = 0;
		k->ep_dram = False;
		k->ep_n = 0;
		k->ep_nm = 0;
		dep = 0;
	}
	double issue = (double)(idx - k->ep_start) / k->c.width;
	if (issue < dep)
		issue = dep;
	/* all fill buffers busy: wait for the oldest */
	if (k->ep_n >= k->c.mshr) {
		double oldest = k->ep_done[k->ep_n % k->c.mshr];
		if (issue < oldest)
			issue = oldest;
	}
	double done = issue + lat;
	k->ep_done[k->ep_n % k->c.mshr] = done;
	k->ep_line[k->ep_n % k->c.mshr] = line;
	k->ep_n++;
	if (done > k->ep_end)
		k->ep_end = done;
	k->ep_dram |= dram;
	if (dram) {
		k->off_occ += lat;
		if (k->ep_nm == k->ep_cap) { /* full: widen the last span */
			k->ep_me[k->ep_nm - 1] = SL_VMAX(k->ep_me[k->ep_nm - 1], done);
		} else {
			k->ep_ms[k->ep_nm] = issue;
			k->ep_me[k->ep_nm] = done;
			k->ep_nm++;
		}
	}
	return done;
}

/* When a line that hit L1 is really there: a line still in flight (a
 * miss of this epoch) arrives when that miss completes. */
static double in_flight(const vpmu_core *k, ULong line)
{
	if (!k->ep_open)
		return 0;
	UInt n = k->ep_n < k->c.mshr ? k->ep_n : k->c.mshr;
	for (UInt i = 0; i < n; i++)
		if (k->ep_line[i] == line)
			return k->ep_done[i];
	return 0;
}

/* One line of an access: its latency beyond L1 (0 for an L1 hit). */
static double access_line(vpmu_core *k, ULong line, Bool store, Bool *dram)
{
	ULong v;
	Bool d;
	*dram = False;
	if (cache_access(&k->l1, line, store, &v, &d)) {
		k->ev[VPMU_EV_L1D_HIT]++;
		return 0;
	}
	if (v && d)
		write_back(k, 0, v);
	k->ev[VPMU_EV_L1D_MISS]++;
	double lat;
	Bool in_l2 = lookup_fill(k, 1, line);
	prefetch_train(k, line);
	if (in_l2) {
		k->ev[VPMU_EV_L2_HIT]++;
		lat = k->c.l2_cycles;
	} else {
		k->ev[VPMU_EV_L2_MISS]++;
		if (lookup_fill(k, 2, line)) {
			k->ev[VPMU_EV_LLC_HIT]++;
			lat = k->c.llc_cycles + k->c.llc_uncore_ps * 1e-3 * k->ghz;
		} else {
			k->ev[VPMU_EV_LLC_MISS]++;
			*dram = True;
			double q = dram_queue_ns(k);
			k->queue_ns_sum += q;
			k->queue_n++;
			dram_read(k);
			lat = k->c.llc_cycles +
			      ((k->c.llc_uncore_ps + k->c.dram_ps) * 1e-3 + q) * k->ghz;
		}
	}
	return lat;
}

/*
 * Stores retire into the store buffer: they move lines but never stall.
 * A load's address may come from the value of the previous 64-bit load
 * (pointer chasing: addr - value < 4 KiB); then it cannot issue before
 * that value was ready, and the value it returns is ready when its line
 * arrives.
 */
void vpmu_access(vpmu_core *k, Addr addr, UInt size, Bool store, ULong idx, ULong val)
{
	k->ev[store ? VPMU_EV_STORES : VPMU_EV_LOADS]++;
	UInt sh = k->l1.line_shift;
	ULong first = addr >> sh, last = (addr + (size ? size - 1 : 0)) >> sh;
	if (k->ep_open && idx >= k->ep_start + k->c.rob)
		epoch_close(k); /* past the window: the next miss starts an epoch */
	double dep = k->last_val && (ULong)addr - k->last_val < 4096 ? k->last_ready : 0;
	double ready = 0;
	for (ULong line = first; line <= last && line <= first + 1; line++) {
		Bool dram;
		double lat = access_line(k, line, store, &dram);
		if (store)
			continue;
		double r = lat > 0 ? epoch_add(k, idx, line, lat, dram, dep) : in_flight(k, line);
		if (r < dep)
			r = dep;
		if (r > ready)
			ready = r;
	}
	if (!store && val) {
		k->last_val = val;
		k->last_ready = k->ep_open ? ready : 0;
	}
}

Bool vpmu_branch_outcome(vpmu_core *k, Addr pc, Bool taken)
{
	ULong i = ((pc ^ (pc >> 13)) ^ k->ghist) & k->pht_mask;
	UChar c = k->pht[i];
	Bool pred = c >= 2;
	if (taken && c < 3)
		k->pht[i] = c + 1;
	else if (!taken && c > 0)
		k->pht[i] = c - 1;
	k->ghist = ((k->ghist << 1) | (taken ? 1 : 0)) & k->pht_mask;
	k->ev[VPMU_EV_BR_COND]++;
	k->ev[taken ? VPMU_EV_BR_TAKEN : VPMU_EV_BR_NOT_TAKEN]++;
	if (pred == taken)
		return False;
	k->ev[VPMU_EV_BR_MISP]++;
	k->stall_cycles += k->c.misp_penalty;
	/* the front end kept fetching down the wrong path until resolved */
	k->act[VPMU_ACT_WRONG_PATH] += (ULong)k->c.misp_penalty * k->c.width / 2;
	return True;
}

void vpmu_interval_take(vpmu_core *k, struct vpmu_interval *iv)
{
	epoch_close(k);
	double cyc = vpmu_interval_cycles(k);
	VG_(memset)(iv, 0, sizeof *iv);
	iv->instructions = k->icount - k->icount_before;
	iv->cycles = (ULong)(cyc + 0.5);
	iv->time_ns = cyc / k->ghz;
	iv->dram_queue_ns = k->queue_n ? k->queue_ns_sum / k->queue_n : 0;
	k->ev[VPMU_EV_STALL_CYCLES] = (ULong)(k->core_units / 16.0 + k->stall_cycles + 0.5);
	k->ev[VPMU_EV_STALLS_LLC_MISS] = (ULong)(k->llc_stall + 0.5);
	k->ev[VPMU_EV_ROB_FULL] = (ULong)(k->rob_full + 0.5);
	k->ev[VPMU_EV_ROB_FULL_EPISODES] = k->stall_eps;
	k->ev[VPMU_EV_STALLS_LLC_MISS_EPISODES] = k->llc_stall_eps;
	k->ev[VPMU_EV_OFFCORE_CYCLES] = (ULong)(k->off_cycles + 0.5);
	k->ev[VPMU_EV_OFFCORE_OCC] = (ULong)(k->off_occ + 0.5);
	for (UInt e = 0; e < VPMU_N_EVENTS; e++)
		iv->ev[e] = k->ev[e];
	for (UInt a = 0; a < VPMU_N_ACT; a++)
		iv->act[a] = k->act[a];
	VG_(memset)(k->ev, 0, sizeof k->ev);
	VG_(memset)(k->act, 0, sizeof k->act);
	k->stall_cycles = k->llc_stall = k->rob_full = k->core_units = 0;
	k->off_cycles = k->off_occ = 0;
	k->stall_eps = k->llc_stall_eps = 0;
	k->queue_ns_sum = 0;
	k->queue_n = 0;
	k->cycles_before += cyc;
	k->icount_before = k->icount;
}
