/*
 * SVG charts for reports (see report/svg.h).  Everything is drawn in
 * absolute pixel coordinates of a fixed-size picture: no viewBox tricks, no
 * clip paths or ids (several charts share one HTML page and its id space),
 * no scripts.  Numbers are written with one decimal to keep pages small.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "report/svg.h"
#include "util/json.h"

#define FONT_PX 13
#define SMALL_PX 11
/* Approximate advance of one character of a sans-serif font, per px of
 * font size: used to lay out legends and shorten labels. */
#define CHAR_W 0.6

/* Okabe & Ito (2008), without black (the axes' colour). */
static const char *const series_pal[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7",
	"#E69F00", "#56B4E9", "#F0E442",
};
/* Paul Tol's "muted" qualitative scheme. */
static const char *const phase_pal[] = {
	"#332288", "#88CCEE", "#44AA99", "#117733", "#999933",
	"#DDCC77", "#CC6677", "#882255", "#AA4499", "#DDDDDD",
};

const char *sl_svg_series_colour(size_t i)
{
	return series_pal[i % SL_ARRAY_LEN(series_pal)];
}

const char *sl_svg_phase_colour(size_t p)
{
	return phase_pal[p % SL_ARRAY_LEN(phase_pal)];
}

/* viridis (van der Walt & Smith), 10 even steps */
static const char *const level_pal[] = {
	"#440154", "#482878", "#3E4A89", "#31688E", "#26828E",
	"#1F9E89", "#35B779", "#6DCD59", "#B4DE2C", "#FDE725",
};

const char *sl_svg_level_colour(size_t level)
{
	return level < SL_ARRAY_LEN(level_pal) ? level_pal[level] : "#BBBBBB";
}

static const char *key_colour(const sl_svg_keys *k, size_t key)
{
	return k && k->colour ? k->colour(key) : sl_svg_phase_colour(key);
}

size_t sl_utf8_put(FILE *f, const unsigned char *s, const char *bad)
{
	size_t n = sl_utf8_len(s);
	if (!n) {
		fputs(bad, f);
		return 1;
	}
	fwrite(s, 1, n, f);
	return n;
}

void sl_xml_puts(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x80) {
			p += sl_utf8_put(f, p, "\xef\xbf\xbd") - 1;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\t': case '\n': putc(*p, f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fputs("\xef\xbf\xbd", f);
			else
				putc(*p, f);
		}
	}
}

/* The smallest 1, 2 or 5 x 10^k not below x. */
static double nice_step(double x)
{
	double e = pow(10, floor(log10(x)));
	double m = x / e;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e;
}

size_t sl_svg_ticks(double lo, double hi, size_t max_ticks, double *out)
{
	if (max_ticks < 2)
		max_ticks = 2;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi < lo) {
		double t = lo;
		lo = hi;
		hi = t;
	}
	if (hi - lo < 1e-12 * SL_MAX(fabs(lo), fabs(hi)) || hi == lo) {
		double pad = lo != 0 ? fabs(lo) * 0.1 : 1;
		lo -= pad;
		hi += pad;
	}
	double step = nice_step((hi - lo) / (double)(max_ticks - 1));
	for (;;) {
		double a = floor(lo / step + 1e-9), b = ceil(hi / step - 1e-9);
		size_t n = (size_t)(b - a) + 1;
		if (n <= max_ticks) {
			for (size_t i = 0; i < n; i++) {
				double v = (a + (double)i) * step;
				out[i] = fabs(v) < step * 1e-9 ? 0 : v;
			}
			return n;
		}
		step = nice_step(step * 1.0001);
		if (step == step * 1.0001) /* cannot grow (huge values) */
			break;
	}
	out[0] = lo;
	out[1] = hi;
	return 2;
}

/* Keep the point if it differs from the last one kept. */
static size_t keep(size_t *idx, size_t n, size_t i)
{
	if (n && idx[n - 1] == i)
		return n;
	idx[n] = i;
	return n + 1;
}

