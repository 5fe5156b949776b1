/*
 * libyaml event stream -> small arena-allocated subtrees, with line numbers,
 * and a thin emitter wrapper.  See formats/yamlio.h for why it is shaped so.
 */
#include "formats/yamlio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- arena ------------------------------------------------------------ */

struct sl_yarena_blk {
	struct sl_yarena_blk *next;
	size_t used, size;
	max_align_t data[];
};

static void *arena_alloc(sl_yarena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	struct sl_yarena_blk *b = a->head;
	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 ? n : 65536;
		b = sl_xmalloc(sizeof *b + size);
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	return p;
}

/* Keep the first (largest-lifetime) block for reuse, free the others. */
static void arena_reset(sl_yarena *a)
{
	struct sl_yarena_blk *b = a->head, *keep = NULL;
	while (b) {
		struct sl_yarena_blk *next = b->next;
		if (!keep && b->size == 65536) {
			keep = b;
			keep->used = 0;
			keep->next = NULL;
		} else {
			free(b);
		}
		b = next;
	}
	a->head = keep;
}

static void arena_free(sl_yarena *a)
{
	struct sl_yarena_blk *b = a->head;
	while (b) {
		struct sl_yarena_blk *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

/* ---- parser ----------------------------------------------------------- */

int sl_yerr(sl_yparser *yp, int line, const char *key, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (key)
		sl_error_set("%s:%d: key '%s': %s", yp->path, line, key, msg);
	else
		sl_error_set("%s:%d: %s", yp->path, line, msg);
	return -1;
}

static int yp_init(sl_yparser *yp, const char *name)
{
	memset(yp, 0, sizeof *yp);
	if (!yaml_parser_initialize(&yp->p)) {
		sl_error_set("%s: cannot initialise the YAML parser", name);
		return -1;
	}
	yp->path = sl_xstrdup(name);
	return 0;
}

int sl_yp_open(sl_yparser *yp, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		sl_error_set("cannot open %s: %s", path, strerror(errno));
		memset(yp, 0, sizeof *yp);
		return -1;
	}
	if (yp_init(yp, path) < 0) {
		fclose(f);
		return -1;
	}
	sl_input_note(f);
	yp->f = f;
	yaml_parser_set_input_file(&yp->p, f);
	return 0;
}

int sl_yp_open_mem(sl_yparser *yp, const char *name, const char *buf, size_t len)
{
	if (yp_init(yp, name) < 0)
		return -1;
	yaml_parser_set_input_string(&yp->p, (const unsigned char *)buf, len);
	return 0;
}

void sl_yp_close(sl_yparser *yp)
{
	if (!yp->path)
		return;
	if (yp->have_ev)
		yaml_event_delete(&yp->ev);
	yaml_parser_delete(&yp->p);
	if (yp->f)
		fclose(yp->f);
	arena_free(&yp->arena);
	free(yp->stack);
	free(yp->key);
	free(yp->path);
	memset(yp, 0, sizeof *yp);
}

/* Make sure yp->ev holds the next event. */
static int peek(sl_yparser *yp)
{
	if (yp->have_ev)
		return 0;
	/* After an error libyaml returns empty events: report the error again
	 * (a peek may have met it before the reader's own call). */
	if (yp->p.error != YAML_NO_ERROR || !yaml_parser_parse(&yp->p, &yp->ev)) {
		const char *prob = yp->p.problem ? yp->p.problem : "malformed YAML";
		int line = (int)yp->p.problem_mark.line + 1;
		if (yp->p.error == YAML_READER_ERROR && yp->f && ferror(yp->f))
			sl_error_set("%s: read error: %s", yp->path, strerror(errno));
		else if (yp->p.context)
			sl_error_set("%s:%d: not valid YAML: %s %s", yp->path, line,
				     prob, yp->p.context);
		else
			sl_error_set("%s:%d: not valid YAML: %s", yp->path, line, prob);
		return -1;
	}
	yp->have_ev = 1;
	return 0;
}

static void consume(sl_yparser *yp)
{
	yaml_event_delete(&yp->ev);
	yp->have_ev = 0;
}

int sl_yp_line(sl_yparser *yp)
{
	if (peek(yp) < 0)
		return (int)yp->p.problem_mark.line + 1;
	return (int)yp->ev.start_mark.line + 1;
}

static const char *ev_name(yaml_event_type_t t)
{
	switch (t) {
	case YAML_SCALAR_EVENT: return "a scalar";
	case YAML_SEQUENCE_START_EVENT: return "a sequence";
	case YAML_MAPPING_START_EVENT: return "a mapping";
	case YAML_ALIAS_EVENT: return "an alias";
	case YAML_STREAM_END_EVENT: return "the end of the file";
	default: return "something else";
	}
}

static int start_document(sl_yparser *yp)
{
	if (yp->started)
		return 0;
	for (;;) {
		if (peek(yp) < 0)
			return -1;
		yaml_event_type_t t = yp->ev.type;
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
			consume(yp);
			if (t == YAML_DOCUMENT_START_EVENT)
				break;
			continue;
		}
		if (t == YAML_STREAM_END_EVENT) {
			sl_error_set("%s: the file is empty", yp->path);
			return -1;
		}
		break;
	}
	yp->started = 1;
	return 0;
}

