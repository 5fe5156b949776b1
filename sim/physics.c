/*
 * The physics of one interval (docs/simulator.md): what the program does
 * (drawn from the interval's own random stream, independent of frequency)
 * and what that costs at a frequency (deterministic equations: time,
 * counter values, power).
 *
 * Keeping the two apart is what makes the same seed at two frequencies the
 * same program: every random draw happens in draw_part(), in a fixed order
 * keyed by (seed, interval), before any frequency enters.
 */
#include "sleuth/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim-int.h"

/* The instructions the skid may add to an interval's nominal length. */
#define SKID 64

struct sl_sim_ctx {
	gsl_rng *r, *rk;
	double *w;       /* jittered branch weights */
	unsigned *cnt;   /* multinomial draw */
	sl_branch *h[2]; /* per-part histograms */
	size_t nh[2];
	size_t max_br;
};

/* What a phase does over `n` instructions of one interval: all the random
 * draws, no frequency. */
typedef struct drawn {
	size_t phase;
	double n;
	double cpi, mlp, dep;
	double cond, mispredicts, fp, memu, uops, l2, hits, misses;
	double power_z; /* standard normal for the Ceff noise */
	double prefetches, res; /* harder physics (0 unless enabled) */
} drawn;

sl_sim_ctx *sl_sim_ctx_new(const sl_sim *s)
{
	sl_sim_ctx *c = sl_xcalloc(1, sizeof *c);
	c->r = gsl_rng_alloc(gsl_rng_taus2);
	c->rk = gsl_rng_alloc(gsl_rng_taus2);
	for (size_t p = 0; p < s->w->n_phases; p++)
		c->max_br = SL_MAX(c->max_br, s->w->phases[p].n_br);
	c->w = sl_xcalloc(c->max_br, sizeof *c->w);
	c->cnt = sl_xcalloc(c->max_br, sizeof *c->cnt);
	c->h[0] = sl_xcalloc(c->max_br, sizeof *c->h[0]);
	c->h[1] = sl_xcalloc(c->max_br, sizeof *c->h[1]);
	return c;
}

void sl_sim_ctx_free(sl_sim_ctx *c)
{
	if (!c)
		return;
	gsl_rng_free(c->r);
	gsl_rng_free(c->rk);
	free(c->w);
	free(c->cnt);
	free(c->h[0]);
	free(c->h[1]);
	free(c);
}

/* A standard normal keyed by (seed, phase, which, knot). */
static double knot(const sl_sim *s, sl_sim_ctx *c, size_t phase, int which, uint64_t k)
{
	gsl_rng_set(c->rk, (unsigned long)sl_sim_key_hash(s->seed, SL_STREAM_DRIFT, phase,
							    (uint64_t)which, k));
	return gsl_ran_gaussian(c->rk, 1.0);
}

/* g(i): linear interpolation between standard-normal knots every
 * drift_period intervals. */
static double drift_g(const sl_sim *s, sl_sim_ctx *c, const sl_sim_phase *ph,
		      size_t phase, int which, size_t i)
{
	uint64_t per = (uint64_t)ph->p[SL_P_DRIFT_PERIOD];
	uint64_t k = i / per;
	double f = (double)(i % per) / (double)per;
	return (1 - f) * knot(s, c, phase, which, k) + f * knot(s, c, phase, which, k + 1);
}

/* Slow drift: a multiplicative factor exp(drift * g(i)). */
static double drift(const sl_sim *s, sl_sim_ctx *c, const sl_sim_phase *ph,
		    size_t phase, int which, size_t i)
{
	double amp = ph->p[SL_P_DRIFT];
	if (amp == 0)
		return 1.0;
	return exp(amp * drift_g(s, c, ph, phase, which, i));
}

static double lognormal(gsl_rng *r, double sigma)
{
	return gsl_ran_lognormal(r, 0.0, sigma);
}

