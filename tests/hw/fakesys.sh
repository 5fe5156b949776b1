# Fake sysfs trees for the machine tests (sourced after tests/lib.sh).
# fake_acpi DIR: acpi-cpufreq listing its frequencies (kHz).
fake_acpi() {
	local d=$1/devices/system/cpu/cpu0/cpufreq
	mkdir -p "$d" "$1/devices/system/cpu/cpu0/cache/index3"
	echo acpi-cpufreq >"$d/scaling_driver"
	echo ondemand >"$d/scaling_governor"
	echo "3400000 2800000 2200000 1600000 800000" >"$d/scaling_available_frequencies"
	echo "800000" >"$d/cpuinfo_min_freq"
	echo "3400000" >"$d/cpuinfo_max_freq"
	echo 8192K >"$1/devices/system/cpu/cpu0/cache/index3/size"
}
# fake_pstate DIR DRIVER: intel_pstate / amd-pstate: a range and a base.
fake_pstate() {
	local d=$1/devices/system/cpu/cpu0/cpufreq
	mkdir -p "$d"
	echo "$2" >"$d/scaling_driver"
	echo powersave >"$d/scaling_governor"
	echo 400000 >"$d/cpuinfo_min_freq"
	echo 4700000 >"$d/cpuinfo_max_freq"
	if [ "$2" = intel_pstate ]; then echo 2100000 >"$d/base_frequency"
	else echo 2900000 >"$d/amd_pstate_nominal_freq"; fi
}
