/*
 * libFuzzer harness: the machine model reader (sleuth-machine/1), from memory.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_machine m;
	if (sl_machine_load_mem("fuzz.yaml", (const char *)data, size, &m) == 0)
		sl_machine_free(&m);
	return 0;
}
