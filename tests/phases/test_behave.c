/* Unit tests of behaviour phases (phases/behave.c): a code phase whose
 * intervals form two groups of behaviour is split in two, noise within the
 * threshold is not, the first interval after a change of code founds no
 * group, groups that converge are merged, a drifting behaviour is
 * followed, a group that a drift left behind is merged into its successor
 * at the end of the run (not a second behaviour that alternates with the
 * first, nor one that starts beyond anything the first did) even when the
 * drift later comes back near the group left behind, a ramp into the next
 * phase is merged into the phase it leaves however long it takes (not a
 * behaviour that sits between two phases, nor one off the way between
 * them), two groups of one code that take turns by runs are one behaviour
 * (also when a gap of less than half the threshold lies between their
 * ranges; not when their ranges are further apart or they come in the
 * same runs), two
 * code phases made one merge the groups that behave alike, each interval
 * goes at the end to the group of its code whose mean is nearest, and
 * missing features are ignored; a transient group merged into a lasting
 * one does not make that one transient in turn, nor make a short
 * behaviour that came only with it come with that one; a second behaviour of one
 * code met in instances of two intervals of its own is not a transient
 * group, and its first intervals go to it at the end; and two groups that
 * take turns are kept apart when only the last interval of a run, before a
 * change of code, bridges the gap between their ranges; two tight
 * behaviours of one code under the threshold apart that take turns by runs
 * are split at the end (not a drift over the same range, nor two that
 * spread as wide as their gap; under half the threshold apart, only when
 * their turns are too regular for chance); a second behaviour visited in one
 * interval inside runs of its code, beyond both of its neighbours each
 * time, keeps its own phase when it recurs (not when it is the only pure
 * behaviour of its code); a later stage of a code's runs that each run
 * ramps into keeps its own phase when the older behaviour opens every one
 * of its runs (not when nothing of the older one does); and a second
 * behaviour under half the threshold away that holds flat for a stretch
 * inside most runs of its code is split at the end (not a ramp as far
 * away, nor stretches too short to tell); and the first interval of a
 * ramp from one group to another inside a run of their code does not
 * bridge their ranges into one drifting behaviour. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "sleuth/phases.h"

/* x = (log cpi, log rate) around (a, b) with a deterministic wobble */
static void feat(double *x, double a, double b, int i)
{
	x[0] = a + 0.05 * sin(i * 1.7);
	x[1] = b + 0.05 * cos(i * 2.3);
}

static void test_split_and_noise(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, 1.0);
	double x[2];
	uint32_t first = 0, second = 0;
	for (int i = 0; i < 40; i++) {
		/* code phase 0, same code, behaviour alternating every 5 */
		int hi = (i / 5) % 2;
		feat(x, hi ? 1.2 : 0.0, hi ? 2.5 : 0.3, i);
		uint32_t id = sl_behave_assign(b, 0, x);
		if (i == 0)
			first = id;
		if (i == 5)
			second = id;
		assert_int_equal(id, hi ? second : first);
	}
	assert_int_not_equal(first, second);
	/* another code phase starts groups of its own */
	feat(x, 0.0, 0.3, 99);
	uint32_t other = sl_behave_assign(b, 1, x);
	assert_true(other != first && other != second);
	sl_behave_free(b);
}

static void test_code_change_founds_nothing(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, 1.0);
	double x[2] = {0, 0}, far[2] = {3, 3};
	uint32_t a = sl_behave_assign(b, 0, x);
	uint32_t c = sl_behave_assign(b, 1, x);   /* first of code 1: founds (none yet) */
	assert_int_not_equal(a, c);
	/* back to code 0 with a far behaviour: a code change, so no new group */
	assert_int_equal(sl_behave_assign(b, 0, far), a);
	/* the same far behaviour again, no code change: a new group */
	uint32_t d = sl_behave_assign(b, 0, far);
	assert_true(d != a && d != c);
	sl_behave_free(b);
}

/* A group founded by an interval that shows no behaviour (NaN features:
 * one counted at another clock) takes its centroid from the first that
 * does, so the behaviour that follows joins it: with the centroid at 0
 * the next interval, 3 away, founded a second group. */
static void test_founder_without_features(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, 1.0);
	double none[2] = {NAN, NAN}, x[2] = {3, 3};
	uint32_t a = sl_behave_assign(b, 0, none);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sl_behave_assign(b, 0, x), a);
	sl_behave_finish(b);
	assert_int_equal(sl_behave_final(b, a), a);
	sl_behave_free(b);
}

/* At the end of the run a transient group -- met in runs of one interval
 * (the second interval of each transition from code 1 to code 0, where
 * behaviour still ramps) -- is merged into the lasting group of its code
 * phase; a group of the same code met in long runs is kept. */
