/* Unit tests of the profile format: a full round trip, the helpers, and
 * that every kind of damage (truncation anywhere, bad magic or version, a
 * flipped byte, an out-of-range phase, a NaN time) is refused with one line
 * naming it, by both readers (the file mapped, and read into memory with
 * SLEUTH_PROFILE_MMAP=0), which must agree on every value and every
 * message.  Also prints the time to write and read a 1M-interval profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <endian.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sleuth/common.h"
#include "sleuth/profile.h"

static char dir[] = "/tmp/sleuth-prof-XXXXXX";

static char *tpath(const char *name)
{
	return sl_xasprintf("%s/%s", dir, name);
}

static sl_codeloc loc(const char *fn, const char *file, int line, uint64_t addr,
		      double share)
{
	return (sl_codeloc){sl_xstrdup(fn), file ? sl_xstrdup(file) : NULL, line, addr,
			    share};
}

/* A small profile exercising every field: NULL strings, missing counts,
 * NaN energy, notes, code locations and the embedded machine text. */
static void make_profile(sl_profile *p, size_t n)
{
	sl_profile_init(p);
	p->command = sl_xstrdup("replay t.yaml");
	p->host_cpu = sl_xstrdup("Intel(R) Core(TM) i7 CPU 920");
	p->backend = sl_xstrdup("replay");
	p->machine_text = sl_xstrdup("format: sleuth-machine/1\nname: x\n");
	p->machine_path = sl_xstrdup("models/x.yaml");
	p->freq_ghz = 2.66;
	p->interval_instructions = 100000000;
	p->has_counts = 1;
	p->energy_source = sl_xstrdup("trace");
	p->samples = 12345;
	p->lost_samples = 7;
	p->predictor = sl_xstrdup("markov");
	p->predictor_accuracy = 0.875;
	p->bv_dims = 32;
	p->threshold = 0.4;
	p->threshold_margin = 0.25;
	p->sample_event = sl_xstrdup("RESOURCE_STALLS:ANY");
	p->sample_period = 49999;
	sl_profile_add_note(p, "note %d", 1);
	sl_profile_add_note(p, "second note");
	p->n_events = 3;
	p->events = sl_xcalloc(3, sizeof *p->events);
	p->events[0] = sl_xstrdup("LLC_MISSES");
	p->events[1] = sl_xstrdup("UOPS_EXECUTED:PORT015_STALL_CYCLES");
	p->events[2] = sl_xstrdup("RESOURCE_STALLS:ANY");
	p->n_intervals = n;
	p->iv = sl_xcalloc(n, sizeof *p->iv);
	p->counts = sl_xcalloc(n * 3, sizeof *p->counts);
	for (size_t i = 0; i < n; i++) {
		p->iv[i].phase = (uint32_t)((i / 3) % 2);
		p->iv[i].start_s = 0.03 * (double)i;
		p->iv[i].time_s = 0.03 + 1e-5 * (double)i;
		p->iv[i].cycles = 80000000 + i;
		p->iv[i].instructions = 100000000;
		p->iv[i].energy_j = i % 5 == 4 ? NAN : 1.5 + 0.01 * (double)i;
		for (size_t k = 0; k < 3; k++)
			p->counts[i * 3 + k] = (i + k) % 3 == 0 ? SL_MISSING : i * 1000 + k;
	}
	p->n_phases = 2;
	p->phases = sl_xcalloc(2, sizeof *p->phases);
	for (uint32_t k = 0; k < 2; k++) {
		sl_phase_info *ph = &p->phases[k];
		ph->id = k;
		ph->n_funcs = 2;
		ph->funcs = sl_xcalloc(2, sizeof *ph->funcs);
		ph->funcs[0] = loc(k ? "compute" : "stream", "a.c", 0, 0x401000 + k, 0.75);
		ph->funcs[1] = loc("?", NULL, 0, 0x402000, 0.25);
		ph->n_lines = 1;
		ph->lines = sl_xcalloc(1, sizeof *ph->lines);
		ph->lines[0] = loc("compute", "src/a.c", 42, 0x401a2c, 0.5);
	}
}

