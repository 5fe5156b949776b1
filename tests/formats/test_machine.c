/* Unit tests of sleuth-machine/1: the example of docs/formats.md loads, skeletons load
 * but are not complete, write -> load is the identity, and every rejection
 * rule names file, line and key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/machine.h"

#define HEAD "format: sleuth-machine/1\nname: nhm\ncounters: {programmable: 4}\n" \
	     "memory_latency_ns: 65\n"
/* line 5 */
#define PSTATES "pstates:\n  - {ghz: 1.60, volts: 0.950, static_w: 14.1}\n" \
		"  - {ghz: 2.66, volts: 1.200, static_w: 21.3}\n"
/* line 8 */
#define EVENTS "events:\n  branch_sample: BR_INST_RETIRED:CONDITIONAL\n" \
	       "  stall_cycles: UOPS_EXECUTED:CORE_STALL_CYCLES\n" \
	       "  llc_misses: LLC_MISSES\n  resource_stalls: RESOURCE_STALLS:ANY\n"
/* line 13 */
#define POWER "power:\n  constant: 2.11\n  terms:\n" \
	      "    - {event: UOPS_EXECUTED:PORT234_CORE, coeff: 0.75}\n" \
	      "    - {event: L2_RQSTS:MISS, coeff: -4.51}\n"

static int load(const char *text, sl_machine *m)
{
	return sl_machine_load_mem("m.yaml", text, strlen(text), m);
}

static void check_example(const sl_machine *m)
{
	assert_string_equal(m->name, "nhm");
	assert_int_equal(m->programmable, 4);
	assert_true(m->memory_latency_ns == 65);
	assert_int_equal(m->n_pstates, 2);
	assert_true(m->pstates[0].ghz == 2.66); /* sorted, fastest first */
	assert_true(m->pstates[0].volts == 1.2);
	assert_true(m->pstates[0].static_w == 21.3);
	assert_true(m->pstates[1].ghz == 1.6);
	assert_true(sl_machine_fmax(m) == 2.66);
	assert_true(sl_machine_fmin(m) == 1.6);
	assert_int_equal(sl_machine_pstate(m, 1.6002), 1);
	assert_int_equal(sl_machine_pstate(m, 2.0), -1);
	assert_string_equal(sl_machine_role(m, "llc_misses"), "LLC_MISSES");
	assert_null(sl_machine_role(m, "memory_stall_cycles"));
	assert_int_equal(m->n_roles, 4);
	assert_string_equal(m->roles[0].role, "branch_sample"); /* file order */
	assert_true(m->has_power && m->has_constant && m->constant == 2.11);
	assert_int_equal(m->n_terms, 2);
	assert_string_equal(m->terms[1].event, "L2_RQSTS:MISS");
	assert_true(m->terms[1].has_coeff && m->terms[1].coeff == -4.51);
}

static void test_example_and_round_trip(void **state)
{
	(void)state;
	sl_machine m, m2;
	const char *text = HEAD PSTATES EVENTS POWER;
	assert_int_equal(load(text, &m), 0);
	check_example(&m);
	assert_string_equal(m.text, text);
	assert_int_equal(sl_machine_complete(&m), 1);

	const char **ev;
	size_t n = sl_machine_model_events(&m, &ev);
	assert_int_equal(n, 5);
	assert_string_equal(ev[0], "UOPS_EXECUTED:CORE_STALL_CYCLES");
	assert_string_equal(ev[2], "RESOURCE_STALLS:ANY");
	assert_string_equal(ev[4], "L2_RQSTS:MISS");
	free(ev);

	char dir[] = "/tmp/sleuth-machine-ut.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = sl_xasprintf("%s/m.yaml", dir);
	assert_int_equal(sl_machine_write(path, &m, "fitted by a test\non two lines"), 0);
	assert_int_equal(sl_machine_load(path, &m2), 0);
	check_example(&m2);
	assert_non_null(strstr(m2.text, "# fitted by a test\n# on two lines\n"));
	assert_non_null(strstr(m2.text, "- {ghz: 2.66, volts: 1.2, static_w: 21.3}"));
	sl_machine_free(&m2);
	unlink(path);
	rmdir(dir);
	free(path);
	sl_machine_free(&m);
	assert_null(m.name);

	assert_int_equal(sl_machine_load("/nonexistent/m.yaml", &m), -1);
	assert_non_null(strstr(sl_error(), "cannot open machine /nonexistent/m.yaml"));
}

