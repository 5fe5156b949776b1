/* The ring-buffer reader on a hand-made ring laid out as the kernel lays
 * it out (metadata page, then a power-of-two data area): records are
 * delivered in order and whole, also when one wraps around the end, and
 * the tail is released up to the last complete record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/session.h"
#include "sleuth/common.h"

typedef struct seen {
	int n;
	uint64_t vals[64];
	size_t sizes[64];
} seen;

static int collect(void *ctx, const struct perf_event_header *h)
{
	seen *s = ctx;
	uint64_t v;
	memcpy(&v, h + 1, sizeof v);
	s->sizes[s->n] = h->size;
	s->vals[s->n++] = v;
	return 0;
}

static int stop_at_second(void *ctx, const struct perf_event_header *h)
{
	seen *s = ctx;
	collect(ctx, h);
	return s->n == 2 ? -1 : 0;
}

/* Write a record of `size` bytes (header + value + padding) at `pos`. */
static void put(sl_ring *r, uint64_t pos, uint16_t size, uint64_t value)
{
	unsigned char rec[256];
	memset(rec, 0xab, sizeof rec);
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, size};
	memcpy(rec, &h, sizeof h);
	memcpy(rec + sizeof h, &value, sizeof value);
	struct perf_event_mmap_page *meta = r->base;
	unsigned char *data = (unsigned char *)r->base + meta->data_offset;
	for (size_t i = 0; i < size; i++)
		data[(pos + i) & (r->data_size - 1)] = rec[i];
}

static void make_ring(sl_ring *r, size_t data_size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	memset(r, 0, sizeof *r);
	r->fd = -1;
	r->data_size = data_size;
	r->base = calloc(1, page + data_size);
	struct perf_event_mmap_page *meta = r->base;
	meta->data_offset = page;
	meta->data_size = data_size;
}

static void free_ring(sl_ring *r)
{
	free(r->base);
	free(r->scratch);
}

static void test_in_order_and_wrapped(void **state)
{
	(void)state;
	sl_ring r;
	make_ring(&r, 256);
	struct perf_event_mmap_page *meta = r.base;
	/* Start near the end so the third record straddles the wrap. */
	uint64_t pos = 1000 * 256 + 200;
	meta->data_tail = pos;
	put(&r, pos, 24, 1), pos += 24;   /* 200..223 */
	put(&r, pos, 16, 2), pos += 16;   /* 224..239 */
	put(&r, pos, 40, 3), pos += 40;   /* 240..279: wraps */
	put(&r, pos, 8 + 8, 4), pos += 16;
	meta->data_head = pos;
	seen s = {0};
	assert_int_equal(sl_ring_drain(&r, collect, &s), 4);
	assert_int_equal(s.n, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s.vals[i], (uint64_t)i + 1);
	assert_int_equal(s.sizes[2], 40);
	assert_int_equal(meta->data_tail, pos);
	/* Nothing new: nothing delivered. */
	s.n = 0;
	assert_int_equal(sl_ring_drain(&r, collect, &s), 0);
	free_ring(&r);
}

static void test_partial_record_waits(void **state)
{
	(void)state;
	sl_ring r;
	make_ring(&r, 128);
	struct perf_event_mmap_page *meta = r.base;
	put(&r, 0, 32, 7);
	put(&r, 32, 32, 8);
	meta->data_head = 48; /* the second record is not complete yet */
	seen s = {0};
	assert_int_equal(sl_ring_drain(&r, collect, &s), 1);
	assert_int_equal(meta->data_tail, 32);
	meta->data_head = 64;
	assert_int_equal(sl_ring_drain(&r, collect, &s), 1);
	assert_int_equal(s.vals[1], 8);
	free_ring(&r);
}

static void test_callback_error_keeps_rest(void **state)
{
	(void)state;
	sl_ring r;
	make_ring(&r, 128);
	struct perf_event_mmap_page *meta = r.base;
	for (int i = 0; i < 3; i++)
		put(&r, (uint64_t)i * 16, 16, (uint64_t)i);
	meta->data_head = 48;
	seen s = {0};
	assert_int_equal(sl_ring_drain(&r, stop_at_second, &s), -1);
	assert_int_equal(meta->data_tail, 32); /* the third is still there */
	assert_int_equal(sl_ring_drain(&r, collect, &s), 1);
	assert_int_equal(s.vals[2], 2);
	free_ring(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_and_wrapped),
		cmocka_unit_test(test_partial_record_waits),
		cmocka_unit_test(test_callback_error_keeps_rest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
