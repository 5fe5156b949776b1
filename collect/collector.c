/*
 * The collector loop (see sleuth/collector.h): identical for replay, perf
 * and timer, so that what is measured on a simulated trace is what runs on
 * hardware.  It owns the phase machinery (clusters, predictor, multiplexer)
 * and the per-phase address histograms; the backend only measures.
 */
#include "sleuth/collector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locations.h"
#include "sleuth/common.h"
#include "collect/symbols.h"
#include "util/term.h"

#define DEFAULT_TOP 5
#define DEFAULT_BV_SEED 0x5eed5eedULL

void sl_collect_opts_init(sl_collect_opts *o)
{
	memset(o, 0, sizeof *o);
	o->dims = SL_RUN_DIMS_DEFAULT;
	o->margin = SL_THRESHOLD_MARGIN;
	o->predictor = SL_PRED_DEFAULT;
	o->bv_seed = DEFAULT_BV_SEED;
	o->top = DEFAULT_TOP;
}

typedef struct loop {
	sl_backend *b;
	sl_profile *p;
	sl_cluster *cl;
	sl_predictor *pred;
	sl_mux *mux;
	size_t *sel, *measured;
	double *vec;
	unsigned dims;
	uint64_t bv_seed;
	double fixed, margin; /* fixed threshold, or 0 and the noise margin */
	sl_behave *bh;        /* behaviour split of code phases, or NULL */
	size_t *pinned, n_pinned; /* event indices counted in every interval:
				     the pinned ones, then the uncore ones
				     (the behaviour features) */
	double *feat;
	size_t nf;            /* behaviour features: CPI, the pinned events,
				 the sampled event's count */
	size_t sample_col;    /* the profile's column of the sampled event's
				 count (b->sample_event), or SIZE_MAX */
	sl_addrhist *hist;    /* per phase */
	size_t n_hist;
	size_t iv_cap;
	int any_energy;
	uint32_t last_code;   /* the code phase of the last interval with samples */
	sl_code_stat *code;   /* per code phase (merge_codes) */
	size_t n_code;
	size_t *bseq;         /* per interval: its number in the behaviour
				 split's sequence, or SIZE_MAX if not given */
	size_t n_bseq;        /* intervals given to the split */
	size_t cur_bseq;      /* the interval being classified's */
} loop;

/*
 * The noise-aware threshold for an interval of n samples: the margin over
 * the worst-case sampling noise (sl_threshold_for), but never above 1.0.
 * Vectors are L1-normalised, so distance < 1 means more than half of the
 * interval's samples fall where the phase's do.  With few samples (the
 * timer backend's ~20 per interval) the worst-case bound exceeds 2, and an
 * uncapped (or 2 - margin) threshold lets a half-and-half interval at a
 * phase boundary, or two hot addresses of different code hashed into one
 * bin, pull disjoint code into one phase.  The cap costs nothing on the
 * simulated suite (docs/phases.md).
 */
#define NOISE_THRESHOLD_CAP SL_THRESHOLD_CAP

static double noise_bound(const loop *L, size_t n)
{
	return L->margin + sl_threshold_for(L->dims, n) - SL_THRESHOLD_MARGIN;
}

static double noise_threshold(const loop *L, size_t n)
{
	return SL_MIN(noise_bound(L, n), NOISE_THRESHOLD_CAP);
}

/*
 * The sampled event's count in an interval: the sampler overflows every
 * sample_period of its event and the countdown runs on across intervals,
 * so the interval's samples times the period is its count to within one
 * period (per thread) -- free, in every interval, beside the counters.
 * Not where samples were lost or the kernel throttled the sampler: the
 * samples then undercount (docs/models.md, "The sampled event's count").
 */
static uint64_t sample_count(const sl_backend *b, const sl_obs *o)
{
	if (o->lost || o->throttled || !o->instructions)
		return SL_MISSING;
	return (uint64_t)o->n_samples * b->sample_period;
}

