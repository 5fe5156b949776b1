/*
 * The sl_backend face of a live session: turns the engine's intervals into
 * sl_obs, maps the collector's event indices onto the group's members, and
 * handles exit status and Ctrl-C.  One piece of code for perf and timer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "sleuth/common.h"
#include "sleuth/profile.h"

typedef struct live {
	sl_session *s;
	int has_counts;
	uint64_t *counts;   /* n_events, handed out in sl_obs */
	char *on;           /* programmed now */
	char *on_next;      /* as asked by the last program() */
	/* per event: its group member (1 + its rank among the core events)
	 * or, for an uncore event (b->uncore), its rank among those */
	size_t *slot;
	size_t scaled;      /* intervals whose group was multiplexed */
	double run_sum;     /* their fractions of time on the PMU, summed */
} live;

/* An interval's group ran the whole time if it missed at most 1% of the
 * target's time plus 2 ms: the group and task-clock are read one after the
 * other, and a target running in between (sleuth descheduled on a busy
 * machine) counts in one and not yet in the other; the next interval gets
 * it back.  A multiplexed group misses whole rotation slices (4 ms). */
#define FULL_RUN 0.99
#define READ_SKEW_NS 2000000.0

char *sl_host_cpu_name(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *name = NULL;
	while (f && !name && fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10))
			continue;
		char *v = strchr(line, ':');
		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = 0;
		name = sl_xstrdup(v);
	}
	if (f)
		fclose(f);
	return name ? name : sl_xstrdup("unknown");
}

static int live_program(sl_backend *b, const size_t *ev, size_t n)
{
	live *l = b->priv;
	if (sl_backend_check_program(b, ev, n) < 0)
		return -1;
	memset(l->on_next, 0, b->n_events ? b->n_events : 1);
	/* uncore events count in every interval, on no counter */
	for (size_t i = 0; i < n; i++)
		l->on_next[ev[i]] = !b->uncore[ev[i]];
	/* Disable first so the group never holds more than k events. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t e = 0; e < b->n_events; e++) {
			int want = l->on_next[e];
			if (want == l->on[e] || want != pass)
				continue;
			if (sl_session_enable(l->s, l->slot[e], want) < 0)
				return -1;
			l->on[e] = (char)want;
		}
	return sl_session_enable_done(l->s);
}

static int live_next(sl_backend *b, sl_obs *o)
{
	live *l = b->priv;
	sl_interval iv;
	int r = sl_session_next(l->s, &iv);
	b->maps = (sl_mapping *)sl_session_maps(l->s, &b->n_maps);
	if (r <= 0)
		return r;
	memset(o, 0, sizeof *o);
	o->start_s = iv.start_s;
	o->time_s = iv.time_s;
	o->samples = iv.samples;
	o->n_samples = iv.n_samples;
	o->lost = iv.lost;
	o->throttled = iv.throttled;
	o->energy_j = iv.energy_j;
	o->has_temp = isfinite(iv.temp_c);
	o->temp_c = iv.temp_c;
	b->throttles = sl_session_throttles(l->s);
	b->merged_intervals = sl_session_merged(l->s);
	o->counts = l->counts;
	for (size_t e = 0; e < b->n_events; e++)
		l->counts[e] = SL_MISSING;
	if (l->has_counts) {
		/* The group must have counted whenever the target ran (the
		 * counter plan sees to it); if it was multiplexed, scale. */
		double frac = iv.task_ns ? (double)iv.run_ns / (double)iv.task_ns : 1.0;
		if (iv.task_ns > 1000000 && iv.run_ns == 0) {
			sl_error_set("the PMU never scheduled the counter group in an "
				     "interval of %.1f ms: its events do not fit beside the "
				     "sampler, or another perf user (the NMI watchdog, "
				     "'perf') holds counters; run 'sleuth doctor'",
				     (double)iv.task_ns * 1e-6);
			return -1;
		}
		double scale = 1.0;
		if ((double)iv.run_ns + READ_SKEW_NS < FULL_RUN * (double)iv.task_ns &&
		    iv.run_ns) {
			scale = 1.0 / frac;
			l->scaled++;
			l->run_sum += frac;
			b->scaled_intervals = l->scaled;
		}
		o->instructions = (uint64_t)((double)iv.values[0] * scale + 0.5);
		o->cycles = (uint64_t)((double)iv.values[1] * scale + 0.5);
		for (size_t e = 0; e < b->n_events; e++)
			if (b->uncore[e])
				l->counts[e] = iv.uncore[l->slot[e]];
			else if (l->on[e])
				l->counts[e] = (uint64_t)((double)iv.values[1 + l->slot[e]] *
							  scale + 0.5);
	}
	return 1;
}

