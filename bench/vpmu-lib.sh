# Shared by bench/vpmu.sh, bench/vpmu-terms.sh, bench/vpmu-otherstalls.sh,
# bench/vpmu-worst.sh and bench/vpmu-dram-ab.sh (sourced, with the caller's BUILDDIR argument,
# after setting src, the source tree): the programs and tools, the fixed
# environment of the vPMU runs and one run.

build=$(realpath "${1:-$src/build}")
sleuth=$build/sleuth
progs=$build/bench/vpmu
compare=$build/bench/vpmu-compare
INTERVAL=${INTERVAL:-2M}
PERIOD=${PERIOD:-2003}

# The programs run in a fixed environment: the client's environment is on
# its stack, so another variable (WRITE_MODEL=1, say) shifts its stack
# addresses and changes its cache behaviour a little, as on real machines.
CLEAN_ENV=(env -i PATH=/usr/bin:/bin)
PSTATES=(2.66 2.53 2.40 2.26 2.13 2.00 1.86 1.73 1.60)
# The split: programs the vPMU machines are calibrated on, and held-out
# ones nothing is tuned on (tree: a training program added with issue 12,
# latency-bound, unlike the first four; docs/benchmarks.md "Memory-bound
# programs' power on the virtual PMU")
VPMU_TRAIN=(matmul stream sort interp tree)
VPMU_TEST=(chase hash zlib stencil crc)

# vrun MACHINE GHZ OUT PROGRAM ARGS...: one vPMU run; prints its wall time
# (PIN: run --pin, default time)
vrun() {
	local m=$1 f=$2 out=$3; shift 3
	local t0 t1
	t0=$(date +%s.%N)
	"${CLEAN_ENV[@]}" nice "$sleuth" run -q --backend vpmu --freq "$f" --interval "$INTERVAL" \
		--sample-period "$PERIOD" --pin "${PIN:-time}" --machine "$m" -o "$out" -- "$@" >/dev/null
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
