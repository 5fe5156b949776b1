#!/bin/bash
# Convert the ODROID-XU3 measurements of the ARMPM work (Kris Nikov,
# https://github.com/kranik/ARMPM_BUILDMODEL, Examples/Concatenated_Data/...)
# into sleuth's own formats, so that `sleuth calibrate` and the power model
# can be checked on real hardware (docs/benchmarks.md, "Real data: ODROID-XU3
# Cortex-A15").  The data is not part of sleuth: this script reads a copy.
#
#   bench/xu3/xu3-to-sleuth.sh [-n] DATA OUTDIR
#
# DATA: tab-separated, one row per sample (about 0.5 s), a '#' header line
# naming the columns: Timestamp (ns), Benchmark, Run(#), CPU Frequency(MHz),
# CPU Temperature(C), A15 Voltage(V), A15 Current(A), A15 Power(W), then one
# column per PMU event (CPU_CYCLES, INST_RETIRED, ...).  Columns are found
# by name, so the cBench and PARSEC files (different events) both work.
#
# Writes OUTDIR/BENCH@MHZ-rRUN.yaml, one sleuth-trace/1 per benchmark, run
# and frequency (workload: BENCH, so cross-validation holds out a
# benchmark's runs together), with each sample as an interval:
#   t     the time since the previous sample of the run (the first sample:
#         the run's median spacing), s;
#   n     the counts, CPU_CYCLES as `cycles`, INST_RETIRED both as
#         `instructions` and under its own name (on the A15 it is a
#         programmable event, so the power model may use it);
#   e     power x t (the data gives power, sampled, in W);
#   temp  the die temperature (omitted with -n: traces without temperature).
# and OUTDIR/xu3-a15.skeleton.yaml: a sleuth-machine/1 skeleton with one
# P-state per frequency in the data, at the voltage the data shows there
# (refused if a frequency shows two voltages).
set -euo pipefail
notemp=0
if [ "${1:-}" = -n ]; then notemp=1; shift; fi
if [ $# -ne 2 ]; then
	echo "usage: $0 [-n] DATA OUTDIR" >&2
	exit 2
fi
data=$1 out=$2
[ -r "$data" ] || { echo "xu3-to-sleuth: cannot read $data" >&2; exit 1; }
mkdir -p "$out"
LC_ALL=C awk -F'\t' -v out="$out" -v notemp="$notemp" -v src="$data" '
function die(msg) { print "xu3-to-sleuth: " src ": " msg > "/dev/stderr"; bad = 1; exit 1 }
function col(re,   i) { for (i = 1; i <= NF; i++) if ($i ~ re) return i; die("no column matching " re " in the header") }
# write the buffered group (one benchmark, run and frequency) as a trace
function flush(   f, i, n, sp, med, tmp, t, s, cmd) {
	if (!ng) return
	f = out "/" gb "@" gf "-r" gr ".yaml"
	# median spacing, for the first sample (its start is not known)
	n = 0
	for (i = 2; i <= ng; i++) sp[++n] = (ts[i] - ts[i - 1]) / 1e9
	if (n == 0) med = 0.5
	else {
		# insertion sort: groups are a few hundred samples
		for (i = 2; i <= n; i++) { tmp = sp[i]; for (s = i - 1; s >= 1 && sp[s] > tmp; s--) sp[s + 1] = sp[s]; sp[s + 1] = tmp }
		med = sp[int((n + 1) / 2)]
	}
	printf "format: sleuth-trace/1\nworkload: %s\nfrequency_ghz: %g\n", gb, gf / 1000 > f
	printf "# from %s: %s run %s at %s MHz, %d samples\n", src, gb, gr, gf, ng > f
	printf "interval_instructions: %d\n", 1000000000 > f
	printf "events: [cycles, instructions" > f
	for (k = 1; k <= nev; k++) printf ", %s", evname[k] > f
	printf "]\nintervals:\n" > f
	for (i = 1; i <= ng; i++) {
		t = i == 1 ? med : (ts[i] - ts[i - 1]) / 1e9
		if (!(t > 0)) die(gb " run " gr " at " gf " MHz: timestamps not increasing")
		printf "  - {t: %.6f, n: [%s, %s%s], br: [], e: %.6f", t, cyc[i], ins[i], rest[i], pw[i] * t > f
		if (!notemp) printf ", temp: %s", tc[i] > f
		printf "}\n" > f
	}
	close(f)
	nfiles++
	ng = 0
}
NR == 1 {
	if ($1 !~ /^#/) die("the first line is not a # header")
	sub(/^#/, "", $1)
	cts = col("^Timestamp"); cb = col("^Benchmark$"); cr = col("^Run")
	cf = col("Frequency\\(MHz\\)$"); ct = col("Temperature\\(C\\)$")
	cv = col("Voltage\\(V\\)$"); cp = col("Power\\(W\\)$")
	ccyc = col("^CPU_CYCLES$"); cins = col("^INST_RETIRED$")
	nev = 0
	for (i = cp + 1; i <= NF; i++)
		if (i != ccyc) { evname[++nev] = $i; evcol[nev] = i }
	next
}
/^#/ || NF == 0 { next }
{
	b = $cb; r = $cr; fr = $cf + 0
	if (b == "" || !(fr > 0)) die("line " NR ": no benchmark or frequency")
	if (!($cp > 0)) die("line " NR ": power " $cp " W; it must be > 0")
	if ($cv + 0 > 0) {
		if (fr in volts && volts[fr] != $cv + 0)
			die(fr " MHz shows two voltages (" volts[fr] " and " $cv + 0 " V)")
		volts[fr] = $cv + 0
	}
	if (ng && (b != gb || r != gr || fr != gf)) flush()
	if (!ng) {
		gb = b; gr = r; gf = fr
		if ((b, r, fr) in seen) die(b " run " r " at " fr " MHz is split in two places")
		seen[b, r, fr] = 1
	}
	ng++
	ts[ng] = $cts; pw[ng] = $cp + 0; tc[ng] = $ct + 0; cyc[ng] = $ccyc; ins[ng] = $cins
	s = ""
	for (k = 1; k <= nev; k++) s = s ", " ($evcol[k] == "" ? 0 : $evcol[k])
	rest[ng] = s
}
END {
	if (bad) exit 1
	flush()
	f = out "/xu3-a15.skeleton.yaml"
	printf "# ODROID-XU3 Cortex-A15 cluster, from %s: the P-states and voltages\n", src > f
	printf "# the data shows (no static_w, no coefficients: sleuth calibrate fits\n" > f
	printf "# them).  memory_latency_ns is not measured by this dataset; only the\n" > f
	printf "# stall time model would use it, and the power bench does not.\n" > f
	printf "format: sleuth-machine/1\nname: odroid-xu3-cortex-a15\n" > f
	printf "counters: {programmable: 6}\nmemory_latency_ns: 100\npstates:\n" > f
	for (fr in volts) printf "  - {ghz: %g, volts: %g}\n", fr / 1000, volts[fr] > f
	printf "events:\n  branch_sample: BRANCH_PRED\n" > f
	close(f)
	printf "xu3-to-sleuth: %d traces and %s\n", nfiles, f > "/dev/stderr"
}' "$data"
