/* Unit tests of symbolisation (collect/symbols.c) against this very
 * process: its own functions with file:line, a libc function, a library
 * without debug info, and addresses that must stay unknown. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sleuth/common.h"
#include "collect/symbols.h"

int symtest_nodebug(int x);
int symtest_exported(int x);
void *symtest_hidden_addr(void);
void *symtest_cxx_addr(void);
void *sym_where(void);
void *sym_target(void);
void *sym_inl_outer(void);

static int call_line;

/* gcc may clone a function (foo.constprop.0); clang has no such attribute */
#if defined(__clang__)
#define NOCLONE noinline
#else
#define NOCLONE noinline, noclone
#endif

/* Its caller's return address: a code address on a known line. */
__attribute__((NOCLONE)) void *sym_where(void)
{
	return __builtin_return_address(0);
}

enum { TARGET_LINE = __LINE__ + 1 };
__attribute__((NOCLONE)) void *sym_target(void)
{
	void *ra = sym_where(); call_line = __LINE__;
	return ra;
}

/* Code the compiler inlines: the call in its body sits in an inlined
 * subroutine of sym_inl_outer's DWARF. */
static volatile int inl_calls;

enum { INL_BODY_LINE = __LINE__ + 3 };
static inline __attribute__((always_inline)) void *sym_inl_body(void)
{
	void *ra = sym_where();
	inl_calls++; /* work after the call: no tail call out of the body */
	return ra;
}

/* noclone keeps GCC from cloning the function under another symbol; clang
 * does not clone and does not know the attribute. */
#ifdef __clang__
#define SYM_NOCLONE
#else
#define SYM_NOCLONE __attribute__((noclone))
#endif
__attribute__((noinline)) SYM_NOCLONE void *sym_inl_outer(void)
{
	void *ra = sym_inl_body();
	return ra;
}

/* The executable file mappings of this process, from /proc/self/maps. */
static sl_mapping *self_maps(size_t *n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	sl_mapping *m = NULL;
	size_t cap = 0;
	*n = 0;
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms,
			   &off, &pos) < 4 || perms[2] != 'x' || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		SL_GROW(m, *n, cap);
		m[(*n)++] = (sl_mapping){s, e, off, sl_xstrdup(line + pos)};
	}
	fclose(f);
	return m;
}

