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
/* The model's cycles of interval i at f1, refined, before a dithered
 * interval is held to its measurement (sl_dither_cycles). */
double sl_model_cycles_refined(const sl_model *md, size_t i, double f1_ghz);
void sl_refine_free(struct sl_refine *r);
/* The counter model's power over interval i at op (its profiled point,
 * for models/anchor.c) with the cycles it measured rather than the time
 * model's: nothing scaled, never anchored. */
void sl_model_predict_measured(const sl_model *md, const sl_opoint *op, size_t i, sl_pred *out);
/* Append `ev` to a list of event names unless present; its index. */
int sl_model_add_event(const char ***list, size_t *n, size_t *cap, const char *ev);

/* Two instances (or an interval and an instance) behave alike within this
 * Euclidean distance of their behaviour features (sl_interp_features):
 * the refinement's pool of like-behaved measured instances
 * (models/refine.c) and a dithered interval like its instance
 * (models/dither.c).  Chosen on the tuning split. */
#define SL_LIKE_DIST 0.35

/* Whether the profile's intervals ran at its frequency and at most one
 * other, one interval in N >= 2 (a dithered run); -1 with sl_error()
 * naming a scheduled run otherwise. */
int sl_dither_check(const sl_profile *p);
/* A dithered profile (models/dither.c): before the view is built, make
 * md->prof the profile at f0 alone and add its cycles column to the
 * view's events (`evs`); after, fill the dithered intervals' cycles and
 * times at f0 from the view, for a profile sl_dither_check passed
 * (sl_model_check_profile).  Both 0 for a profile that is not
 * dithered; -1 with sl_error(). */
int sl_dither_begin(sl_model *md, const sl_profile *p, const char ***evs, size_t *n,
		    size_t *cap);
int sl_dither_end(sl_model *md);
void sl_dither_free(struct sl_dither *d);
/* The cycles the dithered intervals measured at *f2_ghz (0: an interval
 * at f0), n_intervals of them; *n_dithered how many; (*alone)[i] 1 for a
 * dithered interval unlike its instance, whose ratio is its own alone;
 * *noise the relative error of the fill of their cycles at f0 (its
 * standard deviation; NAN: unknown); NULL: not dithered. */
const uint64_t *sl_dither_measured(const sl_model *md, double *f2_ghz, size_t *n_dithered,
				   const uint8_t **alone, double *noise);
/* The cycles c1 that the model predicts for interval i at some f1, held
 * to what a dithered interval measured: c1 times its cycles measured at
 * f2 over the model's at f2 (models/dither.c); c1 for any other. */
double sl_dither_cycles(const sl_model *md, size_t i, double c1);
/* The human table (SL_FMT_TABLE), always per phase. */
int sl_predict_table(FILE *f, const sl_model *md, const sl_opoint *ops, size_t n_ops,
		     const sl_predict_info *info, sl_predict_stats *stats);

#endif