size_t sl_svg_downsample(const double *x, const double *y, size_t n, double x0,
			 double x1, size_t buckets, double *ox, double *oy)
{
	if (buckets == 0)
		buckets = 1;
	if (n <= 4 * buckets) {
		memcpy(ox, x, n * sizeof *x);
		memcpy(oy, y, n * sizeof *y);
		return n;
	}
	size_t out = 0;
	double w = (x1 - x0) / (double)buckets;
	size_t i = 0;
	while (i < n) {
		/* The column of point i; the run of points in the same column. */
		double c = w > 0 ? floor((x[i] - x0) / w) : 0;
		size_t j = i, lo = i, hi = i;
		while (j < n && (w > 0 ? floor((x[j] - x0) / w) : 0) == c) {
			if (y[j] < y[lo])
				lo = j;
			if (y[j] > y[hi])
				hi = j;
			j++;
		}
		size_t idx[4], k = 0;
		size_t a = SL_MIN(lo, hi), b = SL_MAX(lo, hi);
		k = keep(idx, k, i);
		k = keep(idx, k, a);
		k = keep(idx, k, b);
		k = keep(idx, k, j - 1);
		for (size_t m = 0; m < k; m++) {
			ox[out] = x[idx[m]];
			oy[out] = y[idx[m]];
			out++;
		}
		i = j;
	}
	return out;
}

/* ---- shared drawing pieces ------------------------------------------- */

/* A linear map from data to pixels. */
typedef struct scale {
	double lo, hi, p0, p1;
} scale;

static double map(const scale *s, double v)
{
	if (v < s->lo)
		v = s->lo;
	if (v > s->hi)
		v = s->hi;
	return s->p0 + (v - s->lo) / (s->hi - s->lo) * (s->p1 - s->p0);
}

/* An axis: its bounds and ticks. */
typedef struct axis {
	double lo, hi;
	double t[16];
	size_t n;
	int decimals;
} axis;

/* Ticks for data in [lo, hi] (either bound may be forced by `flo`/`fhi`
 * unless NAN).  The axis ends at the outer ticks, or with `tight` (time
 * axes: the run ends where it ends) at the data, ticks inside. */
static void make_axis(axis *a, double lo, double hi, double flo, double fhi,
		      size_t max_ticks, int tight)
{
	if (!isnan(flo))
		lo = flo;
	if (!isnan(fhi))
		hi = fhi;
	a->n = sl_svg_ticks(lo, hi, SL_MIN(max_ticks, SL_ARRAY_LEN(a->t)), a->t);
	double step = a->n > 1 ? a->t[1] - a->t[0] : 1;
	a->lo = a->t[0];
	a->hi = a->t[a->n - 1];
	if (tight && isfinite(lo) && isfinite(hi) && hi > lo) {
		size_t k = 0;
		for (size_t i = 0; i < a->n; i++)
			if (a->t[i] >= lo - step * 1e-9 && a->t[i] <= hi + step * 1e-9)
				a->t[k++] = a->t[i];
		a->n = k;
		a->lo = lo;
		a->hi = hi;
	}
	int d = (int)-floor(log10(step) + 1e-9);
	a->decimals = d < 0 ? 0 : d > 6 ? 6 : d;
}

static void fmt_tick(char *buf, size_t len, double v, int decimals)
{
	if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.*f", decimals, v);
}

/* Short form of a value for labels: 3 significant digits. */
static void fmt_short(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (fabs(v) >= 1000 && fabs(v) < 1e6)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void text(FILE *f, double x, double y, const char *anchor, int px,
		 const char *extra, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor)
		fprintf(f, " text-anchor=\"%s\"", anchor);
	if (px != FONT_PX)
		fprintf(f, " font-size=\"%d\"", px);
	if (extra)
		fprintf(f, " %s", extra);
	fputc('>', f);
	sl_xml_puts(f, s);
	fputs("</text>\n", f);
}

