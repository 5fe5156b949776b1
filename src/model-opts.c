/*
 * The options the predicting commands share (see model-opts.h).
 */
#include "model-opts.h"

#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "sleuth/common.h"

int sl_model_opts_take(const char *cmd, sl_model_opts *o, int c, const char *arg)
{
	switch (c) {
	case SL_OPT_FREQ:
		SL_GROW(o->freqs, o->n_freqs, o->cap);
		if (sl_parse_freq(arg, &o->freqs[o->n_freqs]) < 0)
			return sl_usage_error(cmd, "--freq: %s", sl_error());
		o->n_freqs++;
		return SL_EXIT_OK;
	case SL_OPT_MACHINE:
		o->machine = arg;
		return SL_EXIT_OK;
	case SL_OPT_MODEL:
		if (sl_time_model_parse(arg, &o->model) < 0)
			return sl_usage_error(cmd, "--model: %s", sl_error());
		o->model_given = 1;
		return SL_EXIT_OK;
	case SL_OPT_EXTRAPOLATE:
		o->extrapolate = 1;
		return SL_EXIT_OK;
	case SL_OPT_ANCHOR:
		if (sl_anchor_mode_parse(arg, &o->anchor) < 0)
			return sl_usage_error(cmd, "--anchor: %s", sl_error());
		o->anchor_given = 1;
		return SL_EXIT_OK;
	case SL_OPT_REFINE:
		o->refine = arg;
		return SL_EXIT_OK;
	case SL_OPT_REFINE_RULE:
		if (sl_refine_rule_parse(arg, &o->refine_rule) < 0)
			return sl_usage_error(cmd, "--refine-rule: %s", sl_error());
		return SL_EXIT_OK;
	default:
		return -1;
	}
}

void sl_model_opts_free(sl_model_opts *o)
{
	free(o->freqs);
	memset(o, 0, sizeof *o);
}

int sl_model_opts_refine(const sl_model_opts *o, sl_model *md)
{
	sl_refine_info ri;
	const char *by = o->refine;
	md->refine_rule = o->refine_rule;
	int rc = sl_model_refine_by(md, by, &ri);
	if (rc <= 0)
		return rc;
	if (!by)
		by = "the profile's dithered intervals";
	sl_info("refined by %s at %.2f GHz: %zu of %zu intervals, %zu of %zu instances, "
		"%zu of %zu phases measured", by, ri.f2_ghz, ri.intervals,
		ri.n_intervals, ri.instances, ri.n_instances, ri.phases, ri.n_phases);
	sl_info("refine rule %s: instances by level: parameter own %zu, like %zu; "
		"ratio own %zu, like %zu; none %zu", sl_refine_rule_name(ri.rule),
		ri.by_level[SL_REFINE_PARAM_OWN], ri.by_level[SL_REFINE_PARAM_LIKE],
		ri.by_level[SL_REFINE_RATIO_OWN], ri.by_level[SL_REFINE_RATIO_LIKE],
		ri.by_level[SL_REFINE_NONE]);
	return 0;
}
