/*
 * Applying a schedule in the simulator (docs/simulator.md, "Schedules"): a
 * sleuth-schedule/1 maps each phase *detected* in a profile to a frequency;
 * the profile came from `sleuth run --replay` of a trace of the same
 * workload and seed, so its intervals are the simulated run's intervals one
 * to one, and interval i runs at the frequency of the profile's phase of
 * interval i.
 */
#include "sim-schedule.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"
#include "sleuth/schedule.h"

/* The profile a schedule names: an absolute path as it is; a relative one
 * next to the schedule file, else (as `sleuth schedule` writes the path it
 * was given) from the current directory. */
static char *named_profile(const char *schedule, const char *profile)
{
	if (!strcmp(profile, "-")) {
		sl_error_set("%s names no profile file ('profile: -'); give --profile FILE",
			     schedule);
		return NULL;
	}
	if (profile[0] == '/')
		return sl_xstrdup(profile);
	const char *slash = strrchr(schedule, '/');
	char *near = slash ? sl_xasprintf("%.*s/%s", (int)(slash - schedule), schedule, profile)
			   : sl_xstrdup(profile);
	if (!access(near, F_OK))
		return near;
	if (!access(profile, F_OK)) {
		free(near);
		return sl_xstrdup(profile);
	}
	sl_error_set("cannot find profile %s named by %s (looked at %s and in the current "
		     "directory); give --profile FILE", profile, schedule, near);
	free(near);
	return NULL;
}

/* The plan from a schedule and a profile both loaded. */
static int plan_from(const sl_simsched_opts *so, const sl_schedule_file *sf,
		     const sl_profile *p, const char *ppath, const sl_sim *s,
		     sl_sim_run_opts *ro, int **plan)
{
	if (p->n_intervals != s->n_intervals) {
		sl_error_set("profile %s has %zu intervals but %s runs %zu; the profile must "
			     "come from sleuth run --replay of a trace of this workload (same "
			     "--intervals)", ppath, p->n_intervals, s->w->name, s->n_intervals);
		return -1;
	}
	uint32_t n_ids = 0;
	for (size_t k = 0; k < sf->n_phases; k++)
		if (sf->phases[k].phase >= n_ids)
			n_ids = sf->phases[k].phase + 1;
	double *ghz = sl_xcalloc(n_ids + 1, sizeof *ghz);
	for (size_t k = 0; k < sf->n_phases; k++)
		ghz[sf->phases[k].phase] = sf->phases[k].ghz;
	uint32_t *phase = sl_xcalloc(p->n_intervals + 1, sizeof *phase);
	double *t = sl_xcalloc(p->n_intervals + 1, sizeof *t);
	for (size_t i = 0; i < p->n_intervals; i++) {
		phase[i] = p->iv[i].phase;
		t[i] = p->iv[i].time_s;
	}
	*plan = sl_xcalloc(s->n_intervals + 1, sizeof **plan);
	int rc = sl_sim_plan(s->m, phase, t, p->n_intervals, ghz, n_ids, sf->base_ghz,
			     sf->min_instance_ms * 1e-3, *plan);
	free(ghz);
	free(phase);
	free(t);
	if (rc < 0) {
		sl_error_prefix("%s (profile %s): ", so->schedule, ppath);
		free(*plan);
		*plan = NULL;
		return -1;
	}
	ro->pstate_of = *plan;
	ro->ghz = sf->base_ghz;
	ro->switch_s = (so->transition_us >= 0 ? so->transition_us : sf->transition_us) * 1e-6;
	return 0;
}

int sl_simsched_plan(const sl_simsched_opts *so, const sl_sim *s, sl_sim_run_opts *ro,
		     int **plan)
{
	sl_schedule_file sf;
	sl_profile p;
	char *ppath = NULL;
	int rc = -1;

	*plan = NULL;
	if (sl_schedule_read(so->schedule, &sf) < 0)
		return -1;
	sl_profile_init(&p);
	ppath = so->profile ? sl_xstrdup(so->profile) : named_profile(so->schedule, sf.profile);
	if (ppath && sl_profile_read(ppath, &p) == 0)
		rc = plan_from(so, &sf, &p, ppath, s, ro, plan);
	sl_profile_free(&p);
	sl_schedule_file_free(&sf);
	free(ppath);
	return rc;
}

int sl_simdither_plan(const sl_sim *s, unsigned n, double ghz, sl_sim_run_opts *ro,
		      int **plan)
{
	int p0 = sl_sim_machine_pstate(s->m, ro->ghz), p2 = sl_sim_machine_pstate(s->m, ghz);
	*plan = NULL;
	if (p0 < 0 || p2 < 0) {
		sl_error_prefix("--dither: ");
		return -1;
	}
	if (p0 == p2) {
		sl_error_set("--dither: %.2f GHz is the run's own frequency; dither to "
			     "another P-state", ghz);
		return -1;
	}
	*plan = sl_xcalloc(s->n_intervals + 1, sizeof **plan);
	for (size_t i = 0; i < s->n_intervals; i++)
		(*plan)[i] = sl_dither_at(i, n) ? p2 : p0;
	ro->pstate_of = *plan;
	return 0;
}
