/* Unit tests of next-phase prediction (exact predictions on known
 * sequences), phase-guided multiplexing (per-phase round robin, the
 * coverage guarantee under mispredictions, pinned events, k >= n) and the ARI score. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/phases.h"

/* Predictions made before each element of seq is revealed. */
static void predictions(sl_pred_kind kind, const uint32_t *seq, size_t n,
			uint32_t *out)
{
	sl_predictor *p = sl_pred_new(kind);
	for (size_t i = 0; i < n; i++) {
		out[i] = sl_pred_next(p);
		sl_pred_update(p, seq[i]);
	}
	sl_pred_free(p);
}

static void test_pred_last(void **state)
{
	(void)state;
	const uint32_t seq[] = {3, 3, 1, 1, 1, 2, 3};
	const uint32_t want[] = {0, 3, 3, 1, 1, 1, 2};
	uint32_t got[7];
	predictions(SL_PRED_LAST, seq, 7, got);
	assert_memory_equal(got, want, sizeof want);
}

static void test_pred_markov_fixed(void **state)
{
	(void)state;
	/* astar-like: A A B repeated.  A change is predicted once a run has
	 * repeated twice with the same length and follower (third run on). */
	const uint32_t seq[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
	const uint32_t want[] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1};
	uint32_t got[SL_ARRAY_LEN(seq)];
	predictions(SL_PRED_MARKOV, seq, SL_ARRAY_LEN(seq), got);
	assert_memory_equal(got, want, sizeof want);
}

static void test_pred_markov_break(void **state)
{
	(void)state;
	/* Three runs of 0 of length 2 (followed by 5) teach the pattern; the
	 * fourth run is longer: the change predicted at its second interval
	 * is wrong, the pattern is forgotten and the fifth run of length 2
	 * is not anticipated; phase 5's pattern (length 1, then 0) still
	 * holds. */
	const uint32_t seq[] = {0, 0, 5, 0, 0, 5, 0, 0, 5, 0, 0, 0, 5, 0, 0, 5};
	const uint32_t want[] = {0, 0, 0, 5, 0, 0, 5, 0, 0, 5, 0, 5, 0, 0, 0, 0};
	uint32_t got[SL_ARRAY_LEN(seq)];
	predictions(SL_PRED_MARKOV, seq, SL_ARRAY_LEN(seq), got);
	assert_memory_equal(got, want, sizeof want);
}

static void test_pred_names(void **state)
{
	(void)state;
	sl_pred_kind k;
	assert_int_equal(sl_pred_parse("markov", &k), 0);
	assert_int_equal(k, SL_PRED_MARKOV);
	assert_int_equal(sl_pred_parse(sl_pred_name(SL_PRED_LAST), &k), 0);
	assert_int_equal(k, SL_PRED_LAST);
	assert_int_equal(sl_pred_parse("oracle", &k), -1);
	assert_non_null(strstr(sl_error(), "'oracle'"));
}

static void test_mux_round_robin(void **state)
{
	(void)state;
	sl_mux *m = sl_mux_new(5, 2);
	const size_t want[4][2] = {{0, 1}, {2, 3}, {4, 0}, {1, 2}};
	size_t ev[2];
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sl_mux_select(m, 7, ev), 2);
		assert_int_equal(ev[0], want[i][0]);
		assert_int_equal(ev[1], want[i][1]);
		sl_mux_commit(m, 7, ev, 2);
	}
	/* Another phase has its own queue, starting from the beginning. */
	assert_int_equal(sl_mux_select(m, 2, ev), 2);
	assert_int_equal(ev[0], 0);
	assert_int_equal(ev[1], 1);
	assert_int_equal(sl_mux_times(m, 7, 0), 2);
	assert_int_equal(sl_mux_times(m, 7, 4), 1);
	assert_int_equal(sl_mux_times(m, 2, 0), 0);
	sl_mux_free(m);
}

static void test_mux_mispredict_credits_actual(void **state)
{
	(void)state;
	sl_mux *m = sl_mux_new(4, 2);
	size_t ev[2];
	/* Predicted phase 0, but the interval was phase 1. */
	sl_mux_select(m, 0, ev);
	sl_mux_commit(m, 1, ev, 2);
	assert_int_equal(sl_mux_times(m, 1, 0), 1);
	assert_int_equal(sl_mux_times(m, 1, 1), 1);
	assert_int_equal(sl_mux_times(m, 0, 0), 0);
	/* Phase 0 still wants 0 and 1; phase 1 goes on with 2 and 3. */
	sl_mux_select(m, 0, ev);
	assert_true(ev[0] == 0 && ev[1] == 1);
	sl_mux_select(m, 1, ev);
	assert_true(ev[0] == 2 && ev[1] == 3);
	sl_mux_free(m);
}