static void title_elem(FILE *f, const char *s)
{
	if (!s)
		return;
	fputs("<title>", f);
	sl_xml_puts(f, s);
	fputs("</title>", f);
}

static void svg_open(FILE *f, int w, int h, const char *label)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"%d\" "
		   "role=\"img\"", w, h, w, h, FONT_PX);
	if (label) {
		fputs(" aria-label=\"", f);
		sl_xml_puts(f, label);
		fputc('"', f);
	}
	fputs(">\n", f);
	title_elem(f, label);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", w, h);
	if (label)
		text(f, 8, 18, NULL, FONT_PX + 2, "font-weight=\"bold\"", label);
}

static double text_width(const char *s, int px)
{
	return (double)strlen(s) * CHAR_W * px;
}

/* One entry of a legend. */
typedef struct entry {
	const char *name;
	const char *colour;
	int dashed;
} entry;

/* A legend of coloured swatches (lines for series, squares for keys) laid
 * out in rows from (x, y) within `width`; returns the height used. */
static double legend(FILE *f, double x, double y, double width, const entry *e, size_t n,
		     int line)
{
	double cx = x, cy = y;
	for (size_t i = 0; i < n; i++) {
		double w = 22 + text_width(e[i].name, FONT_PX) + 16;
		if (cx > x && cx + w > x + width) {
			cx = x;
			cy += 18;
		}
		if (line)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				   "stroke=\"%s\" stroke-width=\"3\"%s/>", cx, cy - 4, cx + 16,
				cy - 4, e[i].colour, e[i].dashed ? " stroke-dasharray=\"4 3\"" : "");
		else
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
				   "fill=\"%s\" stroke=\"#555\" stroke-width=\"0.5\"/>",
				cx, cy - 10, e[i].colour);
		text(f, cx + 20, cy, NULL, FONT_PX, NULL, e[i].name);
		cx += w;
	}
	return cy - y + 18;
}

static const char *series_colour(const sl_svg_series *s, size_t i)
{
	return s->colour ? s->colour : sl_svg_series_colour(i);
}

/* Legend entries of series (malloc'd). */
static entry *series_entries(const sl_svg_series *s, size_t n)
{
	entry *e = sl_xcalloc(n + 1, sizeof *e);
	for (size_t i = 0; i < n; i++)
		e[i] = (entry){s[i].name ? s[i].name : "", series_colour(&s[i], i), s[i].dashed};
	return e;
}

/* Legend entries of keys (malloc'd). */
static entry *key_entries(const sl_svg_keys *k)
{
	entry *e = sl_xcalloc(k->n + 1, sizeof *e);
	for (size_t i = 0; i < k->n; i++)
		e[i] = (entry){k->name[i], key_colour(k, k->key[i]), 0};
	return e;
}

/* Height a legend will take, without drawing it. */
static double legend_height(double width, const entry *e, size_t n, int line)
{
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return 18;
	double h = legend(null, 0, 0, width, e, n, line);
	fclose(null);
	return h;
}

/* Gridlines, ticks and labels of a plot area at (px, py) of size pw x ph;
 * the x labels sit `gap` px lower (below a strip under the plot). */
