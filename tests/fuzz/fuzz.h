/*
 * Shared by the libFuzzer harnesses (one per reader, tests/fuzz/fuzz-*.c):
 * most readers take a path, so each input is handed over as an in-memory
 * file (memfd) reached through /proc/self/fd, with no disk traffic and
 * nothing left behind.  See docs/hacking.md, "Fuzzing".
 */
#ifndef SLEUTH_FUZZ_H
#define SLEUTH_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sleuth/common.h"

/* The input as a file: its path in *path (a static buffer), and the fd to
 * close after the reader is done, or -1 (then skip the input). */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t cap)
{
	int fd = memfd_create("fuzz-input", 0);
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

/* One input through a reader that takes a path: the body of every such
 * harness's LLVMFuzzerTestOneInput. */
static inline int fuzz_path_reader(const uint8_t *data, size_t size,
				   void (*read)(const char *path))
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd >= 0) {
		read(path);
		close(fd);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole harness of a reader `int load(const char *path, type *x)`
 * with its `void release(type *x)`. */
#define FUZZ_PATH_LOADER(type, load, release)                                  \
	static void read_one(const char *path)                                 \
	{                                                                      \
		type x;                                                        \
		if (load(path, &x) == 0)                                       \
			release(&x);                                           \
	}                                                                      \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)           \
	{                                                                      \
		return fuzz_path_reader(data, size, read_one);                 \
	}

#endif