/* The phase of an interval.  An interval without samples (a short last
 * interval, a target blocked in the kernel) says nothing about its code:
 * it is given the phase the predictor expected. */
static uint32_t classify(loop *L, const sl_obs *o, uint32_t predicted,
			 sl_collect_stats *st)
{
	L->cur_bseq = SIZE_MAX;
	if (!o->n_samples) {
		st->empty++;
		return predicted;
	}
	sl_bv_build(o->samples, o->n_samples, L->dims, L->bv_seed, L->vec);
	if (!L->fixed) {
		sl_cluster_set_threshold(L->cl, noise_threshold(L, o->n_samples));
		/* Few samples an interval (the cap below the worst-case
		 * noise): the noise of each phase's own distribution is the
		 * floor, or one code's intervals found copy after copy
		 * (docs/phases.md, "Few samples an interval"). */
		int capped = noise_bound(L, o->n_samples) > NOISE_THRESHOLD_CAP;
		sl_cluster_set_noise_floor(L->cl, capped ? (double)o->n_samples : 0, L->margin);
	}
	uint32_t code = sl_cluster_assign(L->cl, L->vec);
	if (!L->bh)
		return code;
	if (code >= L->n_code) {
		size_t n = sl_cluster_count(L->cl);
		L->code = sl_xreallocarray(L->code, n, sizeof *L->code);
		memset(L->code + L->n_code, 0, (n - L->n_code) * sizeof *L->code);
		L->n_code = n;
	}
	sl_code_stat *cs = &L->code[code];
	cs->samples += (double)o->n_samples;
	cs->runs += !cs->n || code != L->last_code;
	cs->n++;
	/* A dithered interval ran at another clock: its CPI and cycle counts
	 * are not the run's behaviour.  Running the code of the interval
	 * before it, it keeps that one's phase; else it joins its code
	 * phase's groups on no behaviour at all. */
	int other = o->ghz > 0 && fabs(o->ghz - L->b->freq_ghz) >= SL_SAME_GHZ;
	if (other && L->p->n_intervals && code == L->last_code)
		return L->p->iv[L->p->n_intervals - 1].phase;
	L->last_code = code;
	/* what the interval does (docs/phases.md): CPI, the pinned events,
	 * and the branches it retired per instruction -- one code on other
	 * data may leave its loops at other points ("The branches per
	 * instruction as a behaviour feature") */
	sl_behave_features(o->cycles, o->instructions, o->counts, L->pinned, L->n_pinned,
			   L->feat);
	if (L->nf > 1 + L->n_pinned) {
		uint64_t c = sample_count(L->b, o);
		L->feat[1 + L->n_pinned] =
			c != SL_MISSING ? sl_behave_rate((double)c, (double)o->instructions) : NAN;
	}
	for (size_t k = 0; other && k < L->nf; k++)
		L->feat[k] = NAN;
	L->cur_bseq = L->n_bseq++;
	return sl_behave_assign(L->bh, code, L->feat);
}

/* Code phases that are one code (sl_code_merge): a phase whose code
 * drifts past the threshold founds a second code phase, and the two then
 * share its intervals (docs/phases.md, "Code that drifts"); so may an
 * early interval whose sampling noise put it past the capped threshold
 * ("A copy founded by noise").  At the end of the run the younger is the
 * older's code, and their behaviour groups merge where they behave alike.
 * Only with the noise-aware threshold.  A younger code phase met in runs
 * shorter than SL_BEHAVE_MIN_RUN on average holds the mixed intervals of a
 * transition, which the models fit better apart: it merges only when even
 * the two centroids cannot be told apart.  Each code phase is compared
 * with the older ones not merged themselves, so a phase between two
 * others chains nothing. */
