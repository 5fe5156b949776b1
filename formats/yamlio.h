/*
 * YAML input and output on libyaml for every YAML file sleuth reads or
 * writes (traces, machines, workloads, schedules).
 *
 * Reading is event-based so that a trace of 100k intervals is never held as
 * one tree: the caller walks the top level with sl_yp_map_key() and loads
 * only small subtrees (one interval, the machine's pstates list) with
 * sl_yp_load() into an arena that it resets between them.  Every node keeps
 * its line so that errors name file, line and key.
 *
 * Writing wraps libyaml's emitter and an atomic output file.
 */
#ifndef SLEUTH_YAMLIO_H
#define SLEUTH_YAMLIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <yaml.h>

#include "sleuth/common.h"

typedef enum { SL_YSCALAR, SL_YSEQ, SL_YMAP } sl_ytype;

typedef struct sl_ynode {
	sl_ytype type;
	int line;              /* 1-based line of the node's start */
	int plain;             /* scalar: written without quotes */
	const char *str;       /* scalar: its text */
	struct sl_ynode **kid; /* seq: items; map: key0, val0, key1, val1, ... */
	size_t n;              /* entries in kid (a map has n/2 pairs) */
} sl_ynode;

typedef struct sl_yarena {
	struct sl_yarena_blk *head;
} sl_yarena;

typedef struct sl_yparser {
	yaml_parser_t p;
	FILE *f;
	char *path;   /* for messages */
	yaml_event_t ev;
	int have_ev;  /* ev holds a peeked, unconsumed event */
	int started;  /* stream and document start consumed */
	sl_yarena arena;
	sl_ynode **stack;
	size_t sp, cap;
	char *key;    /* last key returned by sl_yp_map_key */
	int key_line;
} sl_yparser;

/* Open a file (or an in-memory buffer named `name` for messages). */
int sl_yp_open(sl_yparser *yp, const char *path);
int sl_yp_open_mem(sl_yparser *yp, const char *name, const char *buf, size_t len);
void sl_yp_close(sl_yparser *yp);

/* Line of the next event (1-based), for messages. */
int sl_yp_line(sl_yparser *yp);

/* Expect the document's top-level mapping and enter it. */
int sl_yp_begin_document_map(sl_yparser *yp);
/* Enter a mapping / sequence that is the next node. */
int sl_yp_begin_map(sl_yparser *yp, const char *what);
int sl_yp_begin_seq(sl_yparser *yp, const char *what);
/* Next key of the current mapping: 1 with *key set (valid until the next
 * call), 0 at the end of the mapping (consumed), -1 on error. */
int sl_yp_map_key(sl_yparser *yp, const char **key, int *line);
/* In a sequence: 1 if another item follows, 0 at its end (consumed). */
int sl_yp_seq_more(sl_yparser *yp);
/* Load the next node (and everything under it) into the arena. */
int sl_yp_load(sl_yparser *yp, sl_ynode **out);
/* Skip the next node. */
int sl_yp_skip(sl_yparser *yp);
/* Free everything sl_yp_load() returned so far. */
void sl_yp_reset(sl_yparser *yp);
/* After the top-level mapping ends: no second document may follow. */
int sl_yp_end_document(sl_yparser *yp);

/* Load a whole (small) file as one tree: convenience for config files. */
int sl_yp_load_document(sl_yparser *yp, sl_ynode **root);

/* Tree access.  Errors name yp->path, the node's line and `key`. */
const sl_ynode *sl_ymap_get(const sl_ynode *map, const char *key);
int sl_yexpect(sl_yparser *yp, const sl_ynode *n, sl_ytype t, const char *key);
int sl_yget_str(sl_yparser *yp, const sl_ynode *n, const char *key, const char **out);
int sl_yget_u64(sl_yparser *yp, const sl_ynode *n, const char *key, uint64_t *out);
int sl_yget_int(sl_yparser *yp, const sl_ynode *n, const char *key, int64_t *out);
int sl_yget_double(sl_yparser *yp, const sl_ynode *n, const char *key, double *out);
/* Required member of a map: error "missing required key" if absent. */
const sl_ynode *sl_yreq(sl_yparser *yp, const sl_ynode *map, const char *key,
			const char *where);
/* Set sl_error() to "PATH:LINE: key 'KEY': MSG". Returns -1. */
int sl_yerr(sl_yparser *yp, int line, const char *key, const char *fmt, ...)
	SL_PRINTF(4, 5);
/* Warn about each key of `map` not in the NULL-terminated `known`. */
void sl_ywarn_unknown(sl_yparser *yp, const sl_ynode *map, const char *const *known);

/* ---- writing ---------------------------------------------------------- */

typedef struct sl_ywriter {
	yaml_emitter_t em;
	sl_afile af;
	int err;
	int open;
} sl_ywriter;

/* `comment` (may be NULL) is written as '#' lines before the document. */
int sl_yw_open(sl_ywriter *w, const char *path, const char *comment);
int sl_yw_commit(sl_ywriter *w); /* finishes the document and renames */
/* The rest of the document is the caller's to print: the emitter's output
 * is flushed and the emitter ended; print into the returned file (NULL on a
 * write error, with sl_error()), then sl_afile_commit(&w->af) or
 * sl_yw_abort(w).  *column: where the emitter left the last line. */
FILE *sl_yw_detach(sl_ywriter *w, int *column);
/* s may be written as a plain scalar and reads back as the same string
 * (letters, digits, _ . -, not a number, bool or null). */
int sl_yw_plain_ok(const char *s);
void sl_yw_abort(sl_ywriter *w);

void sl_yw_map(sl_ywriter *w, int flow);
void sl_yw_seq(sl_ywriter *w, int flow);
void sl_yw_end_map(sl_ywriter *w);
void sl_yw_end_seq(sl_ywriter *w);
void sl_yw_str(sl_ywriter *w, const char *s);   /* quoted if needed */
void sl_yw_plain(sl_ywriter *w, const char *s); /* a number or keyword */
void sl_yw_u64(sl_ywriter *w, uint64_t v);
void sl_yw_hex(sl_ywriter *w, uint64_t v);
void sl_yw_double(sl_ywriter *w, double v);     /* shortest round-trip */
void sl_yw_fixed(sl_ywriter *w, double v, int decimals);
/* key: value shorthands */
void sl_yw_kstr(sl_ywriter *w, const char *k, const char *v);
void sl_yw_ku64(sl_ywriter *w, const char *k, uint64_t v);
void sl_yw_kdouble(sl_ywriter *w, const char *k, double v);

#endif
