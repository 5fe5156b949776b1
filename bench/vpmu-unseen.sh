#!/bin/bash
# Unseen real programs on the virtual PMU (docs/benchmarks.md, "Unseen real
# programs on the virtual PMU"): Debian's own binaries (xz, bzip2, sort,
# sqlite3, python3, gzip), stripped and never looked at while sleuth's
# models or the vPMU machines were made, on generated inputs.  A held-out
# set: nothing is calibrated or tuned here; the shipped machines
# data/machines/vpmu-nehalem-i7-920{,-mlp}.yaml predict as they are.
# Each program is profiled at fmax with each model's machine (run --pin
# time: the stall machine pins STALLS_LLC_MISS, the -mlp machine its three
# offcore events), predicted at mid and fmin, and compared with the vPMU's
# own runs there (bench/vpmu-compare.c), as bench/vpmu.sh does: whole-program
# time error, phase-instance time error (time-weighted mean, worst), mean
# power and energy anchored on the fmax run's meter and from the counters
# alone (--anchor off).  Also: instructions, phases, and the vPMU's wall
# time at fmax.
#
#   bench/vpmu-unseen.sh [BUILDDIR]     # about 10 minutes on one core
# PROGS="xz bzip2" chooses among VPMU_UNSEEN; MODELS (default "stall mlp").
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/vpmu-lib.sh" "${1:-}"
model=$src/data/machines/vpmu-nehalem-i7-920.yaml
mlp_model=$src/data/machines/vpmu-nehalem-i7-920-mlp.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sleuth-vpmu-unseen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
FMAX=2.66 MID=2.13 FMIN=1.60
MODELS=(${MODELS:-stall mlp})
# The truth runs must retire the same instructions as the profiled one
# (vpmu-compare refuses otherwise): python3 randomises its string hashes
# per run unless told not to, and GNU sort's threads (by default as many as
# cores, up to 8) interleave differently from run to run under Valgrind, so
# sort runs with --parallel=1 (SORT_THREADS=1 measures the default, whose
# rows then show dashes)
CLEAN_ENV=(env -i PATH=/usr/bin:/bin PYTHONHASHSEED=0)

# The held-out set: its own list, so bench/vpmu.sh's rows stay as they were.
VPMU_UNSEEN=(xz bzip2 sort sqlite3 python3 gzip-d)
SORT_ARGS=--parallel=1
[ "${SORT_THREADS:-}" = 1 ] && SORT_ARGS=
declare -A CMD=(
	[xz]="xz -9 -T1 -c text400k.txt" [bzip2]="bzip2 -9 -c text2m.txt"
[sort]="sort $SORT_ARGS text20m.txt" [sqlite3]="sqlite3 -init index.sql :memory: .quit"
	[python3]="python3 dict-float.py 200000" [gzip-d]="gzip -d -c text20m.txt.gz")
PROGS=(${PROGS:-${VPMU_UNSEEN[*]}})

# The inputs, generated (the same bytes on every machine): text of words
# drawn from a skewed vocabulary (a Park-Miller generator, exact in awk's
# doubles), 400 kB, 2 MB and 20 MB; the 20 MB one gzipped; an SQL script
# that inserts 200k rows, builds two indexes and queries; a python script
# of dict updates, a sieve and a float loop.
cd "$tmp"
gen_text() {
	awk -v n="$1" 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
		BEGIN { x = 42
			for (i = 0; i < 5000; i++) { w = ""; l = 2 + int(rnd() * 9)
				for (j = 0; j < l; j++) w = w sprintf("%c", 97 + int(rnd() * 26))
				voc[i] = w }
			while (size < n) { k = 3 + int(rnd() * 12); line = ""
				for (j = 0; j < k; j++) { u = rnd(); line = line voc[int(5000 * u * u * u)] " " }
				line = line int(rnd() * 1000000); print line; size += length(line) + 1 } }'
}
gen_text 400000 > text400k.txt
gen_text 2000000 > text2m.txt
gen_text 20000000 > text20m.txt
gzip -9 -c text20m.txt > text20m.txt.gz
cat > index.sql <<'EOF'
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
INSERT INTO t(k, s) SELECT (i * 7919) % 100003, printf('row%08d', (i * 104729) % 1000003) FROM c;
CREATE INDEX t_k ON t(k);
CREATE INDEX t_s ON t(s);
SELECT count(*), sum(k) FROM t WHERE k BETWEEN 1000 AND 60000;
SELECT k % 97 AS g, count(*), avg(length(s)) FROM t GROUP BY g ORDER BY 2 DESC LIMIT 3;
SELECT count(*) FROM t a JOIN t b ON a.k = b.k WHERE a.id < 20000;
EOF
cat > dict-float.py <<'EOF'
import sys
n = int(sys.argv[1])
d = {}
x = 12345
for i in range(n):
    x = (x * 1103515245 + 12345) & 0x7fffffff
    k = "k%d" % (x % 50000)
    d[k] = d.get(k, 0) + 1
