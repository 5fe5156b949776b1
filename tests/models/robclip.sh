# The start cli-refine.sh and cli-dither.sh share (sourced after
# tests/lib.sh, not a test of its own): rob-clip of the hard suite, whose
# worst instance the one-run mlp model misses by 10% on the hard machine
# without its stall probes (memory: stall_llc_share, stall_per_mispredict:
# the model then takes the dependency stalls under a miss for memory
# stalls and misses the clip, which is what a second frequency corrects;
# with them the one run sees it, cli-other-stalls.sh), through
# bench/accuracy-workload.sh (mlp, the time events pinned, 4 counters,
# seed 0) against the truth at 1.60 GHz.  `robclip` runs that pipeline
# with the caller's REFINE=, DITHER= and the like passed through; the
# plain run's figures are in $T/base.txt.
sed '/^  stall_llc_share:/d; /^  stall_per_mispredict:/d' \
	"$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml" >"$T/noprobe.yaml"
export MACHINE="$T/noprobe.yaml"
export SIM="$SRCDIR/data/sim/nehalem-i7-920-hard.yaml"
wl="$SRCDIR/data/workloads/hard/rob-clip.yaml"
robclip() { MODELS=mlp PIN=time "$SRCDIR/bench/accuracy-workload.sh" "$SLEUTH" "$wl" "$T" 0 4 1.60; }
robclip >"$T/base.txt" || fail "the pipeline with one frequency"
