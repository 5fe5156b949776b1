/*
 * schedule-sim: does a schedule keep its promises on the simulator?
 *
 * From a profile of a simulated workload (sleuth run --replay of a trace of
 * `sleuth simulate`) and a calibrated machine model, make the global
 * schedule, then run the same program (same workload, seed and intervals)
 * on the simulator three times -- under the schedule (every interval at the
 * frequency of its instance), at the baseline fmax and at the best fixed
 * frequency -- and print predicted against simulated time, energy and EDP,
 * and the savings.  Frequency switches are charged on the simulated side as
 * on the predicted one (time T, energy T x the higher of the two instances'
 * simulated mean powers): the simulator has no switch physics.
 *
 * usage: schedule-sim WORKLOAD PROFILE MACHINE [OBJECTIVE [BOUND [SWITCH_US
 *                     [SEED [SIM_MACHINE]]]]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/machine.h"
#include "sleuth/model.h"
#include "sleuth/profile.h"
#include "sleuth/schedule-model.h"
#include "sleuth/schedule.h"
#include "sleuth/sim.h"

typedef struct totals {
	double t, e;
} totals;

/* Run the simulator with instance j at P-state ip[j] of the table. */
static int simulate(const sl_sim *s, const sl_model *md, const sl_sched_table *tab,
		    const sl_sched_opts *o, const int *ip, totals *out)
{
	const sl_interp *v = &md->view;
	sl_sim_ctx *c = sl_sim_ctx_new(s);
	sl_sim_interval iv = {0};
	double prev_w = 0;
	*out = (totals){0, 0};
	for (size_t j = 0; j < v->n_instances; j++) {
		double ghz = tab->ghz[ip[j]];
		int k = sl_sim_machine_pstate(s->m, ghz);
		if (k < 0) {
			sl_sim_ctx_free(c);
			return -1;
		}
		double t = 0, e = 0;
		for (size_t i = v->inst[j].first; i < v->inst[j].first + v->inst[j].n; i++) {
			sl_sim_interval_run(s, c, i, ghz, s->m->volts[k], &iv);
			t += iv.t;
			e += iv.e;
		}
		if (j > 0 && ip[j] != ip[j - 1]) {
			out->t += o->transition_s;
			out->e += o->transition_s * SL_MAX(prev_w, e / t);
		}
		out->t += t;
		out->e += e;
		prev_w = e / t;
	}
	sl_sim_interval_free(&iv);
	sl_sim_ctx_free(c);
	return 0;
}

static void row(const char *name, double pt, double pe, const totals *sim)
{
	printf("%-18s %9.4f %9.4f %+7.2f%% %9.2f %9.2f %+7.2f%% %10.4g %10.4g %+7.2f%%\n", name,
	       pt, sim->t, 100 * (pt / sim->t - 1), pe, sim->e, 100 * (pe / sim->e - 1),
	       pt * pe, sim->t * sim->e, 100 * (pt * pe / (sim->t * sim->e) - 1));
}