static void same_loc(const sl_codeloc *a, const sl_codeloc *b)
{
	assert_string_equal(a->function, b->function);
	if (a->file || b->file)
		assert_string_equal(a->file, b->file);
	assert_int_equal(a->line, b->line);
	assert_int_equal(a->addr, b->addr);
	assert_true(a->share == b->share);
}

/* What a reader has to look at: phases covering 90% of the time, and
 * whether the phases look like noise. */
static void test_coverage_and_noise(void **state)
{
	(void)state;
	sl_profile p;
	sl_profile_init(&p);
	p.n_intervals = 40;
	p.iv = sl_xcalloc(p.n_intervals, sizeof *p.iv);
	/* phase 0: 30 intervals, phase 1: 6, phases 2..5: one each */
	for (size_t i = 0; i < p.n_intervals; i++) {
		p.iv[i].time_s = 1;
		p.iv[i].phase = i < 30 ? 0 : i < 36 ? 1 : (uint32_t)(i - 34);
	}
	p.n_phases = 6;
	assert_int_equal(sl_profile_phases_covering(&p, 0.9), 2);  /* 36 of 40 */
	assert_int_equal(sl_profile_phases_covering(&p, 0.5), 1);
	assert_int_equal(sl_profile_phases_covering(&p, 1.0), 6);
	assert_int_equal(sl_profile_phases_noisy(&p), 0);
	assert_int_equal(sl_profile_phases_used(&p), 6);
	/* phase 4 merged into phase 1 at the end of the run: its id stays */
	p.iv[38].phase = 1;
	assert_int_equal(sl_profile_phases_used(&p), 5);
	for (size_t i = 0; i < p.n_intervals; i++)
		p.iv[i].phase = (uint32_t)(i < 10 ? 0 : i);
	p.n_phases = 31;
	assert_int_equal(sl_profile_phases_noisy(&p), 1);
	/* the same ids, most merged away at the end of the run: not noise */
	for (size_t i = 0; i < p.n_intervals; i++)
		p.iv[i].phase = (uint32_t)(i < 36 ? i % 3 : i);
	assert_int_equal(sl_profile_phases_noisy(&p), 0);
	p.n_phases = 0; /* no phase records were made */
	sl_profile_free(&p);
}

