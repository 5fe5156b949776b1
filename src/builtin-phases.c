/*
 * `sleuth phases [PROFILE]`: what the run found, at a glance: one line per
 * phase (intervals, instances, share of time, its top code), the phases
 * that run one code with other event rates (behaviour phases: two lines
 * with the same top code are one code on other data), and a timeline of
 * the phases over the run's time, in 80 columns (coloured on a TTY).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "sleuth/common.h"
#include "sleuth/phases.h"
#include "sleuth/profile.h"
#include "util/term.h"

#define CMD "phases"
#define WIDTH 80
#define TIMELINE 70 /* characters of the timeline itself */
#define DEFAULT_TOP 20 /* phases listed unless --top says otherwise */

/* Append `s` to the line if it fits in `width` columns; "..." if not. */
static int append(char *line, size_t width, const char *s)
{
	size_t n = strlen(line), m = strlen(s);
	if (n + m <= width) {
		memcpy(line + n, s, m + 1);
		return 0;
	}
	if (n + 4 <= width)
		strcpy(line + n, " ...");
	return -1;
}

/* The phase's top functions, then its top source line, in `width`
 * columns: the line's room is kept and the functions fill the rest. */
static void code_text(const sl_phase_info *ph, char *line, size_t width)
{
	char item[256], where[128] = "";
	if (!ph->n_funcs) {
		append(line, width, " (no samples)");
		return;
	}
	if (ph->n_lines) {
		const sl_codeloc *l = &ph->lines[0];
		const char *base = strrchr(l->file, '/');
		snprintf(where, sizeof where, "; %s:%d %.0f%%", base ? base + 1 : l->file,
			 l->line, 100 * l->share);
	}
	size_t room = width > strlen(where) ? width - strlen(where) : 0;
	/* the top function comes first: without room for 20 characters of
	 * it, the source line gives way */
	if (room < strlen(line) + 24) {
		where[0] = 0;
		room = width;
	}
	for (size_t i = 0; i < ph->n_funcs; i++) {
		const sl_codeloc *f = &ph->funcs[i];
		snprintf(item, sizeof item, "%s %s %.0f%%", i ? "," : "", f->function,
			 100 * f->share);
		size_t used = strlen(line);
		if (!i && used + strlen(item) > room && room > used + 12) {
			/* a long (C++) name: show its start rather than nothing */
			int keep = (int)(room - used - 9);
			snprintf(item, sizeof item, " %.*s... %.0f%%", keep, f->function,
				 100 * f->share);
		}
		if (append(line, room, item) < 0)
			break;
	}
	append(line, width, where);
}

static int by_time(const void *a, const void *b, void *ctx)
{
	const double *t = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return t[i] < t[j] ? 1 : t[i] > t[j] ? -1 : (i > j) - (i < j);
}

/* One line per phase, the largest first; `top` of them (0: all), and a
 * line for the rest. */
