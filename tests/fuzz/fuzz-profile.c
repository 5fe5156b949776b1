/*
 * libFuzzer harness: the binary profile reader (docs/profile-format.md).
 * Build and run: docs/hacking.md, "Fuzzing".
 */
#include "fuzz.h"
#include "sleuth/profile.h"

FUZZ_PATH_LOADER(sl_profile, sl_profile_read, sl_profile_free)
