#!/bin/bash
# Schedules in the simulator (docs/benchmarks.md): for each workload, profile
# a run at fmax, make a per-phase schedule (min-energy and min-EDP under a
# slowdown bound), run it in the simulator with exact energy, and compare
# the schedule's predicted totals with the simulated ones; then the savings
# against the baseline (fmax) and against the best fixed frequency, found by
# simulating every P-state (--truth) and keeping the best within the bound.
#
# usage: bench/schedule-sim.sh [WORKLOAD.yaml ...]   (default: data/workloads/*.yaml)
# environment: B (build dir, default build), MACHINE (fitted sleuth-machine/1,
# default data/machines/sim-nehalem-i7-920.yaml), BOUND (default 10%), SEED (default 1),
# SIM (the simulated machine), MODEL (time model, default stall), PIN (run --pin,
# default time), TRANSITION_US (switch cost given to sleuth schedule and so charged by the
# simulator, default 0), CONFIDENCE (sleuth schedule --confidence, default: its default),
# ANCHOR (sleuth schedule --anchor: auto, its default, anchors power on the profile's
# metered energy; off: the counters alone), KEEP (a directory to keep traces, profiles,
# schedules), REFINE=F2:FRAC (schedule --refine with a run of the first FRAC of the
# intervals at F2 GHz, as in bench/accuracy-workload.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
S=$B/sleuth
MACHINE=${MACHINE:-data/machines/sim-nehalem-i7-920.yaml}
SIM_MACHINE=${SIM:-data/sim/nehalem-i7-920.yaml}
MODEL=${MODEL:-stall}
PIN=${PIN:-time}
BOUND=${BOUND:-10%}
SEED=${SEED:-1}
TRANSITION_US=${TRANSITION_US:-0}
CONFIDENCE=${CONFIDENCE:-}
ANCHOR=${ANCHOR:-auto}
if ! grep -q 'static_w' "$MACHINE" || ! grep -q 'coeff' "$MACHINE"; then
	echo "$MACHINE has no fitted power model; fit it first (bench/calibrate-sim.sh)" >&2
	exit 1
fi
if [ -n "${KEEP:-}" ]; then
	D=$KEEP
	mkdir -p "$D"
else
	D=$(mktemp -d)
	trap 'rm -rf "$D"' EXIT