static int expect_start(sl_yparser *yp, yaml_event_type_t want, const char *what)
{
	if (start_document(yp) < 0 || peek(yp) < 0)
		return -1;
	if (yp->ev.type != want) {
		int line = (int)yp->ev.start_mark.line + 1;
		const char *w = want == YAML_MAPPING_START_EVENT ? "a mapping" : "a sequence";
		if (what)
			return sl_yerr(yp, line, what, "expected %s, found %s", w,
				       ev_name(yp->ev.type));
		return sl_yerr(yp, line, NULL, "expected %s, found %s", w,
			       ev_name(yp->ev.type));
	}
	consume(yp);
	return 0;
}

int sl_yp_begin_document_map(sl_yparser *yp)
{
	if (start_document(yp) < 0 || peek(yp) < 0)
		return -1;
	if (yp->ev.type != YAML_MAPPING_START_EVENT)
		return sl_yerr(yp, (int)yp->ev.start_mark.line + 1, NULL,
			       "the document must be a mapping of keys, found %s",
			       ev_name(yp->ev.type));
	consume(yp);
	return 0;
}

int sl_yp_begin_map(sl_yparser *yp, const char *what)
{
	return expect_start(yp, YAML_MAPPING_START_EVENT, what);
}

int sl_yp_begin_seq(sl_yparser *yp, const char *what)
{
	return expect_start(yp, YAML_SEQUENCE_START_EVENT, what);
}

int sl_yp_map_key(sl_yparser *yp, const char **key, int *line)
{
	if (peek(yp) < 0)
		return -1;
	if (yp->ev.type == YAML_MAPPING_END_EVENT) {
		consume(yp);
		return 0;
	}
	int l = (int)yp->ev.start_mark.line + 1;
	if (yp->ev.type != YAML_SCALAR_EVENT)
		return sl_yerr(yp, l, NULL, "expected a key, found %s",
			       ev_name(yp->ev.type));
	free(yp->key);
	yp->key = sl_xstrdup((const char *)yp->ev.data.scalar.value);
	yp->key_line = l;
	consume(yp);
	*key = yp->key;
	if (line)
		*line = l;
	return 1;
}

int sl_yp_seq_more(sl_yparser *yp)
{
	if (peek(yp) < 0)
		return -1;
	if (yp->ev.type == YAML_SEQUENCE_END_EVENT) {
		consume(yp);
		return 0;
	}
	return 1;
}

static void push(sl_yparser *yp, sl_ynode *n)
{
	SL_GROW(yp->stack, yp->sp, yp->cap);
	yp->stack[yp->sp++] = n;
}

typedef struct keyref {
	const sl_ynode *key;
	size_t i; /* its place in the mapping */
} keyref;

