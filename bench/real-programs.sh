#!/bin/bash
# Phases of real programs with known stages, as a new user gets them: the
# timer backend (the only one a machine without a PMU has) at its default
# interval and at the old fixed 10 ms.  Six programs, each run as stages
# one after the other; before each stage the wall-clock time is appended
# to $MARKS, so every moment of the run belongs to a known stage:
#
#   xz       compress (xz -2), decompress (x20)
#   python   pure-Python loops, string building + regex, sorting tuples, JSON
#   gcc      preprocess (gcc -E), compile (cc1 -O2), assemble (as)
#   sqlite   insert 400k rows, create two indexes, GROUP BY, self-join
#   kernels  matmul, Jacobi stencil, sparse mat-vec, scalar recurrence (C)
#   sort     sort -n, sort -r, sort -g (coreutils, one thread)
#
# Per program and interval: intervals, phases, the phases that cover 90%
# of the time, stages recovered (a stage is recovered when the phase with
# most of its time spends >= 75% of its own time in that stage and covers
# >= 50% of the stage), and the adjusted Rand index of phase against stage
# over the run's time (10 ms slices).  Nothing here was tuned on these
# programs: the default interval follows from the noise bound
# (docs/phases.md), so all six are held out.
#
# Usage: bench/real-programs.sh [BUILDDIR]   (env: INTERVALS="default 10ms",
# SCALE=1 (CPU seconds per stage, roughly), KEEP=DIR to keep the profiles)
# Installs what it needs (xz-utils, sqlite3, gcc, python3) when run as root.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
SLEUTH=$BUILD/sleuth
INTERVALS=${INTERVALS:-default 10ms}
SCALE=${SCALE:-1}
T=${KEEP:-$(mktemp -d)}
mkdir -p "$T"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

need() {
	command -v "$1" >/dev/null && return
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
	else
		echo "bench/real-programs.sh: needs $1 (Debian package $2)" >&2; exit 1
	fi
}
need xz xz-utils; need sqlite3 sqlite3; need gcc gcc; need python3 python3; need as binutils

# inputs
gcc -O2 -g -o "$T/kernels" "$SRC/bench/real/kernels.c"
seq 1 400000 | awk '{ print $1 * 7919 % 1000003, "line", $1 }' >"$T/data.txt"
# a C file of 500 functions with loops and branches, for gcc
awk 'BEGIN { print "#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>"
	for (i = 0; i < 500; i++) {
		printf "int f%d(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) {", i
		printf " if (a[i] %% %d == 0) s += a[i] * %d; else s ^= a[i] >> %d; }", i % 7 + 2, i, i % 5
		printf " char b[32]; snprintf(b, sizeof b, \"%%d\", s); return s + (int)strlen(b); }\n"
	}
	print "int main(void) { int a[4] = {1, 2, 3, 4}; return f1(a, 4) & 1; }" }' >"$T/big.c"

# the stages of each program, as one shell command; m marks a stage start
declare -A CMD STAGES
reps() { awk -v s="$SCALE" -v n="$1" 'BEGIN { r = int(s * n + 0.5); print (r < 1 ? 1 : r) }'; }
STAGES[xz]="compress decompress"
CMD[xz]="m; xz -2 -c data.txt >d.xz; m; for i in \$(seq $(reps 20)); do xz -dc d.xz >/dev/null; done"
STAGES[python]="loops regex sort json"
CMD[python]="python3 $SRC/bench/real/stages.py $SCALE"
STAGES[gcc]="preprocess compile assemble"
CMD[gcc]="m; for i in \$(seq $(reps 8)); do gcc -E big.c -o big.i; done; m; gcc -O2 -S -fpreprocessed big.i -o big.s; m; for i in \$(seq $(reps 4)); do as big.s -o big.o; done"
STAGES[sqlite]="insert index group-by join"
CMD[sqlite]="rm -f t.db; m; sqlite3 t.db 'CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL); BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $(reps 400000)) INSERT INTO t SELECT i, (i * 7919) % 10007, \"name\" || (i % 5000), i * 0.25 FROM n; COMMIT;'; m; sqlite3 t.db 'CREATE INDEX ik ON t(k); CREATE INDEX iname ON t(name, v);'; m; for i in \$(seq $(reps 6)); do sqlite3 t.db 'SELECT name, count(*), avg(v), max(k) FROM t GROUP BY name ORDER BY 3 DESC LIMIT 3;' >/dev/null; done; m; sqlite3 t.db 'SELECT count(*) FROM t a JOIN t b ON a.k = b.k WHERE a.id < $(reps 40000) AND b.v > a.v;' >/dev/null"
STAGES[kernels]="matmul jacobi spmv recurrence"
CMD[kernels]="./kernels $SCALE >/dev/null"
STAGES[sort]="numeric reverse general"
CMD[sort]="m; for i in \$(seq $(reps 8)); do sort -n --parallel=1 data.txt >/dev/null; done; m; for i in \$(seq $(reps 6)); do sort -r --parallel=1 data.txt >/dev/null; done; m; for i in \$(seq $(reps 2)); do sort -g --parallel=1 data.txt >/dev/null; done"

