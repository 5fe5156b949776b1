/*
 * A whole simulated run: every interval through the physics, the trace
 * through the sleuth-trace/1 writer, the meter's power log and the idle
 * log, all committed together so they appear whole or not at all.
 *
 * With the meter in use, an interval's energy is known only once the meter
 * has sampled past its end, so intervals wait in a short queue until then.
 */
#include "sleuth/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim-int.h"
#include "util/term.h"

typedef struct queue {
	sl_sim_interval *iv;
	size_t head, n, cap;
} queue;

/* Intervals leave from the head; once half the array is spent, the live
 * ones move to the front (swapped, so their buffers are reused). */
static sl_sim_interval *queue_push(queue *q)
{
	if (q->head && q->head * 2 >= q->n) {
		for (size_t i = q->head; i < q->n; i++) {
			sl_sim_interval t = q->iv[i - q->head];
			q->iv[i - q->head] = q->iv[i];
			q->iv[i] = t;
		}
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 8;
		q->iv = sl_xreallocarray(q->iv, cap, sizeof *q->iv);
		memset(q->iv + q->cap, 0, (cap - q->cap) * sizeof *q->iv);
		q->cap = cap;
	}
	return &q->iv[q->n++];
}

static void queue_free(queue *q)
{
	for (size_t i = 0; i < q->cap; i++)
		sl_sim_interval_free(&q->iv[i]);
	free(q->iv);
}

struct run {
	const sl_sim *s;
	const sl_sim_run_opts *o;
	sl_trace_writer *tw;
	sl_trace_interval ti;
	uint64_t *n;
	size_t emitted;
	sl_sim_totals sum;
};

static int emit(struct run *r, const sl_sim_interval *iv, double e)
{
	const sl_sim_machine *m = r->s->m;
	for (size_t k = 0; k < m->n_events; k++)
		r->n[k] = iv->q[m->events[k].qty];
	r->ti.t = iv->t;
	r->ti.n = r->n;
	r->ti.br = iv->br;
	r->ti.n_br = iv->n_br;
	r->ti.has_e = 1;
	r->ti.e = e;
	r->sum.time_s += iv->t;
	r->sum.energy_j += e;
	r->ti.label = (char *)iv->label;
	/* intervals are emitted in order, so the count so far is the index */
	if (r->o->pstate_of)
		return sl_trace_write_at(r->tw, &r->ti, m->ghz[r->o->pstate_of[r->emitted++]]);
	return sl_trace_write(r->tw, &r->ti);
}

/* Writes the queued intervals whose meter energy is known. */
static int drain(struct run *r, sl_meter *mt, queue *q)
{
	double e;
	while (q->head < q->n && sl_meter_pop(mt, &e)) {
		sl_sim_interval *iv = &q->iv[q->head++];
		if (emit(r, iv, r->o->truth ? iv->e : e) < 0)
			return -1;
	}
	return 0;
}

/*
 * A frequency switch into interval i (docs/simulator.md, "Schedules"): the
 * core is halted for switch_s -- no cycles or instructions counted -- at the
 * higher of the true mean powers of the intervals on either side (sleuth
 * schedule's rule, with the neighbouring intervals' powers for its
 * instances' mean powers: the run is a stream).  The switch belongs to the interval it
 * enters: its time and energy are added to that interval's t and e.
 * Returns the switch's power, 0 when there is none.
 */
static double switch_into(const sl_sim_run_opts *o, size_t i, double prev_w,
			  sl_sim_interval *iv)
{
	if (!o->pstate_of || !i || !(o->switch_s > 0) || o->pstate_of[i] == o->pstate_of[i - 1])
		return 0;
	double w = iv->e / iv->t;
	if (prev_w > w)
		w = prev_w;
	iv->t += o->switch_s;
	iv->e += o->switch_s * w;
	return w;
}