static void frame(FILE *f, double px, double py, double pw, double ph,
		  double gap, const axis *ax, const axis *ay, const char *xlabel,
		  const char *ylabel, int px_font)
{
	scale sx = {ax->lo, ax->hi, px, px + pw};
	scale sy = {ay->lo, ay->hi, py + ph, py};
	char buf[32];
	fputs("<g stroke=\"#ddd\" stroke-width=\"1\">", f);
	for (size_t i = 0; i < ay->n; i++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px,
			map(&sy, ay->t[i]), px + pw, map(&sy, ay->t[i]));
	for (size_t i = 0; i < ax->n; i++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			map(&sx, ax->t[i]), py, map(&sx, ax->t[i]), py + ph);
	fputs("</g>\n", f);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		   "fill=\"none\" stroke=\"#333\"/>\n", px, py, pw, ph);
	for (size_t i = 0; i < ay->n; i++) {
		fmt_tick(buf, sizeof buf, ay->t[i], ay->decimals);
		text(f, px - 6, map(&sy, ay->t[i]) + 4, "end", px_font, NULL, buf);
	}
	for (size_t i = 0; i < ax->n; i++) {
		fmt_tick(buf, sizeof buf, ax->t[i], ax->decimals);
		text(f, map(&sx, ax->t[i]), py + ph + gap + px_font + 4, "middle", px_font,
		     NULL, buf);
	}
	if (xlabel)
		text(f, px + pw / 2, py + ph + gap + 2 * px_font + 10, "middle", px_font, NULL,
		     xlabel);
	if (ylabel) {
		char tr[96];
		double x = px - 44, y = py + ph / 2;
		snprintf(tr, sizeof tr, "transform=\"rotate(-90 %.1f %.1f)\"", x, y);
		text(f, x, y, "middle", px_font, tr, ylabel);
	}
}

/* Data range of the series, skipping non-finite values. */
static void series_range(const sl_svg_series *s, size_t n, double *xlo, double *xhi,
			 double *ylo, double *yhi)
{
	*xlo = *ylo = INFINITY;
	*xhi = *yhi = -INFINITY;
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			if (isfinite(s[k].x[i])) {
				*xlo = SL_MIN(*xlo, s[k].x[i]);
				*xhi = SL_MAX(*xhi, s[k].x[i]);
			}
			if (isfinite(s[k].y[i])) {
				*ylo = SL_MIN(*ylo, s[k].y[i]);
				*yhi = SL_MAX(*yhi, s[k].y[i]);
			}
		}
}

/* One series as a polyline (downsampled to the plot's pixel columns),
 * with optional markers.  Non-finite points break the line. */
static void draw_series(FILE *f, const sl_svg_series *s, const char *colour,
			const scale *sx, const scale *sy, double width)
{
	size_t buckets = (size_t)(sx->p1 - sx->p0);
	size_t cap = SL_MIN(s->n, 4 * buckets + 4);
	double *dx = sl_xmalloc((cap + 1) * sizeof *dx);
	double *dy = sl_xmalloc((cap + 1) * sizeof *dy);
	size_t n = sl_svg_downsample(s->x, s->y, s->n, sx->lo, sx->hi, buckets, dx, dy);
	fprintf(f, "<g class=\"series\" stroke=\"%s\" fill=\"%s\">", colour, colour);
	title_elem(f, s->name);
	int open = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(dx[i]) || !isfinite(dy[i])) {
			if (open)
				fputs("\"/>", f);
			open = 0;
			continue;
		}
		if (!open)
			fprintf(f, "\n<polyline fill=\"none\" stroke-width=\"%.1f\"%s "
				   "stroke-linejoin=\"round\" points=\"", width,
				s->dashed ? " stroke-dasharray=\"6 4\"" : "");
		fprintf(f, "%s%.1f,%.1f", open ? " " : "", map(sx, dx[i]), map(sy, dy[i]));
		open = 1;
	}
	if (open)
		fputs("\"/>", f);
	if (s->markers)
		for (size_t i = 0; i < n; i++)
			if (isfinite(dx[i]) && isfinite(dy[i]))
				fprintf(f, "\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>",
					map(sx, dx[i]), map(sy, dy[i]));
	fputs("</g>\n", f);
	free(dx);
	free(dy);
}

/* Pending narrow segments of one pixel column (see sl_svg_timeline). */
typedef struct column {
	double px0, px1;
	size_t count;
	size_t key[8];
	double w[8];
	size_t n;
	double other;     /* weight of keys beyond the eighth */
} column;

/* The stacked pieces of merged columns, one path per phase (plus one for
 * "other"): a path is far smaller than a rect per piece. */