analyse() { # NAME PROFILE MARKS STAGES...
	python3 - "$@" <<'PY'
import json, subprocess, sys
name, prof, marks, stages = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
rep = json.loads(subprocess.run([sys.argv[0] if False else __import__("os").environ["SLEUTH"],
    "report", "-q", "--format", "json", "-o", "-", prof], check=True,
    capture_output=True, text=True).stdout)
ins = rep["instances"]
t = [float(x) for x in open(marks).read().split()]
t0 = t[0]
bounds = [x - t0 for x in t] + [float("inf")]
assert len(t) == len(stages), (name, len(t), stages)
end = max(s + d for s, d in zip(ins["start_s"], ins["time_s"]))
phases = sorted(set(ins["phase"]))
# time of each phase in each stage
M = {p: [0.0] * len(stages) for p in phases}
for p, s, d in zip(ins["phase"], ins["start_s"], ins["time_s"]):
    for k in range(len(stages)):
        lo, hi = max(s, bounds[k]), min(s + d, bounds[k + 1])
        if hi > lo:
            M[p][k] += hi - lo
ptime = {p: sum(M[p]) for p in phases}
total = sum(ptime.values())
acc, cover = 0.0, 0
for p in sorted(phases, key=lambda p: -ptime[p]):
    if acc >= 0.9 * total * (1 - 1e-12):
        break
    acc += ptime[p]; cover += 1
rec = []
for k, st in enumerate(stages):
    stime = sum(M[p][k] for p in phases)
    if stime <= 0:
        continue
    p = max(phases, key=lambda p: M[p][k])
    if M[p][k] >= 0.75 * ptime[p] and M[p][k] >= 0.5 * stime:
        rec.append(st)
# ARI over 10 ms slices
from collections import Counter
lab = []
for p, s, d in zip(ins["phase"], ins["start_s"], ins["time_s"]):
    x = s + 0.005
    while x < s + d:
        k = max(i for i in range(len(stages)) if bounds[i] <= x) if x >= bounds[0] else 0
        lab.append((p, k)); x += 0.01
def c2(n): return n * (n - 1) / 2
n = len(lab)
a = sum(c2(v) for v in Counter(l[0] for l in lab).values())
b = sum(c2(v) for v in Counter(l[1] for l in lab).values())
ab = sum(c2(v) for v in Counter(lab).values())
exp = a * b / c2(n) if n > 1 else 0
mx = (a + b) / 2
ari = (ab - exp) / (mx - exp) if mx != exp else 1.0
print("%d %d %d %d/%d %.2f %s" % (rep["intervals"], len(phases), cover, len(rec),
      len(stages), ari, ",".join(rec) or "-"))
PY
}

export SLEUTH
printf '| program | stages | interval | intervals | phases | phases for 90%% | stages recovered | ARI | recovered |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for name in xz python gcc sqlite kernels sort; do
	for iv in $INTERVALS; do
		args=()
		[ "$iv" = default ] || args=(--interval "$iv")
		(cd "$T" && rm -f marks && MARKS=$T/marks "$SLEUTH" run -q --backend timer \
			"${args[@]}" -o "$T/$name-$iv.prof" -- bash -c \
			"m() { date +%s.%N >>\"\$MARKS\"; }; ${CMD[$name]}" >/dev/null)
		cp "$T/marks" "$T/$name-$iv.marks"
		read -r ni np cov rec ari which < <(analyse "$name" "$T/$name-$iv.prof" \
			"$T/$name-$iv.marks" ${STAGES[$name]})
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
			"$(echo ${STAGES[$name]} | tr ' ' ,)" "$iv" "$ni" "$np" "$cov" "$rec" "$ari" "$which"
	done
done