static void test_round_trip(void **state)
{
	(void)state;
	sl_profile a, b;
	make_profile(&a, 50);
	char *f = tpath("rt.prof");
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_string_equal(b.command, a.command);
	assert_string_equal(b.host_cpu, a.host_cpu);
	assert_string_equal(b.backend, "replay");
	assert_null(b.workload);
	assert_string_equal(b.machine_text, a.machine_text);
	assert_string_equal(b.machine_path, a.machine_path);
	assert_true(b.freq_ghz == 2.66);
	assert_int_equal(b.interval_instructions, 100000000);
	assert_int_equal(b.has_counts, 1);
	assert_string_equal(b.energy_source, "trace");
	assert_int_equal(b.samples, 12345);
	assert_int_equal(b.lost_samples, 7);
	assert_string_equal(b.predictor, "markov");
	assert_true(b.predictor_accuracy == 0.875);
	assert_int_equal(b.bv_dims, 32);
	assert_true(b.threshold == 0.4);
	assert_true(b.threshold_margin == 0.25);
	assert_string_equal(b.sample_event, "RESOURCE_STALLS:ANY");
	assert_int_equal(b.sample_period, 49999);
	assert_int_equal(b.n_notes, 2);
	assert_string_equal(b.notes[0], "note 1");
	assert_int_equal(b.n_events, 3);
	for (size_t k = 0; k < 3; k++)
		assert_string_equal(b.events[k], a.events[k]);
	assert_int_equal(b.n_intervals, 50);
	for (size_t i = 0; i < 50; i++) {
		assert_int_equal(b.iv[i].phase, a.iv[i].phase);
		assert_true(b.iv[i].start_s == a.iv[i].start_s);
		assert_true(b.iv[i].time_s == a.iv[i].time_s);
		assert_int_equal(b.iv[i].cycles, a.iv[i].cycles);
		assert_int_equal(b.iv[i].instructions, a.iv[i].instructions);
		if (isnan(a.iv[i].energy_j))
			assert_true(isnan(b.iv[i].energy_j));
		else
			assert_true(b.iv[i].energy_j == a.iv[i].energy_j);
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(sl_prof_count(&b, i, k), sl_prof_count(&a, i, k));
	}
	assert_int_equal(b.n_phases, 2);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(b.phases[k].n_funcs, 2);
		assert_int_equal(b.phases[k].n_lines, 1);
		same_loc(&b.phases[k].funcs[0], &a.phases[k].funcs[0]);
		same_loc(&b.phases[k].funcs[1], &a.phases[k].funcs[1]);
		same_loc(&b.phases[k].lines[0], &a.phases[k].lines[0]);
	}
	assert_null(b.temp_c); /* none measured: no temperature section */
	assert_int_equal(sl_profile_event_index(&b, "RESOURCE_STALLS:ANY"), 2);
	assert_int_equal(sl_profile_event_index(&b, "cycles"), -1);

	sl_instance *in;
	size_t ni = sl_profile_instances(&b, &in);
	assert_int_equal(ni, 17); /* 50 intervals in runs of 3 */
	assert_int_equal(in[1].phase, 1);
	assert_int_equal(in[1].first, 3);
	assert_int_equal(in[1].n, 3);
	assert_int_equal(in[16].n, 2);
	free(in);
	sl_profile_free(&a);
	sl_profile_free(&b);
	unlink(f);
	free(f);
}

/* Die temperatures per interval (an optional section): round trip with a
 * NaN among them; the writer and reader refuse a non-temperature. */
static void test_temperatures(void **state)
{
	(void)state;
	sl_profile a, b;
	make_profile(&a, 20);
	a.temp_c = sl_xmalloc(20 * sizeof *a.temp_c);
	for (size_t i = 0; i < 20; i++)
		a.temp_c[i] = i == 3 ? NAN : 40 + 0.5 * (double)i;
	char *f = tpath("temp.prof");
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_non_null(b.temp_c);
	for (size_t i = 0; i < 20; i++)
		if (i == 3)
			assert_true(isnan(b.temp_c[i]));
		else
			assert_true(b.temp_c[i] == a.temp_c[i]);
	sl_profile_free(&b);
	a.temp_c[5] = 999;
	assert_int_equal(sl_profile_write(f, &a), -1);
	assert_non_null(strstr(sl_error(), "interval 5 has a die temperature of 999 C"));
	sl_profile_free(&a);
	unlink(f);
	free(f);
}

static void test_empty_and_no_counts(void **state)
{
	(void)state;
	sl_profile a, b;
	sl_profile_init(&a);
	a.backend = sl_xstrdup("timer");
	char *f = tpath("empty.prof");
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_int_equal(b.n_intervals, 0);
	assert_int_equal(b.has_counts, 0);
	assert_null(b.machine_text);
	assert_true(isnan(b.predictor_accuracy));
	sl_profile_free(&a);
	sl_profile_free(&b);
	unlink(f);
	free(f);
}

