#!/bin/bash
# Run the libFuzzer harnesses of tests/fuzz, each for SECONDS, on a corpus
# seeded from the shipped files (data/, tests/schedule/data) and from small
# files sleuth itself writes.  The corpus grows across runs in
# BUILD/fuzz-corpus/HARNESS; crashes land in BUILD/fuzz-crashes/.  Prints one
# table row per harness (harness | seconds | runs | crashes) and exits
# non-zero if any harness crashed.
#
#   CC=clang meson setup build-fuzz -Dfuzz=enabled \
#       -Db_sanitize=address,undefined -Db_lundef=false
#   tests/fuzz/run.sh build-fuzz 30               # every harness, 30 s each
#   tests/fuzz/run.sh build-fuzz 600 trace        # one harness, 10 minutes
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
B=${1:?usage: tests/fuzz/run.sh BUILDDIR [SECONDS [HARNESS...]]}
S=${2:-30}
shift $(($# < 2 ? $# : 2))
ALL=(trace machine simmachine workload schedule profile powerlog idlelog predictions pmumap)
[ $# -gt 0 ] && ALL=("$@")

targets=(sleuth)
for h in "${ALL[@]}"; do targets+=("tests/fuzz/fuzz-$h"); done
ninja -C "$B" "${targets[@]}" >/dev/null || { echo "build failed" >&2; exit 1; }
B=$(cd "$B" && pwd)
SLEUTH=$B/sleuth

# Seeds: shipped files, and the smallest valid outputs of sleuth itself.
seed_dir=$B/fuzz-seeds
# made again when a harness added since they were made has none
for h in "${ALL[@]}"; do [ -d "$seed_dir/$h" ] || rm -rf "$seed_dir"; done
if [ ! -d "$seed_dir" ]; then
	g=$(mktemp -d)
	trap 'rm -rf "$g"' EXIT
	(
		set -e
		cd "$g"
		export SLEUTH_DATADIR=$SRC
		"$SLEUTH" simulate -q "$SRC/data/workloads/gcc-like.yaml" --intervals 3 \
			-o trace.yaml --power-log power.csv --idle-log idle.csv
		"$SLEUTH" run -q --replay trace.yaml -o p.prof
		# a profile with the optional temperature section
		sed 's/^\(- {t: .*\)}$/\1, temp: 51.5}/' trace.yaml >trace-temp.yaml
		"$SLEUTH" run -q --replay trace-temp.yaml -o p-temp.prof
		# a version-2 profile with the per-interval frequency section
		"$SLEUTH" simulate -q "$SRC/data/workloads/gcc-like.yaml" --intervals 4 \
			--dither 2:1.60 -o trace-dither.yaml
		"$SLEUTH" run -q --replay trace-dither.yaml -o p-dither.prof
		# a profile with the same-code section (two phases of one code)
		"$SLEUTH" simulate -q "$SRC/data/workloads/hard/same-code.yaml" --intervals 20 \
			-m "$SRC/data/sim/nehalem-i7-920-hard.yaml" -o trace-same.yaml
		"$SLEUTH" run -q --replay trace-same.yaml \
			--machine "$SRC/data/machines/sim-nehalem-i7-920-hard.yaml" -o p-same.prof
		"$SLEUTH" predict p.prof --all --per instance --format csv -o pred.csv
		"$SLEUTH" schedule p.prof --min-edp -o s.yaml
		"$SLEUTH" schedule p.prof --min-energy --format json -o s.json
		head -c 3000 power.csv >power-head.csv
	) >/dev/null || { echo "cannot make the seeds" >&2; exit 1; }
	mkdir -p "$seed_dir"/{trace,machine,simmachine,workload,schedule,profile,powerlog,idlelog,predictions,pmumap}
	cp "$SRC"/data/measurements/traces/*.yaml "$g/trace.yaml" "$g/trace-dither.yaml" \
		"$seed_dir/trace/"
	cp "$SRC"/data/machines/*.yaml "$SRC/data/measurements/skeleton.yaml" \
		"$SRC"/tests/fuzz/seeds/machine/*.yaml "$seed_dir/machine/"
	cp "$SRC"/data/sim/*.yaml "$seed_dir/simmachine/"
	cp "$SRC"/data/workloads/*.yaml "$SRC"/data/workloads/train/*.yaml \
		"$SRC"/data/workloads/train/uncore/*.yaml "$SRC"/data/workloads/train/stalls/*.yaml \
		"$seed_dir/workload/"
	cp "$g/s.yaml" "$g/s.json" "$seed_dir/schedule/"
	cp "$g/p.prof" "$g/p-temp.prof" "$g/p-dither.prof" "$g/p-same.prof" "$seed_dir/profile/"
	cp "$g/power-head.csv" "$seed_dir/powerlog/"
	cp "$SRC/data/measurements/idle.csv" "$seed_dir/idlelog/"
	cp "$g/idle.csv" "$seed_dir/idlelog/idle-sim.csv"
	cp "$SRC/tests/schedule/data/pred-small.csv" "$g/pred.csv" "$seed_dir/predictions/"
	cp "$SRC/data/pmus/pmus.yaml" "$seed_dir/pmumap/"
fi

mkdir -p "$B/fuzz-corpus" "$B/fuzz-crashes" "$B/fuzz-logs"
bad=0
printf '| harness | seconds | runs | crashes |\n| --- | --- | --- | --- |\n'
for h in "${ALL[@]}"; do
	corpus=$B/fuzz-corpus/$h
	log=$B/fuzz-logs/$h.log
	mkdir -p "$corpus"
	# -close_fd_mask=2: the readers' warnings would flood the log; the
	# sanitizers' and libFuzzer's own reports still reach it.
	"$B/tests/fuzz/fuzz-$h" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -close_fd_mask=2 \
		-artifact_prefix="$B/fuzz-crashes/$h-" "$corpus" "$seed_dir/$h" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	crashes=0
	if [ "$rc" != 0 ]; then
		crashes=1
		bad=1
	fi
	printf '| %s | %s | %s | %s |\n' "$h" "$S" "${runs:-?}" "$crashes"
	if [ "$rc" != 0 ]; then
		echo "fuzz-$h exited $rc; the end of $log:" >&2
		tail -40 "$log" >&2
	fi
done
exit $bad
