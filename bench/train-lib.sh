# What bench/calibrate-sim.sh (the power fit) and bench/time-error-sim.sh
# (the time models' residuals) share about their training runs: a scratch
# directory and the list of training workloads from the folders named
# (bench/vpmu-terms.sh and bench/vpmu-otherstalls.sh take the scratch
# directory too).
# Sourced, not run; the caller defines die() and runs under set -eu.

# train_scratch PREFIX: W, the directory $KEEP (made) when set, else a
# temporary one removed on exit
train_scratch() {
	if [ -n "${KEEP:-}" ]; then
		W=$KEEP
		mkdir -p "$W"
	else
		W=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
		trap 'rm -rf "$W"' EXIT
	fi
}

# train_list SRC "FOLDER...": the array train, every *.yaml of the folders
# (relative ones under SRC), in order
train_list() {
	local dir
	train=()
	for dir in $2; do
		case $dir in /*) ;; *) dir=$1/$dir ;; esac
		[ -d "$dir" ] || die "no training folder $dir"
		train+=("$dir"/*.yaml)
	done
}