static int live_finish(sl_backend *b)
{
	live *l = b->priv;
	if (l->scaled)
		sl_warn("the counter group was multiplexed in %zu intervals (on the "
			"PMU %.0f%% of their time on average); their counts are scaled "
			"estimates — fewer --counters avoid it", l->scaled,
			100.0 * l->run_sum / (double)l->scaled);
	if (b->merged_intervals)
		sl_warn("%llu intervals were merged into the next one: sleuth fell "
			"behind the target (a loaded machine?), so their phases and "
			"counts are those of the pair", (unsigned long long)b->merged_intervals);
	if (b->throttles)
		sl_warn("the kernel throttled sampling %llu times (more samples a "
			"second than kernel.perf_event_max_sample_rate allows): samples "
			"and counts of those ticks are missing; a longer --sample-period "
			"avoids it", (unsigned long long)b->throttles);
	uint64_t lost = sl_session_lost(l->s);
	if (lost)
		sl_warn("%llu samples were lost (the ring buffer overflowed); phases "
			"are computed from the rest", (unsigned long long)lost);
	return sl_session_status(l->s);
}

int sl_live_precise(const sl_backend *b)
{
	const live *l = b->priv;
	return sl_session_precise(l->s);
}

static void live_interrupt(sl_backend *b)
{
	live *l = b->priv;
	sl_session_interrupt(l->s);
}

static void live_signal(sl_backend *b, int sig)
{
	live *l = b->priv;
	sl_session_signal(l->s, sig);
}

static void live_destroy(sl_backend *b)
{
	if (!b)
		return;
	live *l = b->priv;
	if (l) {
		sl_session_free(l->s);
		free(l->counts);
		free(l->on);
		free(l->on_next);
		free(l->slot);
		free(l);
	}
	for (size_t i = 0; i < b->n_events; i++)
		free((char *)b->events[i]);
	free(b->events);
	sl_backend_free(b);
}

static char *join_argv(char *const *argv)
{
	size_t len = 1;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	char *s = sl_xcalloc(1, len);
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

sl_backend *sl_live_backend_new(const char *name, const sl_live_opts *o,
				const sl_session_cfg *cfg, int has_counts,
				const char *const *events, size_t n_events, size_t k)
{
	sl_session *s = sl_session_start(cfg);
	if (!s)
		return NULL;
	sl_backend *b = sl_xcalloc(1, sizeof *b);
	live *l = sl_xcalloc(1, sizeof *l);
	l->s = s;
	l->has_counts = has_counts;
	l->counts = sl_xcalloc(n_events ? n_events : 1, sizeof(uint64_t));
	l->on = sl_xcalloc(n_events ? n_events : 1, 1);
	l->on_next = sl_xcalloc(n_events ? n_events : 1, 1);
	l->slot = sl_xcalloc(n_events + 1, sizeof *l->slot);
	b->n_events = n_events;
	b->events = sl_xcalloc(n_events ? n_events : 1, sizeof *b->events);
	for (size_t i = 0; i < n_events; i++)
		b->events[i] = sl_xstrdup(events[i]);
	sl_backend_find_uncore(b);
	size_t n_core = 0, n_unc = 0;
	for (size_t e = 0; e < n_events && has_counts; e++) {
		l->slot[e] = b->uncore[e] ? n_unc++ : 1 + n_core++;
		const char *why = b->uncore[e] ? sl_session_uncore_problem(s, l->slot[e]) : NULL;
		if (!why)
			continue;
		/* no dead end: the run goes on without it */
		char *line = sl_xasprintf("uncore event %s is not counted: %s; it stays "
					  "missing in every interval and the models use "
					  "core events", events[e], why);
		sl_warn("%s", line);
		if (b->note) {
			char *both = sl_xasprintf("%s; %s", b->note, line);
			free(line);
			line = both;
		}
		free(b->note);
		b->note = line;
	}
	b->priv = l;
	b->name = name;
	b->k = k;
	b->has_counts = has_counts;
	b->interval_instructions = has_counts ? cfg->boundary.sample_period : 0;
	b->interval_s = has_counts ? 0
				   : (double)(cfg->samples_per_interval *
					      cfg->sampler.sample_period) * 1e-9;
	b->host_cpu = sl_host_cpu_name();
	b->workload = join_argv(o->argv);
	const char *src = sl_session_energy_source(s);
	b->energy_source = src ? sl_xstrdup(src) : NULL;
	b->program = live_program;
	b->next = live_next;
	b->finish = live_finish;
	b->interrupt = live_interrupt;
	b->signal = live_signal;
	b->destroy = live_destroy;
	return b;
}
