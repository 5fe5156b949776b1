/*
 * A schedule applied to a run: which P-state each phase runs at under a
 * sleuth-schedule/1 file, and the instance-by-instance predictions along
 * the run that follow (the data of the paper's Figure 12), for
 * `sleuth predict --schedule`.
 */
#include "sleuth/schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"

int sl_schedule_apply(const sl_sched_table *t, const sl_schedule_file *s, int *pstate,
		      sl_sched_opts *o)
{
	unsigned char *used = sl_xcalloc(t->n_phases + 1, 1);
	for (size_t i = 0; i < t->n_inst; i++)
		used[t->phase[i]] = 1;
	int rc = 0;
	for (size_t k = 0; k < t->n_phases && rc == 0; k++) {
		pstate[k] = (int)t->baseline;
		if (!used[k])
			continue;
		double g = sl_schedule_ghz(s, (uint32_t)k);
		if (!(g > 0)) {
			sl_error_set("phase %zu of the profile is not in the schedule; was the "
				     "schedule made for this profile?", k);
			rc = -1;
			break;
		}
		size_t p = 0;
		while (p < t->n_pstates && fabs(t->ghz[p] - g) > 0.0005)
			p++;
		if (p == t->n_pstates) {
			sl_error_set("the schedule runs phase %zu at %g GHz, which is not a "
				     "P-state of the machine; use the machine it was made for", k, g);
			rc = -1;
			break;
		}
		pstate[k] = (int)p;
	}
	free(used);
	memset(o, 0, sizeof *o);
	o->objective = s->objective;
	o->scope = s->scope;
	o->max_slowdown = s->max_slowdown;
	o->power_cap_w = s->power_cap_w;
	o->transition_s = s->transition_us / 1e6;
	o->min_instance_s = s->min_instance_ms / 1e3;
	return rc;
}

static void csv_num(FILE *f, double v, const char *sep)
{
	char b[40];
	sl_fmt_double(b, sizeof b, v);
	fprintf(f, "%s%s", b, sep);
}

int sl_schedule_write_run(FILE *f, const sl_sched_table *t, const sl_sched_opts *o,
			  const int *pstate)
{
	int *ip = sl_xmalloc((t->n_inst + 1) * sizeof *ip);
	sl_sched_eval ev;
	sl_sched_evaluate(t, o, pstate, &ev, ip, NULL, NULL);
	fprintf(f, "instance,phase,ghz,start_s,time_s,power_w,energy_j,switch_s,switch_j\n");
	double start = 0;
	for (size_t i = 0; i < t->n_inst; i++) {
		size_t p = (size_t)ip[i], c = i * t->n_pstates + p;
		double sw_t = 0, sw_e = 0;
		if (i > 0 && ip[i] != ip[i - 1]) {
			sw_t = o->transition_s;
			sw_e = sl_sched_switch_energy(t, o, i, (size_t)ip[i - 1], p);
		}
		start += sw_t;
		fprintf(f, "%zu,%u,", i, t->phase[i]);
		csv_num(f, t->ghz[p], ",");
		csv_num(f, start, ",");
		csv_num(f, t->time_s[c], ",");
		csv_num(f, t->energy_j[c] / t->time_s[c], ",");
		csv_num(f, t->energy_j[c], ",");
		csv_num(f, sw_t, ",");
		csv_num(f, sw_e, "\n");
		start += t->time_s[c];
	}
	free(ip);
	if (ferror(f)) {
		sl_error_set("cannot write the per-instance predictions");
		return -1;
	}
	return 0;
}