typedef struct piece_path {
	size_t key;       /* SIZE_MAX: other */
	char *d;
	size_t len, cap;
} piece_path;

typedef struct stacks {
	piece_path *p;
	size_t n;
	const sl_svg_keys *keys;
} stacks;

/* Append a rectangle to the path of `key`. */
static void stack_rect(stacks *st, size_t key, double x, double y, double w, double h)
{
	piece_path *pp = NULL;
	for (size_t i = 0; i < st->n && !pp; i++)
		if (st->p[i].key == key)
			pp = &st->p[i];
	if (!pp) {
		st->p = sl_xreallocarray(st->p, st->n + 1, sizeof *st->p);
		pp = &st->p[st->n++];
		*pp = (piece_path){key, NULL, 0, 0};
	}
	char buf[96];
	int k = snprintf(buf, sizeof buf, "M%.1f %.2fh%.1fv%.2fh-%.1fz", x, y, w, h, w);
	if (k < 0 || (size_t)k >= sizeof buf)
		return;
	if (pp->len + (size_t)k + 1 > pp->cap) {
		pp->cap = SL_MAX(2 * pp->cap, pp->len + (size_t)k + 1);
		pp->d = sl_xrealloc(pp->d, pp->cap);
	}
	memcpy(pp->d + pp->len, buf, (size_t)k + 1);
	pp->len += (size_t)k;
}

static void stacks_emit(FILE *f, stacks *st)
{
	for (size_t i = 0; i < st->n; i++) {
		piece_path *pp = &st->p[i];
		const char *name = NULL;
		for (size_t k = 0; st->keys && k < st->keys->n && !name; k++)
			if (st->keys->key[k] == pp->key)
				name = st->keys->name[k];
		fprintf(f, "<path fill=\"%s\" d=\"%s\"><title>",
			pp->key == SIZE_MAX ? "#777" : key_colour(st->keys, pp->key), pp->d);
		if (pp->key == SIZE_MAX)
			fputs("others", f);
		else if (name)
			sl_xml_puts(f, name);
		else
			fprintf(f, "phase %zu", pp->key);
		fputs(": instances shorter than a pixel, stacked by their share of the "
		      "column</title></path>\n", f);
		free(pp->d);
	}
	free(st->p);
}

/* A merged column as pieces stacked from y down, each phase's height in
 * proportion to its share of the column; with `st` NULL (a background
 * band), nothing: shading a mix says nothing. */
static void column_flush(column *c, stacks *st, double y, double h)
{
	if (c->count && st) {
		/* In key order, so that a key keeps its place from column to
		 * column and the stacks read as bands. */
		for (size_t i = 1; i < c->n; i++)
			for (size_t j = i; j > 0 && c->key[j - 1] > c->key[j]; j--) {
				size_t k = c->key[j];
				double w = c->w[j];
				c->key[j] = c->key[j - 1];
				c->w[j] = c->w[j - 1];
				c->key[j - 1] = k;
				c->w[j - 1] = w;
			}
		double tot = c->other, w = SL_MAX(c->px1 - c->px0, 1.0);
		for (size_t i = 0; i < c->n; i++)
			tot += c->w[i];
		double at = y;
		for (size_t i = 0; i <= c->n; i++) {
			double share = i < c->n ? c->w[i] : c->other;
			if (share <= 0 && tot > 0)
				continue;
			double ph = tot > 0 ? h * share / tot : h / (double)(c->n + 1);
			stack_rect(st, i < c->n ? c->key[i] : SIZE_MAX, c->px0, at, w, ph);
			at += ph;
		}
	}
	memset(c, 0, sizeof *c);
}

