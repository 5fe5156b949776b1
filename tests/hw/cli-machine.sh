# sleuth machine init/show beyond one PMU: voltages from an OPP table, bad
# trees and options (one-line errors, no partial file), show on shipped
# models, and calibrate refusing a machine without voltages.
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/hw/fakesys.sh"
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/collect/lsan-papi.supp:print_suppressions=0"
export LIBPFM_FORCE_PMU=skl
export XDG_DATA_HOME=$T/xdg # where machine init writes by default

# voltages from the OPP table in debugfs, all or nothing
fake_acpi "$T/opp"
for khz in 3400000 2800000 2200000 1600000 800000; do
	d="$T/opp/kernel/debug/opp/cpu0/opp:${khz}000/supply-0"
	mkdir -p "$d"
	echo $((600000 + khz / 5)) >"$d/u_volt_target"
done
expect_ok -- "$SLEUTH" machine init -q --sysfs "$T/opp" --chase-mb 4 -o "$T/v.yaml"
grep -q '{ghz: 3.4, volts: 1.28}' "$T/v.yaml" && ok || fail "no volts from OPP: $(cat "$T/v.yaml")"
grep -q 'voltages: the OPP table' "$T/v.yaml" && ok || fail "volts source not recorded"
rm "$T/opp/kernel/debug/opp/cpu0/opp:800000000/supply-0/u_volt_target"
expect_ok -- "$SLEUTH" machine init -q --sysfs "$T/opp" --chase-mb 4 -o "$T/nv.yaml"
grep -q 'volts' "$T/nv.yaml" && fail "a partial OPP table gave volts" || ok

# --pmu forces the PMU; the name comes from --cpu-name
unset LIBPFM_FORCE_PMU
expect_ok -- "$SLEUTH" machine init -q --pmu amd64_fam19h_zen3 --sysfs "$T/opp" --chase-mb 4 \
	--cpu-name "AMD Ryzen 9 5950X 16-Core Processor" -o "$T/z.yaml"
grep -q '^name: zen3-amd-ryzen-9-5950x-16-core$' "$T/z.yaml" && ok || fail "name: $(grep name: "$T/z.yaml")"
grep -q 'branch_sample: RETIRED_CONDITIONAL_BRANCH_INSTRUCTIONS' "$T/z.yaml" && ok || fail "zen3 branch"
expect_exit 1 "libpfm4 knows no PMU 'nosuch'" -- "$SLEUTH" machine init --pmu nosuch \
	--sysfs "$T/opp" -o "$T/bad.yaml"
expect_absent "$T/bad.yaml"
expect_exit 1 "no event map for PMU core .*add an entry" -- "$SLEUTH" machine init --pmu core \
	--sysfs "$T/opp" -o "$T/bad.yaml"
expect_absent "$T/bad.yaml"
export LIBPFM_FORCE_PMU=skl

# trees without cpufreq, or with garbage in it
mkdir -p "$T/empty"
expect_exit 1 "lists no frequency \(no cpufreq driver" -- "$SLEUTH" machine init \
	--sysfs "$T/empty" -o "$T/bad.yaml"
expect_absent "$T/bad.yaml"
fake_acpi "$T/junk"
echo "2000000 fast" >"$T/junk/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies"
expect_exit 1 "'fast' is not a frequency in kHz" -- "$SLEUTH" machine init \
	--sysfs "$T/junk" -o "$T/bad.yaml"
expect_absent "$T/bad.yaml"
# an event map naming an event the PMU lacks is refused before writing
sed 's/CYCLE_ACTIVITY:STALLS_L3_MISS/CYCLE_ACTIVITY:NO_SUCH_UMASK/' \
	"$SRCDIR/data/pmus/pmus.yaml" >"$T/map.yaml"
expect_exit 1 "memory_stall_cycles for PMU skl: event CYCLE_ACTIVITY:NO_SUCH_UMASK" -- \
	"$SLEUTH" machine init --pmu-map "$T/map.yaml" --sysfs "$T/opp" -o "$T/bad.yaml"
expect_absent "$T/bad.yaml"
expect_exit 2 "--chase-mb '0'" -- "$SLEUTH" machine init --chase-mb 0
expect_exit 2 "unknown subcommand 'frob'" -- "$SLEUTH" machine frob
expect_exit 2 "give init or show" -- "$SLEUTH" machine

