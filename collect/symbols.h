/*
 * Symbolisation of the profiled process's code addresses with elfutils
 * libdwfl: at the end of a run the collector maps each phase's top sampled
 * addresses to function and file:line, so the profile stays readable after
 * the binary changes or is gone.
 */
#ifndef SLEUTH_SYMBOLS_H
#define SLEUTH_SYMBOLS_H

#include <stdint.h>

#include "sleuth/backend.h"

typedef struct sl_symbolizer sl_symbolizer;

/* A symbolizer over the process's mappings (several per file are fine;
 * mappings whose file cannot be read simply resolve nothing).  NULL with
 * sl_error() set only if libdwfl cannot start. */
sl_symbolizer *sl_sym_new(const sl_mapping *maps, size_t n);
/* 0: *func set (from DWARF or the symbol table), and *file / *line when
 * line information exists (else NULL / 0); -1: unknown address (all NULL /
 * 0).  The strings belong to the symbolizer. */
int sl_sym_lookup(sl_symbolizer *s, uint64_t addr, const char **func,
		  const char **file, int *line);
/* The name of the file holding addr as code names it ("libz.so.1", the
 * program's base name), or NULL when no reported file holds it.  The
 * string belongs to the symbolizer. */
const char *sl_sym_module(sl_symbolizer *s, uint64_t addr);
void sl_sym_free(sl_symbolizer *s);

#endif