static void column_add(column *c, double px0, double px1, size_t key)
{
	if (!c->count)
		c->px0 = px0;
	c->px1 = SL_MAX(c->px1, px1);
	c->count++;
	double w = px1 - px0;
	for (size_t i = 0; i < c->n; i++)
		if (c->key[i] == key) {
			c->w[i] += w;
			return;
		}
	if (c->n < SL_ARRAY_LEN(c->key)) {
		c->key[c->n] = key;
		c->w[c->n++] = w;
	} else {
		c->other += w;
	}
}

/* Segments as rectangles from y to y + h (with `opacity`, a background
 * band).  Those under a pixel wide are merged per pixel column, stacked by
 * phase in a strip and left out of a background, so that the output stays
 * bounded by the width whatever the number of segments. */
static void draw_segments(FILE *f, const sl_svg_segment *seg, size_t n, const scale *sx,
			  double y, double h, const char *opacity, const sl_svg_keys *keys)
{
	column c;
	memset(&c, 0, sizeof c);
	stacks st = {NULL, 0, keys};
	stacks *stp = *opacity ? NULL : &st;
	for (size_t i = 0; i < n; i++) {
		double a = map(sx, seg[i].x0), b = map(sx, seg[i].x1);
		if (b - a >= 1) {
			column_flush(&c, stp, y, h);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"%s\"%s>", a, y, b - a, h,
				key_colour(keys, seg[i].key), opacity);
			title_elem(f, seg[i].title);
			fputs("</rect>\n", f);
			continue;
		}
		if (c.count && floor(a) != floor(c.px0))
			column_flush(&c, stp, y, h);
		column_add(&c, a, b, seg[i].key);
	}
	column_flush(&c, stp, y, h);
	stacks_emit(f, &st);
}

/* ---- charts ------------------------------------------------------------ */

void sl_svg_line(FILE *f, const sl_svg_line_chart *c)
{
	double xlo, xhi, ylo, yhi;
	series_range(c->series, c->n_series, &xlo, &xhi, &ylo, &yhi);
	for (size_t i = 0; i < c->n_bands; i++) {
		xlo = SL_MIN(xlo, c->bands[i].x0);
		xhi = SL_MAX(xhi, c->bands[i].x1);
	}
	axis ax, ay;
	make_axis(&ax, xlo, xhi, c->axes.xmin, c->axes.xmax, 12, 1);
	make_axis(&ay, ylo, yhi, c->axes.ymin, c->axes.ymax, 7, 0);

	svg_open(f, c->width, c->height, c->title);
	entry *e = series_entries(c->series, c->n_series);
	double left = 70, right = 20, top = 30;
	double lh = legend(f, left, top + 12, c->width - left - right, e, c->n_series, 1);
	free(e);
	top += lh + 4;
	double strip = c->n_bands ? 12 : 0;
	double bottom = 48 + strip;
	double pw = c->width - left - right, ph = c->height - top - bottom;
	scale sx = {ax.lo, ax.hi, left, left + pw};
	scale sy = {ay.lo, ay.hi, top + ph, top};
	if (c->n_bands) {
		fputs("<g class=\"bands\">\n", f);
		draw_segments(f, c->bands, c->n_bands, &sx, top, ph, " fill-opacity=\"0.11\"",
			      &c->keys);
		fputs("</g>\n", f);
	}
	frame(f, left, top, pw, ph, strip, &ax, &ay, c->axes.xlabel, c->axes.ylabel,
	      FONT_PX);
	if (c->n_bands) {
		fputs("<g class=\"strip\">\n", f);
		draw_segments(f, c->bands, c->n_bands, &sx, top + ph + 2, strip - 4, "",
			      &c->keys);
		fputs("</g>\n", f);
	}
	for (size_t i = 0; i < c->n_series; i++)
		draw_series(f, &c->series[i], series_colour(&c->series[i], i), &sx, &sy, 1.5);
	fputs("</svg>\n", f);
}