# show: a fitted model can predict power; a skeleton cannot
out=$("$SLEUTH" machine show "$SRCDIR/data/machines/nehalem-i7-920.yaml")
printf '%s\n' "$out" | grep -q 'power and energy *yes: fitted model, 6 terms' && ok || fail "show: $out"
printf '%s\n' "$out" | grep -q 'time (stall model) *yes: min(UOPS_EXECUTED' && ok || fail "show stall: $out"
out=$("$SLEUTH" machine show "$SRCDIR/data/machines/sim-nehalem-i7-920.skeleton.yaml")
printf '%s\n' "$out" | grep -q 'power and energy *no: .*no static_w' && ok || fail "show skeleton: $out"
expect_exit 1 "cannot open machine $T/none.yaml" -- "$SLEUTH" machine show "$T/none.yaml"

# doctor: the event map, the model and its calibration, one short line each
short() { # every line matching $2 in $1 is at most 100 columns
	printf '%s\n' "$1" | grep -E "$2" | LC_ALL=C.UTF-8 awk 'length > 100 { bad = 1 } END { exit bad }'
}
out=$(LIBPFM_FORCE_PMU=nhm "$SLEUTH" doctor 2>&1)
printf '%s\n' "$out" | grep -q '^event map: .*nhm (family nehalem)' && ok || fail "doctor map: $out"
printf '%s\n' "$out" | grep -q '^machine model: *nehalem-i7-920.yaml' && ok || fail "doctor model: $out"
printf '%s\n' "$out" | grep -q '^calibration: *power model fitted' && ok || fail "doctor calib: $out"
short "$out" '^(event map|machine model|calibration):' && ok || fail "doctor: lines > 100 columns"
out=$(LIBPFM_FORCE_PMU=skl "$SLEUTH" doctor 2>&1)
printf '%s\n' "$out" | grep -q "^machine model: *none for this CPU — run 'sleuth machine init" && ok ||
	fail "doctor without a model: $out"
short "$out" '^(event map|machine model|calibration):' && ok || fail "doctor: lines > 100 columns"
# a skeleton (what machine init writes) is found and its missing calibration named
mkdir -p "$T/data/machines" && cp -r "$SRCDIR/data/pmus" "$T/data/"
cp "$T/v.yaml" "$T/data/machines/skylake-test.yaml"
out=$(LIBPFM_FORCE_PMU=skl SLEUTH_DATADIR=$T "$SLEUTH" doctor 2>&1)
printf '%s\n' "$out" | grep -q '^machine model: *skylake-test.yaml' && ok || fail "doctor skeleton: $out"
printf '%s\n' "$out" | grep -q "^calibration: *skeleton (no power fit) — .*'sleuth calibrate'" && ok ||
	fail "doctor skeleton calibration: $out"
cp "$T/nv.yaml" "$T/data/machines/skylake-test.yaml"
out=$(LIBPFM_FORCE_PMU=skl SLEUTH_DATADIR=$T "$SLEUTH" doctor 2>&1)
printf '%s\n' "$out" | grep -q '^calibration: *no P-state voltages' && ok || fail "doctor no volts: $out"
short "$out" '^(event map|machine model|calibration):' && ok || fail "doctor: lines > 100 columns"
# run without a model: the perf backend gets a skeleton from the event map
# and records (on the fake PMU: CI's VMs have no counters to open)
out=$(SLEUTH_FAKE_PMU=skl "$SLEUTH" run --backend perf -o "$T/r.prof" -- true 2>&1) &&
	ok || fail "run without a model failed: $out"
printf '%s\n' "$out" | grep -q "no machine model for this CPU: recording with skylake-.*'sleuth machine init" &&
	ok || fail "run without a model: $out"
printf '%s\n' "$out" | grep -q "give --machine" && fail "run still asks for --machine: $out" || ok
[ -s "$T/r.prof" ] && ok || fail "run without a model wrote no profile: $out"
rm -f "$T/r.prof"
# without -o, machine init writes to the user's model directory, where
# doctor and run find it (before making one from the event map)
expect_ok -- "$SLEUTH" machine init -q --sysfs "$T/opp" --chase-mb 4 --cpu-name "Test CPU 1"
ls "$T"/xdg/sleuth/machines/skylake-test-1.yaml >/dev/null && ok || fail "no model in the user dir"
out=$("$SLEUTH" doctor 2>&1)
printf '%s\n' "$out" | grep -q '^machine model: *skylake-test-1.yaml' && ok || fail "doctor: $out"
out=$(SLEUTH_FAKE_PMU=skl "$SLEUTH" run --backend perf -o "$T/r.prof" -- true 2>&1)
printf '%s\n' "$out" | grep -q "machine model $T/xdg/sleuth/machines/skylake-test-1.yaml" && ok ||
	fail "run did not use the user's model: $out"
