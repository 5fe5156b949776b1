/*
 * Terminal niceties shared by the commands that print to people: colour
 * only where it is wanted (a TTY, NO_COLOR unset), a one-line phase
 * timeline strip, and a progress line on stderr for long runs.
 */
#ifndef SLEUTH_TERM_H
#define SLEUTH_TERM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Colour on stream f: it is a terminal, NO_COLOR is unset or empty
 * (https://no-color.org) and TERM is not "dumb". */
int sl_term_colour(FILE *f);
/* The same decision from its inputs (for tests). */
int sl_term_colour_wanted(int isatty, const char *no_color, const char *term);

/* Width of the terminal on f: the window size, else $COLUMNS, else 80. */
int sl_term_columns(FILE *f);

/* SGR sequences: a phase's colour (256-colour approximations of the report's
 * phase palette, as a background), and reset. */
const char *sl_term_phase_sgr(size_t phase);
#define SL_TERM_RESET "\033[0m"

/* The character that names a phase on a strip: 0-9, a-z, A-Z, then '+'. */
char sl_term_phase_char(size_t phase);

/*
 * A one-line phase timeline of `cols` characters.  Intervals of phase[i]
 * with weight w[i] (durations; NULL: all equal) are laid end to end; each
 * character shows the phase with the most weight in its share of the run.
 * With `colour`, runs of a phase are wrapped in its SGR colour.  Returns a
 * malloc'd string (no newline); cols visible characters (fewer if n < cols
 * and w is NULL: one per interval).
 */
char *sl_term_strip(const uint32_t *phase, const double *w, size_t n, size_t cols,
		    int colour);

/* The phase timeline of a profile (intervals weighted by their time), as
 * sl_term_strip. */
struct sl_profile;
char *sl_term_profile_strip(const struct sl_profile *p, size_t cols, int colour);

/* Print phase id `ph` right-aligned in `width` columns, in its colour
 * when `colour`. */
void sl_term_phase_id(FILE *f, uint32_t ph, int width, int colour);

/* Print `lead`, then `text` wrapped at spaces so that no line is wider
 * than `width` columns (UTF-8 characters count one each), continuation
 * lines indented by `indent` spaces; a word longer than a line is kept
 * whole. */
void sl_term_wrap(FILE *f, const char *lead, const char *text, size_t indent, size_t width);

/*
 * Progress on stderr: drawn only when stderr is a terminal, the total is
 * known (non-zero), and only once the work has run for `delay` seconds
 * (short runs stay silent), redrawn at most ten times a second, and erased
 * by finish().
 *
 *     sl_progress pg;
 *     sl_progress_start(&pg, n, "replaying");
 *     for (i = 0; i < n; i++) { ...; sl_progress_update(&pg, i + 1); }
 *     sl_progress_finish(&pg);
 */
typedef struct sl_progress {
	FILE *out;          /* NULL: inactive */
	char label[48];
	uint64_t total, done;
	double t0, last, delay;
	int drawn;
	int counts;         /* show "(done/total)" (default 1) */
} sl_progress;

void sl_progress_start(sl_progress *p, uint64_t total, const char *label);
/* As start, on any stream, active or not (tests). */
void sl_progress_start_on(sl_progress *p, FILE *out, int active, double delay,
			  uint64_t total, const char *label);
void sl_progress_update(sl_progress *p, uint64_t done);
void sl_progress_finish(sl_progress *p);

#endif