static void test_finish_merges_transients(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, 1.0);
	double x[2];
	uint32_t lasting = 0, ramp = 0, other = 0;
	for (int rep = 0; rep < 6; rep++) {
		int i = 10 * rep;
		feat(x, 3.0, 3.0, i);
		sl_behave_assign(b, 1, x); /* code 1 */
		feat(x, 0.3, 0.3, i + 1);  /* code 0, first: joins its nearest */
		sl_behave_assign(b, 0, x);
		feat(x, 1.5, 1.5, i + 2);  /* still ramping: a group of its own */
		uint32_t r = sl_behave_assign(b, 0, x);
		for (int k = 3; k < 8; k++) {
			feat(x, 0.0, 0.0, i + k);
			uint32_t l = sl_behave_assign(b, 0, x);
			if (!rep && k == 3)
				lasting = l;
		}
		if (!rep)
			ramp = r;
		for (int k = 8; k < 10 && rep < 3; k++) {
			feat(x, 0.0, 6.0, i + k); /* same code, other data, lasting */
			other = sl_behave_assign(b, 0, x);
		}
	}
	assert_int_not_equal(ramp, lasting);
	assert_int_not_equal(other, lasting);
	assert_int_equal(sl_behave_final(b, ramp), ramp); /* not yet */
	sl_behave_finish(b);
	assert_int_equal(sl_behave_final(b, ramp), sl_behave_final(b, lasting));
	assert_int_equal(sl_behave_final(b, other), other);
	assert_int_equal(sl_behave_final(b, lasting), lasting);
	sl_behave_free(b);
}

/* A behaviour that drifts (3 log units over 120 intervals, in runs of 10
 * between runs of another code phase) stays one phase: the centroid
 * follows the last SL_BEHAVE_WINDOW intervals.  A running mean over the
 * whole run would lag by 1.5 at the end and cut the drift in pieces. */
static void test_drift_is_followed(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	uint32_t first = 0;
	for (int i = 0; i < 240; i++) {
		int code = (i / 10) % 2;
		double d = 3.0 * i / 240;
		feat(x, code ? 4.0 : d, code ? 4.0 : 0.5 * d, i);
		uint32_t id = sl_behave_assign(b, (uint32_t)code, x);
		if (!i)
			first = id;
		if (!code)
			assert_int_equal(sl_behave_final(b, id), first);
	}
	sl_behave_free(b);
}

/* Code phase 0 in runs of 8 intervals between runs of code 1.  Its runs
 * 0-2 behave as `early(k)` (k: the interval within the run), the later ones
 * as `late(k)`.  Returns the phase of its first interval, and in *second
 * the phase of the first interval of run 3 after the code change. */
static uint32_t two_eras(sl_behave *b, double (*early)(int), double (*late)(int), int alternate,
			 uint32_t *second)
{
	double x[2];
	uint32_t first = 0;
	for (int run = 0; run < 8; run++) {
		feat(x, 4.0, 4.0, run);
		sl_behave_assign(b, 1, x);
		int old = alternate ? run % 2 == 0 : run < 3;
		for (int k = 0; k < 8; k++) {
			double v = old ? early(k) : late(k);
			feat(x, v, 0.5 * v, 8 * run + k);
			uint32_t id = sl_behave_assign(b, 0, x);
			if (!run && !k)
				first = id;
			if (run == 3 && k == 1)
				*second = id;
		}
	}
	return first;
}

/* 0 and 0.5 in turn: a centroid near 0.25, a range reaching 0.55 */
static double wobble(int k) { return k % 2 ? 0.5 : 0.0; }
/* where the drift took it while code 1 ran: beyond the threshold (0.85)
 * from the centroid left behind (0.35 after the first interval of run 3
 * joined it), within it of the range the group had (up to 0.55) */
static double moved(int k) { return 1.3 + 0.02 * k; }
/* a behaviour that starts beyond anything the first did */
static double stepped(int k) { return 2.5 + 0.02 * k; }

static void test_finish_merges_successor(void **state)
{
	(void)state;
	uint32_t a, c;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	a = two_eras(b, wobble, moved, 0, &c);
	assert_int_not_equal(sl_behave_final(b, c), sl_behave_final(b, a)); /* split online */
	sl_behave_finish(b);
	assert_int_equal(sl_behave_final(b, c), sl_behave_final(b, a));
	sl_behave_free(b);

	/* the same two behaviours, alternating run by run: two phases */
	b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	a = two_eras(b, wobble, moved, 1, &c);
	sl_behave_finish(b);
	assert_int_not_equal(sl_behave_final(b, c), sl_behave_final(b, a));
	sl_behave_free(b);

	/* a step beyond the first behaviour's range plus the threshold, never
	 * back: two phases too */
	b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	a = two_eras(b, wobble, stepped, 0, &c);
	sl_behave_finish(b);
	assert_int_not_equal(sl_behave_final(b, c), sl_behave_final(b, a));
	sl_behave_free(b);
}

/* Code phase 0 in runs of 8 intervals between runs of code 1 (at 4.0);
 * interval k of run r behaves as v(r, k) (log CPI v, rate 0.5 v).  Returns
 * the phase of its first interval, and in *second the phase of the sixth
 * interval of run 3. */
/* With `bridged` set, the second interval of runs 3, 5 and 7 behaves as
 * (1.5, 0.85): beyond the threshold of every group, a transient group of
 * its own, merged at the end into the nearest (the one at 2.6, `far`),
 * whose range then reaches within 0.35 of the other's. */
static int bridged;

