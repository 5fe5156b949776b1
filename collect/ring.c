/*
 * Reader of a perf_event ring buffer.  The kernel writes records at
 * data_head and we consume them up to data_tail; the acquire load of
 * data_head orders our reads of the records after the kernel's writes, and
 * the release store of data_tail orders them before the kernel may reuse
 * the space (perf_event_open(2), "mmap layout").  Records may wrap around
 * the end of the buffer; such a record is copied into a scratch buffer so
 * callers always see it contiguous.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf-sys.h"
#include "session.h"
#include "sleuth/common.h"

int sl_ring_map(sl_ring *r, int fd, size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 1;
	while (n < data_pages)
		n *= 2;
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->map_len = (n + 1) * page;
	r->base = sl_perf_sys_get()->mmap(r->map_len, fd);
	if (r->base == MAP_FAILED) {
		int e = errno;
		r->base = NULL;
		sl_error_set("cannot map a perf ring buffer of %zu KiB: %s%s",
			     r->map_len / 1024, strerror(e),
			     e == EPERM || e == ENOMEM
				     ? "; raise kernel.perf_event_mlock_kb or ulimit -l"
				     : "");
		return -1;
	}
	struct perf_event_mmap_page *meta = r->base;
	r->data_size = meta->data_size ? meta->data_size : n * page;
	return 0;
}

static unsigned char *ring_data(const sl_ring *r)
{
	const struct perf_event_mmap_page *meta = r->base;
	size_t off = meta->data_offset ? meta->data_offset : (size_t)sysconf(_SC_PAGESIZE);
	return (unsigned char *)r->base + off;
}

/* Copy len bytes starting at ring offset pos, wrapping at the end. */
static void ring_copy(const sl_ring *r, uint64_t pos, void *dst, size_t len)
{
	const unsigned char *data = ring_data(r);
	size_t off = pos & (r->data_size - 1);
	size_t first = SL_MIN(len, r->data_size - off);
	memcpy(dst, data + off, first);
	memcpy((unsigned char *)dst + first, data, len - first);
}

int sl_ring_drain(sl_ring *r,
		  int (*fn)(void *ctx, const struct perf_event_header *h),
		  void *ctx)
{
	struct perf_event_mmap_page *meta = r->base;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail; /* only we write it */
	int n = 0, rc = 0;
	unsigned char *data = ring_data(r);
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		ring_copy(r, tail, &h, sizeof h);
		if (h.size < sizeof h || h.size > head - tail)
			break; /* cannot happen with a sane kernel: stop, don't spin */
		size_t off = tail & (r->data_size - 1);
		const struct perf_event_header *rec;
		if (off + h.size <= r->data_size) {
			rec = (const void *)(data + off);
		} else {
			if (r->scratch_cap < h.size) {
				r->scratch_cap = h.size;
				r->scratch = sl_xrealloc(r->scratch, r->scratch_cap);
			}
			ring_copy(r, tail, r->scratch, h.size);
			rec = (const void *)r->scratch;
		}
		tail += h.size;
		n++;
		if (fn(ctx, rec) < 0) {
			rc = -1;
			break;
		}
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return rc < 0 ? -1 : n;
}

void sl_ring_unmap(sl_ring *r)
{
	if (r->base)
		sl_perf_sys_get()->munmap(r->base, r->map_len);
	free(r->scratch);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}
