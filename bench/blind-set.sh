#!/bin/bash
# A blind workload set measured once (docs/benchmarks.md, "The eighteenth
# blind set" and the sets before it): every figure of issue 12's goals on
# one directory of workloads, all held out, on the hard simulated machine
# and its model, `--model mlp` with 4 counters unless said otherwise, at
# seeds 1-3 -- by the same benches that give the suites' figures, so that a
# set's section is one command and its tables are this script's output,
# not a hand-kept chain:
#   - time: bench/accuracy-suites.sh (stall and mlp models, fmax -> 1.60 and
#     2.13 GHz, error per true phase instance) -> time.txt, time-rows.txt;
#   - phases: bench/phases-suites.sh (ARI, `run --replay --score`) ->
#     phases.txt (traces kept in traces/);
#   - power: bench/power-accuracy.sh at 2.13 and 1.60 GHz, anchored on the
#     meter (the default), with an exact meter at f0 (METER=exact) and from
#     the counters alone (ANCHOR=off) -> pow-{auto,exact,off}-sN.txt;
#   - schedules: bench/schedule-confidence.sh (mlp and stall models,
#     `--max-slowdown 10%`, default confidence) -> sched.txt, sched/;
# then summary.md: the goal table, the per-workload table and the set's
# row for the table of blind sets.
#
#   bench/blind-set.sh [BUILDDIR] SETDIR OUTDIR
# SEEDS (default "1 2 3"); SUMMARY_ONLY=1 writes summary.md from the
# results already in OUTDIR.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: bench/blind-set.sh [BUILDDIR] SETDIR OUTDIR" >&2; exit 2; }
if [ $# -ge 3 ]; then build=$(realpath "$1"); shift; else build=$src/build; fi
set_dir=$(realpath "$1")
[ -x "$build/sleuth" ] || { echo "bench/blind-set.sh: no $build/sleuth: build it first (ninja -C $build)" >&2; exit 2; }
ls "$set_dir"/*.yaml >/dev/null 2>&1 ||
	{ echo "bench/blind-set.sh: no workloads (*.yaml) in $set_dir: give a workload directory such as data/workloads/unseen18" >&2; exit 2; }
mkdir -p "$2"
out=$(realpath "$2")
seeds=${SEEDS:-1 2 3}
set_name=$(basename "$set_dir")
hm=$src/data/machines/sim-nehalem-i7-920-hard.yaml hs=$src/data/sim/nehalem-i7-920-hard.yaml

if [ "${SUMMARY_ONLY:-0}" = 0 ]; then
	SUITES=$set_dir SEEDS=$seeds KEEP=$out/time-rows.txt \
		"$src/bench/accuracy-suites.sh" "$build" >"$out/time.txt"
	mkdir -p "$out/traces"
	TRACES=$out/traces SEEDS=$seeds SUITES=$set_dir \
		"$src/bench/phases-suites.sh" "$build" >"$out/phases.txt"
	for a in auto exact off; do
		for s in $seeds; do
			if [ $a = exact ]; then m=(METER=exact ANCHOR=auto); else m=("ANCHOR=$a"); fi
			env MACHINE="$hm" SIM="$hs" SUITE="$set_dir" MODEL=mlp SEED="$s" "${m[@]}" \
				"$src/bench/power-accuracy.sh" "$build" 2.13 1.60 >"$out/pow-$a-s$s.txt"
		done
	done
	B=$build SEEDS=$seeds SUITES=$set_dir \
		"$src/bench/schedule-confidence.sh" "$out/sched" >"$out/sched.txt"
fi

# The summary.  An ARI to two places, to three where two would round a
# run below 0.95 up to it.
ari='function ari(v,  x) { x = sprintf("%.2f", v); return (v < 0.95 && x + 0 >= 0.95) ? sprintf("%.3f", v) : x }'
summary() {
	local s a trow prow
	echo "# $set_name (seeds ${seeds// / / }; all held out)"
	echo
	echo "| goal | $set_name | met |"
	echo "| --- | --- | --- |"
	# time: true-instance average over the runs and the worst instance, per model
	awk -v set="$set_name" '$1 == set {
			k = $6 " " $5; n[k]++; s[k] += $12
			if ($13 > w[k]) { w[k] = $13; ww[k] = $3 " s" $2 }
			if ($6 == "mlp" && $13 > 5) { over++; ol = ol (ol ? ", " : "") $3 " s" $2 " " $13 " at " $5 } }
		END {
			a16 = s["mlp 1.60"] / n["mlp 1.60"]; a21 = s["mlp 2.13"] / n["mlp 2.13"]
			printf "| time (mlp), true instance, <= 1.0%% average (1.60 / 2.13) | %.2f / %.2f over the %d runs; stall model %.2f / %.2f | %s |\n",
				a16, a21, n["mlp 1.60"], s["stall 1.60"] / n["stall 1.60"], s["stall 2.13"] / n["stall 2.13"],
				(a16 <= 1 && a21 <= 1) ? "**yes**" : "no"
			printf "| time (mlp): <= 5%% worst true instance (1.60 / 2.13) | %.2f / %.2f (%s, %s); %d of %d runs over 5%%%s; stall model %.2f / %.2f | %s |\n",
				w["mlp 1.60"], w["mlp 2.13"], ww["mlp 1.60"], ww["mlp 2.13"], over,
				n["mlp 1.60"] + n["mlp 2.13"], over ? " (" ol ")" : "",
				w["stall 1.60"], w["stall 2.13"], over ? "no" : "**yes**" }' "$out/time-rows.txt"
	awk -v set="$set_name" "$ari"' $1 == set && NF == 5 {
			n++; t += $4; if ($4 < 0.95) { b++; bl = bl (bl ? ", " : "") $3 " s" $2 " " ari($4) } }
		END { printf "| phases: ARI >= 0.95 every run | mean %.3f; %d of %d below%s | %s |\n",
			t / n, b, n, b ? ": " bl : "", b ? "no" : "**yes**" }' "$out/phases.txt"
	# power: per kind (anchored, exact meter, counters only) each seed's
	# line "2.13 avg worst 1.60 avg worst" (pow-KIND.sum), then one line
	# "kind|averages|worsts|runs over 2.5%|runs over 1%" (pow.sum)
	for a in auto exact off; do
		for s in $seeds; do
			awk '$2 == "mean" { sub(/%,/, "", $5); sub(/%;/, "", $11); printf "%s %s %s\n", $1, $5, $11 }' \
				"$out/pow-$a-s$s.txt" | sort -r | tr '\n' ' '
			echo
		done >"$out/pow-$a.sum"
		awk -v kind=$a '
			{ avg = avg (avg ? ", " : "") $2 " / " $5; wst = wst (wst ? ", " : "") $3 " / " $6
			  if ($3 > 2.5 || $6 > 2.5) bad++; if ($2 > 1 || $5 > 1) badavg++ }
			END { print kind "|" avg "|" wst "|" bad + 0 "|" badavg + 0 }' "$out/pow-$a.sum"
	done >"$out/pow.sum"
	IFS='|' read -r _ aavg awst abad aavgbad < <(sed -n 1p "$out/pow.sum")
	IFS='|' read -r _ _ ewst ebad _ < <(sed -n 2p "$out/pow.sum")
	IFS='|' read -r _ oavg owst obad oavgbad < <(sed -n 3p "$out/pow.sum")
	local worstwl
	worstwl=$(for s in $seeds; do awk -v s="$s" 'NF == 5 && $1 != "workload" && $4 > 2.5 { print $1 " s" s " at " $2 }' "$out/pow-auto-s$s.txt"; done | paste -sd, - | sed 's/,/, /g')
	echo "| power per instance, anchored: <= 1.0% average (2.13 / 1.60) | $aavg | $([ "$aavgbad" = 0 ] && echo '**yes**' || echo no) |"
	echo "| power, anchored: <= 2.5% worst instance (2.13 / 1.60) | $awst${worstwl:+ (over 2.5%: $worstwl)} | $([ "$abad" = 0 ] && echo '**yes**' || echo no) |"
	echo "| the same with an exact meter at f0 (\`METER=exact\`) | $ewst | $([ "$ebad" = 0 ] && echo '(yes)' || echo no) |"
	echo "| power, counters only: <= 1.0% average (2.13 / 1.60) | $oavg | $([ "$oavgbad" = 0 ] && echo yes || echo no) |"
	echo "| power, counters only: <= 2.5% worst instance | $owst | $([ "$obad" = 0 ] && echo yes || echo no) |"
	# schedules, mlp: from bench/schedule-confidence.sh's rows (fractions)
	awk -v set="$set_name" '$1 == set && $2 == "mlp" {
			k = $4; n[k]++; if ($6 > mx[k]) { mx[k] = $6; mw[k] = $5 }
			over += $6 > 0.10 * (1 + 1e-9); mg[k] += $7; h[k] += $10; fm[k] += $9
			if ($10 > 0.0005) worse++; runs++ }
		END {
			printf "| schedule (mlp, default confidence, `--max-slowdown 10%%`): true slowdown within the bound | %d of %d over (min-energy max %.2f%%, %s; min-EDP %.2f%%, %s); margins %.2f / %.2f%% on average | %s |\n",
				over, runs, 100 * mx["min-energy"], mw["min-energy"], 100 * mx["min-edp"], mw["min-edp"],
				100 * mg["min-energy"] / n["min-energy"], 100 * mg["min-edp"] / n["min-edp"],
				over ? "no" : "**yes**"
			printf "| schedule (mlp): per-phase beats the hindsight-best fixed frequency on true energy (min-energy / min-EDP) | %+.2f%% / %+.2f%% on average; worse on %d of %d; vs fmax %+.1f%% / %+.1f%% | %s |\n",
				100 * h["min-energy"] / n["min-energy"], 100 * h["min-edp"] / n["min-edp"], worse, runs,
				100 * fm["min-energy"] / n["min-energy"], 100 * fm["min-edp"] / n["min-edp"],
				worse ? "no" : "**yes**, every run" }' "$out/sched/rows.txt"
	echo
	echo "Per workload (mlp; true instances, average / worst %, seeds ${seeds// /, };"
	echo "power over detected instances at 1.60 GHz, average / worst %):"
	echo
	echo "| workload | time at 1.60 | time at 2.13 | ARI | power, anchored | power, counters only |"
	echo "| --- | --- | --- | --- | --- | --- |"
	{
		awk -v set="$set_name" '$1 == set && $6 == "mlp" { print "t" $5, $3, $2, sprintf("%.2f/%.2f", $12, $13) }' "$out/time-rows.txt"
		awk -v set="$set_name" "$ari"' $1 == set && NF == 5 { print "ari", $3, $2, ari($4) }' "$out/phases.txt"
		for a in auto off; do
			for s in $seeds; do
				awk -v a=$a -v s="$s" 'NF == 5 && $2 == "1.60" { print "p" a, $1, s, $3 "/" $4 }' "$out/pow-$a-s$s.txt"
			done
		done
	} | awk -v seeds="$seeds" '
		{ v[$1 " " $2 " " $3] = $4; w[$2] = 1 }
		END { ns = split(seeds, sd, " "); nw = 0
		      for (x in w) ws[++nw] = x
		      for (i = 1; i <= nw; i++) for (j = i + 1; j <= nw; j++) if (ws[j] < ws[i]) { t = ws[i]; ws[i] = ws[j]; ws[j] = t }
		      split("t1.60 t2.13 ari pauto poff", col, " ")
		      for (i = 1; i <= nw; i++) {
			line = "| " ws[i]
			for (c = 1; c <= 5; c++) { cell = ""
				for (k = 1; k <= ns; k++) cell = cell (k > 1 ? ", " : "") v[col[c] " " ws[i] " " sd[k]]
				line = line " | " cell }
			print line " |" } }'
	echo
	echo "Row for the table of blind sets (time avg / worst at 1.60; time worst at 2.13;"
	echo "runs over 5%; ARI mean / runs below 0.95; anchored power worst at 1.60, with an exact"
	echo "meter; schedules worse than hindsight):"
	echo
	trow=$(awk -v set="$set_name" '$1 == set && $6 == "mlp" { k = $5; n[k]++; s[k] += $12; if ($13 > w[k]) w[k] = $13; o += $13 > 5 }
		END { printf "%.2f / %.2f | %.2f | %d", s["1.60"] / n["1.60"], w["1.60"], w["2.13"], o }' "$out/time-rows.txt")
	prow=$(awk -v set="$set_name" '$1 == set && NF == 5 { n++; t += $4; b += $4 < 0.95 } END { printf "%.3f / %d", t / n, b }' "$out/phases.txt")
	local p16 e16 hw
	p16=$(awk '{ print $6 }' "$out/pow-auto.sum" | sort -g | tail -1)
	e16=$(awk '{ print $6 }' "$out/pow-exact.sum" | sort -g | tail -1)
	hw=$(awk -v set="$set_name" '$1 == set && $2 == "mlp" { w += $10 > 0.0005 } END { print w + 0 }' "$out/sched/rows.txt")
	echo "| $set_name | $trow | $prow | $p16; $e16 | $hw |"
}
summary >"$out/summary.md"
cat "$out/summary.md"
