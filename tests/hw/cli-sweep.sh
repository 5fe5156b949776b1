# calibrate --sweep end to end on a fake sysfs tree whose CPU is the
# simulator: the frequency is set through cpufreq (userspace governor, or
# min = max), RAPL and hwmon are read, the model is fitted and the time
# model checked; the original cpufreq settings come back after success,
# failure and Ctrl-C.
. "$SRCDIR/tests/lib.sh"
export TMPDIR=$T
SIM="$SRCDIR/data/sim/nehalem-i7-920.yaml"

# tree ROOT GOVERNORS: two CPUs, an ondemand governor, RAPL near its wrap,
# a coretemp sensor
tree() {
	for c in 0 1; do
		local d=$1/devices/system/cpu/cpu$c/cpufreq
		mkdir -p "$d"
		echo acpi-cpufreq >"$d/scaling_driver"
		echo ondemand >"$d/scaling_governor"
		echo "$2" >"$d/scaling_available_governors"
		echo "<unsupported>" >"$d/scaling_setspeed"
		echo 2660000 >"$d/scaling_max_freq"
		echo 1600000 >"$d/scaling_min_freq"
	done
	local z=$1/class/powercap/intel-rapl:0
	mkdir -p "$z" "$1/class/hwmon/hwmon3"
	echo package-0 >"$z/name"
	echo 262143328850 >"$z/max_energy_range_uj"
	echo 262143000000 >"$z/energy_uj"
	echo coretemp >"$1/class/hwmon/hwmon3/name"
	echo 51000 >"$1/class/hwmon/hwmon3/temp1_input"
}
state() { cat "$1"/devices/system/cpu/cpu*/cpufreq/scaling_{governor,setspeed,min_freq,max_freq}; }

cat >"$T/skel.yaml" <<'YAML'
format: sleuth-machine/1
name: sim3
counters: {programmable: 4}
memory_latency_ns: 65
pstates:
  - {ghz: 2.66}
  - {ghz: 2.13}
  - {ghz: 1.60}
events:
  branch_sample: BR_INST_RETIRED:CONDITIONAL
  stall_cycles: UOPS_EXECUTED:PORT015_STALL_CYCLES
  llc_misses: LLC_MISSES
  resource_stalls: RESOURCE_STALLS:ANY
YAML
sweep() { "$SLEUTH" calibrate --sweep --sim "$SIM" -m "$T/skel.yaml" --select 4 --intervals 20 "$@"; }

for govs in "performance powersave userspace ondemand" "performance powersave"; do
	rm -rf "$T/sys" && tree "$T/sys" "$govs"
	before=$(state "$T/sys")
	out=$(sweep --sysfs "$T/sys" -o "$T/m.yaml" --keep "$T/runs" 2>&1) && ok || fail "sweep: $out"
	case $govs in *userspace*) how="the userspace governor" ;; *) how="scaling_min/max_freq" ;; esac
	grep -q "frequency set with $how; energy from sysfs:.*intel-rapl:0.*temperature from coretemp" \
		<<<"$out" && ok || fail "sweep report ($govs): $out"
	[ "$(state "$T/sys")" = "$before" ] && ok || fail "cpufreq not restored ($govs)"
	[ "$(grep -Ec '^  [0-9.]+ +train-' <<<"$out")" = 33 ] && ok || fail "not 11 workloads x 3 P-states: $out"
	grep -Eq '^  1\.6 +train-chase .* 51\.0$' <<<"$out" && ok || fail "run row at 1.6 GHz: $out"
	grep -q "^time model (each workload's 2.66 GHz run predicts the others)" <<<"$out" && ok ||
		fail "no time-model check: $out"
	"$SLEUTH" machine show "$T/m.yaml" | grep -q "power and energy *yes" && ok ||
		fail "the swept model cannot predict power"
	grep -q "^temperature: 51.0 to 51.0 C in training, too narrow a spread" <<<"$out" && ok ||
		fail "constant temperature not reported: $out"
	ls "$T/runs"/train-alu-1.600.trace.yaml >/dev/null && ok || fail "--keep kept no runs"
	rm -rf "$T/runs"
done
ls "$T"/sleuth-sweep-* >/dev/null 2>&1 && fail "runs left in TMPDIR" || ok

# a die that warms and cools during the sweep: the sensor is a FIFO that a
# writer holds open, writing the next reading of a 40-79 C sawtooth every
# 2 ms.  A read takes what is waiting or blocks for the next write, so
# each read sees a later reading than the one before however fast the
# sweep goes (a writer that replaced a file on a timer saw a whole sweep
# pass in two steps on a quick machine).  The temperatures reach
# calibrate, which fits the term when asked to (--temp-term on: the
# simulated power does not depend on this sensor, so whether the term
# lowers the cross-validated error -- what auto decides on -- depends on
# how the readings fell)
rm -rf "$T/sys" && tree "$T/sys" "userspace ondemand"
sensor="$T/sys/class/hwmon/hwmon3/temp1_input"
rm -f "$sensor" && mkfifo "$sensor" || fail "could not make the sensor FIFO"
# (writes with no reader fail with EPIPE, which the writer ignores)
( trap '' PIPE
  exec 3>"$sensor"
  i=0
  while :; do
	i=$((i + 1))
	echo $((40000 + (i * 1000) % 40000)) >&3 2>/dev/null
	sleep 0.002
  done ) &
