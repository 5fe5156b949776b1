/*
 * The die's temperature at the target frequency (models/thermal.c), for
 * models/model.c and models/anchor.c.  Not part of libsleuth's API.
 */
#ifndef SLEUTH_MODELS_THERMAL_H
#define SLEUTH_MODELS_THERMAL_H

#include "sleuth/model.h"

/* Allocate md->thermal when the machine has a thermal block and a
 * temperature term, and the profile recorded the die's temperature in
 * some interval (end of sl_model_init). */
void sl_thermal_init(sl_model *md);
/* Forget the tables (the predictions they rest on changed: anchoring). */
void sl_thermal_reset(sl_model *md);
void sl_thermal_free(struct sl_thermal *th);
/* Interval i's die temperature at op less the profiled one, degrees C,
 * and what static power gains by it, W; 0 where nothing applies, at f0,
 * or when a temperature was asked for (sl_model_set_temp). */
double sl_thermal_dtemp(const sl_model *md, const sl_opoint *op, size_t i);
double sl_thermal_dpower(const sl_model *md, const sl_opoint *op, size_t i);
/* sl_model_predict without the temperature's change (models/model.c). */
void sl_model_predict_base(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out);

#endif
