# The stall model's margin where its stall counters are polluted: dep-mix
# (data/workloads/hard) on the hard simulated machine counts dependency
# chains and full reservation stations as stalls, so the stall model takes
# core work for memory time and underpredicts the slowdown at low
# frequency.  Two things cover it (docs/schedule.md, "Confidence"): the
# hard machine's time_error: is measured on training programs with such
# stalls (data/workloads/train/stalls, bench/time-error-sim.sh), and where
# the mlp model, whose residuals are smaller, predicts a phase longer, the
# difference widens that phase's sigma.  The min-energy schedule must keep
# the 10% bound in the simulator's truth, and its margin cover the model's
# true excess over its prediction, at seed 3 (10.33% in truth with the old
# rows: a margin of 4.51 points against an excess of 4.97) and seed 13
# (10.59% with the new rows alone: the wider rows moved 1.60 GHz onto the
# phase the model underpredicts).
. "$SRCDIR/tests/lib.sh"

W=$SRCDIR/data/workloads/hard/dep-mix.yaml
M=$SRCDIR/data/machines/sim-nehalem-i7-920-hard.yaml
SIM=$SRCDIR/data/sim/nehalem-i7-920-hard.yaml
ttime() { sed -nE 's/^- \{t: ([^,]*),.*/\1/p' "$1" | awk '{t += $1} END {printf "%.9g\n", t}'; }

for seed in 3 13; do
	sim() { "$SLEUTH" simulate -q --seed "$seed" -m "$SIM" "$W" "$@"; }
	expect_ok -- sim -o "$T/d.yaml"
	expect_ok -- sim --truth -o "$T/fmax.yaml"
	expect_ok -- "$SLEUTH" run -q --replay "$T/d.yaml" --machine "$M" \
		--pin stall_cycles,llc_misses --seed "$seed" -o "$T/d.prof"
	expect_ok -- "$SLEUTH" schedule "$T/d.prof" --min-energy --max-slowdown 10% --machine "$M" \
		--model stall -o "$T/s.yaml"
	expect_ok -- sim --truth --schedule "$T/s.yaml" --profile "$T/d.prof" -o "$T/run.yaml"
	truth=$(awk -v a="$(ttime "$T/run.yaml")" -v b="$(ttime "$T/fmax.yaml")" \
		'BEGIN {print a / b - 1}')
	pred=$(sed -nE 's/^predicted: \{.*slowdown: ([^,}]*).*/\1/p' "$T/s.yaml")
	mg=$(sed -nE 's/^margin: \{slowdown: ([^,]*),.*/\1/p' "$T/s.yaml")
	# the bound, in truth (3.3% at both seeds now)
	below "seed $seed: true slowdown of the stall model's schedule" "$truth" 0.10
	# the margin covers the model's true excess
	below "seed $seed: true excess over the predicted slowdown, minus the margin" \
		"$(awk -v t="$truth" -v p="$pred" -v m="$mg" 'BEGIN {print t - p - m}')" 0
done

# the table says where the margin came from
out=$("$SLEUTH" schedule "$T/d.prof" --min-energy --machine "$M" --model stall 2>&1)
grep -q "stall model's residuals .*, the mlp model's longer predictions (its residuals are smaller)," \
	<<<"$out" && ok || fail "no disagreement in the margin line: $(grep margin <<<"$out")"
# the mlp model's own margin takes nothing from the stall model (its residuals
# are larger): a profile pinned for mlp, and its margin line says nothing of it
expect_ok -- "$SLEUTH" run -q --replay "$T/d.yaml" --machine "$M" --pin time --seed 13 -o "$T/m.prof"
out=$("$SLEUTH" schedule "$T/m.prof" --min-energy --machine "$M" --model mlp 2>&1)
grep -q "mlp model's residuals" <<<"$out" && ! grep -q "longer predictions" <<<"$out" && ok ||
	fail "mlp margin line: $(grep margin <<<"$out")"

# and the machine's rows cover the stall model's error on polluted stall
# counters: at 1.60 GHz its rms is above the 4.7% of the old training set
rms=$(awk '/^- \{model: stall, from_ghz: 2.66, ghz: 1.6,/ {
	sub(/.*rms: /, ""); sub(/,.*/, ""); print }' "$M")
awk -v r="${rms:-0}" 'BEGIN {exit !(r > 0.05)}' && ok ||
	fail "stall model's time_error rms at 1.60 GHz is ${rms:-missing}, expected > 0.05"

finish