static int cmp_key(const void *a, const void *b)
{
	const keyref *x = a, *y = b;
	int c = strcmp(x->key->str, y->key->str);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * Keys must be scalars and distinct.  Sorting finds duplicates in n log n
 * (a file of 50,000 keys took 8 s pairwise); the one reported is the
 * first, in file order, to repeat an earlier key, as the pairwise scan of
 * small mappings does.
 */
static int check_keys(sl_yparser *yp, const sl_ynode *map)
{
	size_t nk = map->n / 2, dup = SIZE_MAX;
	for (size_t i = 0; i < map->n; i += 2)
		if (map->kid[i]->type != SL_YSCALAR)
			return sl_yerr(yp, map->kid[i]->line, NULL,
				       "mapping keys must be scalars");
	if (nk <= 8) { /* the usual small mapping: no allocation */
		for (size_t i = 1; i < nk && dup == SIZE_MAX; i++)
			for (size_t j = 0; j < i; j++)
				if (!strcmp(map->kid[2 * i]->str, map->kid[2 * j]->str))
					dup = i;
		goto out;
	}
	keyref *k = sl_xmalloc(nk * sizeof *k);
	for (size_t i = 0; i < nk; i++)
		k[i] = (keyref){map->kid[2 * i], i};
	qsort(k, nk, sizeof *k, cmp_key);
	for (size_t i = 1; i < nk; i++)
		if (k[i].i < dup && !strcmp(k[i].key->str, k[i - 1].key->str))
			dup = k[i].i;
	free(k);
out:
	if (dup != SIZE_MAX) {
		const sl_ynode *d = map->kid[2 * dup];
		return sl_yerr(yp, d->line, d->str, "duplicate key");
	}
	return 0;
}

/* Recursive descent over events; children are gathered on yp->stack and
 * copied into the arena when their container ends (no per-node malloc). */
static int load(sl_yparser *yp, sl_ynode **out, int depth)
{
	if (depth > 64) {
		return sl_yerr(yp, sl_yp_line(yp), NULL, "nesting deeper than 64 levels");
	}
	if (start_document(yp) < 0 || peek(yp) < 0)
		return -1;
	sl_ynode *n = arena_alloc(&yp->arena, sizeof *n);
	memset(n, 0, sizeof *n);
	n->line = (int)yp->ev.start_mark.line + 1;
	switch (yp->ev.type) {
	case YAML_SCALAR_EVENT: {
		size_t len = yp->ev.data.scalar.length;
		char *s = arena_alloc(&yp->arena, len + 1);
		memcpy(s, yp->ev.data.scalar.value, len);
		s[len] = 0;
		n->type = SL_YSCALAR;
		n->str = s;
		n->plain = yp->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		consume(yp);
		break;
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		int is_map = yp->ev.type == YAML_MAPPING_START_EVENT;
		yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
		size_t base = yp->sp;
		n->type = is_map ? SL_YMAP : SL_YSEQ;
		consume(yp);
		for (;;) {
			if (peek(yp) < 0)
				return -1;
			if (yp->ev.type == end) {
				consume(yp);
				break;
			}
			sl_ynode *kid = NULL;
			if (load(yp, &kid, depth + 1) < 0)
				return -1;
			push(yp, kid);
		}
		n->n = yp->sp - base;
		n->kid = arena_alloc(&yp->arena, n->n * sizeof *n->kid);
		if (n->n) /* an empty {} or [] has no stack to copy from */
			memcpy(n->kid, yp->stack + base, n->n * sizeof *n->kid);
		yp->sp = base;
		if (is_map && check_keys(yp, n) < 0)
			return -1;
		break;
	}
	case YAML_ALIAS_EVENT:
		return sl_yerr(yp, n->line, NULL,
			       "aliases (*name) are not supported; write the value out");
	default:
		return sl_yerr(yp, n->line, NULL, "expected a value, found %s",
			       ev_name(yp->ev.type));
	}
	*out = n;
	return 0;
}

int sl_yp_load(sl_yparser *yp, sl_ynode **out)
{
	yp->sp = 0;
	return load(yp, out, 0);
}

int sl_yp_skip(sl_yparser *yp)
{
	int depth = 0;
	if (start_document(yp) < 0)
		return -1;
	do {
		if (peek(yp) < 0)
			return -1;
		switch (yp->ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
		case YAML_ALIAS_EVENT:
			break;
		default:
			return sl_yerr(yp, sl_yp_line(yp), NULL, "unexpected %s",
				       ev_name(yp->ev.type));
		}
		consume(yp);
	} while (depth > 0);
	return 0;
}

void sl_yp_reset(sl_yparser *yp)
{
	arena_reset(&yp->arena);
}

int sl_yp_end_document(sl_yparser *yp)
{
	for (;;) {
		if (peek(yp) < 0)
			return -1;
		switch (yp->ev.type) {
		case YAML_DOCUMENT_END_EVENT:
			consume(yp);
			continue;
		case YAML_STREAM_END_EVENT:
			return 0;
		default:
			return sl_yerr(yp, sl_yp_line(yp), NULL,
				       "a second YAML document follows the first; "
				       "a file holds exactly one");
		}
	}
}

int sl_yp_load_document(sl_yparser *yp, sl_ynode **root)
{
	if (start_document(yp) < 0 || peek(yp) < 0)
		return -1;
	if (yp->ev.type != YAML_MAPPING_START_EVENT)
		return sl_yerr(yp, sl_yp_line(yp), NULL,
			       "the document must be a mapping of keys, found %s",
			       ev_name(yp->ev.type));
	if (sl_yp_load(yp, root) < 0)
		return -1;
	return sl_yp_end_document(yp);
}

/* ---- tree access -------------------------------------------------------- */

const sl_ynode *sl_ymap_get(const sl_ynode *map, const char *key)
{
	if (!map || map->type != SL_YMAP)
		return NULL;
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (!strcmp(map->kid[i]->str, key))
			return map->kid[i + 1];
	return NULL;
}

static const char *type_name(sl_ytype t)
{
	return t == SL_YSCALAR ? "a scalar" : t == SL_YSEQ ? "a sequence" : "a mapping";
}

int sl_yexpect(sl_yparser *yp, const sl_ynode *n, sl_ytype t, const char *key)
{
	if (n->type != t)
		return sl_yerr(yp, n->line, key, "expected %s, found %s",
			       type_name(t), type_name(n->type));
	return 0;
}

static int is_null(const sl_ynode *n)
{
	return n->plain && (!n->str[0] || !strcmp(n->str, "~") ||
			    !strcmp(n->str, "null") || !strcmp(n->str, "Null") ||
			    !strcmp(n->str, "NULL"));
}

int sl_yget_str(sl_yparser *yp, const sl_ynode *n, const char *key, const char **out)
{
	if (sl_yexpect(yp, n, SL_YSCALAR, key) < 0)
		return -1;
	if (is_null(n))
		return sl_yerr(yp, n->line, key, "expected a string, found null");
	*out = n->str;
	return 0;
}

static int number_node(sl_yparser *yp, const sl_ynode *n, const char *key,
		       const char *what)
{
	if (sl_yexpect(yp, n, SL_YSCALAR, key) < 0)
		return -1;
	if (!n->plain)
		return sl_yerr(yp, n->line, key, "expected %s, found the quoted string \"%s\"",
			       what, n->str);
	return 0;
}

int sl_yget_u64(sl_yparser *yp, const sl_ynode *n, const char *key, uint64_t *out)
{
	if (number_node(yp, n, key, "a non-negative integer") < 0)
		return -1;
	if (n->str[0] == '-' && n->str[1])
		return sl_yerr(yp, n->line, key, "expected a non-negative count, found %s",
			       n->str);
	if (sl_parse_u64(n->str, out) < 0)
		return sl_yerr(yp, n->line, key, "expected a non-negative integer, found '%s'",
			       n->str);
	return 0;
}

int sl_yget_int(sl_yparser *yp, const sl_ynode *n, const char *key, int64_t *out)
{
	uint64_t v;
	int neg = 0;
	const char *s;
	if (number_node(yp, n, key, "an integer") < 0)
		return -1;
	s = n->str;
	if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
	}
	if (sl_parse_u64(s, &v) < 0 || v > (uint64_t)INT64_MAX)
		return sl_yerr(yp, n->line, key, "expected an integer, found '%s'", n->str);
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int sl_yget_double(sl_yparser *yp, const sl_ynode *n, const char *key, double *out)
{
	if (number_node(yp, n, key, "a number") < 0)
		return -1;
	const char *s = n->str;
	const char *t = s + (*s == '-' || *s == '+');
	if (!strcasecmp(t, ".nan") || !strcasecmp(t, "nan"))
		return sl_yerr(yp, n->line, key, "NaN is not allowed");
	if (!strcasecmp(t, ".inf") || !strcasecmp(t, "inf"))
		return sl_yerr(yp, n->line, key, "an infinite value is not allowed");
	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		uint64_t v;
		if (sl_parse_u64(t, &v) < 0)
			return sl_yerr(yp, n->line, key, "expected a number, found '%s'", s);
		*out = *s == '-' ? -(double)v : (double)v;
		return 0;
	}
	if (sl_parse_double(s, out) < 0)
		return sl_yerr(yp, n->line, key, "expected a number, found '%s'", s);
	return 0;
}

