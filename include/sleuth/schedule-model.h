/*
 * The bridge from the models to the schedule solver, kept apart from
 * sleuth/schedule.h so that the solver and its file format depend on
 * nothing but a table.
 */
#ifndef SLEUTH_SCHEDULE_MODEL_H
#define SLEUTH_SCHEDULE_MODEL_H

#include "sleuth/model.h"
#include "sleuth/schedule.h"

/* Predict every instance at every P-state of md's machine (fmax first, the
 * baseline).  -1 with sl_error() without a power model. */
int sl_sched_data_from_model(const sl_model *md, sl_sched_data *d);

#endif
