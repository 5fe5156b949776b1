/*
 * Voltage and static power at any frequency: a machine lists them only at
 * its P-states, but a user may ask about a frequency in between (or, with
 * --extrapolate, beyond).  Between neighbours both are linear in f (GSL's
 * linear interpolation); outside, the line through the two nearest.
 */
#include <gsl/gsl_interp.h>
#include <math.h>
#include <stdlib.h>

#include "sleuth/common.h"
#include "sleuth/model.h"

/* How far --extrapolate reaches: a line through two P-states says nothing
 * about a frequency a factor of 2 away (1e-300 or 1000 GHz). */
#define MAX_EXTRAPOLATION 2.0

/* Linear interpolation of y over ascending x at `at`, inside [x0, xn-1],
 * with GSL. */
static double interp(const double *x, const double *y, size_t n, double at)
{
	gsl_interp *it = gsl_interp_alloc(gsl_interp_linear, n);
	gsl_interp_accel *acc = gsl_interp_accel_alloc();
	gsl_interp_init(it, x, y, n);
	double v = gsl_interp_eval(it, x, y, at, acc);
	gsl_interp_accel_free(acc);
	gsl_interp_free(it);
	return v;
}

/* The line through (x[a], y[a]) and (x[b], y[b]) at `at`. */
static double line(const double *x, const double *y, size_t a, size_t b, double at)
{
	return y[a] + (y[b] - y[a]) * (at - x[a]) / (x[b] - x[a]);
}

int sl_machine_opoint(const sl_machine *m, double ghz, int extrapolate, sl_opoint *op)
{
	size_t n = m->n_pstates;
	*op = (sl_opoint){.ghz = ghz, .pstate = -1, .static_w = NAN};
	if (!n) {
		sl_error_set("machine %s lists no P-states; add its pstates: table",
			     m->name);
		return -1;
	}
	if (!(ghz > 0) || !isfinite(ghz)) {
		sl_error_set("frequency %g GHz is not a positive number", ghz);
		return -1;
	}
	int has_static = 1;
	for (size_t i = 0; i < n; i++)
		has_static &= m->pstates[i].has_static;
	op->pstate = sl_machine_pstate(m, ghz);
	if (op->pstate >= 0)
		op->volts = m->pstates[op->pstate].volts;
	/* Ascending copies (the machine lists fmax first). */
	double *x = sl_xmalloc(3 * n * sizeof *x), *v = x + n, *s = x + 2 * n;
	for (size_t i = 0; i < n; i++) {
		const sl_pstate *ps = &m->pstates[n - 1 - i];
		x[i] = ps->ghz;
		v[i] = ps->volts;
		s[i] = ps->has_static ? ps->static_w : NAN;
	}
	for (size_t i = 1; i < n; i++)
		if (!(x[i] > x[i - 1])) {
			sl_error_set("machine %s: P-states %g and %g GHz are not distinct "
				     "and sorted; fix its pstates: table",
				     m->name, x[i - 1], x[i]);
			free(x);
			return -1;
		}
	int rc = 0;
	if (op->pstate >= 0) {
		if (has_static)
			op->static_w = m->pstates[op->pstate].static_w;
	} else if (ghz > x[0] && ghz < x[n - 1]) {
		op->volts = interp(x, v, n, ghz);
		if (has_static)
			op->static_w = interp(x, s, n, ghz);
	} else if (extrapolate && n >= 2 &&
		   (ghz < x[0] / MAX_EXTRAPOLATION || ghz > x[n - 1] * MAX_EXTRAPOLATION)) {
		sl_error_set("cannot extrapolate to %g GHz: it is more than %gx beyond "
			     "machine %s's P-states (%.4g-%.4g GHz); choose %.4g-%.4g GHz",
			     ghz, MAX_EXTRAPOLATION, m->name, x[0], x[n - 1],
			     x[0] / MAX_EXTRAPOLATION, x[n - 1] * MAX_EXTRAPOLATION);
		rc = -1;
	} else if (extrapolate && n >= 2) {
		size_t a = ghz < x[0] ? 0 : n - 2;
		op->extrapolated = 1;
		op->volts = line(x, v, a, a + 1, ghz);
		if (has_static)
			op->static_w = line(x, s, a, a + 1, ghz);
		/* f V^2 must stay finite (a power at 1e308 GHz is not a number),
		 * and static power, like voltage, cannot go below zero.  A machine
		 * without voltages has none to check (time only). */
		if (sl_machine_has_volts(m) &&
		    (!(op->volts > 0) || !isfinite(ghz * op->volts * op->volts))) {
			sl_error_set("cannot extrapolate to %g GHz: the voltage would be "
				     "%g V; choose a frequency nearer %.4g-%.4g GHz",
				     ghz, op->volts, x[0], x[n - 1]);
			rc = -1;
		} else if (has_static && !(op->static_w >= 0)) {
			sl_error_set("cannot extrapolate to %g GHz: the static power would "
				     "be %.3g W; choose a frequency nearer %.4g-%.4g GHz",
				     ghz, op->static_w, x[0], x[n - 1]);
			rc = -1;
		}
	} else if (extrapolate) {
		sl_error_set("cannot extrapolate to %.3f GHz from machine %s's single "
			     "P-state; list at least two P-states", ghz, m->name);
		rc = -1;
	} else {
		sl_error_set("%.3f GHz is outside machine %s's P-states (%.4g-%.4g GHz); "
			     "choose one inside or pass --extrapolate",
			     ghz, m->name, x[0], x[n - 1]);
		rc = -1;
	}
	free(x);
	return rc;
}
