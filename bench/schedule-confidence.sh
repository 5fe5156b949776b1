#!/bin/bash
# Schedules that keep their promise in truth (docs/benchmarks.md, "Schedules
# with a confidence"): bench/schedule-sim.sh on both suites, with the mlp
# model and the stall model, at seeds 1, 2 and 3, then the figures by split:
# tuning = seed 1 of the basic suite and of the first 12 hard workloads;
# held out = seeds 2 and 3 of every workload, and the hard workloads
# graph-bfs and video-encode at seed 1.
#
# usage: bench/schedule-confidence.sh [OUTDIR]     (default: a temporary directory)
# environment: B (build dir), CONFIDENCE (sleuth schedule --confidence; default its
# default), SEEDS (default "1 2 3"), MODELS (default "mlp stall"), ANCHOR (auto or
# off, passed to bench/schedule-sim.sh), REFINE (F2:FRAC: schedule --refine with a
# short run, bench/schedule-sim.sh), SUITES (default "basic hard": which suites;
# a directory instead of a name, e.g. data/workloads/unseen, is a suite of its
# own named after it, run on the hard machines and held out at every seed),
# FRESH (seeds of a second held-out split, reported apart as "fresh": seeds
# added after a change made because of a held-out failure), SUMMARY_ONLY=1
# (no runs: the figures of the runs already in OUTDIR)
# About 3 minutes per seed on two shared cores.
set -euo pipefail
cd "$(dirname "$0")/.."
O=${1:-$(mktemp -d)}
mkdir -p "$O"
SEEDS=${SEEDS:-1 2 3}
MODELS=${MODELS:-mlp stall}
SUITES=${SUITES:-basic hard}
suite() { [[ " $SUITES " == *" $1 "* ]]; }
HM=data/machines/sim-nehalem-i7-920-hard.yaml HS=data/sim/nehalem-i7-920-hard.yaml
FRESH=${FRESH:-}
[ "${SUMMARY_ONLY:-0}" = 0 ] || SEEDS=
for s in $SEEDS; do
	for m in $MODELS; do
		if [ "$m" = mlp ]; then
			! suite hard || env SEED="$s" MACHINE="$HM" SIM="$HS" MODEL=mlp PIN=time \
				bench/schedule-sim.sh data/workloads/hard/*.yaml >"$O/hard-mlp-s$s.md"
			! suite basic || env SEED="$s" MACHINE=data/machines/sim-nehalem-i7-920-mlp.yaml \
				SIM=data/sim/nehalem-i7-920-offcore.yaml MODEL=mlp PIN=time \
				bench/schedule-sim.sh >"$O/basic-mlp-s$s.md"
		else
			! suite basic || env SEED="$s" bench/schedule-sim.sh >"$O/basic-stall-s$s.md"
			! suite hard || env SEED="$s" MACHINE="$HM" SIM="$HS" MODEL=stall PIN=stall_cycles,llc_misses \
				bench/schedule-sim.sh data/workloads/hard/*.yaml >"$O/hard-stall-s$s.md"
		fi
		for d in $SUITES; do
			[ "$d" != basic ] && [ "$d" != hard ] || continue
			if [ "$m" = mlp ]; then pin=time; else pin=stall_cycles,llc_misses; fi
			env SEED="$s" MACHINE="$HM" SIM="$HS" MODEL="$m" PIN=$pin \
				bench/schedule-sim.sh "$d"/*.yaml >"$O/$(basename "$d")-$m-s$s.md"
		done
	done
done
# The rows of every run (full precision), by split
for f in "$O"/*-s[0-9].md; do
	b=$(basename "$f" .md)
	suite=${b%%-*} rest=${b#*-} model=${rest%-s*} seed=${b##*-s}
	fresh=0
	[[ " $FRESH " != *" $seed "* ]] || fresh=1
	awk -v suite="$suite" -v model="$model" -v seed="$seed" -v fresh="$fresh" '
		$1 == "row" {
			held = seed != 1 || (suite != "basic" && suite != "hard") \
			       || (suite == "hard" && ($2 == "graph-bfs" || $2 == "video-encode"))
			sp = fresh ? "fresh" : held ? "held-out" : "tuning"
			print suite, model, sp, $3, $2, $4, $5, $6, $7, $8, ($9 == "" ? "nan" : $9)
		}' "$f"
done >"$O/rows.txt"
# rows.txt: suite model split objective workload true-slowdown margin fallback
# objective-vs-fmax objective-vs-hindsight-best objective-vs-model's-fixed (fractions;
# the last nan when the model named no fixed frequency)
echo "| suite | model | split | objective | runs | true slowdown: mean / max | over 10% | margin: mean / max | fallbacks | objective vs fmax (true) | vs hindsight-best fixed: mean / worse on | vs the model's best fixed (true): mean / worse on |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
sort -k1,1 -k2,2 -k3,3r -k4,4 "$O/rows.txt" | awk '
	function flush() {
		if (!n) return
		printf "| %s | %s | %s | %s | %d | %.1f%% / %.2f%% (%s) | %d | %.2f%% / %.2f%% | %d | %+.1f%% | %+.2f%% / %d%s | %s |\n",
			a, b, c, d, n, 100 * st / n, 100 * mx, mxw, over, 100 * mg / n, 100 * mm, fb,
			100 * ov / n, 100 * h / n, worse,
			worse ? sprintf(" (up to %+.1f%%, %s)", 100 * wm, ww) : "",
			nf ? sprintf("%+.2f%% / %d of %d%s", 100 * fs / nf, fw, nf,
				     fw ? sprintf(" (up to %+.2f%%, %s)", 100 * fm, fmw) : "") : "-"
	}
	{
		k = $1 " " $2 " " $3 " " $4
		if (k != key) { flush(); key = k; a = $1; b = $2; c = $3; d = $4
			n = st = mx = over = mg = mm = fb = ov = h = worse = wm = nf = fs = fw = fm = 0
			mxw = ww = fmw = "" }
		n++; st += $6; if (n == 1 || $6 > mx) { mx = $6; mxw = $5 }
		over += $6 > 0.10 * (1 + 1e-9); mg += $7; if ($7 > mm) mm = $7; fb += $8
		ov += $9; h += $10
		if ($10 > 0.0005) { worse++; if ($10 > wm) { wm = $10; ww = $5 } }
		if ($11 != "nan") { nf++; fs += $11
			if ($11 > 0.0005) { fw++; if ($11 > fm) { fm = $11; fmw = $5 } } }
	}
	END { flush() }'
echo
echo "(rows: $O/rows.txt; per-run tables: $O/*.md)"
