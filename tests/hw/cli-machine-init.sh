# sleuth machine init for one libpfm4 PMU (the first argument), forced with
# LIBPFM_FORCE_PMU, on fake sysfs trees: the file loads, has the P-states of
# the tree, a branch-sample event and stall events, every one of which
# libpfm4 encodes for the PMU (init refuses otherwise).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/hw/fakesys.sh"
export LSAN_OPTIONS="suppressions=$SRCDIR/tests/collect/lsan-papi.supp:print_suppressions=0"
PMU=$1
export LIBPFM_FORCE_PMU=$PMU

fake_acpi "$T/acpi"
expect_ok -- "$SLEUTH" machine init -q --sysfs "$T/acpi" --chase-mb 4 -o "$T/m.yaml"
show=$("$SLEUTH" machine show "$T/m.yaml" 2>&1) && ok || fail "show: $show"
printf '%s\n' "$show" | grep -q '^P-states (5):' && ok || fail "$PMU: not 5 P-states: $show"
printf '%s\n' "$show" | grep -Eq '^ +3\.400 GHz$' && ok || fail "$PMU: no 3.4 GHz: $show"
printf '%s\n' "$show" | grep -Eq '^  branch_sample +[A-Z_:]+$' && ok || fail "$PMU: no branch_sample"
printf '%s\n' "$show" | grep -Eq '^  (stall_cycles|memory_stall_cycles) +[A-Z]' && ok ||
	fail "$PMU: no stall event: $show"
printf '%s\n' "$show" | grep -Eq '^  llc_misses +[A-Z]' && ok || fail "$PMU: no llc_misses"
printf '%s\n' "$show" | grep -q 'time (stall model) *yes' && ok || fail "$PMU: stall model: $show"
printf '%s\n' "$show" | grep -q 'power and energy *no: .*calibrate' && ok ||
	fail "$PMU: a skeleton must not claim power: $show"
grep -q "^# PMU: $PMU " "$T/m.yaml" && ok || fail "$PMU: comment does not name the PMU"
lat=$(sed -n 's/^memory_latency_ns: //p' "$T/m.yaml")
awk -v l="$lat" 'BEGIN { exit !(l > 0.1 && l < 10000) }' && ok || fail "$PMU: latency '$lat'"

# intel_pstate / amd-pstate: min, base and max
case $PMU in amd64*) drv=amd-pstate base=2.900 ;; *) drv=intel_pstate base=2.100 ;; esac
fake_pstate "$T/ps" $drv
expect_ok -- "$SLEUTH" machine init -q --sysfs "$T/ps" --chase-mb 4 -o "$T/p.yaml"
show=$("$SLEUTH" machine show "$T/p.yaml" 2>&1)
printf '%s\n' "$show" | grep -q '^P-states (3):' && ok || fail "$PMU/$drv: not 3 P-states: $show"
printf '%s\n' "$show" | grep -Eq "^ +$base GHz$" && ok || fail "$PMU/$drv: no base $base: $show"
grep -q "cpufreq driver $drv" "$T/p.yaml" && ok || fail "$PMU/$drv: driver not recorded"
finish