const sl_ynode *sl_yreq(sl_yparser *yp, const sl_ynode *map, const char *key,
			const char *where)
{
	const sl_ynode *v = sl_ymap_get(map, key);
	if (!v) {
		if (where)
			sl_yerr(yp, map->line, key, "missing required key in %s", where);
		else
			sl_yerr(yp, map->line, key, "missing required key");
	}
	return v;
}

void sl_ywarn_unknown(sl_yparser *yp, const sl_ynode *map, const char *const *known)
{
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const char *k = map->kid[i]->str;
		size_t j;
		for (j = 0; known[j]; j++)
			if (!strcmp(known[j], k))
				break;
		if (!known[j])
			sl_warn("%s:%d: unknown key '%s' ignored", yp->path,
				map->kid[i]->line, k);
	}
}

/* ---- writer ------------------------------------------------------------- */

static void emit(sl_ywriter *w, yaml_event_t *ev)
{
	if (w->err) {
		yaml_event_delete(ev);
		return;
	}
	if (!yaml_emitter_emit(&w->em, ev)) {
		/* A failed write (a full disk) leaves its cause in errno; libyaml's
		 * own problem text says only "write error". */
		int e = errno;
		w->err = 1;
		sl_error_set("cannot write %s: %s",
			     w->af.path ? w->af.path : "standard output",
			     w->em.error == YAML_WRITER_ERROR || !w->em.problem
				     ? strerror(e ? e : EIO) : w->em.problem);
	}
}

