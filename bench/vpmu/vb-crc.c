/*
 * vPMU benchmark: table-driven CRC-32 and a byte histogram over 4 MiB
 * (L1-resident table lookups, streaming input), then a branchy scan for
 * byte patterns.  Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (4u << 20)

static unsigned char *buf;
static uint32_t table[256];

void cr_fill(void)
{
	uint32_t s = 1;
	for (uint32_t i = 0; i < N; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		buf[i] = (unsigned char)(s >> 24);
	}
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

uint32_t cr_crc(void)
{
	uint32_t c = 0xffffffffu;
	for (uint32_t i = 0; i < N; i++)
		c = table[(c ^ buf[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

uint32_t cr_scan(void)
{
	uint32_t hits = 0;
	for (uint32_t i = 2; i < N; i++)
		if (buf[i] > 200 && buf[i - 1] < 50 && (buf[i - 2] & 1))
			hits++;
	return hits;
}

int main(void)
{
	buf = malloc(N);
	if (!buf)
		return 1;
	cr_fill();
	uint32_t c = cr_crc(), h = cr_scan();
	printf("%08x %u\n", c, h);
	free(buf);
	return 0;
}