static uint32_t runs_of(sl_behave *b, double (*v)(int, int), uint32_t *second)
{
	double x[2];
	uint32_t first = 0;
	for (int run = 0; run < 8; run++) {
		feat(x, 4.0, 4.0, run);
		sl_behave_assign(b, 1, x);
		for (int k = 0; k < 8; k++) {
			int bridge = bridged && run >= 3 && run % 2 && k == 1;
			feat(x, bridge ? 1.5 : v(run, k), bridge ? 0.85 : 0.5 * v(run, k), 8 * run + k);
			uint32_t id = sl_behave_assign(b, 0, x);
			if (!run && !k)
				first = id;
			if (run == 3 && k == 5)
				*second = id;
		}
	}
	return first;
}

/* runs 0-2 at 0 and 0.5 in turn; run 3 where the drift took it while
 * code 1 ran (1.3, as `moved` above); run 4 drifts back down by 0.1 an
 * interval, to 0.6, so that its last intervals are nearer the centroid
 * left behind (0.35) than the lagging new one and join the old group;
 * runs 5-7 at 1.0 */
static double back(int run, int k)
{
	return run < 3 ? wobble(k) : run == 3 ? 1.3 + 0.02 * k : run == 4 ? 1.3 - 0.1 * k : 1.0;
}
/* the same, but run 4 is the first behaviour again, and runs 5-7 stay
 * at 1.3: a second behaviour (its range 0.7 from the first's, beyond half
 * the threshold; at 1.0, 0.4 from it, the two would take turns within
 * half the threshold and be one drifting behaviour, test_finish_merges_turns) */
static double again(int run, int k)
{
	return run == 4 ? wobble(k) : run > 4 ? 1.3 : back(run, k);
}

/* A behaviour that drifts over more than the threshold and back, taking
 * turns by runs: runs 0 and 1 rise to 1.19 and fall back (the first group's
 * range), runs 3, 5 and 7 are where the drift has gone (1.5; run 5 comes
 * down into the first group's range, its intervals down to 0.78 nearer
 * the second group's lagging centroid, only its last, 0.66, joining the
 * first), runs 2, 4 and 6 back at 0.1. */
static double turns(int run, int k)
{
	if (run < 2)
		return run ? 0.17 * (7 - k) : 0.17 * k;
	if (run % 2 == 0)
		return 0.1;
	return run == 5 ? 1.5 - 0.12 * k : 1.5;
}
/* the same, but run 5 stays at 1.5: the two ranges do not overlap, but
 * leave a gap (about 0.2 in log CPI, 0.1 in the rate) of less than half
 * the threshold: one behaviour still, sampled apart (drift at seeds 6-8) */
static double gapped(int run, int k)
{
	return run == 5 ? 1.5 : turns(run, k);
}
/* runs 3, 5 and 7 at 2.2: a gap of about 0.9 in log CPI, wider than half
 * the threshold: two behaviours */
static double apart(int run, int k)
{
	return run >= 3 && run % 2 ? 2.2 : turns(run, k);
}
/* runs 3, 5 and 7 at 2.6 */
static double far(int run, int k)
{
	return run >= 3 && run % 2 ? 2.6 : turns(run, k);
}
/* the same, but the last interval of each run back at 0.1 (runs 2, 4
 * and 6) is where the drift has gone (1.5): the two groups meet there only
 * in the last, mixed, interval of a run, and still take turns */
static double last_turns(int run, int k)
{
	return run >= 2 && run % 2 == 0 && k == 7 ? 1.5 : turns(run, k);
}
/* from run 3 on, every run at 0.1 for four intervals, then from 1.5 down
 * to 0.9 (into the first group's range): the two come in the same runs,
 * two behaviours of one code */
static double together(int run, int k)
{
	return run < 3 ? turns(run, k) : k < 4 ? 0.1 : 1.5 - 0.2 * (k - 4);
}

/* Drive b with `drive` and behaviour v: the phase of the marked interval
 * (*t) is not the first interval's online, and is at the end of the run
 * iff `merged`. */
static void check_finish(uint32_t (*drive)(sl_behave *, double (*)(int, int), uint32_t *),
			 double (*v)(int, int), int merged)
{
	uint32_t t = 0;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	uint32_t a = drive(b, v, &t);
	assert_int_not_equal(sl_behave_final(b, t), sl_behave_final(b, a)); /* split online */
	sl_behave_finish(b);
	assert_int_equal(sl_behave_final(b, t) == sl_behave_final(b, a), merged);
	sl_behave_free(b);
}

/* Two groups of one code phase whose ranges overlap, or leave a gap of
 * less than half the threshold, and that take turns by runs (never, or in
 * fewer than half of their runs, both in one) are one behaviour drifting
 * over more than the threshold: merged at the end.  Not when their ranges
 * are further apart (also when a transient group merged into one of them
 * reaches across: ranges are the groups' own intervals), nor when they
 * come in the same runs. */
static void test_finish_merges_turns(void **state)
{
	(void)state;
	check_finish(runs_of, turns, 1);
	check_finish(runs_of, last_turns, 1);
	check_finish(runs_of, gapped, 1);
	check_finish(runs_of, apart, 0);
	/* a transition merged into one group does not close the gap */
	check_finish(runs_of, far, 0);
	bridged = 1;
	check_finish(runs_of, far, 0);
	bridged = 0;
	check_finish(runs_of, together, 0);
}

/* A drift that leaves its group behind and later comes back near it: the
 * old group is joined again after the successor was founded, but only by
 * intervals within half the threshold of the successor's range -- one
 * behaviour, merged at the end.  (The rule before asked that the old
 * group never be joined again, and kept these two phases.)  If the old
 * group is joined again by its own behaviour, far from the successor's
 * range, the two are two behaviours. */