static void merge_codes(loop *L)
{
	size_t n = L->fixed ? 0 : SL_MIN(sl_cluster_count(L->cl), L->n_code);
	uint32_t *root = sl_xcalloc(n + 1, sizeof *root);
	sl_code_merge(L->cl, L->code, n, NOISE_THRESHOLD_CAP - L->margin, root);
	for (size_t j = 0; j < n; j++)
		if (root[j] != j)
			sl_behave_merge_code(L->bh, (uint32_t)j, root[j]);
	free(root);
}

/* Phase `phase`'s address histogram, the array grown (zero-filled) to
 * hold it. */
static sl_addrhist *hist_of(loop *L, uint32_t phase)
{
	if (phase >= L->n_hist) {
		L->hist = sl_xreallocarray(L->hist, phase + 1, sizeof *L->hist);
		memset(L->hist + L->n_hist, 0, (phase + 1 - L->n_hist) * sizeof *L->hist);
		L->n_hist = phase + 1;
	}
	return &L->hist[phase];
}

/* Behaviour groups that converged: every interval and address histogram
 * of a merged phase goes to the phase it was merged into. */
static void apply_merges(loop *L)
{
	if (!L->bh)
		return;
	merge_codes(L);
	sl_behave_finish(L->bh);
	sl_profile *p = L->p;
	/* An interval the split was given goes where sl_behave_finish put it;
	 * one it was not (no samples, or dithered: it took the phase of the
	 * interval before or the predicted one) follows the interval before
	 * if it had its phase, else its phase's survivor. */
	uint32_t prev = UINT32_MAX;
	for (size_t i = 0; i < p->n_intervals; i++) {
		uint32_t ph = p->iv[i].phase;
		if (L->bseq[i] != SIZE_MAX)
			p->iv[i].phase = sl_behave_interval(L->bh, L->bseq[i]);
		else if (i && ph == prev)
			p->iv[i].phase = p->iv[i - 1].phase;
		else
			p->iv[i].phase = sl_behave_final(L->bh, ph);
		prev = ph;
	}
	for (size_t ph = 0; ph < L->n_hist; ph++) {
		uint32_t to = sl_behave_final(L->bh, (uint32_t)ph);
		sl_addrhist *h = &L->hist[ph];
		if (to == ph || to >= L->n_hist)
			continue;
		sl_addrhist_add_all(&L->hist[to], h);
		sl_addrhist_free(h);
		memset(h, 0, sizeof *h);
	}
	/* A phase split off another at the end of the run runs that one's
	 * code, whose samples it was given: its locations are that phase's. */
	size_t n_ph = L->n_hist;
	for (size_t i = 0; i < p->n_intervals; i++)
		n_ph = SL_MAX(n_ph, (size_t)p->iv[i].phase + 1);
	for (size_t ph = 0; ph < n_ph; ph++) {
		uint32_t from = sl_behave_origin(L->bh, (uint32_t)ph);
		if (from == ph || from >= L->n_hist)
			continue;
		sl_addrhist *to = hist_of(L, (uint32_t)ph); /* may move L->hist */
		sl_addrhist_add_all(to, &L->hist[from]);
	}
}

/* Which phases run one code (behaviour phases of one code phase, or of
 * code phases merged at the end): each phase with intervals goes to the
 * lowest phase with intervals of its code; none recorded when every
 * phase's code is its own. */
static void same_code(loop *L)
{
	sl_profile *p = L->p;
	size_t n = p->n_phases;
	if (!L->bh || !n)
		return;
	unsigned char *used = sl_xcalloc(n, 1);
	for (size_t i = 0; i < p->n_intervals; i++)
		used[p->iv[i].phase] = 1;
	uint32_t *sc = sl_xcalloc(n, sizeof *sc);
	int any = 0;
	for (size_t k = 0; k < n; k++) {
		sc[k] = (uint32_t)k;
		uint32_t c = sl_behave_code(L->bh, (uint32_t)k);
		for (size_t j = 0; used[k] && c != UINT32_MAX && j < k; j++)
			if (used[j] && sl_behave_code(L->bh, (uint32_t)j) == c) {
				sc[k] = (uint32_t)j;
				any = 1;
				break;
			}
	}
	free(used);
	free(p->same_code);
	p->same_code = any ? sc : NULL;
	if (!any)
		free(sc);
}

