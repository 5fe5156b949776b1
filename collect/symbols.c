/*
 * Address -> function, file:line for the profiled process, with libdwfl in
 * "offline" mode: each mapped file is reported as a module at the load bias
 * it had in the process, then libdwfl finds its symbol table, its DWARF (in
 * the file, or separate debug info through the standard search:
 * .gnu_debuglink, build-id under /usr/lib/debug, debuginfod when
 * DEBUGINFOD_URLS is set) and its line tables.  A libdwfl lookup costs
 * ~0.2 ms in a large library (it scans the symbol table), and the same hot
 * addresses turn up in many phases, so answers are kept per address.
 *
 * Names are given as perf gives them: every address carries its file, the
 * program's functions bare ("main"), a library's with the library
 * ("inflate (libz.so.1)"), an address without a symbol as file+offset
 * ("libz.so.1+0x1a2b", the offset as objdump and addr2line take it, of
 * the function's entry as .eh_frame_hdr lists it, so that a stripped
 * static function is one function, not one per sampled address).
 * C++ and Rust symbols are demangled with libiberty, binutils' demangler
 * (what c++filt and gdb use: Itanium C++, Rust legacy and v0, D), rather
 * than __cxa_demangle, which knows only C++ and would pull the C++ runtime
 * into a C program.  An address in code the compiler inlined is named by
 * the inlined function, from DWARF's inlined-subroutine scopes, with the
 * function it was inlined into: "square (inlined into main)".
 */
#include "collect/symbols.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locations.h"
#include "sleuth/common.h"

/* One address's answer; func NULL: unknown. */
typedef struct sym_ans {
	char *func;       /* owned */
	const char *file; /* the Dwfl's */
	int line;
} sym_ans;

/* A reported file: a library (named by its soname) or the program. */
typedef struct sym_mod {
	Dwfl_Module *mod;
	char *name; /* soname, else the file's base name */
	int is_lib;
	const unsigned char *eh; /* .eh_frame_hdr's search table (the Dwfl's) */
	size_t n_eh;
	uint64_t eh_vaddr;       /* its base: the header's file address */
} sym_mod;

struct sl_symbolizer {
	Dwfl *dwfl;
	sl_addrhist index; /* address -> 1 + its answer's index in ans */
	sym_ans *ans;
	size_t n_ans, cap_ans;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	const char **done; /* paths reported (borrowed from the mappings) */
	size_t n_done, cap_done;
	sym_mod *mods;
	size_t n_mods, cap_mods;
};

/*
 * The file's soname (malloc'd) or NULL, and whether it is a library: a
 * file with a soname, or one that is neither a fixed-address executable
 * nor a PIE with an interpreter (a dlopen'd plugin without soname).  The
 * program is an executable without soname (libc.so.6 has an interpreter
 * too, but also a soname).
 */
static char *soname_of(Elf *elf, int *is_lib)
{
	GElf_Ehdr eh;
	size_t nph;
	int interp = 0;
	char *so = NULL;
	*is_lib = 1;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
		return NULL;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			interp = 1;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_SONAME) {
				const char *n = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
				if (n && *n && !so)
					so = sl_xstrdup(n);
			}
		}
	}
	*is_lib = so || !(eh.e_type == ET_EXEC || (eh.e_type == ET_DYN && interp));
	return so;
}

/*
 * The function entries of a file as .eh_frame_hdr lists them (its sorted
 * search table of FDE initial locations, which stripping keeps for
 * unwinding): the usual encoding only, a datarel sdata4 table with a 4-byte
 * eh_frame pointer and count; any other leaves the table empty.
 */
static void eh_table(Elf *elf, sym_mod *m)
{
	size_t nph;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME ||
		    ph.p_filesz < 12)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		const unsigned char *h = d ? d->d_buf : NULL;
		/* version 1; eh_frame_ptr 4 bytes (udata4/sdata4, any base);
		 * fde_count udata4; table datarel sdata4 */
		if (!h || d->d_size < 12 || h[0] != 1 || (h[1] & 0x0f) % 8 != 3 || h[2] != 0x03 ||
		    h[3] != 0x3b)
			return;
		uint32_t n;
		memcpy(&n, h + 8, sizeof n);
		if (n > (d->d_size - 12) / 8)
			return;
		m->eh = h + 12;
		m->n_eh = n;
		m->eh_vaddr = ph.p_vaddr;
		return;
	}
}