static void test_finish_merges_successor_come_back(void **state)
{
	(void)state;
	check_finish(runs_of, back, 1);
	check_finish(runs_of, again, 0);
}

/* Code 0 runs 8 intervals at 0 then `tail` 3 intervals (log CPI v, rate
 * 0.5 v + lift), then code 1 runs 8 at 3.0; 8 times.  Returns the phase of
 * code 0's first interval, and in *t the phase of the first tail
 * interval. */
static uint32_t ramps_lift(sl_behave *b, double (*tail)(int, int), double lift, uint32_t *t)
{
	double x[2];
	uint32_t first = 0;
	for (int rep = 0; rep < 8; rep++) {
		for (int k = 0; k < 11; k++) {
			double v = k < 8 ? 0.0 : tail(rep, k - 8);
			feat(x, v, 0.5 * v + (k < 8 ? 0 : lift), 20 * rep + k);
			uint32_t id = sl_behave_assign(b, 0, x);
			if (!rep && !k)
				first = id;
			if (!rep && k == 8)
				*t = id;
		}
		for (int k = 0; k < 8; k++) {
			feat(x, 3.0, 1.5, 20 * rep + 11 + k);
			sl_behave_assign(b, 1, x);
		}
	}
	return first;
}
static uint32_t ramps(sl_behave *b, double (*tail)(int, int), uint32_t *t)
{
	return ramps_lift(b, tail, 0, t);
}
/* the same tail, its rate 1.0 higher: 0.67 or more (in either feature)
 * from the segment between the two phases, off the way from one to the
 * other */
static uint32_t askew(sl_behave *b, double (*tail)(int, int), uint32_t *t)
{
	return ramps_lift(b, tail, 1.0, t);
}
/* towards code 1's behaviour, 3 intervals: runs of 3, not transient */
static double up(int rep, int k) { return (void)rep, 1.0 + 0.5 * k; }
/* the same intervals in the other order: not a ramp from 0 to 3.0 */
static double down(int rep, int k) { return (void)rep, 2.0 - 0.5 * k; }

/* A gradual transition of 3 intervals into the next code phase founds a
 * group of its own (1.0 is beyond the threshold from 0), met in runs of 3
 * (so not transient); each interval lies on the way from the phase it
 * leaves to the one it enters, no nearer the first than the one before: a
 * ramp, merged at the end into the phase of its code.  Behaviour between the
 * two that does not move towards the next phase is kept, and so is one
 * that moves on but off the way from one phase to the other. */
static void test_finish_merges_ramps(void **state)
{
	(void)state;
	check_finish(ramps, up, 1);
	check_finish(ramps, down, 0);
	check_finish(askew, up, 0);
}

/* Code 0 runs 4 intervals at 0, one at 2.0 (a transition: its own group,
 * met in runs of one) and 2 at 3.0, then code 1 runs 4 at 6.0 (rate -3.0:
 * off the line from code 0's behaviour, so that 3.0 is no ramp); 8 times.
 * The group at 3.0 lasts (runs of 2); the transition's group is transient
 * and merged into it at the end, nearer than the one at 0.  Its runs (one
 * interval each, just before the 3.0 group's) added to the 3.0 group's
 * would make that one look transient too -- 24 intervals in 16 runs -- and
 * merge it into the group at 0, 3.0 away; which groups are transient is
 * decided before any is merged. */
static void test_finish_transient_before_merging(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	uint32_t a = 0, t = 0, g = 0;
	for (int rep = 0; rep < 8; rep++) {
		for (int k = 0; k < 7; k++) {
			double v = k < 4 ? 0.0 : k == 4 ? 2.0 : 3.0;
			feat(x, v, 0.5 * v, 20 * rep + k);
			uint32_t id = sl_behave_assign(b, 0, x);
			if (!rep && !k)
				a = id;
			if (!rep && k == 4)
				t = id;
			if (!rep && k == 5)
				g = id;
		}
		for (int k = 0; k < 4; k++) {
			feat(x, 6.0, -3.0, 20 * rep + 7 + k);
			sl_behave_assign(b, 1, x);
		}
	}
	/* three groups online */
	assert_int_not_equal(sl_behave_final(b, t), sl_behave_final(b, a));
	assert_int_not_equal(sl_behave_final(b, t), sl_behave_final(b, g));
	assert_int_not_equal(sl_behave_final(b, g), sl_behave_final(b, a));
	sl_behave_finish(b);
	assert_int_equal(sl_behave_final(b, t), sl_behave_final(b, g));
	assert_int_not_equal(sl_behave_final(b, g), sl_behave_final(b, a));
	sl_behave_free(b);
}

/* A short behaviour of its own runs, decided against the groups as the
 * online pass left them (dns-resolver's cold-cache lookups): runs of code
 * 0 at A = (0, 0), whose last interval before the change of code (towards
 * code 1 at (3, -3)) founds a group T at (1.1, -1.1), take turns with runs
 * of code 0 of one or two intervals at B = (0, 2.4), whose first interval
 * (a mix of code 1 and B) joins T, and which code 2 at (-6, 12.6)
 * follows.  T and B are transient (runs of one or two intervals); T comes
 * with A in half of its runs and lies on the way to code 1: a transition,
 * merged into A.  B lies on the way from code 1 to code 2 (no excursion)
 * but never comes with A -- only with T, which the same pass merges into
 * A: decided after that merge, B would come with A in every run and be
 * merged too. */
