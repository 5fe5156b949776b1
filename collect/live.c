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
} live;

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
	if (n > b->k) {
		sl_error_set("%zu events asked for one interval but the %s backend has "
			     "%zu counters", n, b->name, b->k);
		return -1;
	}
	memset(l->on_next, 0, b->n_events ? b->n_events : 1);
	for (size_t i = 0; i < n; i++) {
		if (ev[i] >= b->n_events) {
			sl_error_set("event index %zu out of range (%zu events)", ev[i],
				     b->n_events);
			return -1;
		}
		l->on_next[ev[i]] = 1;
	}
	/* Disable first so the group never holds more than k events. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t e = 0; e < b->n_events; e++) {
			int want = l->on_next[e];
			if (want == l->on[e] || want != pass)
				continue;
			if (sl_session_enable(l->s, 1 + e, want) < 0)
				return -1;
			l->on[e] = (char)want;
		}
	return 0;
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
	o->energy_j = iv.energy_j;
	o->counts = l->counts;
	for (size_t e = 0; e < b->n_events; e++)
		l->counts[e] = SL_MISSING;
	if (l->has_counts) {
		if (iv.values[0] > 0 && iv.run_ns == 0) {
			sl_error_set("the PMU never scheduled the counter group: the "
				     "programmed events do not fit its counters together");
			return -1;
		}
		o->instructions = iv.values[0];
		o->cycles = iv.values[1];
		for (size_t e = 0; e < b->n_events; e++)
			if (l->on[e])
				l->counts[e] = iv.values[2 + e];
	}
	return 1;
}

static int live_finish(sl_backend *b)
{
	live *l = b->priv;
	uint64_t lost = sl_session_lost(l->s);
	if (lost)
		sl_warn("%llu samples were lost (the ring buffer overflowed); phases "
			"are computed from the rest", (unsigned long long)lost);
	return sl_session_status(l->s);
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
		free(l);
	}
	for (size_t i = 0; i < b->n_events; i++)
		free((char *)b->events[i]);
	free(b->events);
	free(b->host_cpu);
	free(b->workload);
	free(b->energy_source);
	free(b);
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
	b->priv = l;
	b->name = name;
	b->n_events = n_events;
	b->events = sl_xcalloc(n_events ? n_events : 1, sizeof *b->events);
	for (size_t i = 0; i < n_events; i++)
		b->events[i] = sl_xstrdup(events[i]);
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
