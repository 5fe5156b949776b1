/*
 * Opening a profile, its machine and the models over them: the chain every
 * prediction starts with (predict, schedule, demo), written once so that
 * they refuse the same inputs with the same words.
 */
#include <string.h>

#include "sleuth/common.h"
#include "sleuth/model.h"

int sl_model_open(sl_model_set *s, const char *profile, const char *machine,
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
	const char *origin = NULL;
	if (sl_profile_machine(&s->prof, profile, machine, &s->mach, &origin) < 0)
		return -1;
	s->machine_origin = origin;
	return sl_model_init(&s->model, &s->prof, &s->mach, t, flags);
}

void sl_model_close(sl_model_set *s)
{
	sl_model_free(&s->model);
	sl_machine_free(&s->mach);
	sl_profile_free(&s->prof);
	memset(s, 0, sizeof *s);
}