static void phase_table(const sl_profile *p, size_t top)
{
	size_t np = p->n_phases;
	size_t *iv = sl_xcalloc(np, sizeof *iv), *inst = sl_xcalloc(np, sizeof *inst);
	size_t *order = sl_xcalloc(np + 1, sizeof *order);
	double *t = sl_xcalloc(np, sizeof *t), total = 0;
	for (size_t i = 0; i < p->n_intervals; i++) {
		iv[p->iv[i].phase]++;
		t[p->iv[i].phase] += p->iv[i].time_s;
		total += p->iv[i].time_s;
	}
	sl_instance *in;
	size_t ni = sl_profile_instances(p, &in);
	for (size_t i = 0; i < ni; i++)
		inst[in[i].phase]++;
	free(in);
	for (size_t k = 0; k < np; k++)
		order[k] = k;
	qsort_r(order, np, sizeof *order, by_time, t);
	/* a phase merged into another at the end of the run has no interval
	 * left: not listed (nor counted in the header) */
	size_t used = 0;
	for (size_t r = 0; r < np; r++)
		if (iv[order[r]])
			order[used++] = order[r];
	np = used;
	size_t shown = top && top < np ? top : np;
	int colour = sl_term_colour(stdout);
	printf("phase intervals instances   time  top code\n");
	for (size_t r = 0; r < shown; r++) {
		size_t k = order[r];
		char line[WIDTH + 1];
		snprintf(line, sizeof line, "%5zu %9zu %9zu %5.1f%% ", k, iv[k], inst[k],
			 total > 0 ? 100 * t[k] / total : 0.0);
		code_text(&p->phases[k], line, WIDTH);
		sl_term_phase_id(stdout, (uint32_t)k, 5, colour);
		printf("%s\n", line + 5);
	}
	if (shown < np) {
		double rest = 0;
		size_t n_iv = 0;
		for (size_t r = shown; r < np; r++) {
			rest += t[order[r]];
			n_iv += iv[order[r]];
		}
		printf("  ... %zu more phases, %zu intervals, %.1f%% of the time (--top 0: all)\n",
		       np - shown, n_iv, total > 0 ? 100 * rest / total : 0.0);
	}
	free(iv);
	free(inst);
	free(t);
	free(order);
}

/* Whether phase k, with instructions, runs the code of phase c. */
static int of_code(const sl_profile *p, const double *ins, size_t k, size_t c)
{
	return p->same_code[k] == c && ins[k] > 0;
}

/* The phases that run one code and behave apart (a code phase split by
 * its event rates: docs/phases.md, "Behaviour phases"), one line per
 * code: each phase's cycles per instruction and, of the events counted in
 * at least half of each one's intervals (the pinned and uncore ones), the
 * one whose rate differs most between them (in log(1 + rate), the
 * behaviour features' scale), per 1000 instructions. */
static void same_code_lines(const sl_profile *p)
{
	size_t np = p->n_phases, ne = p->has_counts ? p->n_events : 0;
	if (!p->same_code)
		return;
	double *cyc = sl_xcalloc(np, sizeof *cyc), *ins = sl_xcalloc(np, sizeof *ins);
	size_t *n_iv = sl_xcalloc(np, sizeof *n_iv);
	/* per phase and event: the count, the instructions and the intervals
	 * where it was counted */
	double *ev = sl_xcalloc(np * ne + 1, sizeof *ev), *evi = sl_xcalloc(np * ne + 1, sizeof *evi);
	size_t *evn = sl_xcalloc(np * ne + 1, sizeof *evn);
	for (size_t i = 0; i < p->n_intervals; i++) {
		size_t ph = p->iv[i].phase;
		cyc[ph] += (double)p->iv[i].cycles;
		ins[ph] += (double)p->iv[i].instructions;
		n_iv[ph]++;
		for (size_t e = 0; e < ne; e++) {
			uint64_t x = p->counts[i * ne + e];
			if (x == SL_MISSING)
				continue;
			ev[ph * ne + e] += (double)x;
			evi[ph * ne + e] += (double)p->iv[i].instructions;
			evn[ph * ne + e]++;
		}
	}
	int head = 0;
	for (size_t c = 0; c < np; c++) {
		size_t n = 0;
		for (size_t k = c; k < np; k++)
			n += of_code(p, ins, k, c);
		if (n < 2)
			continue;
		size_t best = SIZE_MAX;
		double spread = 0;
		for (size_t e = 0; e < ne; e++) {
			double lo = HUGE_VAL, hi = -HUGE_VAL;
			int all = 1;
			for (size_t k = c; k < np && all; k++) {
				if (!of_code(p, ins, k, c))
					continue;
				size_t j = k * ne + e;
				all = 2 * evn[j] >= n_iv[k] && evi[j] > 0;
				if (all) {
					double x = sl_behave_rate(ev[j], evi[j]);
					lo = SL_MIN(lo, x), hi = SL_MAX(hi, x);
				}
			}
			if (all && hi - lo > spread)
				spread = hi - lo, best = e;
		}
		char *cpi = sl_xstrdup(""), *rate = sl_xstrdup(""), *ids = sl_xstrdup("");
		size_t shown = 0;
		for (size_t k = c; k < np; k++) {
			if (!of_code(p, ins, k, c))
				continue;
			const char *sep = shown++ ? ", " : "";
			char *t = sl_xasprintf("%s%s%zu", ids, sep, k);
			free(ids), ids = t;
			t = sl_xasprintf("%s%s%.2f", cpi, sep, cyc[k] / ins[k]);
			free(cpi), cpi = t;
			if (best != SIZE_MAX) {
				size_t q = k * ne + best;
				t = sl_xasprintf("%s%s%.3g", rate, sep, 1000 * ev[q] / evi[q]);
				free(rate), rate = t;
			}
		}
		if (!head++)
			printf("\nphases of one code that behave apart (cycles per instruction, and the\n"
			       "rate per 1000 instructions most apart among the events counted throughout):\n");
		char *text = best != SIZE_MAX
				     ? sl_xasprintf("phases %s: %s; %s %s", ids, cpi, p->events[best], rate)
				     : sl_xasprintf("phases %s: %s", ids, cpi);
		sl_term_wrap(stdout, "  ", text, 4, WIDTH);
		free(text);
		free(cpi);
		free(rate);
		free(ids);
	}
	free(cyc);
	free(ins);
	free(n_iv);
	free(ev);
	free(evi);
	free(evn);
}

