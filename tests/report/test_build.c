/* Unit tests of computing a report from an in-memory profile: phases,
 * instances and ranking; predictions that agree with the measured run at
 * the profiled frequency and add up (phases to totals, series to sweeps);
 * memory-boundness within its bounds; and the notes instead of predictions
 * when counts, the machine or its power model are missing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/report.h"
#include "xmlcheck.h"

#define NIV 200
#define NEV 5

static const char machine[] =
	"format: sleuth-machine/1\nname: tiny\ncounters: {programmable: 4}\n"
	"memory_latency_ns: 65\n"
	"pstates:\n  - {ghz: 1.60, volts: 0.950, static_w: 14.1}\n"
	"  - {ghz: 2.66, volts: 1.200, static_w: 21.3}\n"
	"events:\n  branch_sample: BR_INST_RETIRED:CONDITIONAL\n"
	"  stall_cycles: UOPS_EXECUTED:PORT015_STALL_CYCLES\n"
	"  llc_misses: LLC_MISSES\n  resource_stalls: RESOURCE_STALLS:ANY\n"
	"power:\n  constant: 2.11\n  terms:\n"
	"    - {event: UOPS_EXECUTED:PORT234_CORE, coeff: 0.75}\n"
	"    - {event: L2_RQSTS:MISS, coeff: 4.51}\n";

/* The same machine without its fitted power model. */
static const char skeleton[] =
	"format: sleuth-machine/1\nname: tiny\ncounters: {programmable: 4}\n"
	"memory_latency_ns: 65\n"
	"pstates:\n  - {ghz: 1.60, volts: 0.950}\n  - {ghz: 2.66, volts: 1.200}\n"
	"events:\n  branch_sample: BR_INST_RETIRED:CONDITIONAL\n"
	"  stall_cycles: UOPS_EXECUTED:PORT015_STALL_CYCLES\n"
	"  llc_misses: LLC_MISSES\n  resource_stalls: RESOURCE_STALLS:ANY\n";

static char *events[NEV] = {"UOPS_EXECUTED:PORT015_STALL_CYCLES", "LLC_MISSES",
			    "RESOURCE_STALLS:ANY", "UOPS_EXECUTED:PORT234_CORE",
			    "L2_RQSTS:MISS"};

typedef struct fixture {
	sl_profile p;
	sl_codeloc funcs[2];
	sl_phase_info info[2];
	sl_prof_interval iv[NIV];
	uint64_t counts[NIV * NEV];
	double phase_time[2];
} fixture;

/* Phase 0 is compute-bound (CPI 1, few misses), phase 1 memory-bound (CPI
 * 3, most cycles stalled on memory); 7 of every 10 intervals are phase 0. */
static void make(fixture *fx, const char *mtext, int counts)
{
	memset(fx, 0, sizeof *fx);
	sl_profile *p = &fx->p;
	p->command = "./app";
	p->backend = counts ? "replay" : "timer";
	p->machine_text = (char *)mtext;
	p->freq_ghz = 2.66;
	p->has_counts = counts;
	p->interval_instructions = 100000000;
	p->n_events = counts ? NEV : 0;
	p->events = events;
	p->n_intervals = NIV;
	p->iv = fx->iv;
	p->counts = counts ? fx->counts : NULL;
	fx->funcs[0] = (sl_codeloc){"std::vector<double>::operator[](unsigned long) const",
				    "vector.h", 1, 0x1000, 0.5};
	fx->funcs[1] = (sl_codeloc){"stream", "app.c", 7, 0x2000, 0.9};
	fx->info[0] = (sl_phase_info){0, &fx->funcs[0], 1, NULL, 0};
	fx->info[1] = (sl_phase_info){1, &fx->funcs[1], 1, NULL, 0};
	p->phases = fx->info;
	p->n_phases = 2;
	double t = 0;
	for (size_t i = 0; i < NIV; i++) {
		uint32_t ph = i % 10 < 7 ? 0 : 1;
		uint64_t cyc = ph ? 300000000 : 100000000;
		double dt = (double)cyc / 2.66e9;
		fx->iv[i] = (sl_prof_interval){ph, t, dt, counts ? cyc : 0,
					       counts ? 100000000 : 0, NAN};
		fx->phase_time[ph] += dt;
		t += dt;
		const uint64_t c0[NEV] = {10000000, 10000, 5000000, 30000000, 100000};
		const uint64_t c1[NEV] = {200000000, 2000000, 50000000, 40000000, 3000000};
		for (size_t k = 0; k < NEV; k++)
			fx->counts[i * NEV + k] = ph ? c1[k] : c0[k];
	}
}

static int has_note(const sl_report *r, const char *s)
{
	for (size_t i = 0; i < r->n_notes; i++)
		if (strstr(r->notes[i], s))
			return 1;
	return 0;
}

