# The margin's interpolation term, measured instead of assumed: with four
# counters the mlp model's occupancy, prefetch, miss and stall counts are
# each counted in about one interval in nine and filled in the others.
# sigma's profile-evidence term used to take a filled interval to be off by
# its phase's whole spread of predicted slowdowns; on lbm-like (seed 1, the
# basic suite on the offcore simulated machine) that made a margin of 0.80
# points where the model's true error is under 0.1, which kept the
# min-energy schedule off 2.13 GHz: 5.0% more true energy than the best
# single P-state chosen with hindsight.  Measured by hiding counted inputs
# and filling them (docs/schedule.md, "Confidence"), the margin is a
# quarter of that: the schedule must keep the 10% bound in truth, spend no
# more true energy than that hindsight frequency (within 0.5%), and take a
# margin under 0.4 points; mcf-like's margin (3.28 points before) under 2.
. "$SRCDIR/tests/lib.sh"

M=$SRCDIR/data/machines/sim-nehalem-i7-920-mlp.yaml
SIM=$SRCDIR/data/sim/nehalem-i7-920-offcore.yaml
# totals TRACE: "time energy" summed over the intervals
totals() {
	sed -nE 's/^- \{t: ([^,]*),.*, e: ([^,]*), label.*/\1 \2/p' "$1" |
		awk '{t += $1; e += $2} END {printf "%.9g %.9g\n", t, e}'
}
margin() { sed -nE 's/^margin: \{slowdown: ([^,]*),.*/\1/p' "$1"; }

W=$SRCDIR/data/workloads/lbm-like.yaml
sim() { "$SLEUTH" simulate -q --seed 1 -m "$SIM" "$W" "$@"; }
expect_ok -- sim -o "$T/l.yaml"
expect_ok -- "$SLEUTH" run -q --replay "$T/l.yaml" --machine "$M" --pin time --seed 1 -o "$T/l.prof"
expect_ok -- "$SLEUTH" schedule "$T/l.prof" --min-energy --max-slowdown 10% --machine "$M" \
	--model mlp -o "$T/s.yaml"
expect_ok -- sim --truth --schedule "$T/s.yaml" --profile "$T/l.prof" -o "$T/run.yaml"
read -r st se < <(totals "$T/run.yaml")
# the truth at every P-state: the hindsight-best one within the bound
best=
for f in $(sed -nE 's/^ *- \{ghz: ([0-9.]+),.*/\1/p' "$SIM"); do
	expect_ok -- sim --truth --freq "$f" -o "$T/f.yaml"
	read -r t e < <(totals "$T/f.yaml")
	[ -n "$best" ] || { tb=$t best=$e; }
	awk -v t="$t" -v tb="$tb" -v e="$e" -v b="$best" 'BEGIN {exit !(t <= 1.1 * tb && e < b)}' &&
		best=$e
done
below "lbm-like: true slowdown of the mlp model's min-energy schedule" \
	"$(awk -v a="$st" -v b="$tb" 'BEGIN {print a / b - 1}')" 0.10
below "lbm-like: true energy against the hindsight-best fixed P-state, minus 1" \
	"$(awk -v a="$se" -v b="$best" 'BEGIN {print a / b - 1}')" 0.005
below "lbm-like: margin" "$(margin "$T/s.yaml")" 0.004

W=$SRCDIR/data/workloads/mcf-like.yaml
expect_ok -- sim -o "$T/m.yaml"
expect_ok -- "$SLEUTH" run -q --replay "$T/m.yaml" --machine "$M" --pin time --seed 1 -o "$T/m.prof"
expect_ok -- "$SLEUTH" schedule "$T/m.prof" --min-energy --max-slowdown 10% --machine "$M" \
	--model mlp -o "$T/m-s.yaml"
below "mcf-like: margin" "$(margin "$T/m-s.yaml")" 0.02

finish