/* The phases over the run's time, one character per 1/TIMELINE of it
 * (util/term.h), coloured on a terminal. */
static void timeline(const sl_profile *p)
{
	if (!p->n_intervals)
		return;
	double total = 0;
	for (size_t i = 0; i < p->n_intervals; i++)
		total += p->iv[i].time_s;
	char *line = sl_term_profile_strip(p, TIMELINE, sl_term_colour(stdout));
	printf("\ntimeline (1 char = %.3g s):\n|%s|\n", total / TIMELINE, line);
	free(line);
}

/* How many intervals of each phase measured each event: what phase-guided
 * multiplexing achieved.  Events are numbered e0.. with a legend below. */
static void event_table(const sl_profile *p)
{
	size_t ne = p->n_events, np = p->n_phases;
	if (!ne) {
		printf("\nno event counts in this profile\n");
		return;
	}
	size_t *m = sl_xcalloc(np * ne, sizeof *m);
	for (size_t i = 0; i < p->n_intervals; i++)
		for (size_t k = 0; k < ne; k++)
			m[p->iv[i].phase * ne + k] += sl_prof_count(p, i, k) != SL_MISSING;
	size_t per_line = (WIDTH - 6) / 6;
	for (size_t k0 = 0; k0 < ne; k0 += per_line) {
		size_t k1 = SL_MIN(ne, k0 + per_line);
		printf("\nintervals measuring each event\n phase");
		for (size_t k = k0; k < k1; k++)
			printf("  e%-3zu", k);
		printf("\n");
		for (size_t ph = 0; ph < np; ph++) {
			printf("%6zu", ph);
			for (size_t k = k0; k < k1; k++)
				printf(" %5zu", m[ph * ne + k]);
			printf("\n");
		}
	}
	for (size_t k = 0; k < ne; k++)
		printf("e%zu = %s\n", k, p->events[k]);
	free(m);
}

typedef struct opts {
	const char *profile;
	int events;        /* --events */
	uint64_t top;      /* --top: phases listed, 0 all */
} opts;

