/* Unit tests of the SVG chart module: escaping, ticks, min/max
 * downsampling (peaks survive, sizes bounded), and each chart is well
 * formed and carries its data (points, bars, segments, panels). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "report/svg.h"
#include "xmlcheck.h"

/* Memory stream helpers: run `draw` into a string. */
typedef struct mem {
	char *buf;
	size_t len;
	FILE *f;
} mem;

static FILE *mem_open(mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	return m->f;
}

static char *mem_close(mem *m)
{
	fclose(m->f);
	return m->buf;
}

static void test_escape(void **state)
{
	(void)state;
	mem m;
	sl_xml_puts(mem_open(&m), "a<b>&\"c'\x01\t");
	char *s = mem_close(&m);
	assert_string_equal(s, "a&lt;b&gt;&amp;&quot;c&#39;\xef\xbf\xbd\t");
	free(s);
	/* valid UTF-8 passes; a stray continuation byte, a truncated sequence,
	 * an overlong form and a surrogate do not */
	sl_xml_puts(mem_open(&m), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\x80|\xe2\x82|\xc0\xaf|"
				  "\xed\xa0\x80");
	s = mem_close(&m);
	assert_string_equal(s, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xef\xbf\xbd|"
			       "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
			       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}

static void test_ticks(void **state)
{
	(void)state;
	double t[16];
	size_t n = sl_svg_ticks(0, 7.3, 8, t);
	assert_true(n >= 2 && n <= 8);
	assert_true(t[0] <= 0 && t[n - 1] >= 7.3);
	for (size_t i = 1; i < n; i++)
		assert_true(fabs((t[i] - t[i - 1]) - (t[1] - t[0])) < 1e-9);
	/* step of 1, 2 or 5 x 10^k */
	double step = t[1] - t[0], e = pow(10, floor(log10(step))), m = step / e;
	assert_true(fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9);

	n = sl_svg_ticks(12.5, 12.5, 6, t); /* degenerate range */
	assert_true(n >= 2 && t[0] < 12.5 && t[n - 1] > 12.5);
	n = sl_svg_ticks(-0.003, 0.0171, 5, t);
	assert_true(n <= 5 && t[0] <= -0.003 && t[n - 1] >= 0.0171);
	n = sl_svg_ticks(NAN, 1, 5, t);
	assert_true(n >= 2);
}

static void test_downsample(void **state)
{
	(void)state;
	size_t n = 100000;
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i * 0.01;
		y[i] = 50 + 10 * sin((double)i / 500);
	}
	y[77777] = 500; /* one interval's peak */
	y[12345] = -3;
	double *ox = malloc(400 * sizeof *ox), *oy = malloc(400 * sizeof *oy);
	size_t k = sl_svg_downsample(x, y, n, 0, x[n - 1], 100, ox, oy);
	assert_true(k <= 400 && k >= 200);
	double hi = -INFINITY, lo = INFINITY;
	for (size_t i = 0; i < k; i++) {
		hi = SL_MAX(hi, oy[i]);
		lo = SL_MIN(lo, oy[i]);
		if (i)
			assert_true(ox[i] > ox[i - 1]);
	}
	assert_true(hi == 500 && lo == -3);
	assert_true(ox[0] == x[0] && ox[k - 1] == x[n - 1]);

	/* short series are copied unchanged */
	k = sl_svg_downsample(x, y, 10, 0, x[9], 100, ox, oy);
	assert_int_equal(k, 10);
	assert_memory_equal(oy, y, 10 * sizeof *y);
	free(x);
	free(y);
	free(ox);
	free(oy);
}

/* The number of x,y pairs in every points="..." of s. */
static size_t count_points(const char *s)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, "points=\"")); ) {
		p += 8;
		const char *e = strchr(p, '"');
		for (const char *q = p; q < e; q++)
			n += *q == ',';
		p = e;
	}
	return n;
}

static void test_line(void **state)
{
	(void)state;
	size_t n = 100000;
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i * 1e-3;
		y[i] = 40 + (double)(i % 97);
	}
	double sx[10], sy[10];
	for (int i = 0; i < 10; i++) {
		sx[i] = i * 10.0;
		sy[i] = 30 + i;
	}
	sl_svg_series ser[2] = {
		{.name = "at 2.66 GHz <fmax>", .x = x, .y = y, .n = n},
		{.name = "at 1.60 GHz", .x = sx, .y = sy, .n = 10, .dashed = 1},
	};
	sl_svg_segment bands[3] = {
		{0, 30, 0, "phase 0 & co"}, {30, 60, 1, "phase 1"}, {60, 100, 0, NULL},
	};
	sl_svg_line_chart c = {
		.title = "Power over time", .width = 1200, .height = 360,
		.axes = {"time (s)", "power (W)", NAN, NAN, 0, NAN},
		.series = ser, .n_series = 2, .bands = bands, .n_bands = 3,
	};
	mem m;
	sl_svg_line(mem_open(&m), &c);
	char *s = mem_close(&m);
	assert_int_equal(xml_check(s), 0);
	assert_non_null(strstr(s, "at 2.66 GHz &lt;fmax&gt;"));
	assert_non_null(strstr(s, "phase 0 &amp; co"));
	assert_non_null(strstr(s, "power (W)"));
	assert_non_null(strstr(s, "time (s)"));
	assert_int_equal(count_str(s, "<polyline"), 2);
	/* 10 points drawn as 10, 100k reduced to at most 4 per pixel column */
	size_t pts = count_points(s);
	assert_true(pts > 10 + 1000 && pts <= 10 + 4 * 1200);
	/* bands: shaded behind and in the strip, with their titles */
	assert_int_equal(count_str(s, "<title>phase 1</title>"), 2);
	assert_true(strlen(s) < 200000);
	free(s);
	free(x);
	free(y);
}

