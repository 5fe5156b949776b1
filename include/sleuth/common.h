/*
 * Shared plumbing for every part of libsleuth: error reporting, allocation
 * that never returns NULL, growable arrays, frequency parsing and files that
 * appear atomically.
 *
 * Error convention: a library function that can fail returns a negative
 * value (or NULL) and leaves one line in sl_error() that names the cause and,
 * where one exists, the fix.  Callers up the stack may prefix context with
 * sl_error_prefix().  Only the CLI prints errors; the library never exits
 * except on out-of-memory.
 */
#ifndef SLEUTH_COMMON_H
#define SLEUTH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SL_MAX(a, b) ((a) > (b) ? (a) : (b))
/* A core frequency, of a trace's interval or a profile's, is below this
 * (GHz). */
#define SL_MAX_GHZ 1000.0

#if defined(__GNUC__)
#define SL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SL_PRINTF(f, a)
#endif

/* Exit codes shared by all subcommands. */
enum { SL_EXIT_OK = 0, SL_EXIT_ERROR = 1, SL_EXIT_USAGE = 2 };

/* The last error of this thread (one line, no trailing newline). */
void sl_error_set(const char *fmt, ...) SL_PRINTF(1, 2);
void sl_error_prefix(const char *fmt, ...) SL_PRINTF(1, 2);
const char *sl_error(void);

/* Diagnostics on stderr, prefixed "sleuth: " / "sleuth: warning: ". */
void sl_warn(const char *fmt, ...) SL_PRINTF(1, 2);
void sl_info(const char *fmt, ...) SL_PRINTF(1, 2);
extern int sl_quiet; /* suppresses sl_info */

void *sl_xmalloc(size_t n);
void *sl_xcalloc(size_t n, size_t size);
void *sl_xrealloc(void *p, size_t n);
void *sl_xreallocarray(void *p, size_t n, size_t size);
char *sl_xstrdup(const char *s);
char *sl_xasprintf(const char *fmt, ...) SL_PRINTF(1, 2);

/*
 * Checked arithmetic for counts and ids read from files: 0 and *out = a+b
 * (a*b), or -1 when the result does not fit (*out untouched).  A count from
 * a file must go through these before it sizes an allocation or a loop.
 */
int sl_add_u64(uint64_t a, uint64_t b, uint64_t *out);
int sl_mul_u64(uint64_t a, uint64_t b, uint64_t *out);

/* Make room for one more element in a growable array (ptr, len, cap). */
#define SL_GROW(ptr, len, cap)                                                 \
	do {                                                                   \
		if ((len) >= (cap)) {                                          \
			(cap) = (cap) ? 2 * (cap) : 16;                        \
			(ptr) = sl_xreallocarray((ptr), (cap), sizeof *(ptr)); \
		}                                                              \
	} while (0)

/*
 * Frequencies: "2.66GHz", "2660MHz", "2660000kHz" or a bare number: GHz up
 * to 10 ("2.66"), MHz from 100 ("2660"), refused between.  Returns 0 and the value in GHz, or -1 with sl_error() set.
 */
int sl_parse_freq(const char *s, double *ghz);
/* Frequency dithering, "N:FREQ" (simulate and run --dither): every Nth
 * interval (index i with i % N == N - 1) runs at FREQ, N from 2 to
 * 1000000.  0, or -1 with sl_error() naming the fix. */
#define SL_DITHER_MAX_N 1000000u
int sl_parse_dither(const char *s, unsigned *n, double *ghz);
/* Whether interval i of a run dithered every n intervals runs at the
 * dither frequency. */
static inline int sl_dither_at(size_t i, unsigned n)
{
	return n > 1 && i % n == n - 1;
}

/* Strict number parsing of a whole string; -1 with sl_error() on junk. */
int sl_parse_u64(const char *s, uint64_t *out);  /* decimal or 0x hex */
int sl_parse_double(const char *s, double *out); /* finite only */
/* "10%" -> 0.10, "0.1" -> 0.1; a bare number above 1 ("10") is refused
 * with the fix ("write 10%"), since it would be read as 1000% */
int sl_parse_fraction(const char *s, double *out);

/* Format a double in the shortest form that reads back identically. */
void sl_fmt_double(char *buf, size_t len, double v);

/*
 * Output files appear whole or not at all: written to a temporary file in
 * the same directory and renamed over the target on commit.  "-" means
 * stdout (no atomicity, nothing to rename).
 */
typedef struct sl_afile {
	char *path;
	char *tmp;
	FILE *f;
} sl_afile;

FILE *sl_afile_open(sl_afile *af, const char *path);
/* Readers note each input file they open; once sl_input_guard() was called
 * (the CLI does, for the one command a process runs), sl_afile_open and
 * _commit refuse an output that is one of them rather than replace it.  A
 * library caller may well write a file it read earlier, so it is off by
 * default. */
void sl_input_note(FILE *f);
void sl_input_guard(void);
int sl_afile_commit(sl_afile *af); /* closes; 0 or -1 with sl_error() */
void sl_afile_abort(sl_afile *af); /* closes and removes the temporary */

/* Where shipped data lives: $SLEUTH_DATADIR if set, then the source tree
 * when this binary runs from its build tree, then the installed datadir.
 * Returns a malloc'd path "<root>/<rel>" for the first root where it exists,
 * or NULL. */
char *sl_data_path(const char *rel);

/* Seconds on a monotonic clock. */
double sl_now(void);

#endif