/* Shorten a label to `max` characters with an ellipsis. */
static void shorten(char *out, size_t len, const char *s, size_t max)
{
	if (max < 2)
		max = 2;
	if (strlen(s) <= max) {
		snprintf(out, len, "%s", s);
		return;
	}
	snprintf(out, len, "%.*s\xe2\x80\xa6", (int)(max - 1), s);
}

void sl_svg_bars(FILE *f, const sl_svg_bar_chart *c)
{
	double hi = 0;
	size_t nv = c->n_groups * c->n_series;
	for (size_t i = 0; i < nv; i++)
		if (isfinite(c->values[i]))
			hi = SL_MAX(hi, c->values[i]);
	axis ay;
	/* headroom for the value labels above the bars */
	make_axis(&ay, 0, hi > 0 ? hi * 1.06 : 1, 0, NAN, 7, 0);

	svg_open(f, c->width, c->height, c->title);
	double left = 70, right = 20, top = 30;
	entry *e = sl_xcalloc(c->n_series + 1, sizeof *e);
	for (size_t i = 0; i < c->n_series; i++)
		e[i] = (entry){c->series_names[i], sl_svg_series_colour(i), 0};
	top += legend(f, left, top + 12, c->width - left - right, e, c->n_series, 0) + 4;
	free(e);
	double bottom = 40;
	double pw = c->width - left - right, ph = c->height - top - bottom;
	scale sy = {ay.lo, ay.hi, top + ph, top};
	char buf[64];
	fputs("<g stroke=\"#ddd\">", f);
	for (size_t i = 0; i < ay.n; i++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", left,
			map(&sy, ay.t[i]), left + pw, map(&sy, ay.t[i]));
	fputs("</g>\n", f);
	for (size_t i = 0; i < ay.n; i++) {
		fmt_tick(buf, sizeof buf, ay.t[i], ay.decimals);
		text(f, left - 6, map(&sy, ay.t[i]) + 4, "end", FONT_PX, NULL, buf);
	}
	if (c->ylabel) {
		char tr[96];
		double x = left - 44, y = top + ph / 2;
		snprintf(tr, sizeof tr, "transform=\"rotate(-90 %.1f %.1f)\"", x, y);
		text(f, x, y, "middle", FONT_PX, tr, c->ylabel);
	}
	double gw = c->n_groups ? pw / (double)c->n_groups : pw;
	double bw = c->n_series ? gw * 0.8 / (double)c->n_series : gw;
	size_t maxch = (size_t)(gw / (CHAR_W * FONT_PX));
	for (size_t g = 0; g < c->n_groups; g++) {
		double gx = left + gw * (double)g + gw * 0.1;
		fprintf(f, "<g class=\"group\">");
		for (size_t s = 0; s < c->n_series; s++) {
			double v = c->values[g * c->n_series + s];
			double x = gx + bw * (double)s;
			fmt_short(buf, sizeof buf, v);
			if (isfinite(v)) {
				double y = map(&sy, v);
				fprintf(f, "\n<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					   "height=\"%.1f\" fill=\"%s\"><title>",
					x + 1, y, bw - 2, top + ph - y, sl_svg_series_colour(s));
				sl_xml_puts(f, c->group_names[g]);
				fputs(", ", f);
				sl_xml_puts(f, c->series_names[s]);
				fprintf(f, ": %s</title></rect>", buf);
				if (bw >= 26)
					text(f, x + bw / 2, y - 3, "middle", SMALL_PX, NULL, buf);
			} else {
				text(f, x + bw / 2, top + ph - 3, "middle", SMALL_PX, NULL, "n/a");
			}
		}
		char lab[128];
		shorten(lab, sizeof lab, c->group_names[g], maxch);
		fputc('\n', f);
		fputs("<g>", f);
		title_elem(f, c->group_names[g]);
		text(f, left + gw * ((double)g + 0.5), top + ph + 18, "middle", FONT_PX, NULL,
		     lab);
		fputs("</g></g>\n", f);
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		left, top + ph, left + pw, top + ph);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		left, top, left, top + ph);
	fputs("</svg>\n", f);
}