int sl_yw_open(sl_ywriter *w, const char *path, const char *comment)
{
	yaml_event_t ev;
	memset(w, 0, sizeof *w);
	if (!sl_afile_open(&w->af, path))
		return -1;
	if (comment) {
		const char *p = comment;
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			fprintf(w->af.f, "# %.*s\n", (int)len, p);
			p += len + (nl != NULL);
		}
	}
	yaml_emitter_initialize(&w->em);
	yaml_emitter_set_output_file(&w->em, w->af.f);
	yaml_emitter_set_unicode(&w->em, 1);
	yaml_emitter_set_width(&w->em, 100);
	w->open = 1;
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit(w, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit(w, &ev);
	if (w->err) {
		sl_yw_abort(w);
		return -1;
	}
	return 0;
}

/* Flush the emitter's output (a failure named by errno) and end it. */
static void end_emitter(sl_ywriter *w)
{
	if (!w->err && !yaml_emitter_flush(&w->em)) {
		int e = errno;
		w->err = 1;
		sl_error_set("cannot write %s: %s",
			     w->af.path ? w->af.path : "standard output",
			     strerror(e ? e : EIO));
	}
	yaml_emitter_delete(&w->em);
	w->open = 0;
}

int sl_yw_commit(sl_ywriter *w)
{
	yaml_event_t ev;
	yaml_document_end_event_initialize(&ev, 1);
	emit(w, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit(w, &ev);
	end_emitter(w);
	if (w->err) {
		sl_afile_abort(&w->af);
		return -1;
	}
	return sl_afile_commit(&w->af);
}

FILE *sl_yw_detach(sl_ywriter *w, int *column)
{
	*column = w->em.column; /* flushing does not move it */
	end_emitter(w);
	return w->err ? NULL : w->af.f;
}

void sl_yw_abort(sl_ywriter *w)
{
	if (w->open)
		yaml_emitter_delete(&w->em);
	w->open = 0;
	sl_afile_abort(&w->af);
}

void sl_yw_map(sl_ywriter *w, int flow)
{
	yaml_event_t ev;
	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	emit(w, &ev);
}

void sl_yw_seq(sl_ywriter *w, int flow)
{
	yaml_event_t ev;
	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	emit(w, &ev);
}

void sl_yw_end_map(sl_ywriter *w)
{
	yaml_event_t ev;
	yaml_mapping_end_event_initialize(&ev);
	emit(w, &ev);
}

void sl_yw_end_seq(sl_ywriter *w)
{
	yaml_event_t ev;
	yaml_sequence_end_event_initialize(&ev);
	emit(w, &ev);
}

static void scalar_len(sl_ywriter *w, const char *s, size_t len,
		       yaml_scalar_style_t style)
{
	yaml_event_t ev;
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)len, 1, 1,
				     style);
	emit(w, &ev);
}