writer=$!
out=$(sweep --sysfs "$T/sys" --temp-term on -o "$T/mt.yaml" 2>&1) && ok ||
	fail "sweep with temperatures: $out"
# (stop the writer before the tree is rebuilt: it would keep the FIFO
# open)
kill $writer 2>/dev/null
wait $writer 2>/dev/null
grep -q "^temperature: static power [+-] .* W per volt per C above" <<<"$out" && ok ||
	fail "no temperature term from the sweep: $out"
grep -q "^  temp_coeff: " "$T/mt.yaml" && ok || fail "no temp_coeff in the swept model"

# a frequency that does not stick: error, and the settings back
rm -rf "$T/sys" && tree "$T/sys" "userspace ondemand" || fail "could not rebuild the fake tree"
echo 800000 >"$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"
before=$(state "$T/sys")
# (-q: the sweep's progress lines come before an error in the middle)
expect_exit 1 "set to 2.66 GHz but reports 0.8 GHz" -- sweep -q --sysfs "$T/sys" -o "$T/bad.yaml"
expect_absent "$T/bad.yaml"
[ "$(state "$T/sys")" = "$before" ] && ok || fail "cpufreq not restored after an error"
rm "$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"
# a file that cannot be written
rm "$T/sys/devices/system/cpu/cpu1/cpufreq/scaling_setspeed"
mkdir "$T/sys/devices/system/cpu/cpu1/cpufreq/scaling_setspeed"
expect_exit 1 "cannot write '2660000' to .*cpu1/cpufreq/scaling_setspeed" -- \
	sweep -q --sysfs "$T/sys" -o "$T/bad.yaml"
[ "$(cat "$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")" = ondemand ] && ok ||
	fail "cpu0 not restored after a write error"
rmdir "$T/sys/devices/system/cpu/cpu1/cpufreq/scaling_setspeed"
echo "<unsupported>" >"$T/sys/devices/system/cpu/cpu1/cpufreq/scaling_setspeed"

# Ctrl-C in the middle: the handler restores, then the signal ends sleuth
# (job control on, so that the background sweep does not start with SIGINT
# ignored, as a non-interactive shell's background jobs do)
before=$(state "$T/sys")
set -m
"$SLEUTH" calibrate --sweep --sim "$SIM" -m "$T/skel.yaml" --select 3 --intervals 4000 \
	--sysfs "$T/sys" -o "$T/int.yaml" -q 2>/dev/null &
pid=$!
set +m
for _ in $(seq 200); do
	grep -q userspace "$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor" && break
	sleep 0.05
done
grep -q userspace "$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor" && ok ||
	fail "the sweep never set the governor"
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && ok || fail "after SIGINT exit $rc, wanted 130"
[ "$(state "$T/sys")" = "$before" ] && ok || fail "cpufreq not restored after SIGINT"
expect_absent "$T/int.yaml"

# a skeleton without power terms and no --select: refused before sweeping
expect_exit 1 "lists no power terms" -- "$SLEUTH" calibrate --sweep --sim "$SIM" \
	-m "$T/skel.yaml" --sysfs "$T/sys" -o "$T/bad.yaml"
[ "$(cat "$T/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")" = ondemand ] && ok ||
	fail "a refused sweep touched cpufreq"
# usage
expect_exit 2 "go with --sweep" -- "$SLEUTH" calibrate -m "$T/skel.yaml" -o x --sim "$SIM" a
expect_exit 2 "drop the inputs" -- sweep --sysfs "$T/sys" -o x extra.yaml
# this machine as the CPU: the native kernels under the perf backend; CI has
# no PMU, so the first run fails there, after the idle pause, and cpufreq
# comes back
before=$(state "$T/sys")
out=$("$SLEUTH" calibrate --sweep -m "$T/skel.yaml" -o "$T/bad.yaml" --sysfs "$T/sys" \
	--select 3 --seconds 0.1 2>&1)
rc=$?
if "$SLEUTH" doctor 2>/dev/null | grep -q '^hardware events: *no'; then
	[ $rc = 1 ] && grep -q "^sleuth: int at 2.66 GHz: .*PMU" <<<"$out" && ok ||
		fail "native sweep without a PMU: $rc $out"
	expect_absent "$T/bad.yaml"
fi
[ "$(state "$T/sys")" = "$before" ] && ok || fail "cpufreq not restored after a native sweep"
# the kernels themselves
for k in int fp branchy stream chase mixed; do
	expect_ok -- "$SLEUTH" calibrate --kernel $k 0.02
done
expect_exit 1 "no training kernel 'warp'" -- "$SLEUTH" calibrate --kernel warp 0.1
expect_exit 2 "--seconds '0'" -- sweep --sysfs "$T/sys" -o x --seconds 0
finish