static void free_maps(sl_mapping *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

/* The fixture: this process's mappings and a symbolizer over them. */
typedef struct self {
	sl_mapping *maps;
	size_t n;
	sl_symbolizer *s;
} self;

static int self_setup(void **state)
{
	self *f = sl_xcalloc(1, sizeof *f);
	f->maps = self_maps(&f->n);
	f->s = sl_sym_new(f->maps, f->n);
	*state = f;
	return f->s ? 0 : -1;
}

static int self_teardown(void **state)
{
	self *f = *state;
	sl_sym_free(f->s);
	free_maps(f->maps, f->n);
	free(f);
	return 0;
}

/* addr must resolve to function `want`; its file and line go to *file,
 * *line. */
static void expect_func(sl_symbolizer *s, uintptr_t addr, const char *want,
			const char **file, int *line)
{
	const char *func;
	assert_int_equal(sl_sym_lookup(s, addr, &func, file, line), 0);
	assert_string_equal(func, want);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void test_own_function_and_line(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	const char *file;
	int line;

	expect_func(s, (uintptr_t)sym_target, "sym_target", &file, &line);
	assert_non_null(file);
	assert_string_equal(base(file), "test_symbols.c");
	assert_in_range(line, TARGET_LINE, TARGET_LINE + 2);

	/* Inside the function: the call instruction before the return
	 * address sits on the line of the call. */
	uintptr_t ra = (uintptr_t)sym_target();
	expect_func(s, ra - 1, "sym_target", &file, &line);
	assert_string_equal(base(file), "test_symbols.c");
	assert_int_equal(line, call_line);

	expect_func(s, (uintptr_t)sym_where, "sym_where", &file, &line);
}

/* The address of sym in an already loaded library (not a PLT stub of the
 * executable, which a non-PIE build hands out for &function). */
static uintptr_t lib_addr(const char *lib, const char *sym)
{
	void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
	assert_non_null(h);
	void *p = dlsym(h, sym);
	assert_non_null(p);
	dlclose(h);
	return (uintptr_t)p;
}

/* A mapping that begins inside a segment (the kernel splits mappings, and
 * MMAP2 records can start mid-file): the bias must account for pgoff. */
static void test_mapping_inside_segment(void **state)
{
	sl_mapping *maps = ((self *)*state)->maps;
	size_t n = ((self *)*state)->n;
	char *exe = realpath("/proc/self/exe", NULL);
	assert_non_null(exe);
	size_t i = 0;
	while (i < n && strcmp(maps[i].path, exe) != 0)
		i++;
	assert_true(i < n);
	free(exe);
	if (maps[i].end - maps[i].start < 0x2000)
		skip();
	sl_mapping m = maps[i];
	m.start += 0x1000;
	m.pgoff += 0x1000;
	sl_symbolizer *s = sl_sym_new(&m, 1);
	const char *file;
	int line;
	expect_func(s, (uintptr_t)sym_target, "sym_target", &file, &line);
	sl_sym_free(s);
}

static void test_shared_libraries(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	const char *func, *file;
	int line;

	/* libc, at the address the dynamic linker resolved. */
	assert_int_equal(sl_sym_lookup(s, lib_addr("libc.so.6", "getpid"), &func,
				       &file, &line), 0);
	assert_non_null(strstr(func, "getpid"));

	/* A library without debug info: named from its symbol table, no
	 * line. */
	assert_int_equal(symtest_nodebug(1), 4);
	expect_func(s, lib_addr("libsymtest-nodebug.so", "symtest_nodebug"),
		    "symtest_nodebug (libsymtest-nodebug.so)", &file, &line);
	assert_null(file);
	assert_int_equal(line, 0);
	assert_int_equal(sl_sym_lookup(s, lib_addr("libc.so.6", "getpid"), &func,
				       &file, &line), 0);
	assert_non_null(strstr(func, " (libc.so.6)"));
}

/* A library stripped to .dynsym: its exported function named from there,
 * a static one as library+offset (the offset objdump shows of its entry,
 * for every address in it). */
static void test_stripped_library(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	const char *func, *file;
	int line;
	assert_int_equal(symtest_exported(1), 8);
	expect_func(s, lib_addr("libsymtest-stripped.so", "symtest_exported"),
		    "symtest_exported (libsymtest-stripped.so)", &file, &line);
	uintptr_t hidden = (uintptr_t)symtest_hidden_addr();
	Dl_info di;
	assert_int_not_equal(dladdr((void *)hidden, &di), 0);
	char want[128];
	snprintf(want, sizeof want, "libsymtest-stripped.so+0x%" PRIxPTR,
		 hidden - (uintptr_t)di.dli_fbase);
	assert_int_equal(sl_sym_lookup(s, hidden, &func, &file, &line), 0);
	assert_string_equal(func, want);
	assert_null(file);
	/* an address inside it: the same function (its entry, from .eh_frame) */
	assert_int_equal(sl_sym_lookup(s, hidden + 2, &func, &file, &line), 0);
	assert_string_equal(func, want);
}

/* Rust names demangled, v0 and legacy (hash dropped). */
static void test_rust_demangled(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	const char *file;
	int line;
	expect_func(s, lib_addr("libsymtest-stripped.so", "_RNvCs1234_7mycrate3foo"),
		    "mycrate::foo (libsymtest-stripped.so)", &file, &line);
	expect_func(s, lib_addr("libsymtest-stripped.so", "_ZN7mycrate3bar17h0123456789abcdefE"),
		    "mycrate::bar (libsymtest-stripped.so)", &file, &line);
}

/* C++ names demangled, with namespace, class and parameters. */
static void test_cxx_demangled(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	const char *file;
	int line;
	expect_func(s, (uintptr_t)symtest_cxx_addr(),
		    "sl_test::Widget::spin(int) (libsymtest-cxx.so)", &file, &line);
	assert_non_null(file);
	assert_string_equal(base(file), "symtest_cxx.cc");
}

/* A stripped library (soname libsymtest-split-full.so, the file it was
 * stripped from) whose debug information is in a separate file,
 * found by build-id under SLEUTH_DEBUGINFO_PATH: its static function is
 * named, with the library and its source line; without that path, only
 * library+offset. */
static void test_split_debug(void **state)
{
	(void)state;
	void *h = dlopen(SPLIT_LIB, RTLD_NOW);
	assert_non_null(h);
	void *(*addr_of)(void) = (void *(*)(void))dlsym(h, "symtest_split_addr");
	assert_non_null(addr_of);
	uintptr_t a = (uintptr_t)addr_of();
	size_t n;
	sl_mapping *maps = self_maps(&n);
	const char *func, *file;
	int line;
	sl_symbolizer *s = sl_sym_new(maps, n);
	assert_int_equal(sl_sym_lookup(s, a, &func, &file, &line), 0);
	assert_non_null(strstr(func, "libsymtest-split-full.so+0x"));
	sl_sym_free(s);
	setenv("SLEUTH_DEBUGINFO_PATH", SPLIT_DEBUG, 1);
	s = sl_sym_new(maps, n);
	unsetenv("SLEUTH_DEBUGINFO_PATH");
	expect_func(s, a, "split_hidden (libsymtest-split-full.so)", &file, &line);
	assert_non_null(file);
	assert_string_equal(base(file), "symtest_split.c");
	sl_sym_free(s);
	free_maps(maps, n);
	dlclose(h);
}

/* An address in inlined code is named by the inlined function and the
 * one it was inlined into, with the inlined function's source line. */
static void test_inlined(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	const char *file;
	int line;
	uintptr_t ra = (uintptr_t)sym_inl_outer();
	expect_func(s, ra - 1, "sym_inl_body (inlined into sym_inl_outer)", &file, &line);
	assert_string_equal(base(file), "test_symbols.c");
	/* the line of the call inside sym_inl_body, not of sym_inl_outer */
	assert_int_equal(line, INL_BODY_LINE);
}

/* The same hot addresses turn up in many phases (a run whose intervals all
 * became phases of their own made 560 000 lookups of a few thousand libc
 * addresses, ~0.2 ms each, and sleuth run sat in symbolisation for many
 * minutes): repeated lookups must be answered from memory, with the same
 * answers. */
static void test_repeated_lookups(void **state)
{
	sl_symbolizer *s = ((self *)*state)->s;
	uintptr_t base_addr = lib_addr("libc.so.6", "strchr");
	const char *f0[50], *file;
	int line;
	for (int i = 0; i < 50; i++)
		assert_int_equal(sl_sym_lookup(s, base_addr + (uintptr_t)i, &f0[i], &file,
					       &line), 0);
	double t = sl_now();
	for (int r = 0; r < 400; r++)
		for (int i = 0; i < 50; i++) {
			const char *f;
			assert_int_equal(sl_sym_lookup(s, base_addr + (uintptr_t)i, &f, &file,
						       &line), 0);
			assert_ptr_equal(f, f0[i]);
		}
	/* 20 000 uncached lookups take over 3 s; cached, milliseconds */
	assert_true(sl_now() - t < 2.0);
	/* unknown addresses are remembered as unknown */
	const char *f;
	for (int r = 0; r < 3; r++) {
		assert_int_equal(sl_sym_lookup(s, 0x10, &f, &file, &line), -1);
		assert_null(f);
		assert_null(file);
		assert_int_equal(line, 0);
	}
}

static void test_unknown(void **state)
{
	const char *func, *file;
	int line;
	/* Files that are missing or not ELF resolve nothing, and nothing
	 * resolves outside the mappings. */
	sl_mapping bad[] = {
		{0x10000000, 0x10010000, 0, "/nonexistent/libgone.so"},
		{0x20000000, 0x20010000, 0, TEST_SRCDIR "/tests/collect/test_symbols.c"},
		{0x30000000, 0x30010000, 0, "[vdso]"},
	};
	sl_symbolizer *s = sl_sym_new(bad, SL_ARRAY_LEN(bad));
	assert_non_null(s);
	for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
		assert_int_equal(sl_sym_lookup(s, bad[i].start + 0x100, &func,
					       &file, &line), -1);
		assert_null(func);
		assert_null(file);
		assert_int_equal(line, 0);
	}
	sl_sym_free(s);

	sl_symbolizer *all = ((self *)*state)->s;
	assert_int_equal(sl_sym_lookup(all, 0x10, &func, &file, &line), -1);
	assert_int_equal(sl_sym_lookup(all, UINT64_MAX - 4096, &func, &file,
				       &line), -1);

	s = sl_sym_new(NULL, 0);
	assert_int_equal(sl_sym_lookup(s, (uintptr_t)sym_target, &func, &file,
				       &line), -1);
	sl_sym_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function_and_line),
		cmocka_unit_test(test_mapping_inside_segment),
		cmocka_unit_test(test_shared_libraries),
		cmocka_unit_test(test_stripped_library),
		cmocka_unit_test(test_cxx_demangled),
		cmocka_unit_test(test_rust_demangled),
		cmocka_unit_test(test_inlined),
		cmocka_unit_test(test_split_debug),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_repeated_lookups),
	};
	return cmocka_run_group_tests(tests, self_setup, self_teardown);
}