static void test_finish_transient_decided_together(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, ta = 0, tt = 0, tb = 0;
	for (int rep = 0; rep < 8; rep++) {
		for (int k = 0; k < 4; k++, t++) {
			double v = k < 3 ? 0.0 : 1.1;
			feat(x, v, -v, 20 * rep + k);
			sl_behave_assign(b, 0, x);
			if (!rep && !k)
				ta = t;
			if (!rep && k == 3)
				tt = t;
		}
		feat(x, 3.0, -3.0, 20 * rep + 4);
		sl_behave_assign(b, 1, x), t++;
		for (int k = 0; k < 2 + rep % 2; k++, t++) {
			if (k)
				feat(x, 0.0, 2.4, 20 * rep + 5 + k);
			else
				feat(x, 1.6, -0.4, 20 * rep + 5);
			sl_behave_assign(b, 0, x);
			if (!rep && k == 1)
				tb = t;
		}
		feat(x, -6.0, 12.6, 20 * rep + 9);
		sl_behave_assign(b, 2, x), t++;
	}
	/* three groups of code 0 online */
	assert_int_not_equal(sl_behave_interval(b, tt), sl_behave_interval(b, ta));
	assert_int_not_equal(sl_behave_interval(b, tb), sl_behave_interval(b, ta));
	assert_int_not_equal(sl_behave_interval(b, tb), sl_behave_interval(b, tt));
	sl_behave_finish(b);
	assert_int_equal(sl_behave_interval(b, tt), sl_behave_interval(b, ta));
	assert_int_not_equal(sl_behave_interval(b, tb), sl_behave_interval(b, ta));
	sl_behave_free(b);
}

/* A ramp inside a run of the code does not bridge two behaviours
 * (msa-align's alignments at the leaves and near the root): runs of code
 * 0 of a behaviour A that wobbles over 0-0.5 (log CPI), of B at 1.5
 * alone, and twice of A then B, B's first interval there at 0.9 (a ramp
 * from A, nearer B's mean).  The two come together in 2 of 10 runs; with
 * the ramp's interval in B's core range the gap between the ranges is
 * about 0.35, under half the threshold, and they were merged as one
 * behaviour that drifts back and forth; the first interval after a change
 * of group inside a run is left out of the core range as the first after
 * a change of code is, and the gap is 0.9: two behaviours. */
static void test_finish_ramp_inside_run_no_bridge(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, ta = 0, tb = 0;
	const char *kind = "ABAMBAMB"; /* A alone, B alone, A then B (mixed) */
	for (int rep = 0; kind[rep]; rep++) {
		int n = kind[rep] == 'M' ? 6 : 4;
		for (int k = 0; k < n; k++, t++) {
			int in_b = kind[rep] == 'B' || (kind[rep] == 'M' && k >= 3);
			double v = !in_b ? 0.5 * (k % 2) : kind[rep] == 'M' && k == 3 ? 0.9 : 1.5;
			feat(x, v, 0.0, 20 * rep + k);
			sl_behave_assign(b, 0, x);
			if (rep == 0 && k == 2)
				ta = t;
			if (rep == 1 && k == 2)
				tb = t;
		}
		feat(x, 4.0, 4.0, 20 * rep + 9);
		sl_behave_assign(b, 1, x), t++;
	}
	assert_int_not_equal(sl_behave_interval(b, tb), sl_behave_interval(b, ta));
	sl_behave_finish(b);
	assert_int_not_equal(sl_behave_interval(b, tb), sl_behave_interval(b, ta));
	sl_behave_free(b);
}

/* Two code phases made one: groups within half the threshold of each
 * other merge, a group that behaves otherwise stays a phase. */
static void test_merge_code(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	uint32_t a = 0, c = 0, d = 0;
	for (int i = 0; i < 30; i++) {
		/* code 0 at 0, code 1 at 0, code 1 at 2.0, in runs of 5 */
		int step = (i / 5) % 3;
		double v = step == 2 ? 2.0 : 0.0;
		feat(x, v, v, i);
		uint32_t id = sl_behave_assign(b, step ? 1 : 0, x);
		if (i == 0)
			a = id;
		if (i == 5)
			c = id;
		if (i == 10)
			d = id; /* not after a change of code: founds a group */
	}
	assert_int_not_equal(a, c);
	assert_int_not_equal(c, d);
	sl_behave_merge_code(b, 1, 0);
	assert_int_equal(sl_behave_final(b, c), a);
	assert_int_equal(sl_behave_final(b, d), d);
	sl_behave_free(b);
}