static void test_mux_all_counters(void **state)
{
	(void)state;
	for (size_t k = 6; k <= 8; k++) {
		sl_mux *m = sl_mux_new(6, k);
		size_t ev[8];
		for (uint32_t ph = 0; ph < 3; ph++) {
			for (int rep = 0; rep < 3; rep++) {
				assert_int_equal(sl_mux_select(m, ph, ev), 6);
				for (size_t e = 0; e < 6; e++)
					assert_int_equal(ev[e], e);
				sl_mux_commit(m, (ph + 1) % 3, ev, 6);
			}
		}
		sl_mux_free(m);
	}
}

/* Random phases, 70% correctly predicted, with `p` pinned events (spread
 * over the list): at the moment a phase reaches ceil((n - p)/(k - p))
 * correct intervals (ceil(n/k) when nothing is pinned or k <= p turns
 * pinning off) it has measured every event, and from then on it keeps
 * that; while pinning is in effect every interval measures the pinned
 * events. */
static void coverage(size_t p)
{
	enum { PH = 6, STEPS = 3000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (size_t n = 1; n <= 13; n += 3) {
		for (size_t k = 1; k < n; k++) {
			gsl_rng_set(r, n * 100 + k + 7 * p);
			sl_mux *m = sl_mux_new(n, k);
			size_t pin[2] = {n - 1, n / 2}, np = SL_MIN(p, n);
			sl_mux_pin(m, pin, np);
			size_t eff = sl_mux_pinned(m);
			size_t want_eff = p && np == p && pin[0] != pin[1] && p < k ? p : 0;
			assert_int_equal(eff, want_eff);
			size_t need = (n - eff + k - eff - 1) / (k - eff), correct[PH] = {0};
			size_t ev[13];
			for (int s = 0; s < STEPS; s++) {
				uint32_t actual = gsl_rng_uniform_int(r, PH);
				uint32_t pred = gsl_rng_uniform(r) < 0.7
							? actual
							: gsl_rng_uniform_int(r, PH);
				size_t got = sl_mux_select(m, pred, ev);
				assert_int_equal(got, k);
				for (size_t i = 0; i < got; i++)
					for (size_t j = 0; j < i; j++)
						assert_int_not_equal(ev[i], ev[j]);
				/* pinned first, in index order: n/2 then n - 1 */
				for (size_t i = 0; i < eff; i++)
					assert_int_equal(ev[i], eff == 1 ? n - 1 : i ? n - 1 : n / 2);
				sl_mux_commit(m, actual, ev, got);
				correct[actual] += pred == actual;
				if (correct[actual] < need)
					continue;
				for (size_t e = 0; e < n; e++)
					if (sl_mux_times(m, actual, e) == 0)
						fail_msg("n=%zu k=%zu p=%zu phase %u: event %zu "
							 "unmeasured after %zu correct",
							 n, k, eff, actual, e, correct[actual]);
			}
			sl_mux_free(m);
		}
	}
	gsl_rng_free(r);
}

static void test_mux_coverage_guarantee(void **state)
{
	(void)state;
	coverage(0);
}

static void test_mux_coverage_pinned(void **state)
{
	(void)state;
	coverage(1);
	coverage(2);
}

/* Pinned events are in every interval, the other counters rotate per phase
 * over the rest; k <= p turns pinning off (plain round robin), k >= n
 * still gives every event. */
static void test_mux_pin(void **state)
{
	(void)state;
	sl_mux *m = sl_mux_new(6, 4);
	const size_t pin[] = {4, 1, 4, 9}; /* a duplicate and an unknown */
	sl_mux_pin(m, pin, 4);
	assert_int_equal(sl_mux_pinned(m), 2);
	const size_t want[4][4] = {{1, 4, 0, 2}, {1, 4, 3, 5}, {1, 4, 0, 2}, {1, 4, 3, 5}};
	size_t ev[6];
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sl_mux_select(m, 3, ev), 4);
		for (int j = 0; j < 4; j++)
			assert_int_equal(ev[j], want[i][j]);
		sl_mux_commit(m, 3, ev, 4);
	}
	assert_int_equal(sl_mux_times(m, 3, 1), 4);
	assert_int_equal(sl_mux_times(m, 3, 4), 4);
	assert_int_equal(sl_mux_times(m, 3, 0), 2);
	assert_int_equal(sl_mux_times(m, 3, 5), 2);
	sl_mux_free(m);

	/* k = p: no counter would be left for the rest; pinning is off. */
	m = sl_mux_new(5, 2);
	const size_t two[] = {3, 4};
	sl_mux_pin(m, two, 2);
	assert_int_equal(sl_mux_pinned(m), 0);
	const size_t rr[3][2] = {{0, 1}, {2, 3}, {4, 0}};
	for (int i = 0; i < 3; i++) {
		sl_mux_select(m, 0, ev);
		assert_true(ev[0] == rr[i][0] && ev[1] == rr[i][1]);
		sl_mux_commit(m, 0, ev, 2);
	}
	/* Unpinning restores the plain queue; pinning again takes effect. */
	sl_mux_pin(m, NULL, 0);
	assert_int_equal(sl_mux_pinned(m), 0);
	sl_mux_pin(m, two + 1, 1);
	assert_int_equal(sl_mux_pinned(m), 1);
	sl_mux_select(m, 0, ev);
	assert_int_equal(ev[0], 4);
	sl_mux_free(m);

	/* k >= n: every event, pins or not. */
	m = sl_mux_new(3, 3);
	sl_mux_pin(m, two, 1);
	assert_int_equal(sl_mux_pinned(m), 0);
	assert_int_equal(sl_mux_select(m, 0, ev), 3);
	for (size_t e = 0; e < 3; e++)
		assert_int_equal(ev[e], e);
	sl_mux_free(m);
}

