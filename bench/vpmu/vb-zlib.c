/*
 * vPMU benchmark: zlib compression and decompression of 2 MiB of generated
 * text-like data.  Stages: generate, deflate (level 6), inflate, compare.
 * Deterministic.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define N (2u << 20)

static unsigned char *src, *packed, *back;

void zl_generate(void)
{
	static const char *words[] = {"sleuth ", "phase ", "energy ", "power ", "time ",
				      "branch ", "cache ", "miss ", "frequency ", "volt "};
	uint64_t s = 7;
	size_t n = 0;
	while (n < N) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		const char *w = words[(s >> 40) % 10];
		size_t l = strlen(w);
		if (n + l > N)
			l = N - n;
		memcpy(src + n, w, l);
		n += l;
		if ((s >> 20) % 7 == 0 && n < N)
			src[n++] = (unsigned char)('0' + (s >> 50) % 10);
	}
}

uLongf zl_deflate(void)
{
	uLongf len = compressBound(N);
	if (compress2(packed, &len, src, N, 6) != Z_OK)
		exit(2);
	return len;
}

void zl_inflate(uLongf len)
{
	uLongf out = N;
	if (uncompress(back, &out, packed, len) != Z_OK || out != N)
		exit(3);
}

int main(void)
{
	src = malloc(N);
	packed = malloc(compressBound(N));
	back = malloc(N);
	if (!src || !packed || !back)
		return 1;
	zl_generate();
	uLongf len = zl_deflate();
	zl_inflate(len);
	if (memcmp(src, back, N))
		return 4;
	printf("%lu\n", (unsigned long)len);
	free(src);
	free(packed);
	free(back);
	return 0;
}