static void test_merge_and_missing(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, 1.0);
	double x[2] = {0, 0};
	uint32_t a = sl_behave_assign(b, 0, x);
	x[0] = 1.2; /* beyond the threshold: a second group */
	uint32_t c = sl_behave_assign(b, 0, x);
	assert_int_not_equal(a, c);
	/* intervals between the two drag each centroid towards the other
	 * (0.5 joins a, 0.8 joins c) until they are within half the
	 * threshold: merged, c maps to a */
	for (int i = 0; i < 20; i++) {
		x[0] = 0.5;
		sl_behave_assign(b, 0, x);
		x[0] = 0.8;
		sl_behave_assign(b, 0, x);
	}
	assert_int_equal(sl_behave_final(b, c), sl_behave_final(b, a));
	/* a missing feature is ignored, not taken as zero */
	double y[2] = {NAN, 50};
	uint32_t e = sl_behave_assign(b, 0, y);
	y[1] = 50.1;
	assert_int_equal(sl_behave_assign(b, 0, y), e);
	sl_behave_free(b);
}

/* Two behaviours of one code less than the threshold apart: runs of code 0
 * of 6 intervals at 0 then 2 at 0.8 (log CPI; rate half of it), which one
 * group holds, until from run 3 on the second behaviour comes at 1.3,
 * beyond the threshold of that group's centroid, and founds its own
 * group.  At the end, the early intervals at 0.8 are nearer the new
 * group's mean (1.3) than their own (about 0.1): they go to the new group,
 * the ones at 0 stay. */
static void test_finish_reassigns(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, early = 0, late = 0, a = 0;
	for (int run = 0; run < 8; run++) {
		feat(x, 4.0, 4.0, run);
		sl_behave_assign(b, 1, x), t++;
		for (int k = 0; k < 8; k++, t++) {
			double v = k < 6 ? 0.0 : run < 3 ? 0.8 : 1.3;
			feat(x, v, 0.5 * v, 8 * run + k);
			sl_behave_assign(b, 0, x);
			if (run == 1 && k == 6)
				early = t;
			if (run == 5 && k == 7)
				late = t;
			if (run == 5 && k == 2)
				a = t;
		}
	}
	/* online: the early second behaviour is in the first group */
	assert_int_equal(sl_behave_interval(b, early), sl_behave_interval(b, a));
	assert_int_not_equal(sl_behave_interval(b, late), sl_behave_interval(b, a));
	sl_behave_finish(b);
	assert_int_equal(sl_behave_interval(b, early), sl_behave_interval(b, late));
	assert_int_not_equal(sl_behave_interval(b, a), sl_behave_interval(b, late));
	assert_int_equal(sl_behave_interval(b, t), 0); /* beyond the run */
	sl_behave_free(b);
}

/* Same code, other data, in short instances of its own (nn-infer's GEMM
 * on weights that miss the LLC): code 0 runs four intervals at 0 (A), then
 * other code, then code 0 again for two intervals at 1.5 (B), the first of
 * them after a change of code.  B's group is met in runs of under two
 * intervals (15 in 8), as a transition's would be, but it never comes in a
 * run of A's: a behaviour of its own, kept apart at the end.  The first
 * interval of B's first instance joined A online (B had no group yet); at
 * the end it goes to B's, whose mean is nearest. */
static void test_finish_keeps_short_instances(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, tb0 = 0, tb1 = 0, ta = 0;
	for (int rep = 0; rep < 8; rep++) {
		feat(x, 4.0, 4.0, 10 * rep);
		sl_behave_assign(b, 1, x), t++;
		for (int k = 0; k < 4; k++, t++) {
			feat(x, 0.0, 0.0, 10 * rep + 1 + k);
			sl_behave_assign(b, 0, x);
			if (!rep && k == 2)
				ta = t;
		}
		feat(x, -3.0, 6.0, 10 * rep + 5);
		sl_behave_assign(b, 2, x), t++;
		for (int k = 0; k < 2; k++, t++) {
			feat(x, 1.5, 1.5, 10 * rep + 6 + k);
			sl_behave_assign(b, 0, x);
			if (!rep && !k)
				tb0 = t;
			if (!rep && k == 1)
				tb1 = t;
		}
	}
	feat(x, 4.0, 4.0, 99);
	sl_behave_assign(b, 1, x);
	/* online: B's first interval joined A, its second founded B */
	assert_int_equal(sl_behave_interval(b, tb0), sl_behave_interval(b, ta));
	assert_int_not_equal(sl_behave_interval(b, tb1), sl_behave_interval(b, ta));
	sl_behave_finish(b);
	assert_int_not_equal(sl_behave_interval(b, tb1), sl_behave_interval(b, ta));
	assert_int_equal(sl_behave_interval(b, tb0), sl_behave_interval(b, tb1));
	sl_behave_free(b);
}

/* Two behaviours of one code that take turns by runs (web-serve's small
 * and large files on one copy loop): runs of code 0 at 0 (A) and at 1.6
 * (B) in turn, other code between.  A's last interval before the change
 * of code is at 0.6, part of the next phase in it; from run 3 on, B's
 * second interval ramps in at 1.0.  With the last intervals counted, the
 * ranges leave a gap of about 0.3, under half the threshold, and the two
 * were merged as one drifting behaviour; without them (a change of phase
 * may fall in the last interval before a change of code as in the first
 * after it) the gap is 0.9: two behaviours. */
