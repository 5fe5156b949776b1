/*
 * Terminal helpers (see util/term.h): the colour decision, the
 * phase strip and the progress line.  Kept apart from the commands so that
 * every table printer makes the same choices.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"
#include "util/term.h"

int sl_term_colour_wanted(int isatty, const char *no_color, const char *term)
{
	if (!isatty)
		return 0;
	if (no_color && *no_color)
		return 0;
	return !(term && !strcmp(term, "dumb"));
}

int sl_term_colour(FILE *f)
{
	return sl_term_colour_wanted(isatty(fileno(f)), getenv("NO_COLOR"),
				     getenv("TERM"));
}

int sl_term_columns(FILE *f)
{
	struct winsize ws;
	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	uint64_t v;
	if (c && sl_parse_u64(c, &v) == 0 && v > 0 && v < 10000)
		return (int)v;
	return 80;
}

/* The report's phase palette (Paul Tol's "muted") in xterm-256 colours,
 * with black text on the light ones and white on the dark. */
static const char *const phase_sgr[] = {
	"\033[48;5;54;97m",  "\033[48;5;117;30m", "\033[48;5;72;97m",
	"\033[48;5;29;97m",  "\033[48;5;101;30m", "\033[48;5;186;30m",
	"\033[48;5;168;97m", "\033[48;5;89;97m",  "\033[48;5;132;97m",
	"\033[48;5;188;30m",
};

const char *sl_term_phase_sgr(size_t phase)
{
	return phase_sgr[phase % SL_ARRAY_LEN(phase_sgr)];
}

