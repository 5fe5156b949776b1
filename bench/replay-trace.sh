# Sourced by the replay benchmarks: B (build dir, $1), T (scratch, removed
# at exit), and $T/r.yaml, a mktrace trace of about N ($2, default $3)
# intervals of 200-400 branches with its machine $T/m.yaml; sets size
# (bytes) and ivs (intervals).
B=$(realpath "${1:-build}")
N=${2:-$3}
T=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
repeats=$(( (N - 18 + 7) / 8 ))
"$B/tests/collect/mktrace" "$T/r.yaml" "$T/m.yaml" "$repeats" 200
size=$(stat -c %s "$T/r.yaml")
ivs=$(( 18 + 8 * repeats ))