static void test_finish_turns_without_edges(void **state)
{
	(void)state;
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, ta = 0, tb = 0;
	for (int run = 0; run < 10; run++) {
		feat(x, 4.0, 4.0, 10 * run);
		sl_behave_assign(b, 1, x), t++;
		for (int k = 0; k < 7; k++, t++) {
			double v = run % 2 ? (k == 1 && run >= 3 ? 1.0 : 1.6) : (k == 6 ? 0.6 : 0.0);
			feat(x, v, v, 10 * run + 1 + k);
			sl_behave_assign(b, 0, x);
			if (run == 2 && k == 3)
				ta = t;
			if (run == 3 && k == 4)
				tb = t;
		}
	}
	feat(x, 4.0, 4.0, 199);
	sl_behave_assign(b, 1, x);
	assert_int_not_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	sl_behave_finish(b);
	assert_int_not_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	sl_behave_free(b);
}

/* Two behaviours of one code closer than the threshold (`step` apart in
 * log CPI, 0.9 step in the rate), each tight (a wobble of 0.05), that the
 * program takes turns with by runs of its code (8 intervals, 2 of other
 * code between; `order` says which runs are the second behaviour's, NULL:
 * every other run): one group online, two phases at the end of the run
 * (0.6 apart).  Not when the runs move across the same range in order (a
 * drift, mode 1), nor when they alternate but spread as wide as the gap
 * (wobble 0.3).  Closer than half the threshold (0.3 apart) only when
 * they take turns beyond chance: every other run (3.0 standard deviations
 * more changes of side than a random order), not in an order that changes
 * side only 1.8 more. */
static void alternate(int mode, double step, const char *order, double wobble, int want_split)
{
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, even = 0, odd = 0, low = 0, high = 0;
	for (int run = 0; run < 12; run++) {
		int second = order ? order[run] == '1' : run % 2;
		double v = mode ? 0.11 * run : second ? step : 0.0;
		for (int k = 0; k < 2; k++, t++) {
			feat(x, 4.0, 4.0, t);
			sl_behave_assign(b, 1, x);
		}
		for (int k = 0; k < 8; k++, t++) {
			x[0] = v + wobble * sin(t * 1.7);
			x[1] = 0.9 * v + wobble * cos(t * 2.3);
			sl_behave_assign(b, 0, x);
			if (k == 4)
				*(second ? &odd : &even) = t, *(run < 6 ? &low : &high) = t;
		}
	}
	assert_int_equal(sl_behave_interval(b, even), sl_behave_interval(b, odd));
	sl_behave_finish(b);
	size_t p = mode ? low : even, q = mode ? high : odd;
	if (want_split)
		assert_int_not_equal(sl_behave_interval(b, p), sl_behave_interval(b, q));
	else
		assert_int_equal(sl_behave_interval(b, p), sl_behave_interval(b, q));
	sl_behave_free(b);
}

static void test_finish_splits_alternating(void **state)
{
	(void)state;
	alternate(0, 0.6, NULL, 0.05, 1);
	alternate(1, 0.6, NULL, 0.05, 0); /* a drift over the same range */
	alternate(0, 0.6, NULL, 0.3, 0);  /* as wide as the gap */
	alternate(0, 0.6, "010110100101", 0.05, 1);
	/* closer than half the threshold: only in regular turns */
	alternate(0, 0.3, NULL, 0.05, 1);
	alternate(0, 0.3, "010110100101", 0.05, 0);
	alternate(1, 0.3, NULL, 0.05, 0);
}

/* A second behaviour visited inside runs of its code (amr-hydro's
 * smoother on the small multigrid levels): runs of code 0 -- A at (0, 0),
 * one interval of B at (1.5, 1.5), A again -- other code between.  B is
 * met in runs of one interval, in the same runs as A, as a transition's
 * intervals are; but it lies beyond both of its neighbours each time, not
 * between them: with `reps` runs of 4 or more it keeps its own phase at the
 * end, with fewer it is folded into A.  `mixed_only`: A is only the mixed
 * intervals at the changes of code (the first after one at 2.5, the last
 * before the next at 2.0, B between them the one pure behaviour of the
 * code): B is then the code's own behaviour, and A's intervals go with
 * it. */
static void excursions(int reps, int mixed_only, int want_apart)
{
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, ta = 0, tb = 0;
	for (int rep = 0; rep < reps; rep++) {
		feat(x, 4.0, 4.0, (int)t);
		sl_behave_assign(b, 1, x), t++;
		for (int k = 0; k < 6; k++, t++) {
			double v = k == 3 ? 1.5 : 0.0;
			if (mixed_only)
				v = k == 0 ? 2.5 : k == 1 ? 0.0 : 2.0;
			if (mixed_only && k > 2)
				break;
			feat(x, v, v, (int)t);
			sl_behave_assign(b, 0, x);
			if (rep == 1 && k == 2)
				ta = t;
			if (rep == 1 && k == (mixed_only ? 1 : 3))
				tb = t;
		}
	}
	feat(x, 4.0, 4.0, 999);
	sl_behave_assign(b, 1, x);
	assert_int_not_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	sl_behave_finish(b);
	if (want_apart)
		assert_int_not_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	else
		assert_int_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	sl_behave_free(b);
}

static void test_finish_keeps_excursions(void **state)
{
	(void)state;
	excursions(6, 0, 1);
	excursions(4, 0, 1);
	excursions(3, 0, 0); /* does not recur enough */
	excursions(6, 1, 0); /* the one pure behaviour of its code */
}

