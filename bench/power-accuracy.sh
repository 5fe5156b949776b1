#!/bin/bash
# End-to-end accuracy of the calibrated power model on the simulator: for
# every workload of data/workloads/ (none of them in the training suite),
# simulate its fmax run (meter noise and all), replay it with 4 counters,
# predict every interval at each target frequency, and compare with --truth
# traces of the same program at those frequencies:
#   - the relative error of each phase instance's mean power, averaged
#     weighted by the instance's intervals (the paper's metric), and the
#     worst instance;
#   - the relative error of each phase's energy (time and power together),
#     weighted by the phase's intervals.
#
#   bench/power-accuracy.sh [BUILDDIR] [FREQS...]   (default: 2.66 2.13 1.60)
# MACHINE=FILE uses another model (default data/machines/sim-nehalem-i7-920.yaml),
# SIM=FILE another simulated machine, SUITE=DIR other workloads (default
# data/workloads), MODEL another time model (default stall), SEED another
# simulation seed (default 1: the tuning split; 2 and 3 are held out).
# RUN="OPTIONS" adds options to `sleuth run --replay` (e.g. RUN="--counters 0":
# every event counted in every interval, so no event is interpolated and
# what is left is the power model's own error).  ANCHOR=off predicts power
# from the counters alone; the default, auto, anchors it on the replayed
# trace's metered energy (docs/models.md): then the fmax column, the
# profiled frequency, is the meter's own reading against the exact energy
# of the --truth traces, i.e. meter noise, and proves nothing about the
# model.  METER=exact replaces each interval's metered energy in the fmax
# trace by its exact energy there (the --truth trace at the run's own
# frequency) before the replay: what the anchor would do with a perfect
# reference meter at the profiled frequency, so that the difference from
# the default is what the meter's sampling costs the other columns.  A
# diagnostic: sleuth's models never see the truth in the default run.
# One line per workload and frequency; then the averages and the worst.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$src/build}")
shift || true
freqs=("$@")
[ ${#freqs[@]} -gt 0 ] || freqs=(2.66 2.13 1.60)
machine=${MACHINE:-$src/data/machines/sim-nehalem-i7-920.yaml}
sim=(-m "${SIM:-$src/data/sim/nehalem-i7-920.yaml}" --seed "${SEED:-1}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-pacc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sleuth=$build/sleuth

# score TRUTH_TRACE PREDICTION_CSV GHZ: "inst_avg inst_worst phase_energy"
# (percent).  The trace writes one interval per line, `t` first.
score() {
	awk -v f="$3" '
	BEGIN { n = 0 }  # unset, n would index t[""] (not t[0]) for interval 0
	FNR == NR {
		if (match($0, /^- \{t: [0-9.e+-]+/)) {
			t[n] = substr($0, 7, RLENGTH - 6) + 0
			match($0, /, e: [0-9.e+-]+/)
			e[n++] = substr($0, RSTART + 5, RLENGTH - 5) + 0
		}
		next
	}
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	($col["ghz"] - f) ^ 2 < 1e-8 {
		i = $col["interval"]; k = $col["instance"]; ph = $col["phase"]
		pe[k] += $col["energy_j"]; pt[k] += $col["time_s"]
		te[k] += e[i]; tt[k] += t[i]; ni[k]++
		ppe[ph] += $col["energy_j"]; tpe[ph] += e[i]; np[ph]++
		rows++
	}
	END {
		if (rows != n) { print "interval count mismatch: " rows " vs " n > "/dev/stderr"; exit 1 }
		for (k in ni) {
			err = (pe[k] / pt[k]) / (te[k] / tt[k]) - 1; if (err < 0) err = -err
			s += err * ni[k]; w += ni[k]; if (err > worst) worst = err
		}
		for (ph in np) {
			err = ppe[ph] / tpe[ph] - 1; if (err < 0) err = -err
			es += err * np[ph]; ew += np[ph]
		}
		printf "%.2f %.2f %.2f\n", 100 * s / w, 100 * worst, 100 * es / ew
	}' FS=, "$1" "$2"
}

printf "%-18s %-5s %12s %14s %15s\n" workload ghz power_avg% power_worst% phase_energy%
for wl in "${SUITE:-$src/data/workloads}"/*.yaml; do
	w=$(basename "$wl" .yaml)
	"$sleuth" simulate -q "$wl" "${sim[@]}" -o "$tmp/$w-max.yaml"
	if [ "${METER:-}" = exact ]; then
		f0=$(sed -n 's/^frequency_ghz: //p' "$tmp/$w-max.yaml")
		"$sleuth" simulate -q "$wl" "${sim[@]}" -f "$f0" --truth -o "$tmp/$w-f0.yaml"
		# the exact energy of interval n for the metered one (the same
		# intervals, one per line, in order)
		awk 'FNR == NR { if (match($0, /, e: [0-9.e+-]+/)) e[n++] = substr($0, RSTART, RLENGTH); next }
		     /^- \{t:/ { sub(/, e: [0-9.e+-]+/, e[m++]) }
		     { print }
		     END { if (m != n) { print "exact meter: " m " intervals vs " n > "/dev/stderr"; exit 1 } }' \
			n=0 "$tmp/$w-f0.yaml" m=0 "$tmp/$w-max.yaml" > "$tmp/$w-exact.yaml"
		mv "$tmp/$w-exact.yaml" "$tmp/$w-max.yaml"
	elif [ -n "${METER:-}" ]; then
		echo "power-accuracy.sh: METER=$METER: only METER=exact is known" >&2
		exit 2
	fi
	# shellcheck disable=SC2086  # RUN is a list of options
	"$sleuth" run -q --replay "$tmp/$w-max.yaml" --machine "$machine" ${RUN:-} -o "$tmp/$w.prof"
	fl=()
	for f in "${freqs[@]}"; do fl+=(--freq "$f"); done
	"$sleuth" predict "$tmp/$w.prof" "${fl[@]}" --model "${MODEL:-stall}" --per interval \
		--anchor "${ANCHOR:-auto}" \
		--format csv -o "$tmp/$w.csv"
	for f in "${freqs[@]}"; do
		"$sleuth" simulate -q "$wl" "${sim[@]}" -f "$f" --truth -o "$tmp/$w-$f.yaml"
		printf "%-18s %-5s %12s %14s %15s\n" "$w" "$f" $(score "$tmp/$w-$f.yaml" "$tmp/$w.csv" "$f")
	done
done | tee "$tmp/all.txt"
echo
awk '{ s[$2] += $3; n[$2]++; if ($3 > w[$2]) w[$2] = $3; if ($4 > wi[$2]) wi[$2] = $4
       e[$2] += $5; if ($5 > we[$2]) we[$2] = $5 }
     END { for (f in n) printf "%-5s mean power: avg %.2f%%, worst workload %.2f%%, worst instance %.2f%%; phase energy: avg %.2f%%, worst workload %.2f%%\n",
	   f, s[f] / n[f], w[f], wi[f], e[f] / n[f], we[f] }' "$tmp/all.txt" | sort -r