/* Skeletons load; sl_machine_complete() names what is missing. */
static void test_skeletons(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *missing;
	} cases[] = {
		{HEAD "pstates: [{ghz: 2.66, volts: 1.2}, {ghz: 1.6, volts: 0.95}]\n" EVENTS,
		 "the P-states have no static_w"},
		{HEAD PSTATES EVENTS, "there is no power: section"},
		/* no voltages (most platforms expose none): loads, but no power */
		{HEAD "pstates: [{ghz: 2.66, static_w: 3}, {ghz: 1.6, static_w: 2}]\n" EVENTS
		 "power: {constant: 1, terms: []}\n", "the P-states have no volts"},
		{HEAD PSTATES EVENTS "power: {terms: [{event: UOPS_EXECUTED:PORT234_CORE}, "
		 "{event: L2_RQSTS:MISS}]}\n", "power: has no constant"},
	};
	for (size_t i = 0; i < SL_ARRAY_LEN(cases); i++) {
		sl_machine m;
		assert_int_equal(load(cases[i].text, &m), 0);
		assert_int_equal(sl_machine_complete(&m), 0);
		assert_non_null(strstr(sl_error(), cases[i].missing));
		assert_non_null(strstr(sl_error(), "run sleuth calibrate"));
		sl_machine_free(&m);
	}
	/* Flow style throughout, hex integers. */
	sl_machine m;
	assert_int_equal(load("{format: sleuth-machine/1, name: x, counters: {programmable: 0x2},"
			      " memory_latency_ns: 0x41, pstates: [{ghz: 1, volts: 1}],"
			      " events: {}, power: {constant: 1, terms: []}}", &m), 0);
	assert_int_equal(m.programmable, 2);
	assert_true(m.memory_latency_ns == 65);
	assert_int_equal(m.n_terms, 0);
	assert_int_equal(sl_machine_complete(&m), 0);
	sl_machine_free(&m);
}