/* The writer refuses what the reader would refuse, and leaves nothing. */
static void test_write_refuses(void **state)
{
	(void)state;
	sl_profile a;
	make_profile(&a, 10);
	a.iv[4].phase = 7;
	char *f = tpath("bad.prof");
	assert_int_equal(sl_profile_write(f, &a), -1);
	assert_non_null(strstr(sl_error(), "phase 7"));
	assert_int_equal(access(f, F_OK), -1);
	a.iv[4].phase = 0;
	a.iv[5].time_s = NAN;
	assert_int_equal(sl_profile_write(f, &a), -1);
	assert_int_equal(access(f, F_OK), -1);
	sl_profile_free(&a);
	free(f);
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	unsigned char *d = sl_xmalloc(*n);
	assert_int_equal(fread(d, 1, *n, f), *n);
	fclose(f);
	return d;
}

static void spit(const char *path, const unsigned char *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, n, f), n);
	fclose(f);
}

/* Reading the bytes `d` must fail with an error containing `want`, the
 * same error from the mapped reader and from the one that reads the file
 * into memory. */
static void expect_reject(const unsigned char *d, size_t n, const char *want)
{
	sl_profile b;
	char *f = tpath("damaged.prof"), first[1024] = "";
	spit(f, d, n);
	for (int map = 1; map >= 0; map--) {
		setenv("SLEUTH_PROFILE_MMAP", map ? "1" : "0", 1);
		int rc = sl_profile_read(f, &b);
		if (rc == 0)
			fail_msg("a damaged profile (%zu bytes) was accepted (mmap %d); "
				 "wanted '%s'", n, map, want);
		if (!strstr(sl_error(), want))
			fail_msg("error '%s' does not say '%s'", sl_error(), want);
		assert_null(strchr(sl_error(), '\n'));
		if (map)
			snprintf(first, sizeof first, "%s", sl_error());
		else
			assert_string_equal(sl_error(), first);
	}
	unsetenv("SLEUTH_PROFILE_MMAP");
	unlink(f);
	free(f);
}

/* The table entry of a section type (docs/profile-format.md): offset and
 * length, and where its CRC lives. */
static void find_section(unsigned char *d, uint32_t type, size_t *off, size_t *len,
			 unsigned char **crc)
{
	uint32_t ns;
	memcpy(&ns, d + 12, 4);
	for (uint32_t i = 0; i < le32toh(ns); i++) {
		unsigned char *e = d + 24 + 24 * i;
		uint32_t t;
		uint64_t o, l;
		memcpy(&t, e, 4);
		memcpy(&o, e + 8, 8);
		memcpy(&l, e + 16, 8);
		if (le32toh(t) == type) {
			*off = le64toh(o);
			*len = le64toh(l);
			*crc = e + 4;
			return;
		}
	}
	fail_msg("no section %u", type);
}

static void fix_crc(unsigned char *d, size_t off, size_t len, unsigned char *crc)
{
	uint32_t c = htole32((uint32_t)crc32(0L, d + off, (uInt)len));
	memcpy(crc, &c, 4);
}

/* Per-interval frequencies (a dithered run): round trip; version 2 only
 * with an interval at another frequency, version 1 and no section
 * otherwise; the section refused in a version-1 file (whose readers would
 * skip it and misread the intervals), and bad values refused. */