static void scalar(sl_ywriter *w, const char *s, yaml_scalar_style_t style)
{
	scalar_len(w, s, strlen(s), style);
}

/* A string that a YAML 1.1 reader would take for a number, bool or null
 * must be quoted to stay a string. */
static int needs_quotes(const char *s)
{
	static const char *const words[] = {"y", "n", "yes", "no", "true", "false",
		"on", "off", "null", "~", NULL};
	double d;
	uint64_t u;
	if (!*s)
		return 1;
	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	const char *t = s + (*s == '-' || *s == '+');
	return sl_parse_u64(t, &u) == 0 || sl_parse_double(s, &d) == 0 ||
	       !strcasecmp(t, ".nan") || !strcasecmp(t, ".inf");
}

int sl_yw_plain_ok(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return 0;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-'))
			return 0;
	return !needs_quotes(s);
}

void sl_yw_str(sl_ywriter *w, const char *s)
{
	if (w->err) /* needs_quotes would overwrite the write error's message */
		return;
	scalar(w, s ? s : "", needs_quotes(s ? s : "") ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
						      : YAML_ANY_SCALAR_STYLE);
}

void sl_yw_plain(sl_ywriter *w, const char *s)
{
	scalar(w, s, YAML_PLAIN_SCALAR_STYLE);
}

/* Integers are most of a trace's text (two per branch, 40M per 100k-interval
 * trace) and snprintf() was a third of the writer's time: convert by hand,
 * with constant divisors, and hand the emitter the length. */
void sl_yw_u64(sl_ywriter *w, uint64_t v)
{
	char b[24], *p = b + sizeof b;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	scalar_len(w, p, (size_t)(b + sizeof b - p), YAML_PLAIN_SCALAR_STYLE);
}

void sl_yw_hex(sl_ywriter *w, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char b[24], *p = b + sizeof b;
	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	scalar_len(w, p, (size_t)(b + sizeof b - p), YAML_PLAIN_SCALAR_STYLE);
}

void sl_yw_double(sl_ywriter *w, double v)
{
	char b[40];
	sl_fmt_double(b, sizeof b, v);
	sl_yw_plain(w, b);
}

void sl_yw_fixed(sl_ywriter *w, double v, int decimals)
{
	char b[64];
	snprintf(b, sizeof b, "%.*f", decimals, v);
	sl_yw_plain(w, b);
}

void sl_yw_kstr(sl_ywriter *w, const char *k, const char *v)
{
	sl_yw_plain(w, k);
	sl_yw_str(w, v);
}

void sl_yw_ku64(sl_ywriter *w, const char *k, uint64_t v)
{
	sl_yw_plain(w, k);
	sl_yw_u64(w, v);
}

void sl_yw_kdouble(sl_ywriter *w, const char *k, double v)
{
	sl_yw_plain(w, k);
	sl_yw_double(w, v);
}