/* Every random draw of one part, in a fixed order. */
static void draw_part(const sl_sim *s, sl_sim_ctx *c, size_t phase, uint64_t n,
		      size_t i, int slot, drawn *d)
{
	const sl_sim_phase *ph = &s->w->phases[phase];
	const double *p = ph->p;
	double sig = p[SL_P_NOISE];
	double dc = drift(s, c, ph, phase, 0, i);
	double dm = drift(s, c, ph, phase, 1, i);
	double N = (double)n;
	gsl_rng *r = c->r;

	d->phase = phase;
	d->n = N;
	d->cpi = p[SL_P_CPI_CORE] * dc * lognormal(r, sig);
	double bf = p[SL_P_BRANCH_FRACTION] * lognormal(r, sig);
	double mr = SL_MIN(1.0, p[SL_P_MISPREDICT_RATE] * lognormal(r, sig));
	double fpf = p[SL_P_FP_FRACTION] * lognormal(r, sig);
	double mf = p[SL_P_MEMORY_FRACTION] * lognormal(r, sig);
	double upi = p[SL_P_UOPS_PER_INSTRUCTION] * lognormal(r, sig);
	double l2 = p[SL_P_L2_PKI] * dm * lognormal(r, sig);
	double hits = p[SL_P_LLC_HITS_PKI] * dm * lognormal(r, sig);
	double misses = p[SL_P_LLC_MISSES_PKI] * dm * lognormal(r, sig);
	d->mlp = SL_MAX(1.0, p[SL_P_MLP] * lognormal(r, sig));
	d->dep = p[SL_P_DEP_STALL_FRACTION];

	d->cond = (double)llround(N * bf);
	d->mispredicts = (double)llround(d->cond * mr);
	d->fp = (double)llround(N * fpf);
	d->memu = (double)llround(N * mf);
	d->uops = (double)llround(N * upi);
	d->hits = (double)llround(N * hits / 1000);
	d->misses = (double)llround(N * misses / 1000);
	d->l2 = SL_MAX((double)llround(N * l2 / 1000), d->hits + d->misses);

	/* the branch histogram: jittered Zipf weights, multinomial counts */
	double bn = p[SL_P_BRANCH_NOISE];
	for (size_t k = 0; k < ph->n_br; k++)
		c->w[k] = ph->weight[k] * (bn > 0 ? exp(bn * gsl_ran_gaussian(r, 1.0)) : 1.0);
	if (ph->zcode) {
		/* code drift: log-weights move along fixed per-branch directions
		 * with the phase's slow drift g(i) (knots of their own) */
		double amp = p[SL_P_CODE_DRIFT], g = drift_g(s, c, ph, phase, 2, i);
		for (size_t k = 0; k < ph->n_br; k++)
			c->w[k] *= exp(amp * g * ph->zcode[k]);
	}
	gsl_ran_multinomial(r, ph->n_br, (unsigned)d->cond, c->w, c->cnt);
	c->nh[slot] = 0;
	for (size_t k = 0; k < ph->n_br; k++)
		if (c->cnt[k])
			c->h[slot][c->nh[slot]++] = (sl_branch){ph->addr[k], c->cnt[k]};

	d->power_z = gsl_ran_gaussian(r, 1.0);
	/* draws of the optional effects come last, and only when enabled, so
	 * a workload without them draws exactly what it drew before them */
	d->prefetches = 0;
	if (p[SL_P_PREFETCH_PKI] > 0)
		d->prefetches = (double)llround(N * p[SL_P_PREFETCH_PKI] * dm *
						lognormal(r, sig) / 1000);
	d->res = p[SL_P_RESOURCE_STALL_FRACTION];
}

/* The memory cycles of a part whose miss clusters take `lat_ns` each. */
static double mem_cycles(double clusters, double hidden, double lat_ns, double ghz)
{
	return clusters * SL_MAX(0.0, lat_ns * ghz - hidden);
}

/* The power of a part that is not the core's f*V^2 (docs/simulator.md,
 * "Harder physics"): the uncore's static power on its own clock, and the
 * energy of its LLC accesses and DRAM lines (demand misses, prefetches and
 * the write-backs they cause) at a fixed voltage, spread over the part's
 * `seconds`. */
