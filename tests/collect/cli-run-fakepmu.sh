# `sleuth run` through the real perf backend on the fake PMU (a userspace
# model of the perf_event ABI, collect/fakepmu.c) for the PMUs sleuth must
# work on: each run must give a perf profile with counts and phases.
. "$SRCDIR/tests/lib.sh"
SPIN=$BUILDDIR/tests/progs/spin
cd "$T" || exit 1

# A machine model for PMU $1: branch event $2, stall event $3, then power
# events (test fixtures: event names valid for that PMU in libpfm4 4.13).
mkmodel() {
	local pmu=$1 branch=$2 stall=$3; shift 3
	{
		sed -n '/^format:/,/^events:/p' "$SRCDIR/data/machines/nehalem-i7-920.yaml" |
			sed "s/^name: .*/name: test-$pmu/"
		echo "  branch_sample: $branch"
		echo "  stall_cycles: $stall"
		echo "power:"
		echo "  constant: 0"
		echo "  terms:"
		for e in "$@"; do echo "    - {event: $e, coeff: 0.5}"; done
	} >"$pmu.yaml"
}
mkmodel nhm BR_INST_RETIRED:CONDITIONAL UOPS_EXECUTED:PORT015_STALL_CYCLES \
	LLC_MISSES RESOURCE_STALLS:ANY UOPS_EXECUTED:PORT234_CORE L2_RQSTS:MISS
mkmodel skl BR_INST_RETIRED:CONDITIONAL CYCLE_ACTIVITY:STALLS_TOTAL \
	LONGEST_LAT_CACHE:MISS RESOURCE_STALLS:ANY UOPS_EXECUTED:CORE L2_RQSTS:MISS
mkmodel icl BR_INST_RETIRED:COND CYCLE_ACTIVITY:STALLS_TOTAL \
	LONGEST_LAT_CACHE:MISS RESOURCE_STALLS:SB UOPS_EXECUTED:CORE BR_MISP_RETIRED:ALL_BRANCHES
cp icl.yaml spr.yaml
mkmodel amd64_fam19h_zen3 RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS DIV_CYCLES_BUSY_COUNT \
	RETIRED_OPS RETIRED_TAKEN_BRANCH_INSTRUCTIONS RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED \
	RETIRED_SSE_AVX_FLOPS:ANY
cp amd64_fam19h_zen3.yaml amd64_fam19h_zen4.yaml

# report's JSON summary field $2 of profile $1
field() {
	"$SLEUTH" report "$1" --format json -o - 2>/dev/null |
		sed -n "s/.*\"$2\": \([^,]*\),.*/\1/p" | head -1
}

# run PMU OPTS [sleuth run options]: a profile from the perf backend with
# counts in every interval and the synthetic program's phases
run_on() {
	local pmu=$1 opts=$2; shift 2
	local out
	if ! out=$(SLEUTH_FAKE_PMU=$pmu SLEUTH_FAKE_PMU_OPTS=$opts "$SLEUTH" run \
		--machine "$pmu.yaml" -o "$pmu.prof" "$@" -- "$SPIN" 0.4 2>&1); then
		fail "$pmu ($opts): sleuth run failed: $out"; return 1
	fi
	[ "$(field "$pmu.prof" backend)" = '"perf"' ] && ok ||
		{ fail "$pmu: not the perf backend: $out"; return 1; }
	local n
	n=$(field "$pmu.prof" intervals)
	[ "${n:-0}" -ge 4 ] && ok || fail "$pmu: $n intervals: $out"
	"$SLEUTH" phases "$pmu.prof" | grep -q "phases, " && ok || fail "$pmu: no phases"
	printf '%s\n' "$out"
}

for pmu in nhm skl icl spr; do
	run_on $pmu ht=0,watchdog=0 >/dev/null
done
for pmu in amd64_fam19h_zen3 amd64_fam19h_zen4; do
	run_on $pmu ht=0,watchdog=0 --counters 3 >/dev/null
done
finish
