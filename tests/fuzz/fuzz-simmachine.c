/*
 * libFuzzer harness: the simulated machine reader (the files under data/sim).
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/sim.h"

FUZZ_PATH_LOADER(sl_sim_machine, sl_sim_machine_load, sl_sim_machine_free)
