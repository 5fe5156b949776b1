/*
 * libFuzzer harness: the binary profile reader (docs/profile-format.md).
 * Every section carries a CRC, so almost every mutation would stop at the
 * checksum; the harness first rewrites the CRC of each section the table
 * of contents places inside the input (header 24 bytes, then entries of
 * type u32, crc u32, offset u64, length u64, little-endian), so that the
 * mutations reach the section decoders.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include <endian.h>
#include <string.h>
#include <zlib.h>

#include "fuzz.h"
#include "sleuth/profile.h"

#define HEADER 24u
#define ENTRY 24u

static void read_one(const char *path)
{
	sl_profile p;
	if (sl_profile_read(path, &p) == 0)
		sl_profile_free(&p);
}

static void fix_crcs(uint8_t *d, size_t size)
{
	uint32_t n;
	if (size < HEADER)
		return;
	memcpy(&n, d + 12, 4);
	n = le32toh(n);
	for (uint32_t i = 0; i < n && HEADER + (uint64_t)(i + 1) * ENTRY <= size; i++) {
		uint8_t *e = d + HEADER + (size_t)i * ENTRY;
		uint64_t off, len;
		memcpy(&off, e + 8, 8);
		memcpy(&len, e + 16, 8);
		off = le64toh(off);
		len = le64toh(len);
		if (off > size || len > size - off)
			continue;
		uint32_t crc = htole32((uint32_t)crc32(0L, d + off, (uInt)len));
		memcpy(e + 4, &crc, 4);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	fuzz_path_reader(copy, size, read_one);
	free(copy);
	return 0;
}