/* The profile's events: the backend's, then the sampled event's count
 * (unless the backend counts that event itself or counts nothing). */
static void profile_events(loop *L)
{
	sl_profile *p = L->p;
	const sl_backend *b = L->b;
	L->sample_col = SIZE_MAX;
	int extra = b->has_counts && b->sample_event && b->sample_period;
	for (size_t i = 0; extra && i < b->n_events; i++)
		extra = strcmp(b->events[i], b->sample_event) != 0;
	p->n_events = b->n_events + (size_t)extra;
	p->events = sl_xcalloc(p->n_events ? p->n_events : 1, sizeof *p->events);
	for (size_t i = 0; i < b->n_events; i++)
		p->events[i] = sl_xstrdup(b->events[i]);
	if (extra) {
		L->sample_col = b->n_events;
		p->events[L->sample_col] = sl_xstrdup(b->sample_event);
		free(p->sample_event);
		p->sample_event = sl_xstrdup(b->sample_event);
		p->sample_period = b->sample_period;
	}
}

/* Append interval `o`, of `phase`, to the profile. */
static void record(loop *L, const sl_obs *o, uint32_t phase)
{
	sl_profile *p = L->p;
	size_t i = p->n_intervals;
	if (i >= L->iv_cap) {
		L->iv_cap = L->iv_cap ? 2 * L->iv_cap : 1024;
		p->iv = sl_xreallocarray(p->iv, L->iv_cap, sizeof *p->iv);
		p->counts = sl_xreallocarray(p->counts, L->iv_cap * (p->n_events ? p->n_events : 1),
					     sizeof *p->counts);
		if (p->temp_c)
			p->temp_c = sl_xreallocarray(p->temp_c, L->iv_cap, sizeof *p->temp_c);
		if (p->ghz)
			p->ghz = sl_xreallocarray(p->ghz, L->iv_cap, sizeof *p->ghz);
		L->bseq = sl_xreallocarray(L->bseq, L->iv_cap, sizeof *L->bseq);
	}
	L->bseq[i] = L->cur_bseq;
	p->iv[i] = (sl_prof_interval){
		.phase = phase,
		.start_s = o->start_s,
		.time_s = o->time_s,
		.cycles = o->cycles,
		.instructions = o->instructions,
		.energy_j = isfinite(o->energy_j) ? o->energy_j : NAN,
	};
	if (o->has_temp && !p->temp_c) { /* the first temperature: the rest unknown */
		p->temp_c = sl_xmalloc(L->iv_cap * sizeof *p->temp_c);
		for (size_t j = 0; j < i; j++)
			p->temp_c[j] = NAN;
	}
	if (p->temp_c)
		p->temp_c[i] = o->has_temp ? o->temp_c : NAN;
	/* the first interval at another frequency (a dithered run): the ones
	 * before ran at the run's */
	double f0 = L->b->freq_ghz;
	if (o->ghz > 0 && !p->ghz && fabs(o->ghz - f0) >= SL_SAME_GHZ) {
		p->ghz = sl_xmalloc(L->iv_cap * sizeof *p->ghz);
		for (size_t j = 0; j < i; j++)
			p->ghz[j] = f0;
	}
	if (p->ghz)
		p->ghz[i] = o->ghz > 0 ? o->ghz : f0;
	for (size_t k = 0; k < L->b->n_events; k++)
		p->counts[i * p->n_events + k] = o->counts ? o->counts[k] : SL_MISSING;
	if (L->sample_col != SIZE_MAX)
		p->counts[i * p->n_events + L->sample_col] = sample_count(L->b, o);
	if (isfinite(o->energy_j))
		L->any_energy = 1;
	p->n_intervals++;

	sl_addrhist *h = hist_of(L, phase);
	for (size_t s = 0; s < o->n_samples; s++)
		sl_addrhist_add(h, o->samples[s], 1);
}