void sl_svg_multiples_draw(FILE *f, const sl_svg_multiples *m)
{
	int cols = m->columns > 0 ? m->columns : 1;
	size_t rows = (m->n_panels + (size_t)cols - 1) / (size_t)cols;
	double top = 30;
	/* Shared legend: the first panel's series. */
	size_t nl = m->n_panels ? m->panels[0].n_series : 0;
	entry *e = series_entries(m->n_panels ? m->panels[0].series : NULL, nl);
	double lh = legend_height(m->width - 90, e, nl, 1);
	int height = (int)(top + lh + 8 + (double)rows * m->panel_height);
	svg_open(f, m->width, height, m->title);
	legend(f, 70, top + 12, m->width - 90, e, nl, 1);
	free(e);
	top += lh + 8;
	double cw = (double)m->width / cols;
	for (size_t p = 0; p < m->n_panels; p++) {
		const sl_svg_panel *pn = &m->panels[p];
		double ox = cw * (double)(p % (size_t)cols);
		double oy = top + (double)m->panel_height * (double)(p / (size_t)cols);
		double xlo, xhi, ylo, yhi;
		series_range(pn->series, pn->n_series, &xlo, &xhi, &ylo, &yhi);
		axis ax, ay;
		make_axis(&ax, xlo, xhi, pn->axes.xmin, pn->axes.xmax, 6, 1);
		make_axis(&ay, ylo, yhi, pn->axes.ymin, pn->axes.ymax, 5, 0);
		double left = ox + 62, pw = cw - 62 - 14;
		double ptop = oy + 22, ph = m->panel_height - 22 - 44;
		fputs("<g class=\"panel\">\n", f);
		if (pn->title)
			text(f, ox + cw / 2, oy + 14, "middle", FONT_PX, "font-weight=\"bold\"",
			     pn->title);
		frame(f, left, ptop, pw, ph, 0, &ax, &ay, pn->axes.xlabel, pn->axes.ylabel,
		      SMALL_PX + 1);
		scale sx = {ax.lo, ax.hi, left, left + pw};
		scale sy = {ay.lo, ay.hi, ptop + ph, ptop};
		for (size_t i = 0; i < pn->n_series; i++)
			draw_series(f, &pn->series[i], series_colour(&pn->series[i], i), &sx, &sy, 2);
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
}

void sl_svg_timeline_draw(FILE *f, const sl_svg_timeline *t)
{
	double left = 20, right = 20, top = 30;
	double pw = t->width - left - right;
	entry *e = key_entries(&t->keys);
	double lh = t->keys.n ? legend_height(pw, e, t->keys.n, 0) : 0;
	double strip = 36;
	int height = (int)(top + strip + 44 + lh + 6);
	svg_open(f, t->width, height, t->title);
	axis ax;
	make_axis(&ax, 0, t->total > 0 ? t->total : 1, 0, NAN, 12, 1);
	scale sx = {ax.lo, ax.hi, left, left + pw};
	fputs("<g class=\"timeline\">\n", f);
	draw_segments(f, t->seg, t->n_seg, &sx, top, strip, "", &t->keys);
	fputs("</g>\n", f);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		   "stroke=\"#333\"/>\n", left, top, pw, strip);
	char buf[32];
	for (size_t i = 0; i < ax.n; i++) {
		double x = map(&sx, ax.t[i]);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#333\"/>", x, top + strip, x, top + strip + 4);
		fmt_tick(buf, sizeof buf, ax.t[i], ax.decimals);
		text(f, x, top + strip + 17, "middle", FONT_PX, NULL, buf);
	}
	if (t->xlabel)
		text(f, left + pw / 2, top + strip + 34, "middle", FONT_PX, NULL, t->xlabel);
	if (t->keys.n)
		legend(f, left, top + strip + 56, pw, e, t->keys.n, 0);
	free(e);
	fputs("</svg>\n", f);
}
