/*
 * The schedule solver's table from a profile: every interval predicted at
 * every P-state of the machine by the models, summed per phase instance;
 * an instance's peak power is its highest predicted interval power, which
 * is what --power-cap bounds.
 */
#include "sleuth/schedule-model.h"

#include <math.h>
#include <string.h>

#include "sleuth/common.h"

int sl_sched_data_from_model(const sl_model *md, sl_sched_data *d)
{
	const sl_machine *m = md->mach;
	const sl_interp *v = &md->view;
	size_t P = m->n_pstates, N = v->n_instances;
	if (!md->power) {
		sl_error_set("scheduling needs energy predictions, and the machine model "
			     "has no fitted power model; run sleuth calibrate first");
		return -1;
	}
	if (!N || !P) {
		sl_error_set("the profile has no phase instances to schedule");
		return -1;
	}
	sl_sched_data_alloc(d, P, N, v->n_phase_ids);
	for (size_t j = 0; j < N; j++)
		d->phase[j] = v->inst[j].phase;
	/* P-states come fastest first: the first is the baseline */
	for (size_t p = 0; p < P; p++) {
		sl_opoint op;
		d->ghz[p] = m->pstates[p].ghz;
		if (sl_model_opoint(md, d->ghz[p], &op) < 0) {
			sl_sched_data_free(d);
			return -1;
		}
		for (size_t i = 0; i < md->prof->n_intervals; i++) {
			sl_pred pr;
			sl_model_predict(md, &op, i, &pr);
			size_t c = (size_t)v->inst_of[i] * P + p;
			d->time_s[c] += pr.time_s;
			d->energy_j[c] += pr.energy_j;
			d->peak_w[c] = SL_MAX(d->peak_w[c], pr.power_w);
		}
	}
	d->tab.baseline = 0;
	if (sl_sched_table_check(&d->tab) < 0) {
		sl_sched_data_free(d);
		return -1;
	}
	return 0;
}