/* Of the events programmed, those the backend really counted. */
static size_t measured(loop *L, const sl_obs *o, size_t n_sel)
{
	size_t n = 0;
	for (size_t i = 0; i < n_sel; i++)
		if (o->counts && o->counts[L->sel[i]] != SL_MISSING)
			L->measured[n++] = L->sel[i];
	return n;
}

static void fill_metadata(loop *L, const sl_collect_opts *o, const sl_collect_stats *st)
{
	sl_profile *p = L->p;
	sl_backend *b = L->b;
	free(p->backend);
	p->backend = sl_xstrdup(b->name);
	if (b->host_cpu && !p->host_cpu)
		p->host_cpu = sl_xstrdup(b->host_cpu);
	if (b->workload && !p->workload)
		p->workload = sl_xstrdup(b->workload);
	if (L->any_energy && b->energy_source && !p->energy_source)
		p->energy_source = sl_xstrdup(b->energy_source);
	char **hw[] = {&p->pmu, &p->kernel, &p->sampling, &p->counter_plan};
	const char *bhw[] = {b->pmu, b->kernel, b->sampling, b->counter_plan};
	for (size_t i = 0; i < SL_ARRAY_LEN(hw); i++)
		if (bhw[i] && !*hw[i])
			*hw[i] = sl_xstrdup(bhw[i]);
	if (b->note)
		sl_profile_add_note(p, "%s", b->note);
	p->throttles = b->throttles;
	p->merged_intervals = b->merged_intervals;
	p->scaled_intervals = b->scaled_intervals;
	p->freq_ghz = b->freq_ghz;
	p->interval_instructions = b->interval_instructions;
	p->interval_s = b->interval_s;
	p->has_counts = b->has_counts;
	p->samples = st->samples;
	p->lost_samples = st->lost;
	free(p->predictor);
	p->predictor = sl_xstrdup(sl_pred_name(o->predictor));
	p->predictor_accuracy =
		st->predictions ? (double)st->correct / (double)st->predictions : NAN;
	p->bv_dims = L->dims;
	p->threshold = L->fixed;
	p->threshold_margin = L->fixed ? 0 : L->margin;
}

/* Every phase gets its code locations; a phase can exist without samples
 * (only empty intervals), then it has none. */
static void name_phases(loop *L, size_t top, sl_resolve_fn resolve, void *ctx)
{
	sl_profile *p = L->p;
	size_t n = sl_cluster_count(L->cl);
	for (size_t i = 0; i < p->n_intervals; i++)
		if (p->iv[i].phase >= n)
			n = p->iv[i].phase + 1;
	p->phases = sl_xcalloc(n, sizeof *p->phases);
	p->n_phases = n;
	for (size_t k = 0; k < n; k++) {
		p->phases[k].id = (uint32_t)k;
		if (k < L->n_hist)
			sl_locations_resolve(&L->hist[k], top, resolve, ctx, &p->phases[k]);
	}
}

static int sym_resolve(void *ctx, uint64_t addr, const char **func, const char **file,
		       int *line)
{
	return sl_sym_lookup(ctx, addr, func, file, line);
}

/* A file without source lines holding at least this share of the samples is
 * named in the profile's note; the note is written when such files hold
 * NODEBUG_NOTE of them together. */
#define NODEBUG_FILE 0.05
#define NODEBUG_NOTE 0.10

/*
 * Say in the profile when much of the run is in code without debug
 * information (Debian's programs and libraries are stripped): its phases
 * are named by function symbols or file+offset, and no source line.  Which
 * files, their share of the samples, and the fix, once, where `phases` and
 * the report show notes.
 */