static void test_frequencies(void **state)
{
	(void)state;
	sl_profile a, b;
	make_profile(&a, 20);
	a.ghz = sl_xmalloc(20 * sizeof *a.ghz);
	for (size_t i = 0; i < 20; i++)
		a.ghz[i] = 2.66;
	char *f = tpath("ghz.prof");
	size_t n;
	/* every interval at freq_ghz: version 1, no section */
	assert_int_equal(sl_profile_write(f, &a), 0);
	unsigned char *d = slurp(f, &n);
	assert_int_equal(d[8], 1);
	free(d);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_null(b.ghz);
	assert_false(sl_profile_dithered(&b, 3));
	assert_true(sl_profile_ghz(&b, 3) == 2.66);
	sl_profile_free(&b);
	/* every 4th at 1.6 GHz: version 2 */
	for (size_t i = 3; i < 20; i += 4)
		a.ghz[i] = 1.6;
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_non_null(b.ghz);
	for (size_t i = 0; i < 20; i++) {
		assert_true(b.ghz[i] == a.ghz[i]);
		assert_int_equal(sl_profile_dithered(&b, i), i % 4 == 3);
	}
	sl_profile_free(&b);
	d = slurp(f, &n);
	assert_int_equal(d[8], 2);
	d[8] = 1;
	expect_reject(d, n, "per-interval frequencies in a version-1 profile");
	d[8] = 2;
	size_t off = 0, len = 0;
	unsigned char *crc = NULL;
	find_section(d, 9, &off, &len, &crc);
	assert_int_equal(len, 8 + 20 * 8);
	double bad = -1;
	memcpy(d + off + 8 + 5 * 8, &bad, 8);
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "interval 5: -1 is not one of the core frequencies in GHz");
	d[off] = 19;
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "19 core frequencies in GHz for 20 intervals");
	free(d);
	/* the writer refuses what the reader would */
	a.ghz[7] = 0;
	assert_int_equal(sl_profile_write(f, &a), -1);
	assert_non_null(strstr(sl_error(), "interval 7 ran at 0 GHz"));
	sl_profile_free(&a);
	unlink(f);
	free(f);
}

/* Which phase's code each phase runs (an optional section, written only
 * when phases share code): round trip; a reader that skips it (before it
 * existed) keeps the rest; the writer and reader refuse a phase that
 * names a higher phase, or one not the lowest of its code. */
static void test_same_code(void **state)
{
	(void)state;
	sl_profile a, b;
	make_profile(&a, 20);
	char *f = tpath("code.prof");
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_null(b.same_code); /* none recorded: no section */
	sl_profile_free(&b);
	a.same_code = sl_xmalloc(2 * sizeof *a.same_code);
	a.same_code[0] = 0;
	a.same_code[1] = 0;
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(sl_profile_read(f, &b), 0);
	assert_non_null(b.same_code);
	assert_int_equal(b.same_code[0], 0);
	assert_int_equal(b.same_code[1], 0);
	sl_profile_free(&b);

	/* the section is the last, type 10: a file whose table names it
	 * type 11 (a later section this reader skips) reads without it */
	size_t n, off = 0, len = 0;
	unsigned char *d = slurp(f, &n), *crc = NULL;
	find_section(d, 10, &off, &len, &crc);
	assert_int_equal(len, 4 + 2 * 4);
	unsigned char *d2 = sl_xmalloc(n);
	memcpy(d2, d, n);
	uint32_t ns;
	memcpy(&ns, d2 + 12, 4);
	for (size_t t = 24; t < 24 + 24 * (size_t)le32toh(ns); t += 24)
		if (d2[t] == 10)
			d2[t] = 11;
	char *g = tpath("later.prof");
	spit(g, d2, n);
	assert_int_equal(sl_profile_read(g, &b), 0);
	assert_null(b.same_code);
	sl_profile_free(&b);
	unlink(g);
	free(g);
	/* phase 0 runs phase 1's code: not the lowest */
	memcpy(d2, d, n);
	uint32_t one = htole32(1);
	memcpy(d2 + off + 4, &one, 4);
	fix_crc(d2, off, len, d2 + (crc - d));
	expect_reject(d2, n, "phase 0 runs the code of phase 1, not the lowest phase of its code");
	free(d2);
	free(d);

	a.same_code[0] = 1;
	assert_int_equal(sl_profile_write(f, &a), -1);
	assert_non_null(strstr(sl_error(), "phase 0 runs the code of phase 1"));
	sl_profile_free(&a);
	unlink(f);
	free(f);
}

