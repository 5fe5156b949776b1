/*
 * libFuzzer harness: the simulator's workload reader (sleuth-workload/1).
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/sim.h"

FUZZ_PATH_LOADER(sl_sim_workload, sl_sim_workload_load, sl_sim_workload_free)