/* Parse the command line; SL_EXIT_OK or SL_EXIT_USAGE (already reported). */
static int parse(int argc, char **argv, opts *o)
{
	static const struct option lo[] = {{"events", no_argument, 0, 'e'},
					   {"top", required_argument, 0, 't'},
					   {0, 0, 0, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":et:", lo, NULL)) != -1) {
		if (c == 'e') {
			o->events = 1;
		} else if (c == 't') {
			if (sl_parse_u64(optarg, &o->top) < 0)
				return sl_usage_error(CMD, "--top: '%s' is not a number of phases "
						      "(0: all)", optarg);
		} else {
			return sl_bad_option(CMD, c, argv);
		}
	}
	if (argc - optind > 1)
		return sl_usage_error(CMD, "give at most one profile");
	if (optind < argc)
		o->profile = argv[optind];
	return SL_EXIT_OK;
}

/* Print the profile's phases; -1 with sl_error() if it cannot be read. */
static int run(const opts *o, sl_profile *p)
{
	if (sl_profile_read(o->profile, p) < 0)
		return -1;
	double total = 0;
	for (size_t i = 0; i < p->n_intervals; i++)
		total += p->iv[i].time_s;
	char *head = sl_xasprintf("%s: %s, %zu intervals, %zu phases, %.3f s", o->profile,
				  p->workload ? p->workload : p->command ? p->command : "?",
				  p->n_intervals, sl_profile_phases_used(p), total);
	sl_term_wrap(stdout, "", head, 2, WIDTH); /* a long command wraps */
	free(head);
	char freq[32] = "";
	if (p->freq_ghz > 0)
		snprintf(freq, sizeof freq, " at %.2f GHz", p->freq_ghz);
	char pred[96];
	printf("%s backend%s, %llu samples (%llu lost), %s\n", p->backend, freq,
	       (unsigned long long)p->samples, (unsigned long long)p->lost_samples,
	       sl_profile_predictor_text(p, pred, sizeof pred));
	size_t cover = sl_profile_phases_covering(p, 0.9);
	printf("%zu phase%s 90%% of the time\n", cover, cover == 1 ? " covers" : "s cover");
	if (sl_profile_phases_noisy(p))
		printf("warning: %zu phases in %zu intervals look like sampling noise, not "
		       "the program's\n         stages (see the note below)\n", p->n_phases,
		       p->n_intervals);
	phase_table(p, (size_t)o->top);
	same_code_lines(p);
	timeline(p);
	if (o->events)
		event_table(p);
	for (size_t i = 0; i < p->n_notes; i++)
		sl_term_wrap(stdout, "note: ", p->notes[i], 6, WIDTH);
	return 0;
}

static int cmd_phases(int argc, char **argv)
{
	opts o = {.profile = "sleuth.prof", .top = DEFAULT_TOP};
	int rc = parse(argc, argv, &o);
	if (rc == SL_EXIT_OK) {
		sl_profile p;
		sl_profile_init(&p);
		rc = run(&o, &p) < 0 ? sl_fail() : SL_EXIT_OK;
		sl_profile_free(&p);
	}
	return rc;
}

const struct sl_cmd sl_cmd_phases = {
	.name = CMD,
	.fn = cmd_phases,
	.summary = "Show the phases of a profile and their code",
	.usage = "usage: sleuth phases [-e|--events] [-t|--top N] [PROFILE]\n\n"
		 "One line per phase of PROFILE (default sleuth.prof), the largest\n"
		 "first: its id, how many intervals and instances it has, its share\n"
		 "of the run's time and its most sampled functions and source line;\n"
		 "then the phases that run one code with other event rates (the\n"
		 "same code on other data), with their cycles per instruction and\n"
		 "the rate most apart between them, and a timeline of the phases,\n"
		 "one character per bucket of intervals.  Above the table: how\n"
		 "many phases cover 90% of the time, and a warning when the phases\n"
		 "look like sampling noise.\n\n"
		 "  -t, --top N    list the N largest phases (default 20; 0: all)\n"
		 "  -e, --events   also how many intervals of each phase measured\n"
		 "                 each event\n",
};