static double saving(double a, double b)
{
	return 100 * (1 - a / b);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: schedule-sim WORKLOAD PROFILE MACHINE [OBJECTIVE [BOUND "
				"[SWITCH_US [SEED [SIM_MACHINE]]]]]\n");
		return 2;
	}
	sl_sched_opts o = {.objective = SL_OBJ_EDP, .max_slowdown = 0.10};
	if (argc > 4 && sl_objective_parse(argv[4], &o.objective) < 0)
		goto fail0;
	if (argc > 5 && sl_parse_fraction(argv[5], &o.max_slowdown) < 0)
		goto fail0;
	o.transition_s = argc > 6 ? atof(argv[6]) / 1e6 : 0;
	uint64_t seed = argc > 7 ? strtoull(argv[7], NULL, 10) : 1;
	char *simpath = argc > 8 ? sl_xstrdup(argv[8])
				 : sl_data_path("data/sim/nehalem-i7-920.yaml");
	sl_sim_machine sm;
	sl_sim_workload w;
	sl_profile p;
	sl_machine m = {0};
	sl_model md = {0};
	sl_sched_data d = {0};
	sl_sched_result r = {0};
	int rc = 1;
	sl_profile_init(&p);
	if (!simpath || sl_sim_machine_load(simpath, &sm) < 0)
		goto fail1;
	if (sl_sim_workload_load(argv[1], &w) < 0)
		goto fail2;
	if (sl_profile_read(argv[2], &p) < 0 || sl_machine_load(argv[3], &m) < 0 ||
	    sl_model_init(&md, &p, &m, SL_TIME_STALL, 0) < 0 ||
	    sl_sched_data_from_model(&md, &d) < 0 || sl_schedule_solve(&d.tab, &o, &r) < 0)
		goto fail3;
	sl_sim s;
	sl_sim_prepare(&s, &sm, &w, seed, p.n_intervals);

	size_t N = d.tab.n_inst, K = d.tab.n_phases;
	int *ip = sl_xmalloc(N * sizeof *ip), *map = sl_xmalloc(K * sizeof *map);
	sl_sched_eval ev;
	totals sim_s, sim_b, sim_f = {0, 0};
	sl_sched_evaluate(&d.tab, &o, r.pstate, &ev, ip, NULL, NULL);
	int ok = simulate(&s, &md, &d.tab, &o, ip, &sim_s) == 0;
	for (size_t k = 0; k < K; k++)
		map[k] = (int)d.tab.baseline;
	sl_sched_evaluate(&d.tab, &o, map, &ev, ip, NULL, NULL);
	ok = ok && simulate(&s, &md, &d.tab, &o, ip, &sim_b) == 0;
	if (r.fixed_pstate >= 0) {
		for (size_t k = 0; k < K; k++)
			map[k] = r.fixed_pstate;
		sl_sched_evaluate(&d.tab, &o, map, &ev, ip, NULL, NULL);
		ok = ok && simulate(&s, &md, &d.tab, &o, ip, &sim_f) == 0;
	}
	if (ok) {
		printf("%s (%zu intervals, %zu instances), %s, %s, bound %g%%, switch %g us\n",
		       w.name, p.n_intervals, N, sl_objective_name(o.objective),
		       r.exact ? "optimal" : "heuristic", 100 * o.max_slowdown,
		       o.transition_s * 1e6);
		printf("%-18s %9s %9s %8s %9s %9s %8s %10s %10s %8s\n", "", "T pred", "T sim",
		       "err", "E pred", "E sim", "err", "EDP pred", "EDP sim", "err");
		row("schedule", r.total.time_s, r.total.energy_j, &sim_s);
		row("fmax", r.base.time_s, r.base.energy_j, &sim_b);
		if (r.fixed_pstate >= 0) {
			char name[40];
			snprintf(name, sizeof name, "fixed %.2f GHz", d.tab.ghz[r.fixed_pstate]);
			row(name, r.fixed.time_s, r.fixed.energy_j, &sim_f);
		}
		printf("slowdown: predicted %.2f%%, simulated %.2f%%\n",
		       100 * (r.total.time_s / r.base.time_s - 1), 100 * (sim_s.t / sim_b.t - 1));
		printf("saving vs fmax:  energy %.2f%% pred / %.2f%% sim, EDP %.2f%% / %.2f%%\n",
		       saving(r.total.energy_j, r.base.energy_j), saving(sim_s.e, sim_b.e),
		       saving(r.total.energy_j * r.total.time_s, r.base.energy_j * r.base.time_s),
		       saving(sim_s.e * sim_s.t, sim_b.e * sim_b.t));
		if (r.fixed_pstate >= 0)
			printf("saving vs fixed: energy %.2f%% pred / %.2f%% sim, EDP %.2f%% / "
			       "%.2f%%\n", saving(r.total.energy_j, r.fixed.energy_j),
			       saving(sim_s.e, sim_f.e),
			       saving(r.total.energy_j * r.total.time_s,
				      r.fixed.energy_j * r.fixed.time_s),
			       saving(sim_s.e * sim_s.t, sim_f.e * sim_f.t));
		rc = 0;
	}
	free(ip);
	free(map);
	if (rc)
		fprintf(stderr, "schedule-sim: %s\n", sl_error());
	sl_sched_result_free(&r);
	sl_sched_data_free(&d);
	sl_model_free(&md);
	sl_machine_free(&m);
	sl_profile_free(&p);
	sl_sim_workload_free(&w);
	sl_sim_machine_free(&sm);
	free(simpath);
	return rc;
fail3:
	sl_sched_data_free(&d);
	sl_model_free(&md);
	sl_machine_free(&m);
	sl_profile_free(&p);
	sl_sim_workload_free(&w);
fail2:
	sl_sim_machine_free(&sm);
fail1:
	if (!simpath)
		sl_error_set("cannot find the simulated machine; give SIM_MACHINE");
	free(simpath);
fail0:
	fprintf(stderr, "schedule-sim: %s\n", sl_error());
	return 1;
}