static int simulate(struct run *r, double ghz, double volts, FILE *plog)
{
	const sl_sim *s = r->s;
	const int *plan = r->o->pstate_of;
	int use_meter = !r->o->truth || plog;
	sl_sim_ctx *c = sl_sim_ctx_new(s);
	sl_sim_interval iv = {0};
	sl_meter mt;
	queue q = {0};
	double clock = 0, prev_w = 0;
	int rc = 0;

	sl_meter_init(&mt, s->m->truth.meter_hz, s->m->truth.meter_noise_w, s->seed, plog);
	sl_progress pg;
	sl_progress_start(&pg, s->n_intervals, "simulating");
	for (size_t i = 0; i < s->n_intervals && !rc; i++) {
		sl_progress_update(&pg, i);
		if (plan) {
			ghz = s->m->ghz[plan[i]];
			volts = s->m->volts[plan[i]];
		}
		sl_sim_interval_run(s, c, i, ghz, volts, &iv);
		double own_w = iv.e / iv.t;
		double switch_w = switch_into(r->o, i, prev_w, &iv);
		prev_w = own_w;
		r->sum.switches += plan && i && plan[i] != plan[i - 1];
		if (!use_meter) {
			rc = emit(r, &iv, iv.e);
			continue;
		}
		if (switch_w > 0)
			sl_meter_add(&mt, r->o->switch_s, switch_w);
		for (int k = 0; k < iv.n_parts; k++)
			sl_meter_add(&mt, iv.part[k].seconds, iv.part[k].watts);
		sl_meter_interval(&mt, clock, clock + iv.t);
		clock += iv.t;
		sl_sim_interval_copy(queue_push(&q), &iv);
		sl_meter_advance(&mt, 0);
		rc = drain(r, &mt, &q);
	}
	if (use_meter && !rc) {
		sl_meter_advance(&mt, 1);
		rc = drain(r, &mt, &q);
	}
	sl_progress_finish(&pg);
	sl_meter_free(&mt);
	queue_free(&q);
	sl_sim_interval_free(&iv);
	sl_sim_ctx_free(c);
	return rc;
}

/* Commits the outputs in order; if a later one fails, the earlier ones are
 * removed again so that none of them is left behind. */
static int commit_all(struct run *r, sl_afile *plog, sl_afile *ilog)
{
	const char *done[2] = {NULL, NULL};
	size_t nd = 0;
	sl_trace_writer *tw = r->tw;
	r->tw = NULL;
	if (sl_trace_commit(tw) < 0)
		goto fail;
	done[nd++] = r->o->trace_path;
	if (plog->f) {
		if (sl_afile_commit(plog) < 0)
			goto fail;
		done[nd++] = r->o->power_log;
	}
	if (ilog->f && sl_afile_commit(ilog) < 0)
		goto fail;
	return 0;
fail:
	sl_afile_abort(plog);
	sl_afile_abort(ilog);
	for (size_t i = 0; i < nd; i++)
		if (strcmp(done[i], "-"))
			unlink(done[i]);
	return -1;
}

int sl_sim_run(const sl_sim *s, const sl_sim_run_opts *o)
{
	const sl_sim_machine *m = s->m;
	int ps = sl_sim_machine_pstate(m, o->ghz);
	sl_trace_header h = {0};
	sl_afile plog = {0}, ilog = {0};
	struct run r;
	FILE *pf = NULL;

	if (ps < 0)
		return -1;
	memset(&r, 0, sizeof r);
	r.s = s;
	r.o = o;
	h.workload = s->w->name;
	h.frequency_ghz = m->ghz[ps];
	h.interval_instructions = s->w->interval_instructions;
	h.n_events = m->n_events;
	h.events = sl_xcalloc(m->n_events, sizeof *h.events);
	for (size_t k = 0; k < m->n_events; k++)
		h.events[k] = m->events[k].name;
	r.n = sl_xcalloc(m->n_events, sizeof *r.n);

	if (o->power_log) {
		if (!(pf = sl_afile_open(&plog, o->power_log)))
			goto fail;
		char at[64];
		if (o->pstate_of)
			snprintf(at, sizeof at, "at each interval's own frequency");
		else
			snprintf(at, sizeof at, "at %g GHz", m->ghz[ps]);
		fprintf(pf, "# power meter of simulated %s running %s %s (seed %llu): "
			    "%g Hz, noise sigma %g W\n", m->name, s->w->name, at,
			(unsigned long long)s->seed, m->truth.meter_hz, m->truth.meter_noise_w);
		fprintf(pf, "time_s,power_w\n");
	}
	if (o->idle_log) {
		FILE *f = sl_afile_open(&ilog, o->idle_log);
		if (!f)
			goto fail;
		sl_sim_idle_rows(m, s->seed, f);
	}
	if (!(r.tw = sl_trace_create(o->trace_path, &h)))
		goto fail;
	if (simulate(&r, m->ghz[ps], m->volts[ps], pf) < 0)
		goto fail;
	if (commit_all(&r, &plog, &ilog) < 0)
		goto fail;
	if (o->totals)
		*o->totals = r.sum;
	free(h.events);
	free(r.n);
	return 0;
fail:
	if (r.tw)
		sl_trace_abort(r.tw);
	sl_afile_abort(&plog);
	sl_afile_abort(&ilog);
	free(h.events);
	free(r.n);
	return -1;
}