static void test_full(void **state)
{
	(void)state;
	fixture *fx = malloc(sizeof *fx);
	make(fx, machine, 1);
	sl_report r;
	sl_report_init(&r);
	sl_report_opts o = {.profile_path = "mem.prof"};
	assert_int_equal(sl_report_build(&r, &fx->p, &o), 0);
	assert_true(r.have_time && r.have_power);
	assert_int_equal(r.n_phases, 2);
	assert_int_equal(r.n_inst, 2 * NIV / 10);
	assert_int_equal(r.n_sweep, 2);
	assert_true(r.sweep_ghz[r.fmin] == 1.6 && r.sweep_ghz[r.fmax] == 2.66);
	/* every cell measured */
	assert_true(fabs(r.cells[0] - 1) < 1e-12 && r.cells[2] == 0);
	double tot = 0;
	for (size_t i = 0; i < 2; i++) {
		const sl_rep_phase *ph = &r.phases[i];
		assert_int_equal(ph->id, i);
		assert_true(fabs(ph->time_s - fx->phase_time[i]) < 1e-9);
		/* at the profiled frequency the model gives back the measured time */
		assert_true(fabs(ph->time_at[r.fmax] / ph->time_s - 1) < 1e-6);
		assert_true(ph->mem_bound >= 1 - 1e-9 && ph->mem_bound <= 2.66 / 1.6 + 1e-9);
		assert_true(ph->energy_at[r.fmin] > 0 && ph->energy_at[r.fmax] > 0);
		assert_true(fabs(ph->measured - 1) < 1e-12);
		tot += ph->time_s;
	}
	assert_true(fabs(tot - r.run_time_s) < 1e-9);
	assert_true(isnan(r.run_energy_j)); /* no interval has a measured energy */
	/* the memory-bound phase loses less time at fmin */
	assert_true(r.phases[1].mem_bound < r.phases[0].mem_bound);
	/* ranked by time at fmax: phase 1 (3 intervals of 3x the cycles) is
	 * larger than phase 0 (7 of 1x) */
	assert_int_equal(r.rank[0], 1);
	/* series: the profiled frequency (= fmax, not repeated) and fmin; each
	 * adds up to the sweep's per-phase sums */
	assert_int_equal(r.n_series, 2);
	for (size_t k = 0; k < 2; k++) {
		const sl_rep_series *s = &r.series[k];
		size_t at = fabs(s->ghz - 2.66) < 1e-9 ? r.fmax : r.fmin;
		double t = r.phases[0].time_at[at] + r.phases[1].time_at[at];
		double e = r.phases[0].energy_at[at] + r.phases[1].energy_at[at];
		assert_true(fabs(s->time_s / t - 1) < 1e-9);
		assert_true(fabs(s->energy_j / e - 1) < 1e-9);
		assert_true(s->inst_end[r.n_inst - 1] == s->time_s);
		assert_null(s->measured_w); /* the profile has no energies */
	}
	assert_string_equal(r.machine_origin, "embedded in the profile");
	/* phases are named after their top function, long names shortened */
	assert_string_equal(r.phases[1].name, "phase 1 (stream)");
	assert_string_equal(r.phases[0].name,
			    "phase 0 (std::vector<double>::operator[]\xe2\x80\xa6)");
	assert_ptr_equal(r.phases[1].funcs, &fx->funcs[1]);
	/* the page of a computed report is well formed and has its charts */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(sl_report_html(f, &r), 0);
	fclose(f);
	assert_int_equal(xml_check(buf), 0);
	assert_int_equal(count_str(buf, "<svg"), 1 + 2 + 2 + 1);
	assert_non_null(strstr(buf, "&lt;double&gt;"));
	free(buf);
	sl_report_free(&r);

	/* requested frequencies: fmin is deduplicated, 2.0 interpolated */
	double ghz[] = {1.6, 2.0, 1.6};
	o.ghz = ghz;
	o.n_ghz = 3;
	sl_report_init(&r);
	assert_int_equal(sl_report_build(&r, &fx->p, &o), 0);
	assert_int_equal(r.n_series, 3);
	assert_true(r.series[2].ghz == 2.0);
	assert_true(r.series[2].time_s > r.series[0].time_s &&
		    r.series[2].time_s < r.series[1].time_s);
	sl_report_free(&r);

	/* a frequency outside the machine's range is an error */
	double bad = 3.5;
	o.ghz = &bad;
	o.n_ghz = 1;
	sl_report_init(&r);
	assert_int_equal(sl_report_build(&r, &fx->p, &o), -1);
	sl_report_free(&r);
	free(fx);
}

static void test_degraded(void **state)
{
	(void)state;
	fixture *fx = malloc(sizeof *fx);
	sl_report r;
	sl_report_opts o = {.profile_path = "x.prof"};

	/* no counts (timer backend): phases and timeline, no predictions */
	make(fx, machine, 0);
	sl_report_init(&r);
	assert_int_equal(sl_report_build(&r, &fx->p, &o), 0);
	assert_false(r.have_time);
	assert_true(has_note(&r, "predictions unavailable"));
	assert_int_equal(r.n_phases, 2);
	assert_int_equal(r.n_inst, 2 * NIV / 10);
	assert_int_equal(r.n_series, 0);
	assert_true(isnan(r.phases[0].mem_bound));
	assert_int_equal(r.rank[0], 1); /* by measured time */
	sl_report_free(&r);

	/* no machine model */
	make(fx, NULL, 1);
	sl_report_init(&r);
	assert_int_equal(sl_report_build(&r, &fx->p, &o), 0);
	assert_false(r.have_time);
	assert_true(has_note(&r, "--machine"));
	sl_report_free(&r);

	/* a machine without a power model: time only */
	make(fx, skeleton, 1);
	sl_report_init(&r);
	assert_int_equal(sl_report_build(&r, &fx->p, &o), 0);
	assert_true(r.have_time && !r.have_power);
	assert_true(has_note(&r, "power and energy unavailable"));
	assert_true(isnan(r.phases[0].energy_at[0]));
	assert_true(r.phases[0].time_at[r.fmin] > r.phases[0].time_at[r.fmax]);
	sl_report_free(&r);

	/* an unreadable --machine is an error */
	make(fx, machine, 1);
	o.machine_path = "/nonexistent/m.yaml";
	sl_report_init(&r);
	assert_int_equal(sl_report_build(&r, &fx->p, &o), -1);
	assert_non_null(strstr(sl_error(), "/nonexistent/m.yaml"));
	sl_report_free(&r);
	free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_degraded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