static void note_nodebug(const loop *L, sl_symbolizer *sym)
{
	struct nodebug_file { const char *name; uint64_t n; } f[8];
	size_t nf = 0;
	uint64_t total = 0, none = 0;
	for (size_t k = 0; k < L->n_hist; k++) {
		const sl_addrhist *h = &L->hist[k];
		total += h->total;
		for (size_t i = 0; i < h->cap; i++) {
			const char *func, *file, *mod;
			int line;
			if (!h->count[i] ||
			    (sl_sym_lookup(sym, h->addr[i], &func, &file, &line) == 0 && file) ||
			    !(mod = sl_sym_module(sym, h->addr[i])))
				continue;
			size_t j = 0;
			while (j < nf && strcmp(f[j].name, mod))
				j++;
			if (j == nf && nf < sizeof f / sizeof *f)
				f[nf++] = (struct nodebug_file){mod, 0};
			if (j < nf)
				f[j].n += h->count[i];
		}
	}
	char list[512] = "";
	size_t len = 0;
	for (size_t j = 0; j < nf; j++) {
		if ((double)f[j].n < NODEBUG_FILE * (double)total)
			continue;
		none += f[j].n;
		if (len < sizeof list)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %.0f%%",
						len ? ", " : "", f[j].name,
						100.0 * (double)f[j].n / (double)total);
	}
	if (!total || (double)none < NODEBUG_NOTE * (double)total)
		return;
	sl_profile_add_note(L->p, "no debug information (no source lines) in the code of "
			    "%.0f%% of the samples (%s): phases are named by function symbol "
			    "or file+0xOFFSET of the function; install their debug symbols "
			    "(a Debian package's -dbgsym; a program of yours: build with -g) "
			    "or set DEBUGINFOD_URLS, and profile again", 100.0 * (double)none / (double)total, list);
}

/* Name every phase's code: with the executable mappings a live backend saw,
 * through the symbolizer; without (replay), by address. */
static void locate(loop *L, size_t top)
{
	sl_symbolizer *sym = NULL;
	if (L->b->n_maps) {
		sym = sl_sym_new(L->b->maps, L->b->n_maps);
		if (!sym)
			sl_profile_add_note(L->p, "code locations are addresses: %s",
					    sl_error());
	}
	name_phases(L, top, sym ? sym_resolve : NULL, sym);
	if (sym) {
		note_nodebug(L, sym);
		sl_sym_free(sym);
	}
}

/* The backend's events that an uncore PMU counts beside the core's
 * counters (b->uncore, found here if the backend did not): programmed in
 * every interval, so behaviour features too, after the pinned ones (the
 * memory controller's reads tell the same code on data that streams from
 * DRAM from the same code on data in the caches where the core's pinned
 * events see alike stalls: docs/phases.md); how many. */
static size_t uncore_events(loop *L)
{
	sl_backend *b = L->b;
	if (!b->uncore)
		sl_backend_find_uncore(b);
	size_t n = 0, f = 0;
	size_t *idx = sl_xcalloc(b->n_events + 1, sizeof *idx);
	L->pinned = sl_xreallocarray(L->pinned, L->n_pinned + b->n_events + 1, sizeof *L->pinned);
	for (size_t e = 0; e < b->n_events; e++) {
		if (!b->uncore[e])
			continue;
		idx[n++] = e;
		int pinned = 0; /* --pin named it too: a feature already */
		for (size_t j = 0; j < L->n_pinned; j++)
			pinned |= L->pinned[j] == e;
		if (!pinned)
			L->pinned[L->n_pinned + f++] = e;
	}
	sl_mux_uncore(L->mux, idx, n);
	L->n_pinned += f;
	free(idx);
	return n;
}

/* Pin the events named in o->pin that the backend offers. */
static void pin_events(loop *L, const sl_collect_opts *o)
{
	sl_backend *b = L->b;
	size_t *idx = sl_xcalloc(o->n_pin + 1, sizeof *idx), n = 0;
	for (size_t i = 0; i < o->n_pin; i++)
		for (size_t e = 0; e < b->n_events; e++)
			if (o->pin[i] && !strcmp(o->pin[i], b->events[e]))
				idx[n++] = e, e = b->n_events;
	sl_mux_pin(L->mux, idx, n);
	/* the behaviour features: whenever pinned or with counters for all */
	L->pinned = idx;
	L->n_pinned = n;
}

