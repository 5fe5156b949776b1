/*
 * libFuzzer harness: the idle log reader (CSV ghz,power_w), from memory.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/powerlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_idlelog il;
	if (sl_idlelog_read_mem(&il, "fuzz.csv", (const char *)data, size, NULL) == 0)
		sl_idlelog_free(&il);
	return 0;
}