/* A stage of a code's runs that its runs ramp into (ad-auction's CVR
 * forest after the CTR forest): runs 0-5 of code 0 stay at A (wobbling by
 * 0.35); from run 6 on, each run opens with a mixed interval that joins
 * A, then founds or joins B at 1.6 and comes back down to 0.75 before the
 * change of code.  The core ranges leave a gap of 0.4, under half the
 * threshold, and the two never share a run's core, as a behaviour that
 * drifts back and forth would not; but A opens every run of B: a stage,
 * kept apart at the end.  When B's runs open with no interval of A
 * (another code's interval leads straight into B), nothing tells the two
 * from a drift's stretches: merged. */
static void stage_runs(int opened, int want_apart)
{
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, ta = 0, tb = 0;
	static const double ramp[] = {0.2, 1.6, 1.2, 0.75, 0.7};
	for (int run = 0; run < 12; run++) {
		feat(x, 4.0, 4.0, t);
		sl_behave_assign(b, 1, x), t++;
		if (run >= 6 && !opened) {
			feat(x, -3.0, 6.0, t);
			sl_behave_assign(b, 2, x), t++;
		}
		for (int k = run >= 6 && !opened; k < 5; k++, t++) {
			x[0] = x[1] = run < 6 ? 0.35 * sin(t * 1.7) : ramp[k];
			sl_behave_assign(b, 0, x);
			if (run == 2 && k == 2)
				ta = t;
			if (run == 8 && k == 2)
				tb = t;
		}
	}
	feat(x, 4.0, 4.0, t);
	sl_behave_assign(b, 1, x);
	assert_int_not_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	sl_behave_finish(b);
	assert_int_equal(sl_behave_interval(b, ta) != sl_behave_interval(b, tb), want_apart);
	sl_behave_free(b);
}

static void test_finish_keeps_stages(void **state)
{
	(void)state;
	stage_runs(1, 1);
	stage_runs(0, 0);
}

/* A second behaviour met as a stage inside the runs of its code, closer
 * than half the threshold (spiking-net's synchronous bursts after each
 * recording, at the top of the range the asynchronous loop drifts over):
 * six runs of code 0, each a mixed first interval, five intervals of the
 * stage, then twenty of A drifting over 0-0.35 in the second feature.
 * Every run holds both, so no cut of whole runs parts them.  mode 0: the
 * stage holds flat at 0.7 -- split at the end; mode 1: it ramps from
 * 1.0 down to 0.6, as far from A, moving across half the gap -- a
 * transition, kept whole; mode 2: it holds flat in three runs only
 * (runs 1, 3 and 5) -- too few to be a stage of the runs, kept whole. */
static void flat_stage(int mode, int want_split)
{
	sl_behave *b = sl_behave_new(2, SL_BEHAVE_DEFAULT);
	double x[2];
	size_t t = 0, ta = 0, tb = 0;
	for (int run = 0; run < 6; run++) {
		int len = mode == 2 && run % 2 == 0 ? 0 : 5;
		feat(x, 4.0, 4.0, (int)t);
		sl_behave_assign(b, 1, x), t++;
		for (int k = 0; k < 1 + len + 20; k++, t++) {
			double a = 0.175 + 0.175 * sin(0.02 * (double)t), v = a;
			if (k >= 1 && k <= len)
				v = mode == 1 ? 1.0 - 0.1 * (k - 1) : 0.7;
			x[0] = 0.03 * sin((double)t * 1.7);
			x[1] = v + 0.03 * cos((double)t * 2.3);
			sl_behave_assign(b, 0, x);
			if (run == 3 && k == 2)
				tb = t;
			if (run == 3 && k == 12)
				ta = t;
		}
	}
	feat(x, 4.0, 4.0, (int)t);
	sl_behave_assign(b, 1, x);
	assert_int_equal(sl_behave_interval(b, ta), sl_behave_interval(b, tb));
	sl_behave_finish(b);
	assert_int_equal(sl_behave_interval(b, ta) != sl_behave_interval(b, tb), want_split);
	sl_behave_free(b);
}

static void test_finish_splits_flat_stage(void **state)
{
	(void)state;
	flat_stage(0, 1);
	flat_stage(1, 0);
	flat_stage(2, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_and_noise),
		cmocka_unit_test(test_code_change_founds_nothing),
		cmocka_unit_test(test_founder_without_features),
		cmocka_unit_test(test_merge_and_missing),
		cmocka_unit_test(test_finish_merges_transients),
		cmocka_unit_test(test_finish_transient_before_merging),
		cmocka_unit_test(test_drift_is_followed),
		cmocka_unit_test(test_finish_merges_successor),
		cmocka_unit_test(test_finish_merges_successor_come_back),
		cmocka_unit_test(test_finish_merges_ramps),
		cmocka_unit_test(test_finish_merges_turns),
		cmocka_unit_test(test_finish_reassigns),
		cmocka_unit_test(test_finish_keeps_short_instances),
		cmocka_unit_test(test_finish_turns_without_edges),
		cmocka_unit_test(test_finish_splits_alternating),
		cmocka_unit_test(test_finish_keeps_excursions),
		cmocka_unit_test(test_finish_keeps_stages),
		cmocka_unit_test(test_finish_splits_flat_stage),
		cmocka_unit_test(test_finish_transient_decided_together),
		cmocka_unit_test(test_finish_ramp_inside_run_no_bridge),
		cmocka_unit_test(test_merge_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
