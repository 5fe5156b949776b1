/*
 * libFuzzer harness: the power log reader (CSV time_s,power_w), from memory.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/powerlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_powerlog log;
	if (sl_powerlog_read_mem(&log, "fuzz.csv", (const char *)data, size, NULL, 0) == 0)
		sl_powerlog_free(&log);
	return 0;
}