static void loop_free(loop *L)
{
	sl_cluster_free(L->cl);
	sl_pred_free(L->pred);
	sl_mux_free(L->mux);
	sl_behave_free(L->bh);
	free(L->bseq);
	free(L->code);
	free(L->pinned);
	free(L->feat);
	free(L->sel);
	free(L->measured);
	free(L->vec);
	for (size_t i = 0; i < L->n_hist; i++)
		sl_addrhist_free(&L->hist[i]);
	free(L->hist);
}

int sl_collect(sl_backend *b, const sl_collect_opts *o, sl_profile *p,
	       sl_collect_stats *st)
{
	loop L = {.b = b, .p = p};
	int rc = -1;
	memset(st, 0, sizeof *st);
	L.dims = o->dims ? o->dims : SL_RUN_DIMS_DEFAULT;
	L.bv_seed = o->bv_seed;
	L.fixed = o->threshold > 0 ? o->threshold : 0;
	L.margin = o->margin > 0 ? o->margin : SL_THRESHOLD_MARGIN;
	L.cl = sl_cluster_new(L.dims, L.fixed ? L.fixed : SL_THRESHOLD_DEFAULT);
	L.pred = sl_pred_new(o->predictor);
	size_t k = b->has_counts ? SL_MIN(b->k, b->n_events) : 0;
	L.mux = sl_mux_new(b->n_events, k);
	pin_events(&L, o);
	size_t n_uncore = uncore_events(&L);
	if (o->behave >= 0 && b->has_counts) {
		L.nf = 1 + L.n_pinned + (b->sample_event && b->sample_period);
		L.bh = sl_behave_new(L.nf, o->behave > 0 ? o->behave : SL_BEHAVE_DEFAULT);
		L.feat = sl_xcalloc(L.nf + 1, sizeof *L.feat);
	}
	L.sel = sl_xcalloc(k + n_uncore + 1, sizeof *L.sel);
	L.measured = sl_xcalloc(k + n_uncore + 1, sizeof *L.measured);
	L.vec = sl_xcalloc(L.dims, sizeof *L.vec);

	profile_events(&L);

	/* Progress only where the run's length is known (a replayed trace;
	 * sl_progress stays silent on a zero total): a live program's own
	 * output owns the terminal. */
	sl_progress pg;
	uint64_t total = 0;
	if (b->progress)
		b->progress(b, &total);
	sl_progress_start(&pg, total, "replaying");
	pg.counts = 0; /* bytes of a trace mean nothing to a reader */

	uint32_t predicted = sl_pred_next(L.pred);
	for (;;) {
		size_t n_sel = k ? sl_mux_select(L.mux, predicted, L.sel) : 0;
		if (b->program(b, L.sel, n_sel) < 0)
			goto out;
		sl_obs ob;
		int r = b->next(b, &ob);
		if (r < 0)
			goto out;
		if (r == 0)
			break;
		uint32_t phase = classify(&L, &ob, predicted, st);
		if (p->n_intervals) {
			st->predictions++;
			st->correct += phase == predicted;
		}
		record(&L, &ob, phase);
		st->samples += ob.n_samples;
		st->lost += ob.lost;
		if (k)
			sl_mux_commit(L.mux, phase, L.measured, measured(&L, &ob, n_sel));
		sl_pred_update(L.pred, phase);
		predicted = sl_pred_next(L.pred);
		if (pg.out)
			sl_progress_update(&pg, b->progress(b, &total));
	}
	apply_merges(&L);
	fill_metadata(&L, o, st);
	locate(&L, o->top ? o->top : DEFAULT_TOP);
	same_code(&L);
	rc = 0;
out:
	sl_progress_finish(&pg);
	loop_free(&L);
	return rc;
}
