/*
 * Opening a profile, its machine and the models over them: the chain every
 * prediction starts with (predict, schedule, demo), written once so that
 * they refuse the same inputs with the same words -- and, where the caller
 * allows it, degrade the same way instead of leaving the user at a dead end
 * (no machine model yet, a skeleton before calibration, a machine without
 * the stall model's events).
 */
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"

/*
 * A profile that embeds no machine model, and no machine given: the linear
 * time model needs none but the frequencies, so a stand-in machine carries
 * them, its two P-states spanning every clock a CPU has (0.1 to 10 GHz), so
 * that no asked frequency is outside it.
 */
static int standin_machine(sl_machine *m)
{
	static const char text[] = "format: sleuth-machine/1\nname: none\n"
				   "counters: {programmable: 1}\nmemory_latency_ns: 1\n"
				   "pstates: [{ghz: 10}, {ghz: 0.1}]\nevents: {}\n";
	return sl_machine_load_mem("(no machine model)", text, sizeof text - 1, m);
}

static int open_models(sl_model_set *s, const char *profile, const char *machine,
		       sl_time_model t, int flags)
{
	memset(s, 0, sizeof *s);
	sl_profile_init(&s->prof);
	if (sl_profile_read(profile, &s->prof) < 0)
		return -1;
	if (sl_model_check_profile(&s->prof) < 0) {
		sl_error_prefix("%s: ", profile);
		return -1;
	}
	int init = flags & (SL_MODEL_EXTRAPOLATE | SL_MODEL_TIME_ONLY);
	const char *origin = NULL;
	if (!machine && !s->prof.machine_text && (flags & SL_MODEL_DEGRADE_TIME)) {
		sl_warn("%s embeds no machine model: predicting time only, with the linear "
			"model (time = cycles / f); give --machine FILE ('sleuth machine "
			"init') for the stall model and power", profile);
		if (standin_machine(&s->mach) < 0)
			return -1;
		s->machine_origin = "none: linear time model only";
		s->degraded = 1;
		return sl_model_init(&s->model, &s->prof, &s->mach, SL_TIME_LINEAR,
				     init | SL_MODEL_TIME_ONLY);
	}
	if (sl_profile_machine(&s->prof, profile, machine, &s->mach, &origin) < 0)
		return -1;
	s->machine_origin = origin;
	if (!(init & SL_MODEL_TIME_ONLY) && (flags & SL_MODEL_DEGRADE_POWER) &&
	    !sl_machine_complete(&s->mach)) {
		sl_warn("%s: predicting time only", sl_error());
		init |= SL_MODEL_TIME_ONLY;
		s->degraded = 1;
	}
	if (sl_model_init(&s->model, &s->prof, &s->mach, t, init) == 0)
		return 0;
	/* A power term never measured (a short run whose counters never
	 * rotated to it) leaves the time model whole: time only.  The time
	 * model's events are checked first, so if they are what is missing
	 * this fails the same way and the linear model is next. */
	if (!(init & SL_MODEL_TIME_ONLY) && (flags & SL_MODEL_DEGRADE_POWER)) {
		char *why = sl_xstrdup(sl_error());
		int rc = sl_model_init(&s->model, &s->prof, &s->mach, t,
				       init | SL_MODEL_TIME_ONLY);
		if (rc == 0) {
			sl_warn("%s; predicting time only", why);
			s->degraded = 1;
		}
		free(why);
		if (rc == 0)
			return 0;
	}
	if (t != SL_TIME_STALL || !(flags & SL_MODEL_DEGRADE_TIME))
		return -1;
	/* the stall model's events are missing: say so, fall back */
	sl_warn("%s; using the linear model (time = cycles / f)", sl_error());
	s->degraded = 1;
	return sl_model_init(&s->model, &s->prof, &s->mach, SL_TIME_LINEAR, init);
}

int sl_model_open(sl_model_set *s, const char *profile, const char *machine,
		  sl_time_model t, int flags)
{
	if (open_models(s, profile, machine, t, flags) < 0)
		return -1;
	/* no dead end: a run that cannot be anchored is still predicted */
	if ((flags & SL_MODEL_ANCHOR) && sl_model_anchor(&s->model) < 0)
		sl_warn("%s; predicting power from the counters alone", sl_error());
	return 0;
}

void sl_model_close(sl_model_set *s)
{
	sl_model_free(&s->model);
	sl_machine_free(&s->mach);
	sl_profile_free(&s->prof);
	memset(s, 0, sizeof *s);
}