static void test_corruption(void **state)
{
	(void)state;
	sl_profile a;
	make_profile(&a, 20);
	char *f = tpath("good.prof");
	assert_int_equal(sl_profile_write(f, &a), 0);
	sl_profile_free(&a);
	size_t n;
	unsigned char *good = slurp(f, &n);
	unsigned char *d = sl_xmalloc(n + 16);

	/* truncated anywhere: names the byte and the section */
	for (size_t cut = 0; cut < n; cut++) {
		char want[64];
		snprintf(want, sizeof want, "truncated at byte %zu (", cut);
		expect_reject(good, cut, want);
	}
	size_t off = 0, len = 0;
	unsigned char *crc = NULL;
	memcpy(d, good, n);
	find_section(d, 4, &off, &len, &crc);
	expect_reject(good, off + 10, "(interval section)");

	/* magic, version */
	memcpy(d, good, n);
	d[0] ^= 0x20;
	expect_reject(d, n, "not a sleuth profile (bad magic)");
	memcpy(d, good, n);
	d[8] = 3;
	expect_reject(d, n, "profile version 3 is not supported");
	expect_reject((const unsigned char *)"hello\n", 6, "bad magic");

	/* garbage after the end */
	memcpy(d, good, n);
	memset(d + n, 'x', 16);
	expect_reject(d, n + 16, "garbage after the end");

	/* any flipped byte after the header is caught */
	for (size_t i = 8; i < n; i++) {
		memcpy(d, good, n);
		d[i] ^= 0x01;
		sl_profile b;
		char *g = tpath("flip.prof");
		spit(g, d, n);
		if (sl_profile_read(g, &b) == 0)
			fail_msg("flipped byte %zu was accepted", i);
		unlink(g);
		free(g);
	}

	/* structurally wrong content with a valid checksum */
	memcpy(d, good, n);
	find_section(d, 4, &off, &len, &crc);
	uint32_t ph = htole32(5);
	memcpy(d + off + 8 + 44 * 3, &ph, 4); /* interval 3's phase */
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "interval 3 has phase 5 but the profile has 2 phases");

	memcpy(d, good, n);
	double nan = NAN;
	memcpy(d + off + 8 + 44 * 2 + 12, &nan, 8); /* interval 2's time */
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "interval 2 has an invalid start or time");

	memcpy(d, good, n);
	uint64_t many = htole64(1000000);
	memcpy(d + off, &many, 8); /* interval count beyond the section */
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "interval count 1000000 exceeds the section");

	memcpy(d, good, n);
	find_section(d, 6, &off, &len, &crc);
	uint32_t id = htole32(1);
	memcpy(d + off + 4, &id, 4); /* phase 0 numbered 1 */
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "phase 0 is numbered 1");

	memcpy(d, good, n);
	find_section(d, 5, &off, &len, &crc);
	uint64_t mask = htole64(0xff);
	memcpy(d + off + 16, &mask, 8); /* interval 0 measures 8 of 3 events */
	fix_crc(d, off, len, crc);
	expect_reject(d, n, "(counts section");

	free(d);
	free(good);
	unlink(f);
	free(f);
}

static void test_missing_file(void **state)
{
	(void)state;
	sl_profile b;
	assert_int_equal(sl_profile_read("/nonexistent/x.prof", &b), -1);
	assert_non_null(strstr(sl_error(), "sleuth run"));
	assert_int_equal(sl_profile_read("/tmp", &b), -1);
}

/* Read `f` with the file mapped (map 1) or read into memory (map 0). */
static int read_path(const char *f, sl_profile *b, int map)
{
	setenv("SLEUTH_PROFILE_MMAP", map ? "1" : "0", 1);
	int rc = sl_profile_read(f, b);
	unsetenv("SLEUTH_PROFILE_MMAP");
	return rc;
}

static void same_intervals(const sl_profile *a, const sl_profile *b)
{
	assert_int_equal(b->n_intervals, a->n_intervals);
	assert_int_equal(b->n_events, a->n_events);
	assert_memory_equal(b->iv, a->iv, a->n_intervals * sizeof *a->iv);
	assert_memory_equal(b->counts, a->counts,
			    a->n_intervals * a->n_events * sizeof *a->counts);
}

