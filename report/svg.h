/*
 * Small SVG charts for `sleuth report`: line charts with phase bands, grouped
 * bar charts, small multiples and a phase timeline strip.  Output is plain
 * SVG 1.1 text written to a FILE (inline in HTML or standalone), with no
 * scripts, fonts or external references.  Every string is XML-escaped.
 *
 * Long series are reduced for drawing, never for totals: the caller passes
 * every point, and the chart keeps the minimum and maximum of each pixel
 * column so that peaks survive.  Colours come from colour-blind-safe
 * palettes (Okabe-Ito for series, Paul Tol's "muted" for phases).
 */
#ifndef SLEUTH_SVG_H
#define SLEUTH_SVG_H

#include <stddef.h>
#include <stdio.h>

/* Colour of series i (Okabe-Ito, cycled) and of phase id p (Tol muted). */
const char *sl_svg_series_colour(size_t i);
const char *sl_svg_phase_colour(size_t p);

/* Write s with &, <, >, " and ' escaped (for text and attribute values).
 * Control characters other than tab and newline, and bytes that are not
 * valid UTF-8 (file names can hold anything), become U+FFFD, since XML
 * 1.0 cannot carry them. */
void sl_xml_puts(FILE *f, const char *s);

/* (sl_utf8_len, the UTF-8 check, is in util/json.h.) */
/* At a byte >= 0x80: write the valid UTF-8 character there, or `bad` for
 * an invalid byte; returns the number of bytes consumed. */
size_t sl_utf8_put(FILE *f, const unsigned char *s, const char *bad);

/* "Nice" axis ticks (1, 2, 5 x 10^k) covering [lo, hi] with at most
 * `max_ticks` ticks: returns the count and writes them to out[max_ticks]. */
size_t sl_svg_ticks(double lo, double hi, size_t max_ticks, double *out);

/*
 * Min/max downsampling of a series with increasing x into `buckets` equal
 * columns of [x0, x1]: each column keeps its first and last point and its
 * lowest and highest, in x order (at most 4 per column, duplicates
 * dropped), so the drawn line keeps every peak and the shape between.
 * Series of at most 4 * buckets points are copied unchanged.  ox and oy
 * need room for min(n, 4 * buckets) points; returns how many were written.
 */
size_t sl_svg_downsample(const double *x, const double *y, size_t n, double x0,
			 double x1, size_t buckets, double *ox, double *oy);

/* One line of a chart: n points with increasing x. */
typedef struct sl_svg_series {
	const char *name;
	const double *x, *y;
	size_t n;
	int markers;      /* draw a dot at each point (short series) */
	int dashed;
	const char *colour; /* NULL: sl_svg_series_colour(index) */
} sl_svg_series;

/* A coloured x-range: a phase instance on a timeline, or a band shaded
 * behind the lines of a chart. */
typedef struct sl_svg_segment {
	double x0, x1;
	size_t key;        /* colour sl_svg_phase_colour(key), e.g. a phase */
	const char *title; /* tooltip, may be NULL */
} sl_svg_segment;

/* Names of segment keys, for legends and for the tooltips of merged
 * columns (a key without a name is called "phase KEY"). */
typedef struct sl_svg_keys {
	size_t n;
	const size_t *key;
	const char *const *name;
	/* colour of a key; NULL: sl_svg_phase_colour (a sequential palette
	 * such as sl_svg_level_colour for ordered keys like frequencies) */
	const char *(*colour)(size_t key);
} sl_svg_keys;

/* A sequential colour-blind-safe palette (viridis, 10 steps) for ordered
 * keys: 0 the darkest (lowest), 9 the lightest; beyond, grey (none). */
const char *sl_svg_level_colour(size_t level);

/* Axes: labels include the unit, e.g. "time (s)".  A bound that is NAN is
 * taken from the data. */
typedef struct sl_svg_axes {
	const char *xlabel, *ylabel;
	double xmin, xmax, ymin, ymax;
} sl_svg_axes;

typedef struct sl_svg_line_chart {
	const char *title;          /* may be NULL */
	int width, height;          /* whole SVG, px */
	sl_svg_axes axes;
	const sl_svg_series *series;
	size_t n_series;
	const sl_svg_segment *bands; /* in x order, may be NULL */
	size_t n_bands;
	sl_svg_keys keys;           /* names of the bands' keys (n may be 0) */
} sl_svg_line_chart;

/* Several series over shared axes, legend above the plot, bands shaded
 * behind and repeated as a strip under the x axis. */
void sl_svg_line(FILE *f, const sl_svg_line_chart *c);

/* Groups of bars side by side (e.g. per phase: fmax, fmin). */
typedef struct sl_svg_bar_chart {
	const char *title;
	int width, height;
	const char *ylabel;               /* with unit */
	size_t n_groups, n_series;
	const char *const *group_names;   /* n_groups */
	const char *const *series_names;  /* n_series */
	const double *values;             /* n_groups x n_series, row-major */
} sl_svg_bar_chart;

void sl_svg_bars(FILE *f, const sl_svg_bar_chart *c);

/* Small multiples: one small line chart per panel, in a grid, sharing a
 * legend (the series names of the first panel). */
typedef struct sl_svg_panel {
	const char *title;
	sl_svg_axes axes;
	const sl_svg_series *series;
	size_t n_series;
} sl_svg_panel;

typedef struct sl_svg_multiples {
	const char *title;
	int width;                 /* height follows from rows */
	int columns;
	int panel_height;
	const sl_svg_panel *panels;
	size_t n_panels;
} sl_svg_multiples;

void sl_svg_multiples_draw(FILE *f, const sl_svg_multiples *m);

/* A phase timeline: coloured segments over [0, total] with a time axis
 * and a legend of the keys.  Segments narrower than a pixel are merged per
 * pixel column and drawn stacked, each key's height its share of the
 * column (one path per key), so the strip stays small for any number of
 * instances and still shows the mix. */
typedef struct sl_svg_timeline {
	const char *title;
	int width;
	const char *xlabel;        /* with unit */
	double total;
	const sl_svg_segment *seg; /* in x order */
	size_t n_seg;
	sl_svg_keys keys;          /* the legend (n may be 0: none) */
} sl_svg_timeline;

void sl_svg_timeline_draw(FILE *f, const sl_svg_timeline *t);

#endif