/* Uncore events take no counter: programmed in every interval after the
 * core's, the k counters still rotating over the core's events alone. */
static void test_mux_uncore(void **state)
{
	(void)state;
	sl_mux *m = sl_mux_new(6, 2);
	const size_t pin[] = {1}, unc[] = {5, 2, 5, 7}; /* a duplicate, an unknown */
	sl_mux_pin(m, pin, 1);
	sl_mux_uncore(m, unc, 4);
	assert_int_equal(sl_mux_pinned(m), 1);
	const size_t want[3][4] = {{1, 0, 2, 5}, {1, 3, 2, 5}, {1, 4, 2, 5}};
	size_t ev[6];
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sl_mux_select(m, 0, ev), 4);
		for (int j = 0; j < 4; j++)
			assert_int_equal(ev[j], want[i][j]);
		sl_mux_commit(m, 0, ev, 4);
	}
	assert_int_equal(sl_mux_times(m, 0, 5), 3);
	assert_int_equal(sl_mux_times(m, 0, 0), 1);
	/* a pinned uncore event takes no counter either */
	const size_t pin2[] = {1, 5};
	sl_mux_pin(m, pin2, 2);
	assert_int_equal(sl_mux_pinned(m), 1);
	assert_int_equal(sl_mux_select(m, 0, ev), 4);
	assert_int_equal(ev[0], 1);
	sl_mux_free(m);

	/* k covers every core event: all of them, uncore too. */
	m = sl_mux_new(4, 3);
	const size_t one[] = {0};
	sl_mux_uncore(m, one, 1);
	assert_int_equal(sl_mux_select(m, 0, ev), 4);
	for (size_t e = 0; e < 4; e++)
		assert_int_equal(ev[e], e);
	sl_mux_free(m);
}

static void test_ari_values(void **state)
{
	(void)state;
	const uint32_t a[] = {0, 0, 1, 1}, b[] = {0, 0, 1, 2}, c[] = {0, 1, 0, 1};
	const uint32_t a_renamed[] = {7, 7, 0xffffffffu, 0xffffffffu};
	assert_true(fabs(sl_ari(a, a, 4) - 1) < 1e-12);
	assert_true(fabs(sl_ari(a, a_renamed, 4) - 1) < 1e-12);
	/* Hand-computed: cells 1, rows 2, columns 1, pairs 6:
	 * (1 - 2/6) / (1.5 - 2/6) = 4/7. */
	assert_true(fabs(sl_ari(a, b, 4) - 4.0 / 7) < 1e-12);
	assert_true(fabs(sl_ari(b, a, 4) - 4.0 / 7) < 1e-12);
	/* (0 - 4/6) / (2 - 4/6) = -1/2. */
	assert_true(fabs(sl_ari(a, c, 4) + 0.5) < 1e-12);
	const uint32_t one[] = {4, 4, 4}, sing[] = {0, 1, 2};
	assert_true(sl_ari(one, one, 3) == 1);
	assert_true(sl_ari(sing, sing, 3) == 1);
	assert_true(fabs(sl_ari(one, sing, 3)) < 1e-12);
	assert_true(sl_ari(a, b, 1) == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pred_last),
		cmocka_unit_test(test_pred_markov_fixed),
		cmocka_unit_test(test_pred_markov_break),
		cmocka_unit_test(test_pred_names),
		cmocka_unit_test(test_mux_round_robin),
		cmocka_unit_test(test_mux_mispredict_credits_actual),
		cmocka_unit_test(test_mux_all_counters),
		cmocka_unit_test(test_mux_coverage_guarantee),
		cmocka_unit_test(test_mux_coverage_pinned),
		cmocka_unit_test(test_mux_pin),
		cmocka_unit_test(test_mux_uncore),
		cmocka_unit_test(test_ari_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
