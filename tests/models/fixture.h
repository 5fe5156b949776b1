/*
 * Fixtures shared by the models' unit tests: profiles over caller-owned
 * arrays and Power-Sleuth's Nehalem i7-920 machine, built in memory.
 */
#ifndef SLEUTH_TESTS_MODELS_FIXTURE_H
#define SLEUTH_TESTS_MODELS_FIXTURE_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sleuth/machine.h"
#include "sleuth/profile.h"

#define M SL_MISSING

/* cmocka 1.1 compares floats only: doubles within an absolute tolerance. */
#define assert_near(a, b, eps) near_((a), (b), (eps), __FILE__, __LINE__)
void near_(double a, double b, double eps, const char *file, int line);

/* A profile over caller-owned arrays (nothing to free). */
void mkprof(sl_profile *p, size_t n, sl_prof_interval *iv, size_t ne, char **events,
	    uint64_t *counts, double f0);

/* Power-Sleuth's Nehalem i7-920 (data/machines/nehalem-i7-920.yaml): the released
 * tool's coefficients, constant 0, static_w = 11.1842 f - 11.25 + 2.1083,
 * V = 0.23 f + 0.65. */
void mknhm(sl_machine *m);

/* Event columns of a profile for that machine (8 of them). */
extern char *nhm_events[8];

#endif
