/*
 * Pieces shared by the report's builder and its two writers (HTML, JSON),
 * so that both formats say the same things in the same words.
 */
#ifndef SLEUTH_REPORT_INTERNAL_H
#define SLEUTH_REPORT_INTERNAL_H

#include <stddef.h>

#include "sleuth/report.h"

/* Width of a report's charts in px (the page is laid out for 1280). */
#define REP_CHART_W 1200
/* Pixel columns of a power chart's plot area: series are reduced to this
 * many columns for drawing and for the JSON export. */
#define REP_PLOT_COLUMNS 1110
/* Phases shown in the ranked bar charts and the small multiples. */
#define REP_MAX_BARS 12
#define REP_MAX_PANELS 8

/* Phase colours (sl_svg_phase_colour keys): the REP_OWN_COLOURS phases
 * ranked first get keys 0, 1, ...; the rest share key REP_OWN_COLOURS,
 * grey.  A palette cannot keep more categories apart, and small phases
 * matter less. */
#define REP_OWN_COLOURS 9
/* Key per phase index (malloc'd). */
size_t *sl_rep_colours(const sl_report *r);

/* Index of phase `id` in r->phases (sorted by id), or -1. */
long sl_rep_phase_index(const sl_report *r, uint32_t id);

/* "file:line", "file" or "0xADDR" of a code location, into buf. */
void sl_rep_where(char *buf, size_t len, const sl_codeloc *c);

/* The machine's frequency label of sweep index k: "2.66 GHz (fmax)". */
void sl_rep_ghz_label(char *buf, size_t len, const sl_report *r, size_t k);

/* 1 for a profile of the timer backend, whose samples are instruction
 * pointers at timer ticks, not retired branches. */
int sl_rep_is_timer(const sl_report *r);
/* "IP samples" or "branch samples". */
const char *sl_rep_sample_kind(const sl_report *r);
/* Why the report has no predictions and how to get them, one line. */
const char *sl_rep_no_prediction_text(const sl_report *r);

/* Downsample series s for drawing/exporting: *t and *p malloc'd. */
size_t sl_rep_series_points(const sl_rep_series *s, const double *y, double **t,
			 double **p);

#endif
