/*
 * libFuzzer harness: the schedule file reader (sleuth-schedule/1).
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/schedule.h"

FUZZ_PATH_LOADER(sl_schedule_file, sl_schedule_read, sl_schedule_file_free)