fi
[ $# -gt 0 ] || set -- data/workloads/*.yaml
bound=$(awk -v b="${BOUND%\%}" -v pct="$([ "${BOUND%\%}" != "$BOUND" ] && echo 1 || echo 0)" \
	'BEGIN {printf "%.10g", pct ? b / 100 : b}')
pstates=$(sed -nE 's/^ *- \{ghz: ([0-9.]+),.*/\1/p' "$SIM_MACHINE")

# totals TRACE: "time energy" summed over the intervals
totals() {
	sed -nE 's/^- \{t: ([^,]*),.*, e: ([^,]*), label.*/\1 \2/p' "$1" |
		awk '{t += $1; e += $2} END {printf "%.9g %.9g\n", t, e}'
}
# key FILE MAPKEY FIELD: a number from a one-line flow map of a schedule
key() { sed -nE "s/^$2: \{.*\b$3: ([^,}]*).*/\1/p" "$1"; }

acc=$D/accuracy.md
sav=$D/savings.md
sum=$D/summary.txt
: > "$acc"
: > "$sav"
: > "$sum"
for w in "$@"; do
	name=$(basename "$w" .yaml)
	sim() { "$S" simulate -q --seed "$SEED" -m "$SIM_MACHINE" "$w" "$@"; }
	# the profiled run: fmax, energy from the simulated meter, as measured
	sim -o "$D/$name.yaml"
	"$S" run -q --replay "$D/$name.yaml" --machine "$MACHINE" --pin "$PIN" --seed "$SEED" \
		-o "$D/$name.prof"
	refine=()
	if [ -n "${REFINE:-}" ]; then
		n=$(grep -c '^- {t:' "$D/$name.yaml")
		n=$(awk -v r="$REFINE" -v n="$n" 'BEGIN { split(r, a, ":"); k = int(a[2] * n + 0.5)
			print (k < 1 ? 1 : (k > n ? n : k)) }')
		sim --intervals "$n" --freq "${REFINE%%:*}" -o "$D/$name-ref.yaml"
		"$S" run -q --replay "$D/$name-ref.yaml" --machine "$MACHINE" --pin "$PIN" \
			--seed "$SEED" -o "$D/$name-ref.prof"
		refine=(--refine "$D/$name-ref.prof")
	fi
	# the truth at every P-state
	declare -A T=() E=()
	for f in $pstates; do
		sim --truth --freq "$f" -o "$D/$name-$f.yaml"
		read -r T[$f] E[$f] < <(totals "$D/$name-$f.yaml")
		rm -f "$D/$name-$f.yaml"
	done
	fmax=${pstates%%$'\n'*}
	for obj in min-energy min-edp; do
		sch=$D/$name-$obj.schedule.yaml
		args=("$D/$name.prof" --"$obj" --max-slowdown "$BOUND" --machine "$MACHINE" --model "$MODEL"
		      --transition-us "$TRANSITION_US" ${CONFIDENCE:+--confidence "$CONFIDENCE"}
		      --anchor "$ANCHOR" "${refine[@]}")
		"$S" schedule "${args[@]}" -o "$sch" > /dev/null
		# the best fixed frequency by the model (JSON best_fixed), as a P-state key
		mf=$("$S" schedule "${args[@]}" --format json | python3 -c '
import json, sys
b = json.load(sys.stdin).get("best_fixed")
print(b["ghz"] if b else "none")')
		mfix=none
		for f in $pstates; do
			awk -v a="$f" -v b="$mf" 'BEGIN {exit !(b != "none" && a - b < 1e-6 && b - a < 1e-6)}' &&
				mfix=$f
		done
		sim --truth --schedule "$sch" --profile "$D/$name.prof" -o "$D/$name-$obj.yaml"
		read -r st se < <(totals "$D/$name-$obj.yaml")
		pt=$(key "$sch" predicted time_s)
		pe=$(key "$sch" predicted energy_j)
		pb=$(key "$sch" baseline time_s)
		pbe=$(key "$sch" baseline energy_j)
		ghz=$(sed -nE 's/^- \{phase: ([0-9]+), ghz: ([0-9.]+),.*/\2/p' "$sch" | paste -sd/)
		margin=$(key "$sch" margin slowdown)
		margin=${margin:-0}
		fb=$(grep -q '^fallback:' "$sch" && echo 1 || echo 0)
		# the best fixed frequency by the simulated truth, within the bound
		best=$(for f in $pstates; do echo "$f ${T[$f]} ${E[$f]}"; done |
			awk -v obj="$obj" -v tb="${T[$fmax]}" -v b="$bound" '
				$2 <= (1 + b) * tb * (1 + 1e-12) {
					v = obj == "min-energy" ? $3 : $3 * $2
					if (!n++ || v < best) { best = v; f = $1 }
				}
				END {print f}')
		awk -v name="$name" -v obj="$obj" -v ghz="$ghz" -v pt="$pt" -v pe="$pe" -v st="$st" \
			-v se="$se" -v tb="${T[$fmax]}" -v eb="${E[$fmax]}" -v pb="$pb" -v pbe="$pbe" \
			-v fb="$best" -v tf="${T[$best]}" -v ef="${E[$best]}" -v acc="$acc" -v sav="$sav" \
			-v fm="$mfix" -v tm="${T[$mfix]:-0}" -v em="${E[$mfix]:-0}" -v mg="$margin" \
			-v fb1="$fb" -v sum="$sum" -v b="$bound" '
			function err(p, s) { return sprintf("%+.1f%%", 100 * (p - s) / s) }
			function ch(a, b) { return sprintf("%+.1f%%", 100 * (a - b) / b) }
			function o(t, e) { return obj == "min-energy" ? e : e * t }
			BEGIN {
				printf "| %s | %s | %s | %.3f / %.3f (%s) | %.1f / %.1f (%s) | %.0f / %.0f (%s) |\n",
					name, obj, ghz, pt, st, err(pt, st), pe, se, err(pe, se),
					pt * pe, st * se, err(pt * pe, st * se) >> acc
				printf "| %s | %s | %s / %s | %.2f%%%s | %s / %s | %s: %s | %s | %s: %s | %s |\n",
					name, obj, ch(pt, pb), ch(st, tb), 100 * mg, fb1 ? " (fallback)" : "",
					ch(o(pt, pe), o(pb, pbe)),
					ch(o(st, se), o(tb, eb)), fb, ch(o(tf, ef), o(tb, eb)),
					ch(o(st, se), o(tf, ef)), fm, fm == "none" ? "-" : ch(tm, tb),
					fm == "none" ? "-" : ch(o(st, se), o(tm, em)) >> sav
				# name obj true-slowdown margin fallback obj-vs-fmax obj-vs-hindsight
				# obj-vs-model-fixed (nan when the model names none)
				printf "%s %s %.6f %.6f %d %.6f %.6f %s\n", name, obj, st / tb - 1, mg, fb1,
					o(st, se) / o(tb, eb) - 1, o(st, se) / o(tf, ef) - 1,
					fm == "none" ? "nan" : sprintf("%.6f", o(st, se) / o(tm, em) - 1) >> sum
			}'
	done
	unset T E
done

cat <<HEAD
Schedules (--max-slowdown $BOUND, --transition-us $TRANSITION_US, seed $SEED) against the simulated truth ($MACHINE)

Predicted (the schedule's predicted:) / simulated (--truth) totals:

| workload | objective | GHz per phase | time s | energy J | EDP J*s |
| --- | --- | --- | --- | --- | --- |
HEAD
cat "$acc"
cat <<HEAD

Savings (objective: energy or EDP), predicted / simulated:

Best fixed (sim): the P-state with the least simulated objective among those
whose simulated slowdown is within the bound.  Model's fixed: the best fixed
frequency sleuth schedule predicts (its JSON best_fixed), simulated.

| workload | objective | slowdown vs fmax | margin taken | objective vs fmax | best fixed (sim): GHz, objective vs fmax | schedule vs best fixed | model's fixed: GHz, slowdown (sim) | schedule vs model's fixed (sim) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
HEAD
cat "$sav"
echo
echo "Summary per objective (true = simulated): mean / max true slowdown, runs over the bound,"
echo "mean / max margin, fallbacks, mean objective vs fmax, vs hindsight-best fixed: mean, worse on"
echo
echo "| objective | true slowdown: mean / max | over $BOUND | margin: mean / max | fallbacks | objective vs fmax | vs hindsight-best fixed: mean / worse on |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
awk -v b="$bound" '
	{ k = $2; n[k]++; s[k] += $3; if (n[k] == 1 || $3 > mx[k]) { mx[k] = $3; mxw[k] = $1 }
	  over[k] += $3 > b * (1 + 1e-9); m[k] += $4; if ($4 > mm[k]) mm[k] = $4; f[k] += $5
	  of[k] += $6; oh[k] += $7; if ($7 > 0.0005) { worse[k]++; if ($7 > wmax[k]) { wmax[k] = $7; ww[k] = $1 } } }
	END {
		split("min-energy min-edp", ks, " ")
		for (i = 1; i <= 2; i++) { k = ks[i]; if (!n[k]) continue
			printf "| %s | %.1f%% / %.1f%% (%s) | %d of %d | %.2f%% / %.2f%% | %d | %+.1f%% | %+.1f%% / %d of %d%s |\n",
				k, 100 * s[k] / n[k], 100 * mx[k], mxw[k], over[k], n[k], 100 * m[k] / n[k],
				100 * mm[k], f[k], 100 * of[k] / n[k], 100 * oh[k] / n[k], worse[k], n[k],
				worse[k] ? sprintf(" (up to %+.1f%%, %s)", 100 * wmax[k], ww[k]) : "" }
	}' "$sum"
echo
echo "Rows (workload objective true-slowdown margin fallback objective-vs-fmax vs-hindsight-best"
echo "vs-model's-fixed, fractions):"
sed 's/^/row /' "$sum"