static double part_fixed_w(const sl_sim_machine *m, const drawn *d, double ghz,
			   double seconds)
{
	const sl_sim_truth *t = &m->truth;
	double lines = (d->misses + d->prefetches) * (1 + t->writeback_share);
	double nj = t->llc_access_nj * (d->hits + d->misses) + t->dram_line_nj * lines;
	return sl_sim_uncore_w(m, ghz) + (seconds > 0 ? nj * 1e-9 / seconds : 0);
}

/* The deterministic cost of a drawn part at (ghz, volts). */
static void cost_part(const sl_sim *s, const drawn *d, double ghz, double volts,
		      sl_sim_part *pt, double q[SL_Q_N])
{
	const sl_sim_truth *t = &s->m->truth;
	pt->phase = d->phase;
	pt->instructions = (uint64_t)d->n;
	pt->core_cycles = d->n * d->cpi;
	pt->branch_cycles = d->mispredicts * t->mispredict_penalty;
	/* The uncore's own clock: min(uncore_max_ghz, uncore_ratio * f); its
	 * times are given at uncore_max_ghz and stretch when it slows. */
	double ustretch = 1;
	if (t->uncore_ratio > 0)
		ustretch = t->uncore_max_ghz / SL_MIN(t->uncore_max_ghz, t->uncore_ratio * ghz);
	pt->llc_hit_cycles = d->hits * t->llc_hit_exposed *
			     (t->llc_hit_core_cycles + t->llc_hit_uncore_ns * ustretch * ghz);
	/* Each cluster of mlp overlapping misses stalls for the DRAM latency
	 * less the work the ROB holds; that work cannot exceed the core work
	 * there is between two clusters.  With rob_entries, the ROB holds
	 * that many instructions of this phase's work (entries * cpi_core
	 * cycles), which a short latency clips. */
	double clusters = d->misses / d->mlp;
	double fill = t->rob_entries > 0 ? t->rob_entries * d->cpi : t->rob_fill_cycles;
	double hidden = clusters > 0 ? SL_MIN(fill, pt->core_cycles / clusters) : 0;
	double base = pt->core_cycles + pt->branch_cycles + pt->llc_hit_cycles;
	double lat0 = t->memory_ns + t->memory_uncore_ns * ustretch;
	double lat = lat0;
	double hz = ghz * 1e9;
	double mem = mem_cycles(clusters, hidden, lat, ghz);
	/* DRAM bandwidth: misses and prefetches move line_bytes each; the
	 * part cannot be shorter than bytes / bandwidth (the core's work
	 * overlaps the transfer), and with queue_gain the latency grows with
	 * the utilisation u = t_bw / t:  lat = lat0 (1 + queue_gain u/(1-u)),
	 * u capped at 0.95.  t solves t = max(t_lat(lat(t)), t_bw). */
	double t_bw = 0, extra = 0;
	if (t->dram_gbps > 0)
		t_bw = (d->misses + d->prefetches) * t->line_bytes / (t->dram_gbps * 1e9);
	if (t_bw > 0 && t->queue_gain > 0) {
		double lo = SL_MAX((base + mem) / hz, t_bw);
		double hi = SL_MAX((base + mem_cycles(clusters, hidden,
						      lat0 * (1 + t->queue_gain * 0.95 / 0.05),
						      ghz)) / hz,
				   t_bw);
		for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; it++) {
			double mid = 0.5 * (lo + hi);
			double u = SL_MIN(0.95, t_bw / mid);
			double l = lat0 * (1 + t->queue_gain * u / (1 - u));
			double g = SL_MAX((base + mem_cycles(clusters, hidden, l, ghz)) / hz, t_bw);
			if (g > mid)
				lo = mid;
			else
				hi = mid;
		}
		double u = SL_MIN(0.95, t_bw / hi);
		lat = lat0 * (1 + t->queue_gain * u / (1 - u));
		mem = mem_cycles(clusters, hidden, lat, ghz);
	}
	if (t_bw * hz > base + mem)
		extra = t_bw * hz - (base + mem);
	pt->memory_cycles = extra > 0 ? mem + extra : mem;
	double cycles = pt->core_cycles + pt->branch_cycles + pt->llc_hit_cycles +
			pt->memory_cycles;
	double dep = d->dep * pt->core_cycles;
	double res = d->res * pt->core_cycles;

	q[SL_Q_CYCLES] += cycles;
	q[SL_Q_INSTRUCTIONS] += d->n;
	q[SL_Q_STALL_CYCLES] += dep + t->stall_mispredict_share * pt->branch_cycles +
				t->stall_llc_hit_share * pt->llc_hit_cycles + pt->memory_cycles +
				res;
	q[SL_Q_RESOURCE_STALLS] += t->resource_memory_share * pt->memory_cycles +
				   t->resource_llc_hit_share * pt->llc_hit_cycles +
				   t->resource_dep_share * dep + res;
	q[SL_Q_PREFETCHES] += d->prefetches;
	/* stalled with a miss outstanding, whatever the cause: the memory
	 * stall, and the dependency and resource stalls that fall while a
	 * miss is out (in proportion to the time one is) */
	double out = clusters > 0 ? SL_MIN(1.0, (clusters * lat * ghz + extra) / cycles) : 0;
	q[SL_Q_MISS_STALLS] += pt->memory_cycles + (dep + res) * out;
	if (clusters > 0) {
		/* the offcore queue: a cluster keeps >= 1 demand miss out for the
		 * whole latency (the hidden work runs under it), mlp of them at a
		 * time; a bandwidth-bound part waits with all of them out */
		q[SL_Q_OFFCORE_CYCLES] += clusters * lat * ghz + extra;
		q[SL_Q_OFFCORE_OCCUPANCY] += d->misses * lat * ghz + extra * d->mlp;
	}
	q[SL_Q_LLC_MISSES] += d->misses;
	/* the memory controller's read counter: every line read, demand or
	 * prefetch (and the socket's other readers: sl_sim_interval_run) */
	q[SL_Q_DRAM_READS] += d->misses + d->prefetches;
	q[SL_Q_L2_MISSES] += d->hits + d->misses;
	q[SL_Q_L2_REFERENCES] += d->l2;
	q[SL_Q_MEMORY_UOPS] += d->memu;
	q[SL_Q_FP_OPS] += d->fp;
	q[SL_Q_MISPREDICTS] += d->mispredicts;
	q[SL_Q_COND_BRANCHES] += d->cond;
	q[SL_Q_UOPS] += d->uops;

	/* power: static leakage plus Ceff*f*V^2, Ceff non-linear in the rates */
	double sat = t->uops_saturation;
	double ceff = t->ceff_base_nf +
		      t->ceff_uops_nf * sat * (1 - exp(-(d->uops / cycles) / sat)) +
		      t->ceff_l2_nf * d->l2 / cycles + t->ceff_llc_nf * d->misses / cycles +
		      t->ceff_fp_nf * d->fp / cycles +
		      t->ceff_mispredict_nf * d->mispredicts / cycles;
	ceff = SL_MAX(0.0, ceff) * exp(t->ceff_noise * d->power_z);
	pt->ceff_nf = ceff;
	pt->seconds = cycles / (ghz * 1e9);
	pt->watts = sl_sim_static_w(s->m, volts) + ceff * ghz * volts * volts;
	if (t->uncore_static_w > 0 || t->llc_access_nj > 0 || t->dram_line_nj > 0 ||
	    t->stall_gate_share > 0)
		pt->watts = sl_sim_static_w(s->m, volts) +
			    part_fixed_w(s->m, d, ghz, pt->seconds) +
			    ceff * ghz * volts * volts *
				    (1 - t->stall_gate_share * pt->memory_cycles / cycles);
}