top = sorted(d.items(), key=lambda kv: -kv[1])[:3]
m = n // 2
sieve = bytearray([1]) * m
for p in range(2, int(m ** 0.5) + 1):
    if sieve[p]:
        sieve[p * p::p] = bytes(len(range(p * p, m, p)))
px, py, vx, vy = 0.1, 0.7, 0.3, -0.2
for i in range(n):
    r2 = px * px + py * py + 0.01
    inv = 1.0 / (r2 * r2 ** 0.5)
    vx -= px * inv * 1e-4; vy -= py * inv * 1e-4
    px += vx * 1e-3; py += vy * 1e-3
print(top, sum(sieve), round(px, 6), round(py, 6))
EOF
machine_for() { if [ "$1" = mlp ]; then echo "$mlp_model"; else echo "$model"; fi; }

echo "== unseen programs, prediction from $FMAX GHz (errors in %: time, instance mean," \
	"instance worst, power, energy; power0 energy0: --anchor off)"
printf "%-8s %5s %8s %8s %8s %8s %8s %8s %8s %6s %7s %7s %6s\n" program GHz time inst-avg \
	inst-max power energy power0 energy0 phases Minstr vpmu-s model
for p in "${PROGS[@]}"; do
	read -r -a cmd <<< "${CMD[$p]}"
	wall=$(vrun "$model" $FMAX "$tmp/$p@$FMAX.prof" "${cmd[@]}")
	nph=$("$sleuth" phases "$tmp/$p@$FMAX.prof" | head -2 | tr -s ' \n' '  ' |
		sed 's/.* \([0-9]*\) phases.*/\1/')
	minstr=$("$sleuth" predict "$tmp/$p@$FMAX.prof" --freq $FMAX --per interval --format csv \
		--time-only 2>/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions") c = i }
			NR > 1 && c { s += $c } END { printf "%.0f\n", s / 1e6 }')
	for f in $MID $FMIN; do
		vrun "$model" "$f" "$tmp/$p@$f.prof" "${cmd[@]}" >/dev/null
		for tm in "${MODELS[@]}"; do
			mach=$(machine_for "$tm")
			prof=$tmp/$p@$FMAX.prof
			if [ "$tm" = mlp ]; then
				prof=$tmp/$p.mlp@$FMAX.prof
				[ -e "$prof" ] || vrun "$mach" $FMAX "$prof" "${cmd[@]}" >/dev/null
			fi
			for anchor in auto off; do
				"$sleuth" predict "$prof" --machine "$mach" --freq "$f" --per interval \
					--model "$tm" --format csv --anchor $anchor 2>/dev/null > "$tmp/pred-$anchor.csv"
			done
			# (a run that is not the same deterministic run: dashes)
			read -r te ia iw pe ee <<< "$("$compare" "$prof" "$tmp/pred-auto.csv" \
				"$tmp/$p@$f.prof" || echo - - - - -)"
			read -r _ _ _ pe0 ee0 <<< "$("$compare" "$prof" "$tmp/pred-off.csv" \
				"$tmp/$p@$f.prof" || echo - - - - -)"
			printf "%-8s %5s %8s %8s %8s %8s %8s %8s %8s %6s %7s %7s %6s\n" "$p" "$f" "$te" "$ia" \
				"$iw" "$pe" "$ee" "$pe0" "$ee0" "$nph" "$minstr" "$wall" "$tm" | tee -a "$tmp/rows.txt"
		done
	done
done
echo "== summary over the unseen programs, mean |error| in % (worst instance: max)"
awk '$3 != "-" { k = $NF " " $2; n[k]++; t[k] += $3 < 0 ? -$3 : $3; a[k] += $4
       p[k] += $6 < 0 ? -$6 : $6; p0[k] += $8 < 0 ? -$8 : $8
       if (!(k in w) || $5 > w[k]) { w[k] = $5; wp[k] = $1 } }
     END { for (k in n) printf "%-11s time %.2f  instance avg %.2f  worst %.2f (%s)  power %.2f  power0 %.2f\n",
			       k, t[k] / n[k], a[k] / n[k], w[k], wp[k], p[k] / n[k], p0[k] / n[k] }' \
	"$tmp/rows.txt" | sort
