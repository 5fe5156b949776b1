/*
 * libFuzzer harness: the per-PMU event map reader (sleuth-pmus/1,
 * data/pmus/pmus.yaml), from memory, its optional dram_reads candidates
 * included.  Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/hw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_pmumap map;
	if (sl_pmumap_load_mem("fuzz.yaml", (const char *)data, size, &map) == 0)
		sl_pmumap_free(&map);
	return 0;
}