static void reserve(sl_sim_interval *out, size_t n)
{
	if (out->cap_br < n) {
		out->br = sl_xreallocarray(out->br, n, sizeof *out->br);
		out->cap_br = n;
	}
}

/* Union of the two parts' histograms, addresses ascending. */
static void merge(sl_sim_ctx *c, int parts, sl_sim_interval *out)
{
	size_t a = 0, b = 0, n = 0;
	size_t na = c->nh[0], nb = parts > 1 ? c->nh[1] : 0;
	const sl_branch *x = c->h[0], *y = c->h[1];
	reserve(out, na + nb);
	while (a < na || b < nb) {
		if (b >= nb || (a < na && x[a].addr < y[b].addr)) {
			out->br[n++] = x[a++];
		} else if (a >= na || y[b].addr < x[a].addr) {
			out->br[n++] = y[b++];
		} else {
			out->br[n++] = (sl_branch){x[a].addr, x[a].count + y[b].count};
			a++;
			b++;
		}
	}
	out->n_br = n;
}

void sl_sim_interval_run(const sl_sim *s, sl_sim_ctx *c, size_t index, double ghz,
			 double volts, sl_sim_interval *out)
{
	const sl_sim_workload *w = s->w;
	size_t cur = w->phase_of[index % w->n_intervals];
	size_t prev = index ? w->phase_of[(index - 1) % w->n_intervals] : cur;
	/* A gradual transition (the new phase's `ramp` R > 1): the first R
	 * intervals of its instance mix the previous instance's phase, the
	 * new phase's share growing as (j + s) / R in the j-th of them. */
	size_t ramp = (size_t)w->phases[cur].p[SL_P_RAMP], j = 0;
	if (ramp > 1 && prev == cur) {
		while (j + 1 < ramp && j < index &&
		       w->phase_of[(index - j - 1) % w->n_intervals] == cur)
			j++;
		if (j < ramp && j < index)
			prev = w->phase_of[(index - j - 1) % w->n_intervals];
		else
			j = 0;
		if (prev == cur)
			j = 0;
	}
	drawn d[2];
	double q[SL_Q_N] = {0};

	gsl_rng_set(c->r, (unsigned long)sl_sim_key_hash(s->seed, SL_STREAM_INTERVAL,
							   index, 0, 0));
	uint64_t n = w->interval_instructions + gsl_rng_uniform_int(c->r, SKID);
	/* the share of the new phase when an instance starts mid-interval */
	double share = gsl_rng_uniform_pos(c->r);
	if (ramp > 1 && prev != cur)
		share = ((double)j + share) / (double)ramp;
	uint64_t n_prev = prev == cur ? 0 : (uint64_t)llround((double)n * (1 - share));

	out->n_parts = 0;
	if (n_prev)
		draw_part(s, c, prev, n_prev, index, out->n_parts++, &d[0]);
	draw_part(s, c, cur, n - n_prev, index, out->n_parts, &d[out->n_parts]);
	out->n_parts++;

	out->t = out->e = 0;
	for (int k = 0; k < out->n_parts; k++) {
		cost_part(s, &d[k], ghz, volts, &out->part[k], q);
		out->t += out->part[k].seconds;
		out->e += out->part[k].seconds * out->part[k].watts;
	}
	/* The other agents on the socket read DRAM too, and the memory
	 * controller counts them: dram_background_gbps on average, bursty
	 * (exponentially distributed per interval, its own random stream) */
	const sl_sim_truth *t = &s->m->truth;
	if (t->dram_background_gbps > 0) {
		double u = (double)(sl_sim_key_hash(s->seed, SL_STREAM_BACKGROUND, index, 0, 0) >> 11) *
			   0x1.0p-53;
		q[SL_Q_DRAM_READS] += -log1p(-u) * t->dram_background_gbps * 1e9 /
				      t->line_bytes * out->t;
	}
	for (int k = 0; k < SL_Q_N; k++)
		out->q[k] = (uint64_t)llround(q[k]);
	out->phase = n_prev * 2 > n ? prev : cur;
	out->label = w->phases[out->phase].name;
	merge(c, out->n_parts, out);
}

void sl_sim_interval_free(sl_sim_interval *iv)
{
	free(iv->br);
	memset(iv, 0, sizeof *iv);
}

void sl_sim_interval_copy(sl_sim_interval *dst, const sl_sim_interval *src)
{
	sl_branch *br = dst->br;
	size_t cap = dst->cap_br;
	*dst = *src;
	dst->br = br;
	dst->cap_br = cap;
	reserve(dst, src->n_br);
	memcpy(dst->br, src->br, src->n_br * sizeof *src->br);
}