/* m written to a scratch file and loaded back into *out. */
static void round_trip(const sl_machine *m, sl_machine *out)
{
	char dir[] = "/tmp/sleuth-machine-ut.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = sl_xasprintf("%s/m.yaml", dir);
	assert_int_equal(sl_machine_write(path, m, NULL), 0);
	assert_int_equal(sl_machine_load(path, out), 0);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* keep: auto on a skeleton's term (calibrate judges it): read, written
 * back, and absent from a term without it. */
static void test_keep_auto(void **state)
{
	(void)state;
	sl_machine m, m2;
	const char *text = HEAD PSTATES EVENTS
		"power:\n  terms:\n"
		"    - {event: LLC_MISSES}\n"
		"    - {event: STALLS, keep: auto}\n"
		"    - {event: L2_MISS, kind: energy, keep: always}\n";
	assert_int_equal(load(text, &m), 0);
	assert_int_equal(m.n_terms, 3);
	assert_int_equal(m.floor_stalled, 0);
	assert_int_equal(m.terms[0].keep_auto, 0);
	assert_int_equal(m.terms[1].keep_auto, 1);
	assert_int_equal(m.terms[2].keep_auto, 0);
	round_trip(&m, &m2);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(m2.terms[k].keep_auto, m.terms[k].keep_auto);
	const char *k1 = strstr(m2.text, "keep: auto");
	assert_non_null(k1);
	assert_null(strstr(k1 + 1, "keep:"));
	sl_machine_free(&m2);
	sl_machine_free(&m);
}

/* memory: stall_llc_share and stall_per_mispredict (the mlp model's other
 * stalls) and the mispredicts role: read, written back exactly, and absent
 * (has_stall_probe 0) from a file without them. */
static void test_stall_probes(void **state)
{
	(void)state;
	sl_machine m, m2;
	const char *text = HEAD PSTATES EVENTS "  mispredicts: BR_MISP_EXEC:ANY\n" POWER
		"memory:\n  stall_llc_share: 0.85\n  stall_per_mispredict: 10.2\n";
	assert_int_equal(load(text, &m), 0);
	assert_int_equal(m.has_stall_probe, 1);
	assert_true(m.mem_stall_llc_share == 0.85 && m.mem_stall_mispredict == 10.2);
	assert_string_equal(sl_machine_role(&m, "mispredicts"), "BR_MISP_EXEC:ANY");
	round_trip(&m, &m2);
	assert_int_equal(m2.has_stall_probe, 1);
	assert_true(m2.mem_stall_llc_share == 0.85 && m2.mem_stall_mispredict == 10.2);
	sl_machine_free(&m2);
	sl_machine_free(&m);
	assert_int_equal(load(HEAD PSTATES EVENTS POWER "memory:\n  bandwidth_gbps: 12\n", &m), 0);
	assert_int_equal(m.has_stall_probe, 0);
	round_trip(&m, &m2);
	assert_int_equal(m2.has_stall_probe, 0);
	assert_null(strstr(m2.text, "stall_llc_share"));
	assert_null(strstr(m2.text, "stall_per_mispredict"));
	sl_machine_free(&m2);
	sl_machine_free(&m);
}

/* memory: latency: llc_chase_ns (an exposed LLC hit's latency) and the
 * l2_miss_stall_cycles role: read, interpolated, written back exactly;
 * unknown (0) unless every latency point has one; absent from what a file
 * without them writes. */
static void test_llc_chase(void **state)
{
	(void)state;
	sl_machine m, m2;
	const char *text = HEAD PSTATES EVENTS "  l2_miss_stall_cycles: CYCLE_ACTIVITY:STALLS_L2_MISS\n"
		POWER "memory:\n  latency:\n"
		"    - {ghz: 1.60, ns: 85, llc_ns: 1.3, llc_chase_ns: 20.8}\n"
		"    - {ghz: 2.66, ns: 81, llc_ns: 1.3, llc_chase_ns: 16.9}\n";
	assert_int_equal(load(text, &m), 0);
	assert_string_equal(sl_machine_role(&m, "l2_miss_stall_cycles"),
			    "CYCLE_ACTIVITY:STALLS_L2_MISS");
	assert_true(sl_machine_counts_cycles(&m, "CYCLE_ACTIVITY:STALLS_L2_MISS"));
	assert_true(fabs(sl_machine_llc_chase(&m, 2.66) - 16.9) < 1e-9);
	assert_true(fabs(sl_machine_llc_chase(&m, 2.13) - 18.85) < 1e-6);
	round_trip(&m, &m2);
	assert_true(fabs(sl_machine_llc_chase(&m2, 1.60) - 20.8) < 1e-9);
	assert_string_equal(sl_machine_role(&m2, "l2_miss_stall_cycles"),
			    "CYCLE_ACTIVITY:STALLS_L2_MISS");
	sl_machine_free(&m2);
	sl_machine_free(&m);
	/* one point without it: not measured */
	assert_int_equal(load(HEAD PSTATES EVENTS POWER "memory:\n  latency:\n"
			      "    - {ghz: 1.60, ns: 85, llc_ns: 1.3}\n"
			      "    - {ghz: 2.66, ns: 81, llc_ns: 1.3, llc_chase_ns: 16.9}\n", &m), 0);
	assert_true(sl_machine_llc_chase(&m, 2.66) == 0);
	sl_machine_free(&m);
	assert_int_equal(load(HEAD PSTATES EVENTS POWER "memory:\n  latency:\n"
			      "    - {ghz: 2.66, ns: 81, llc_ns: 1.3}\n", &m), 0);
	assert_true(sl_machine_llc_chase(&m, 2.66) == 0);
	round_trip(&m, &m2);
	assert_null(strstr(m2.text, "llc_chase_ns"));
	sl_machine_free(&m2);
	sl_machine_free(&m);
}

/* Terms of kind energy (nJ per event at a fixed voltage): one event may be
 * a term of each kind; write -> load keeps the kind; a file without kinds
 * is read and written as before (every term effective capacitance). */
static void test_energy_terms(void **state)
{
	(void)state;
	sl_machine m, m2;
	const char *text = HEAD PSTATES EVENTS
		"power:\n  constant: 2.11\n  floor: stalled\n  terms:\n"
		"    - {event: LLC_MISSES, coeff: 3.5}\n"
		"    - {event: LLC_MISSES, kind: energy, coeff: 25}\n"
		"    - {event: L2_RQSTS:MISS, kind: ceff, coeff: -4.51}\n";
	assert_int_equal(load(text, &m), 0);
	assert_int_equal(m.n_terms, 3);
	assert_true(!m.terms[0].energy && m.terms[0].coeff == 3.5);
	assert_int_equal(m.floor_stalled, 1);
	assert_true(m.terms[1].energy && m.terms[1].coeff == 25);
	assert_true(!m.terms[2].energy);
	assert_int_equal(sl_machine_complete(&m), 1);
	const char **ev;
	assert_int_equal(sl_machine_model_events(&m, &ev), 4); /* LLC_MISSES once */
	free(ev);

	char dir[] = "/tmp/sleuth-machine-ut.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = sl_xasprintf("%s/m.yaml", dir);
	assert_int_equal(sl_machine_write(path, &m, NULL), 0);
	assert_int_equal(sl_machine_load(path, &m2), 0);
	assert_int_equal(m2.n_terms, 3);
	assert_int_equal(m2.floor_stalled, 1);
	for (size_t k = 0; k < 3; k++) {
		assert_string_equal(m2.terms[k].event, m.terms[k].event);
		assert_int_equal(m2.terms[k].energy, m.terms[k].energy);
		assert_true(m2.terms[k].coeff == m.terms[k].coeff);
	}
	/* only the energy term says its kind */
	const char *k1 = strstr(m2.text, "kind: energy");
	assert_non_null(k1);
	assert_null(strstr(k1 + 1, "kind:"));
	sl_machine_free(&m2);
	sl_machine_free(&m);

	/* an old file: no kind anywhere, every term capacitance, and written
	 * back without one */
	assert_int_equal(load(HEAD PSTATES EVENTS POWER, &m), 0);
	for (size_t k = 0; k < m.n_terms; k++)
		assert_int_equal(m.terms[k].energy, 0);
	assert_int_equal(m.floor_stalled, 0);
	assert_int_equal(sl_machine_write(path, &m, NULL), 0);
	assert_int_equal(sl_machine_load(path, &m2), 0);
	check_example(&m2);
	assert_null(strstr(m2.text, "kind"));
	sl_machine_free(&m2);
	sl_machine_free(&m);
	unlink(path);
	rmdir(dir);
	free(path);
}

static const struct {
	const char *text;
	const char *error;
} bad[] = {
	{"name: x\n", "m.yaml:1: key 'format': missing required key"},
	{"format: sleuth-machine/2\n", "m.yaml:1: key 'format': 'sleuth-machine/2' is not"},
	{"format: sleuth-trace/1\n", "m.yaml:1: key 'format': 'sleuth-trace/1' is not"},
	{"format: sleuth-machine/1\n", "m.yaml:1: key 'name': missing required key"},
	{"format: sleuth-machine/1\nname: x\n", "m.yaml:1: key 'counters': missing required key"},
	{"format: sleuth-machine/1\nname: x\ncounters: 4\n", "m.yaml:3: key 'counters': expected a mapping"},
	{"format: sleuth-machine/1\nname: x\ncounters: {}\n", "m.yaml:3: key 'programmable': missing required key"},
	{"format: sleuth-machine/1\nname: x\ncounters: {programmable: 0}\n", "m.yaml:3: key 'programmable': must be between 1 and 64"},
	{"format: sleuth-machine/1\nname: x\ncounters: {programmable: four}\n", "m.yaml:3: key 'programmable': expected an integer"},
	{"format: sleuth-machine/1\nname: x\ncounters: {programmable: 4}\n", "m.yaml:1: key 'memory_latency_ns': missing required key"},
	{"format: sleuth-machine/1\nname: x\ncounters: {programmable: 4}\nmemory_latency_ns: 0\n", "m.yaml:4: key 'memory_latency_ns': must be > 0"},
	{"format: sleuth-machine/1\nname: x\ncounters: {programmable: 4}\nmemory_latency_ns: .nan\n", "m.yaml:4: key 'memory_latency_ns': NaN"},
	{HEAD EVENTS, "m.yaml:1: key 'pstates': missing required key"},
	{HEAD "pstates: []\n", "m.yaml:5: key 'pstates': at least one P-state"},
	{HEAD "pstates: {ghz: 1}\n", "m.yaml:5: key 'pstates': expected a sequence"},
	{HEAD "pstates:\n  - {ghz: 2, volts: 1}\n  - {ghz: 1}\n", "m.yaml:7: key 'volts': missing here but given for 1 of 2 P-states"},
	{HEAD "pstates:\n  - {volts: 1}\n", "m.yaml:6: key 'ghz': missing required key in P-state 1"},
	{HEAD "pstates:\n  - {ghz: 0, volts: 1}\n", "m.yaml:6: key 'ghz': must be > 0"},
	{HEAD "pstates:\n  - {ghz: 1, volts: -1}\n", "m.yaml:6: key 'volts': must be > 0"},
	{HEAD "pstates:\n  - {ghz: 1, volts: 1, static_w: -2}\n", "m.yaml:6: key 'static_w': must be >= 0"},
	{HEAD "pstates:\n  - {ghz: 1, volts: 1}\n  - {ghz: 1.0001, volts: 1}\n", "m.yaml:7: key 'ghz': 1.0001 GHz is the same P-state as 1 GHz"},
	{HEAD "pstates:\n  - {ghz: 1, volts: 1, static_w: 3}\n  - {ghz: 2, volts: 1}\n", "m.yaml:7: key 'static_w': missing here but given for 1 of 2 P-states"},
	{HEAD PSTATES, "m.yaml:1: key 'events': missing required key"},
	{HEAD PSTATES "events: [LLC_MISSES]\n", "m.yaml:8: key 'events': expected a mapping"},
	{HEAD PSTATES "events: {llc_misses: [LLC_MISSES]}\n", "m.yaml:8: key 'llc_misses': expected a scalar"},
	{HEAD PSTATES EVENTS "power: 3\n", "m.yaml:13: key 'power': expected a mapping"},
	{HEAD PSTATES EVENTS "power: {constant: 1}\n", "m.yaml:13: key 'terms': missing required key in power"},
	{HEAD PSTATES EVENTS "power:\n  constant: 1\n  terms:\n    - {event: A}\n", "m.yaml:14: key 'constant': given but the terms have no coeff"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {event: A, coeff: 1}\n", "m.yaml:14: key 'constant': missing while the terms have coeff"},
	{HEAD PSTATES EVENTS "power:\n  constant: 1\n  terms:\n    - {event: A, coeff: 1}\n    - {event: B}\n", "m.yaml:16: key 'coeff': given for 1 of 2 power terms"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {coeff: 1}\n", "m.yaml:15: key 'event': missing required key in a power term"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {event: A}\n    - {event: A}\n", "m.yaml:16: key 'event': A is a power term of kind ceff twice"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {event: A, kind: energy}\n    - {event: A, kind: energy}\n", "m.yaml:16: key 'event': A is a power term of kind energy twice"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {event: A, kind: joules}\n", "m.yaml:15: key 'kind': unknown power term kind 'joules'; use 'ceff'"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {event: A, kind: [energy]}\n", "m.yaml:15: key 'kind': expected a scalar"},
	{HEAD PSTATES EVENTS "power:\n  terms:\n    - {event: A, keep: maybe}\n", "m.yaml:15: key 'keep': unknown value 'maybe'; use 'always'"},
	{HEAD PSTATES EVENTS "power:\n  floor: low\n  terms:\n    - {event: A}\n", "m.yaml:14: key 'floor': unknown floor 'low'; use 'static'"},
	{HEAD PSTATES EVENTS "memory:\n  stall_llc_share: 0.8\n", "m.yaml:14: key 'stall_llc_share': comes with stall_per_mispredict (both are measured by bench/memprobe-sim.sh); give both or neither"},
	{HEAD PSTATES EVENTS "memory:\n  stall_per_mispredict: 10\n", "m.yaml:14: key 'stall_per_mispredict': comes with stall_llc_share"},
	{HEAD PSTATES EVENTS "memory:\n  stall_llc_share: 3\n  stall_per_mispredict: 10\n", "m.yaml:14: key 'stall_llc_share': 3 is out of range; give 0 to 2"},
	{HEAD PSTATES EVENTS "memory:\n  latency:\n    - {ghz: 1.6, ns: 85, llc_chase_ns: -2}\n", "m.yaml:15: key 'llc_chase_ns': must be between 0 and 10000 ns, found -2"},
	{HEAD PSTATES EVENTS "memory:\n  stall_llc_share: 0.8\n  stall_per_mispredict: -1\n", "m.yaml:15: key 'stall_per_mispredict': -1 is out of range"},
	{HEAD PSTATES EVENTS "power:\n  constant: .inf\n  terms: []\n", "m.yaml:14: key 'constant': an infinite value"},
	{HEAD PSTATES EVENTS "power:\n  constant: 1\n  terms:\n    - {event: A, coeff: x}\n", "m.yaml:16: key 'coeff': expected a number"},
	{HEAD PSTATES EVENTS "thermal:\n  tau_s: 1\n", "m.yaml:14: key 'k_per_w': missing required key in thermal"},
	{HEAD PSTATES EVENTS "thermal:\n  k_per_w: 0\n  tau_s: 1\n", "m.yaml:14: key 'k_per_w': must be > 0"},
	{HEAD PSTATES EVENTS "thermal:\n  k_per_w: 1\n  tau_s: 1\n  leakage:\n    per_c: 0.02\n    ref_c: 60\n    at:\n      - {ghz: 2.0, w: 3}\n", "m.yaml:20: key 'ghz': 2 GHz is no P-state of this machine"},
	{HEAD PSTATES EVENTS "thermal:\n  k_per_w: 1\n  tau_s: 1\n  leakage:\n    per_c: 0.02\n    ref_c: 60\n    at:\n      - {ghz: 1.6, w: 3}\n      - {ghz: 1.6, w: 4}\n", "m.yaml:21: key 'ghz': 1.6 GHz listed twice"},
	{HEAD PSTATES EVENTS "thermal:\n  k_per_w: 1\n  tau_s: 1\n  leakage:\n    per_c: 2\n    ref_c: 60\n    at: []\n", "m.yaml:17: key 'per_c': 2 is out of range"},
	{HEAD PSTATES EVENTS "power:\n  constant: 1\n  temp_ref_c: 50\n  terms: []\n", "m.yaml:15: key 'temp_coeff': missing while temp_ref_c is given; give temp_coeff, or thermal: leakage"},
	{HEAD "name: y\n", "m.yaml:5: key 'name': duplicate key"},
	{"[1, 2]\n", "m.yaml:1: the document must be a mapping"},
};

/* thermal: (calibrate --thermal-only): read, the leakage log-linear in V
 * between its points and exponential in T, static power's change from
 * temp_ref_c with it in place of temp_coeff, written back the same. */
static void test_thermal(void **state)
{
	(void)state;
	sl_machine m, m2;
	const char *text = HEAD PSTATES EVENTS
		"power:\n  constant: 2.11\n  temp_ref_c: 50\n  terms:\n"
		"    - {event: UOPS_EXECUTED:PORT234_CORE, coeff: 0.75}\n"
		"thermal:\n  k_per_w: 0.9\n  tau_s: 0.4\n  leakage:\n    per_c: 0.02\n"
		"    ref_c: 60\n    at:\n      - {ghz: 1.60, w: 4}\n      - {ghz: 2.66, w: 16}\n";
	assert_int_equal(load(text, &m), 0);
	assert_true(m.has_thermal && m.has_temp && m.n_leak == 2);
	assert_true(m.leak_ghz[0] == 2.66 && m.leak_w[0] == 16); /* fastest first */
	assert_true(fabs(sl_machine_leakage(&m, 2.66, 1.2, 60) - 16) < 1e-9);
	assert_true(fabs(sl_machine_leakage(&m, 1.6, 0.95, 70) - 4 * exp(0.2)) < 1e-9);
	/* halfway in V: the geometric mean */
	assert_true(fabs(sl_machine_leakage(&m, 2.13, 1.075, 60) - 8) < 1e-9);
	assert_true(fabs(sl_machine_static_temp(&m, 2.66, 1.2, 50)) < 1e-12);
	assert_true(fabs(sl_machine_static_temp(&m, 2.66, 1.2, 60) - 16 * (1 - exp(-0.2))) < 1e-9);
	round_trip(&m, &m2);
	assert_true(m2.has_thermal && m2.thermal_k_per_w == 0.9 && m2.thermal_tau_s == 0.4);
	assert_true(m2.n_leak == 2 && m2.leak_per_c == 0.02 && m2.leak_ref_c == 60);
	assert_true(m2.has_temp && m2.temp_ref_c == 50);
	assert_null(strstr(m2.text, "temp_coeff"));
	sl_machine_free(&m2);
	sl_machine_free(&m);
	/* the old form is unchanged: temp_coeff * V * (T - temp_ref_c) */
	assert_int_equal(load(HEAD PSTATES EVENTS "power:\n  constant: 1\n  temp_ref_c: 50\n"
			      "  temp_coeff: 0.5\n  terms: []\n", &m), 0);
	assert_true(fabs(sl_machine_static_temp(&m, 2.66, 1.2, 60) - 6) < 1e-12);
	assert_true(sl_machine_leakage(&m, 2.66, 1.2, 60) == 0);
	sl_machine_free(&m);
}

static void test_rejections(void **state)
{
	(void)state;
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		sl_machine m;
		int rc = load(bad[i].text, &m);
		if (rc != -1 || !strstr(sl_error(), bad[i].error))
			fail_msg("case %zu: got %d, error '%s', wanted '%s'", i, rc,
				 sl_error(), bad[i].error);
		assert_null(m.text); /* freed on failure */
		if (rc == 0)
			sl_machine_free(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_and_round_trip),
		cmocka_unit_test(test_skeletons),
		cmocka_unit_test(test_energy_terms),
		cmocka_unit_test(test_keep_auto),
		cmocka_unit_test(test_stall_probes),
		cmocka_unit_test(test_llc_chase),
		cmocka_unit_test(test_thermal),
		cmocka_unit_test(test_rejections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