printf '%s\n' "$out" | grep -q "event map" && fail "run made a model anyway: $out" || ok
# the memory controller's reads (role dram_reads) where the host has the
# uncore PMU: the fake PMU's skx has skx_unc_imc's six channels, its nhm
# nhm_unc; with uncore=0, or on skl, none is named and the header says so
for pmu in skx nhm; do
	case $pmu in skx) ev=skx_unc_imc::UNC_M_CAS_COUNT:RD ;; *) ev=nhm_unc::UNC_QMC_NORMAL_READS:ANY ;; esac
	out=$(SLEUTH_FAKE_PMU=$pmu "$SLEUTH" machine init --sysfs "$T/opp" --chase-mb 4 \
		-o "$T/u-$pmu.yaml" 2>&1) && ok || fail "$pmu: $out"
	grep -q "^  dram_reads: $ev\$" "$T/u-$pmu.yaml" && ok ||
		fail "$pmu: no role dram_reads $ev: $(cat "$T/u-$pmu.yaml")"
	grep -q "^# dram_reads: $ev, the memory controller's reads" "$T/u-$pmu.yaml" && ok ||
		fail "$pmu: the header does not name dram_reads: $(head -12 "$T/u-$pmu.yaml")"
	[ "$(printf '%s\n' "$out" | grep -c "dram_reads")" = 1 ] && ok || fail "$pmu: not one info line: $out"
	out=$(SLEUTH_FAKE_PMU=$pmu SLEUTH_FAKE_PMU_OPTS=uncore=0 "$SLEUTH" machine init \
		--sysfs "$T/opp" --chase-mb 4 -o "$T/n-$pmu.yaml" 2>&1) && ok || fail "$pmu uncore=0: $out"
	grep -q "^  dram_reads:" "$T/n-$pmu.yaml" && fail "$pmu uncore=0: dram_reads named" || ok
	grep -q "^# dram_reads: none: none of the event map's candidates ($ev) has its uncore PMU here; the mlp model takes DRAM traffic from the core counters" \
		"$T/n-$pmu.yaml" && ok || fail "$pmu uncore=0: header: $(head -12 "$T/n-$pmu.yaml")"
	[ "$(printf '%s\n' "$out" | grep -c "dram_reads: none (.*core counters")" = 1 ] && ok ||
		fail "$pmu uncore=0: not one info line: $out"
done
SLEUTH_FAKE_PMU=skl "$SLEUTH" machine init -q --sysfs "$T/opp" --chase-mb 4 -o "$T/n-skl.yaml" &&
	! grep -q "^  dram_reads:" "$T/n-skl.yaml" && grep -q "^# dram_reads: none" "$T/n-skl.yaml" &&
	ok || fail "skl (a client part): $(cat "$T/n-skl.yaml")"
# the model so written counts every channel beside the counters when permitted
out=$(SLEUTH_FAKE_PMU=skx SLEUTH_FAKE_PMU_OPTS=paranoid=0 "$SLEUTH" run --backend perf \
	--machine "$T/u-skx.yaml" -o "$T/u.prof" -- "$BUILDDIR/tests/progs/spin" 0.2 2>&1) &&
	ok || fail "run with dram_reads: $out"
printf '%s\n' "$out" | grep -q "not counted" && fail "run: dram_reads not counted: $out" || ok
grep -aq "skx_unc_imc::UNC_M_CAS_COUNT:RD" "$T/u.prof" && ok || fail "run: the profile lacks the event"
# no PMU (CI's VMs): the error says what works instead
if env -u LIBPFM_FORCE_PMU "$SLEUTH" doctor 2>/dev/null | grep -q "^pmu (libpfm4): *none"; then
	expect_exit 1 "detects no PMU on this CPU.*--pmu NAME" -- env -u LIBPFM_FORCE_PMU \
		"$SLEUTH" machine init -o "$T/nopmu.yaml"
	expect_absent "$T/nopmu.yaml"
fi
finish
