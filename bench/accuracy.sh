#!/bin/bash
# End-to-end accuracy of the time models on the shipped simulated suite,
# through the CLI only: for every workload of data/workloads/, simulate its
# fmax trace, replay it with 4 counters and with unlimited counters, predict
# each target frequency with the stall and the linear model, and compare
# each phase instance's time with `sleuth simulate --truth` traces of the
# same program (bench/accuracy-workload.sh).  The paper's metric: relative
# error of each instance's time, averaged weighted by its intervals.
#
#   bench/accuracy.sh [BUILDDIR] [FREQS...]     (default: 1.60 2.13)
# Prints one line per workload, counters, target and model, then the
# docs/benchmarks.md table (markdown).  Deterministic (fixed seeds).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
shift || true
freqs=("$@")
[ ${#freqs[@]} -gt 0 ] || freqs=(1.60 2.13)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-acc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "workload counters ghz model instances avg_err% worst_instance% run_time_err% run_energy_err%"
for wl in "$src"/data/workloads/*.yaml; do
	"$src/bench/accuracy-workload.sh" "$build/sleuth" "$wl" "$tmp" 0 "4 0" "${freqs[@]}"
done | tee "$tmp/all.txt" | column -t
echo

# The table: per workload the stall model with 4 and unlimited counters and
# the linear model (which reads only cycles, so counters do not change it:
# checked below), at every frequency; then the mean over workloads, the
# worst workload, the worst single instance and the multiplexing cost.
awk -v freqs="${freqs[*]}" '
	{ key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; avg[key] = $6; inst[key] = $7; en[key] = $9
	  if (!($1 in seen)) { seen[$1] = 1; wl[++nw] = $1 } }
	END {
		nf = split(freqs, F, " ")
		nc = split("stall,4 stall,unlimited linear,4", C, " ")
		hdr = "| workload |"; sep = "| --- |"
		for (j = 1; j <= nf; j++) for (c = 1; c <= nc; c++) {
			split(C[c], mk, ",")
			hdr = hdr " " mk[1] " " F[j] (mk[1] == "stall" ? (mk[2] == 4 ? " (4 ctr)" : " (unlim.)") : "") " |"
			sep = sep " --- |"
		}
		print hdr; print sep
		for (i = 1; i <= nw; i++) {
			line = "| " wl[i] " |"
			for (j = 1; j <= nf; j++) for (c = 1; c <= nc; c++) {
				split(C[c], mk, ","); k = wl[i] SUBSEP mk[2] SUBSEP F[j] SUBSEP mk[1]
				line = line sprintf(" %.2f |", avg[k])
				s[j, c] += avg[k]
				if (avg[k] > ww[j, c]) ww[j, c] = avg[k]
				if (inst[k] > wi[j, c]) wi[j, c] = inst[k]
				ku = wl[i] SUBSEP "unlimited" SUBSEP F[j] SUBSEP "linear"
				if (mk[1] == "linear" && avg[k] != avg[ku])
					bad = bad " " wl[i] "@" F[j]
			}
			print line
		}
		m = "| **mean** |"; w = "| worst workload |"; x = "| worst instance |"
		for (j = 1; j <= nf; j++) for (c = 1; c <= nc; c++) {
			m = m sprintf(" **%.2f** |", s[j, c] / nw)
			w = w sprintf(" %.2f |", ww[j, c]); x = x sprintf(" %.2f |", wi[j, c])
		}
		print m; print w; print x
		print ""
		for (j = 1; j <= nf; j++) {
			printf "multiplexing cost at %s GHz (stall, mean 4 ctr - unlimited): %+.2f points\n",
			       F[j], (s[j, 1] - s[j, 2]) / nw
			se = 0; we = 0
			for (i = 1; i <= nw; i++) {
				e = en[wl[i], 4, F[j], "stall"]; se += e
				if (e > we) { we = e; wn = wl[i] }
			}
			printf "whole-run energy error at %s GHz (stall, 4 ctr): mean %.2f%%, worst %.2f%% (%s)\n",
			       F[j], se / nw, we, wn
		}
		if (bad != "") { print "linear model differs between 4 and unlimited counters:" bad; exit 1 }
	}' "$tmp/all.txt"
