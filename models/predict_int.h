/*
 * Shared by the prediction writers: predict_out.c (CSV, JSON) hands the
 * human table to predict_table.c, and both count with helpers that live
 * with what they count (sl_phase_order in interp.c, sl_stats_add in
 * model.c), so the writers never call each other both ways.  Not part of
 * libsleuth's API.
 */
#ifndef SLEUTH_MODELS_PREDICT_INT_H
#define SLEUTH_MODELS_PREDICT_INT_H

#include "sleuth/predict.h"

/* Interval i's behaviour, its n_feat features (sl_behave_features over the
 * view's pinned events) into x; 0 when it has none (no cycles). */
int sl_interp_features(const sl_interp *v, size_t i, double *x);
/* Squared Euclidean distance of two behaviour feature vectors of n. */
double sl_feat_dist2(const double *a, const double *b, size_t n);
/* Phase ids in order of first appearance; *n of them; malloc'd. */
uint32_t *sl_phase_order(const sl_interp *v, size_t *n);
/* Count an aggregate's predictions and clamps. */
void sl_stats_add(sl_predict_stats *st, const sl_agg *a);
/* The refinement's (models/refine.c): the cycles c1 the model predicts for
 * interval i at f1, corrected; and freeing it. */
double sl_refine_cycles(const sl_model *md, size_t i, double f1_ghz, double c1);
/* The time model's parameter the refinement solved for interval i (NAN:
 * none, the model's own), and the model's cycles at f1 before refinement
 * with a parameter `par`: the mlp model's pollution share of its miss
 * stalls (0..1, M' = M (1 - par)), the stall model's factor on its
 * off-chip stall estimate (st' = min(par st, c)); NAN: the model's own
 * (0, 1), the linear model has none (models/model.c). */
double sl_refine_param(const sl_model *md, size_t i);
double sl_model_cycles_par(const sl_model *md, size_t i, double f1_ghz, double par);
void sl_refine_free(struct sl_refine *r);
/* The human table (SL_FMT_TABLE), always per phase. */
int sl_predict_table(FILE *f, const sl_model *md, const sl_opoint *ops, size_t n_ops,
		     const sl_predict_info *info, sl_predict_stats *stats);

#endif
