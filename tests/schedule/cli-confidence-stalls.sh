# The stall model's margin where its stall counters are polluted: dep-mix
# (data/workloads/hard) on the hard simulated machine, seed 3, counts
# dependency chains and full reservation stations as stalls, so the stall
# model takes core work for memory time and underpredicts the slowdown at
# low frequency.  The shipped hard machine's time_error: is measured on
# training workloads that include such stalls (data/workloads/train/stalls,
# bench/time-error-sim.sh), so its margin must cover the model's true
# excess here and the min-energy schedule keep the 10% bound in the
# simulator's truth.  With the rows measured without those workloads
# (before 2026-11-26) the schedule ran 10.33% slower in truth: its margin,
# 4.51 points, was short of the excess, 4.97.
. "$SRCDIR/tests/lib.sh"

W=$SRCDIR/data/workloads/hard/dep-mix.yaml
M=$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml
SIM=$SRCDIR/data/sim/nehalem-i7-920-hard.yaml
sim() { "$SLEUTH" simulate -q --seed 3 -m "$SIM" "$W" "$@"; }
ttime() { sed -nE 's/^- \{t: ([^,]*),.*/\1/p' "$1" | awk '{t += $1} END {printf "%.9g\n", t}'; }

expect_ok -- sim -o "$T/d.yaml"
expect_ok -- sim --truth -o "$T/fmax.yaml"
expect_ok -- "$SLEUTH" run -q --replay "$T/d.yaml" --machine "$M" --pin stall_cycles,llc_misses \
	--seed 3 -o "$T/d.prof"
expect_ok -- "$SLEUTH" schedule "$T/d.prof" --min-energy --max-slowdown 10% --machine "$M" \
	--model stall -o "$T/s.yaml"
expect_ok -- sim --truth --schedule "$T/s.yaml" --profile "$T/d.prof" -o "$T/run.yaml"

truth=$(awk -v a="$(ttime "$T/run.yaml")" -v b="$(ttime "$T/fmax.yaml")" 'BEGIN {print a / b - 1}')
pred=$(sed -nE 's/^predicted: \{.*slowdown: ([^,}]*).*/\1/p' "$T/s.yaml")
mg=$(sed -nE 's/^margin: \{slowdown: ([^,]*),.*/\1/p' "$T/s.yaml")
# the bound, in truth (8.4% now; 10.33% with the old rows)
below "true slowdown of the stall model's schedule" "$truth" 0.10
# the margin covers the model's true excess (3.9 of 4.7 points now; 4.97
# of 4.51 with the old rows)
below "true excess over the predicted slowdown, minus the margin" \
	"$(awk -v t="$truth" -v p="$pred" -v m="$mg" 'BEGIN {print t - p - m}')" 0
# and the machine's rows cover the stall model's error on polluted stall
# counters: at 1.60 GHz its rms is above the 4.7% of the old training set
rms=$(awk '/^- \{model: stall, from_ghz: 2.66, ghz: 1.6,/ {
	sub(/.*rms: /, ""); sub(/,.*/, ""); print }' "$M")
awk -v r="${rms:-0}" 'BEGIN {exit !(r > 0.05)}' && ok ||
	fail "stall model's time_error rms at 1.60 GHz is ${rms:-missing}, expected > 0.05"

finish