static void test_bars(void **state)
{
	(void)state;
	const char *groups[] = {"phase 2 <io>", "phase 0", "phase 1"};
	const char *series[] = {"2.66 GHz", "1.60 GHz"};
	double v[] = {3.5, 4.1, 2.0, 3.3, 0.5, NAN};
	sl_svg_bar_chart c = {
		.title = "Time per phase", .width = 600, .height = 300, .ylabel = "time (s)",
		.n_groups = 3, .n_series = 2, .group_names = groups, .series_names = series,
		.values = v,
	};
	mem m;
	sl_svg_bars(mem_open(&m), &c);
	char *s = mem_close(&m);
	assert_int_equal(xml_check(s), 0);
	assert_int_equal(count_str(s, "class=\"bar\""), 5);
	assert_non_null(strstr(s, "phase 2 &lt;io&gt;"));
	assert_non_null(strstr(s, ">n/a<"));
	assert_non_null(strstr(s, "time (s)"));
	free(s);
}

static void test_multiples(void **state)
{
	(void)state;
	double f[] = {1.6, 2.0, 2.4, 2.66}, t[] = {1.5, 1.3, 1.1, 1.0}, e[] = {0.8, 0.85, 0.9, 1.0};
	sl_svg_series ser[2] = {
		{.name = "time", .x = f, .y = t, .n = 4, .markers = 1},
		{.name = "energy", .x = f, .y = e, .n = 4, .markers = 1, .dashed = 1,
		 .colour = "#123456"},
	};
	sl_svg_panel p[5];
	for (int i = 0; i < 5; i++)
		p[i] = (sl_svg_panel){"phase", {"frequency (GHz)", "relative to fmax", NAN, NAN,
						0, NAN}, ser, 2};
	sl_svg_multiples mm = {.title = "Phases against frequency", .width = 1200,
			       .columns = 3, .panel_height = 220, .panels = p, .n_panels = 5};
	mem m;
	sl_svg_multiples_draw(mem_open(&m), &mm);
	char *s = mem_close(&m);
	assert_int_equal(xml_check(s), 0);
	assert_int_equal(count_str(s, "class=\"panel\""), 5);
	assert_int_equal(count_str(s, "<circle"), 5 * 8);
	assert_int_equal(count_points(s), 5 * 8);
	/* an explicit colour, in the lines and the (dashed) legend */
	assert_int_equal(count_str(s, "stroke=\"#123456\""), 5 + 1);
	assert_int_equal(count_str(s, "stroke-dasharray"), 5 + 1);
	/* two rows of panels */
	assert_non_null(strstr(s, "height=\""));
	free(s);
}

static void test_timeline(void **state)
{
	(void)state;
	size_t n = 100000;
	sl_svg_segment *seg = calloc(n + 1, sizeof *seg);
	for (size_t i = 0; i < n; i++)
		seg[i] = (sl_svg_segment){(double)i, (double)i + 1, i % 3 ? 1 : 2, "tiny"};
	seg[n] = (sl_svg_segment){(double)n, 2.0 * n, 4, "phase 4, instance 1"};
	size_t lp[] = {1, 2, 4};
	const char *ln[] = {"phase 1", "phase 2", "phase 4"};
	sl_svg_timeline t = {.title = "Phases", .width = 1200, .xlabel = "time (s)",
			     .total = 2.0 * n, .seg = seg, .n_seg = n + 1,
			     .keys = {.n = 3, .key = lp, .name = ln}};
	mem m;
	sl_svg_timeline_draw(mem_open(&m), &t);
	char *s = mem_close(&m);
	assert_int_equal(xml_check(s), 0);
	/* 100k sub-pixel instances merged per pixel column, stacked by phase:
	 * one path per phase, two pieces (phases 1 and 2) per column */
	assert_true(count_str(s, "<rect") < 10);
	assert_int_equal(count_str(s, "<path"), 2);
	size_t pieces = count_str(s, "z");
	assert_true(pieces > 2 * 500 && pieces < 2 * 1200);
	assert_int_equal(count_str(s, "<title>tiny</title>"), 0);
	assert_non_null(strstr(s, "phase 1: instances shorter than a pixel"));
	assert_int_equal(count_str(s, "<title>phase 4, instance 1</title>"), 1);
	assert_non_null(strstr(s, sl_svg_phase_colour(4)));
	free(s);
	free(seg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),     cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_downsample), cmocka_unit_test(test_line),
		cmocka_unit_test(test_bars),       cmocka_unit_test(test_multiples),
		cmocka_unit_test(test_timeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