/* Both readers on a profile of many pages (the mapped one gives pages back
 * as it goes): the same profile; damage past the first pages given back
 * (a flipped count, a bad phase with a valid checksum) named the same. */
static void test_both_paths(void **state)
{
	(void)state;
	sl_profile a, b, c;
	size_t n = 200000;
	make_profile(&a, n);
	/* padding bytes of the structs must compare equal too */
	sl_prof_interval *iv = sl_xcalloc(n, sizeof *iv);
	for (size_t i = 0; i < n; i++) {
		iv[i].phase = a.iv[i].phase;
		iv[i].start_s = a.iv[i].start_s;
		iv[i].time_s = a.iv[i].time_s;
		iv[i].cycles = a.iv[i].cycles;
		iv[i].instructions = a.iv[i].instructions;
		iv[i].energy_j = a.iv[i].energy_j;
	}
	free(a.iv);
	a.iv = iv;
	char *f = tpath("paths.prof");
	assert_int_equal(sl_profile_write(f, &a), 0);
	assert_int_equal(read_path(f, &b, 1), 0);
	assert_int_equal(read_path(f, &c, 0), 0);
	same_intervals(&a, &b);
	same_intervals(&a, &c);
	assert_string_equal(b.machine_text, c.machine_text);
	assert_int_equal(b.n_phases, c.n_phases);
	sl_profile_free(&b);
	sl_profile_free(&c);
	sl_profile_free(&a);

	size_t size, off = 0, len = 0;
	unsigned char *good = slurp(f, &size), *d = sl_xmalloc(size), *crc = NULL;
	memcpy(d, good, size);
	find_section(d, 5, &off, &len, &crc);
	assert_true(len > (4u << 20));
	d[off + len - 100] ^= 0x10; /* a count near the end */
	expect_reject(d, size, "corrupt profile (counts section): checksum mismatch");
	memcpy(d, good, size);
	find_section(d, 4, &off, &len, &crc);
	uint32_t ph = htole32(7);
	memcpy(d + off + 8 + 44 * (n - 2), &ph, 4); /* interval n-2's phase */
	fix_crc(d, off, len, crc);
	char want[128];
	snprintf(want, sizeof want, "interval %zu has phase 7 but the profile has 2", n - 2);
	expect_reject(d, size, want);
	memcpy(d, good, size);
	double nan = NAN;
	memcpy(d + off + 8 + 44 * (n - 3) + 12, &nan, 8); /* interval n-3's time */
	fix_crc(d, off, len, crc);
	snprintf(want, sizeof want, "interval %zu has an invalid start or time", n - 3);
	expect_reject(d, size, want);
	free(d);
	free(good);
	unlink(f);
	free(f);
}

/* A long run: 1M intervals write and read back; the time is printed, not
 * asserted (machines differ). */
static void test_million(void **state)
{
	(void)state;
	sl_profile a, b;
	make_profile(&a, 1000000);
	char *f = tpath("big.prof");
	double t0 = sl_now();
	assert_int_equal(sl_profile_write(f, &a), 0);
	double t1 = sl_now();
	assert_int_equal(sl_profile_read(f, &b), 0);
	double t2 = sl_now();
	assert_int_equal(b.n_intervals, 1000000);
	assert_int_equal(sl_prof_count(&b, 999999, 1), sl_prof_count(&a, 999999, 1));
	printf("# profile of 1M intervals x 3 events: write %.3f s, read %.3f s\n",
	       t1 - t0, t2 - t1);
	sl_profile_free(&a);
	sl_profile_free(&b);
	unlink(f);
	free(f);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_temperatures),
		cmocka_unit_test(test_coverage_and_noise),
		cmocka_unit_test(test_empty_and_no_counts),
		cmocka_unit_test(test_write_refuses),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_frequencies),
		cmocka_unit_test(test_same_code),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_both_paths),
		cmocka_unit_test(test_million),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