char sl_term_phase_char(size_t phase)
{
	static const char digits[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	return phase < sizeof digits - 1 ? digits[phase] : '+';
}

/* The phase with the most weight in [a, b) of the run laid end to end;
 * `i` is the first interval that may overlap it (advanced for the next
 * call).  Ties go to the earlier interval's phase. */
static uint32_t dominant(const uint32_t *phase, const double *cum, size_t n, size_t *i,
			 double a, double b)
{
	uint32_t best = phase[*i < n ? *i : n - 1];
	double best_w = -1;
	/* A handful of distinct phases per column is typical; a linear list
	 * keeps this allocation-free. */
	uint32_t ids[16];
	double w[16];
	size_t k = 0;
	size_t j = *i;
	while (j < n && (j ? cum[j - 1] : 0) < b) {
		double lo = j ? cum[j - 1] : 0, hi = cum[j];
		double ov = SL_MIN(hi, b) - SL_MAX(lo, a);
		if (ov > 0) {
			size_t m = 0;
			while (m < k && ids[m] != phase[j])
				m++;
			if (m == k && k < SL_ARRAY_LEN(ids)) {
				ids[k] = phase[j];
				w[k++] = 0;
			}
			if (m < k)
				w[m] += ov;
		}
		if (hi <= b)
			j++;
		else
			break;
	}
	/* The interval straddling b also overlaps the next column. */
	*i = j;
	for (size_t m = 0; m < k; m++)
		if (w[m] > best_w) {
			best_w = w[m];
			best = ids[m];
		}
	return best;
}

char *sl_term_strip(const uint32_t *phase, const double *w, size_t n, size_t cols,
		    int colour)
{
	if (!w && n < cols)
		cols = n;
	/* 16 bytes of colour codes per character at worst, plus a reset. */
	char *out = sl_xmalloc(cols * (colour ? 24 : 1) + 8);
	size_t len = 0;
	if (n == 0 || cols == 0) {
		out[0] = 0;
		return out;
	}
	double *cum = sl_xmalloc(n * sizeof *cum);
	double t = 0;
	for (size_t i = 0; i < n; i++) {
		double d = w ? w[i] : 1;
		t += d > 0 ? d : 0;
		cum[i] = t;
	}
	size_t at = 0;
	int64_t prev = -1;
	for (size_t c = 0; c < cols; c++) {
		double a = t * (double)c / (double)cols, b = t * (double)(c + 1) / (double)cols;
		uint32_t ph = t > 0 ? dominant(phase, cum, n, &at, a, b)
				    : phase[c * n / cols];
		if (colour && (int64_t)ph != prev) {
			const char *s = sl_term_phase_sgr(ph);
			memcpy(out + len, s, strlen(s));
			len += strlen(s);
		}
		prev = ph;
		out[len++] = sl_term_phase_char(ph);
	}
	if (colour) {
		memcpy(out + len, SL_TERM_RESET, strlen(SL_TERM_RESET));
		len += strlen(SL_TERM_RESET);
	}
	out[len] = 0;
	free(cum);
	return out;
}

char *sl_term_profile_strip(const sl_profile *p, size_t cols, int colour)
{
	uint32_t *ph = sl_xmalloc((p->n_intervals + 1) * sizeof *ph);
	double *w = sl_xmalloc((p->n_intervals + 1) * sizeof *w);
	for (size_t i = 0; i < p->n_intervals; i++) {
		ph[i] = p->iv[i].phase;
		w[i] = p->iv[i].time_s;
	}
	char *s = sl_term_strip(ph, w, p->n_intervals, cols, colour);
	free(ph);
	free(w);
	return s;
}

void sl_term_phase_id(FILE *f, uint32_t ph, int width, int colour)
{
	if (colour)
		fprintf(f, "%s%*u" SL_TERM_RESET, sl_term_phase_sgr(ph), width, ph);
	else
		fprintf(f, "%*u", width, ph);
}

/* ---- progress ------------------------------------------------------------ */

void sl_progress_start_on(sl_progress *p, FILE *out, int active, double delay,
			  uint64_t total, const char *label)
{
	memset(p, 0, sizeof *p);
	p->out = active ? out : NULL;
	p->total = total;
	p->delay = delay;
	p->t0 = sl_now();
	p->last = -1;
	p->counts = 1;
	snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

void sl_progress_start(sl_progress *p, uint64_t total, const char *label)
{
	/* An unknown total (0) has no share to draw: stay silent. */
	sl_progress_start_on(p, stderr, total && isatty(STDERR_FILENO) && !sl_quiet, 1.0,
			     total, label);
}

static void draw(sl_progress *p, double now)
{
	double el = now - p->t0;
	double frac = p->total ? (double)p->done / (double)p->total : 0;
	if (frac > 1)
		frac = 1;
	fprintf(p->out, "\r\033[K%s: %3.0f%%", p->label, 100 * frac);
	if (p->counts)
		fprintf(p->out, " (%llu/%llu)", (unsigned long long)p->done,
			(unsigned long long)p->total);
	if (frac > 0.01 && frac < 1)
		fprintf(p->out, ", %.0f s left", el / frac - el);
	fflush(p->out);
	p->drawn = 1;
	p->last = now;
}

void sl_progress_update(sl_progress *p, uint64_t done)
{
	p->done = done;
	if (!p->out)
		return;
	double now = sl_now();
	if (now - p->t0 < p->delay)
		return;
	if (p->drawn && now - p->last < 0.1)
		return;
	draw(p, now);
}

void sl_progress_finish(sl_progress *p)
{
	if (p->out && p->drawn) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	p->out = NULL;
	p->drawn = 0;
}

/* Columns of the first n bytes of s (UTF-8 continuation bytes count 0). */
static size_t columns(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

void sl_term_wrap(FILE *f, const char *lead, const char *text, size_t indent, size_t width)
{
	size_t used = columns(lead, strlen(lead));
	fputs(lead, f);
	if (!*text)
		fputc('\n', f);
	while (*text) {
		size_t room = width > used ? width - used : 0, n = strlen(text);
		if (columns(text, n) > room) {
			/* the last space within the room, else the first word whole */
			size_t cut = 0;
			for (size_t i = 0; i < n && columns(text, i) <= room; i++)
				if (text[i] == ' ')
					cut = i;
			n = cut ? cut : strcspn(text, " ");
		}
		fprintf(f, "%.*s\n", (int)n, text);
		text += n;
		text += strspn(text, " ");
		if (*text)
			fprintf(f, "%*s", (int)indent, "");
		used = indent;
	}
}
