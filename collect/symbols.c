/*
 * Address -> function, file:line for the profiled process, with libdwfl in
 * "offline" mode: each mapped file is reported as a module at the load bias
 * it had in the process, then libdwfl finds its symbol table, its DWARF (in
 * the file, or separate debug info through the standard search:
 * .gnu_debuglink, build-id under /usr/lib/debug, debuginfod when
 * DEBUGINFOD_URLS is set) and its line tables.  A libdwfl lookup costs
 * ~0.2 ms in a large library (it scans the symbol table), and the same hot
 * addresses turn up in many phases, so answers are kept per address.
 */
#include "collect/symbols.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locations.h"
#include "sleuth/common.h"

/* One address's answer; func NULL: unknown. */
typedef struct sym_ans {
	const char *func, *file;
	int line;
} sym_ans;

struct sl_symbolizer {
	Dwfl *dwfl;
	sl_addrhist index; /* address -> 1 + its answer's index in ans */
	sym_ans *ans;
	size_t n_ans, cap_ans;
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	const char **done; /* paths reported (borrowed from the mappings) */
	size_t n_done, cap_done;
};

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
	if (load_bias(fd, m, &bias) < 0 ||
	    !dwfl_report_elf(s->dwfl, m->path, m->path, fd, bias, true)) {
		close(fd);
		return;
	}
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

static void dwfl_lookup(sl_symbolizer *s, uint64_t addr, sym_ans *a)
{
	memset(a, 0, sizeof *a);
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	if (!mod || !(a->func = dwfl_module_addrname(mod, addr)))
		return;
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

void sl_sym_free(sl_symbolizer *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	sl_addrhist_free(&s->index);
	free(s->ans);
	free(s);
}