/* The entry (file address) of the function holding file address a, from
 * the table: the last initial location at or before a; a when none. */
static uint64_t function_entry(const sym_mod *m, uint64_t a)
{
	size_t lo = 0, hi = m ? m->n_eh : 0;
	uint64_t best = a;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t rel;
		memcpy(&rel, m->eh + 8 * mid, sizeof rel);
		uint64_t start = m->eh_vaddr + (uint64_t)(int64_t)rel;
		if (start <= a)
			best = start, lo = mid + 1;
		else
			hi = mid;
	}
	return best;
}

static void add_module(sl_symbolizer *s, Dwfl_Module *mod, const char *path)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias); /* the Dwfl's */
	int is_lib = 1;
	char *so = elf ? soname_of(elf, &is_lib) : NULL;
	const char *base = strrchr(path, '/');
	SL_GROW(s->mods, s->n_mods, s->cap_mods);
	s->mods[s->n_mods++] = (sym_mod){mod, so ? so : sl_xstrdup(base ? base + 1 : path),
					 is_lib, NULL, 0, 0};
	eh_table(elf, &s->mods[s->n_mods - 1]);
}

static const sym_mod *find_module(const sl_symbolizer *s, Dwfl_Module *mod)
{
	for (size_t i = 0; i < s->n_mods; i++)
		if (s->mods[i].mod == mod)
			return &s->mods[i];
	return NULL;
}

/*
 * The load bias of the file mapped at `m`: the mapping's file offset lies
 * in one PT_LOAD segment, whose page-aligned start (offset o, vaddr v) the
 * kernel placed at m->start - (m->pgoff - o); so bias = that - v.  For a
 * non-PIE executable this is 0; for PIE and shared libraries, the address
 * the loader chose.  -1 if the file is not ELF or no segment holds pgoff.
 */
static int load_bias(int fd, const sl_mapping *m, GElf_Addr *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -1;
	size_t nph;
	int rc = -1, best_x = 0;
	if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			uint64_t off = ph.p_offset & ~(uint64_t)0xfff;
			uint64_t vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
			int x = (ph.p_flags & PF_X) != 0;
			if (m->pgoff < off || m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			/* Segments can share a page: prefer the code one. */
			if (rc == 0 && best_x >= x)
				continue;
			*bias = m->start - (m->pgoff - off) - vaddr;
			best_x = x;
			rc = 0;
		}
	}
	elf_end(elf);
	return rc;
}

/* Report the file of mapping `m` once; unreadable or odd files are left
 * out, so their addresses resolve to nothing. */
static void report(sl_symbolizer *s, const sl_mapping *m)
{
	if (!m->path || m->path[0] != '/')
		return; /* [vdso], [heap], anonymous */
	for (size_t i = 0; i < s->n_done; i++)
		if (strcmp(s->done[i], m->path) == 0)
			return; /* another mapping of a file already reported */
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	GElf_Addr bias;
	Dwfl_Module *mod;
	if (load_bias(fd, m, &bias) < 0 ||
	    !(mod = dwfl_report_elf(s->dwfl, m->path, m->path, fd, bias, true))) {
		close(fd);
		return;
	}
	add_module(s, mod, m->path); /* libdwfl owns fd now */
	SL_GROW(s->done, s->n_done, s->cap_done);
	s->done[s->n_done++] = m->path;
}

sl_symbolizer *sl_sym_new(const sl_mapping *maps, size_t n)
{
	sl_symbolizer *s = sl_xcalloc(1, sizeof *s);
	elf_version(EV_CURRENT);
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	/* more places for separate debug files, as gdb's debug-file-directory:
	 * each DIR is searched by build-id (DIR/.build-id/xx/yyyy.debug) and
	 * by .gnu_debuglink, before the default /usr/lib/debug */
	const char *more = getenv("SLEUTH_DEBUGINFO_PATH");
	if (more && *more)
		s->debuginfo_path = sl_xasprintf(":.debug:%s:/usr/lib/debug", more);
	s->cb.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->cb);
	if (!s->dwfl) {
		sl_error_set("cannot start libdwfl for symbolisation: %s",
			     dwfl_errmsg(-1));
		free(s);
		return NULL;
	}
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < n; i++)
		report(s, &maps[i]);
	dwfl_report_end(s->dwfl, NULL, NULL);
	free(s->done);
	s->done = NULL;
	return s;
}

