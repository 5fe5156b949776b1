/*
 * libFuzzer harness: the per-instance predictions CSV that schedule --predictions reads.
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/schedule.h"

FUZZ_PATH_LOADER(sl_sched_data, sl_sched_data_from_csv, sl_sched_data_free)
