/*
 * libFuzzer harness: the trace reader (sleuth-trace/1): the header and every
 * interval, through the reader's parser thread.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/trace.h"

static void read_one(const char *path)
{
	sl_trace_reader *r = sl_trace_open(path);
	sl_trace_interval iv;
	if (!r)
		return;
	while (sl_trace_next(r, &iv) > 0)
		;
	sl_trace_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_path_reader(data, size, read_one);
}