/* A symbol as people read it: without its symbol version
 * ("clock_gettime@@GLIBC_2.17"), demangled when it is C++ or Rust
 * (malloc'd). */
static char *demangle(const char *sym)
{
	char *bare = sl_xstrdup(sym);
	bare[strcspn(bare, "@")] = 0;
	char *d = cplus_demangle(bare, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (d) {
		free(bare);
		bare = sl_xstrdup(d);
		free(d);
	}
	return bare;
}

/* The name of a function's DIE (an inlined subroutine's through its
 * abstract origin): its linkage name demangled, else its plain name. */
static char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		n = dwarf_formstring(&at);
	if (n)
		return demangle(n);
	if (dwarf_attr_integrate(die, DW_AT_name, &at) && (n = dwarf_formstring(&at)))
		return sl_xstrdup(n);
	return NULL;
}

/* The innermost function inlined at addr (malloc'd), or NULL: the DWARF
 * scopes of the address, innermost first, hold an inlined subroutine
 * when the compiler inlined code there. */
static char *inlined_at(Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	char *name = NULL;
	if (!cu)
		return NULL;
	int n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < n && !name; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break; /* reached the function itself: nothing inlined */
		if (tag == DW_TAG_inlined_subroutine)
			name = die_name(&scopes[i]);
	}
	free(scopes);
	return name;
}

static void dwfl_lookup(sl_symbolizer *s, uint64_t addr, sym_ans *a)
{
	memset(a, 0, sizeof *a);
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	if (!mod)
		return;
	const sym_mod *sm = find_module(s, mod);
	const char *lib = sm && sm->is_lib ? sm->name : NULL;
	const char *sym = dwfl_module_addrname(mod, addr);
	if (!sym) {
		/* no symbol: the file and the offset objdump would show, of the
		 * function's entry, so that its samples add up as one function */
		Dwarf_Addr bias = 0;
		dwfl_module_getelf(mod, &bias);
		a->func = sl_xasprintf("%s+0x%" PRIx64, sm ? sm->name : "?",
				       function_entry(sm, addr - bias));
		return;
	}
	char *func = demangle(sym), *in = inlined_at(mod, addr);
	if (in && strcmp(in, func))
		a->func = lib ? sl_xasprintf("%s (inlined into %s, %s)", in, func, lib)
			      : sl_xasprintf("%s (inlined into %s)", in, func);
	else
		a->func = lib ? sl_xasprintf("%s (%s)", func, lib) : sl_xstrdup(func);
	free(func);
	free(in);
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	if (l)
		a->file = dwfl_lineinfo(l, NULL, &a->line, NULL, NULL, NULL);
	if (!a->file)
		a->line = 0;
}

int sl_sym_lookup(sl_symbolizer *s, uint64_t addr, const char **func,
		  const char **file, int *line)
{
	uint64_t i = sl_addrhist_get(&s->index, addr);
	if (!i) {
		SL_GROW(s->ans, s->n_ans, s->cap_ans);
		dwfl_lookup(s, addr, &s->ans[s->n_ans]); /* strings live with the Dwfl */
		i = ++s->n_ans;
		sl_addrhist_add(&s->index, addr, i);
	}
	const sym_ans *a = &s->ans[i - 1];
	*func = a->func;
	*file = a->func ? a->file : NULL;
	*line = a->func ? a->line : 0;
	return a->func ? 0 : -1;
}

const char *sl_sym_module(sl_symbolizer *s, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	const sym_mod *sm = mod ? find_module(s, mod) : NULL;
	return sm ? sm->name : NULL;
}

void sl_sym_free(sl_symbolizer *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	sl_addrhist_free(&s->index);
	for (size_t i = 0; i < s->n_ans; i++)
		free(s->ans[i].func);
	free(s->ans);
	for (size_t i = 0; i < s->n_mods; i++)
		free(s->mods[i].name);
	free(s->mods);
	free(s->debuginfo_path);
	free(s);
}
