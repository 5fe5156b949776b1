# Shared by bench/vpmu.sh, bench/vpmu-terms.sh, bench/vpmu-otherstalls.sh,
# bench/vpmu-worst.sh, bench/vpmu-unseen.sh and bench/vpmu-role-ab.sh (sourced, with the caller's BUILDDIR argument,
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

# The unseen set (bench/vpmu-unseen.sh): Debian's own programs on generated
# inputs, a list of its own so that bench/vpmu.sh's rows stay as they
# were.  A truth run must retire the same instructions as the profiled
# one: they run in UNSEEN_ENV (python3 and perl randomise their string
# hashes per run unless told not to: perl's runs differed by up to 8% an
# interval; libxml2 seeds its dictionaries at random and no variable stops
# it, which moves xmllint's intervals by up to 1.2%) and sort with one
# thread (its threads interleave differently from run to run under
# Valgrind; SORT_THREADS=1 runs its default).
UNSEEN_ENV=(env -i PATH=/usr/bin:/bin PYTHONHASHSEED=0 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0)
VPMU_UNSEEN=(xz bzip2 sort sqlite3 python3 gzip-d)
SORT_ARGS=--parallel=1
[ "${SORT_THREADS:-}" = 1 ] && SORT_ARGS=
declare -A VPMU_UNSEEN_CMD=(
	[xz]="xz -9 -T1 -c text400k.txt" [bzip2]="bzip2 -9 -c text2m.txt"
	[sort]="sort $SORT_ARGS text20m.txt" [sqlite3]="sqlite3 -init index.sql :memory: .quit"
	[python3]="python3 dict-float.py 200000" [gzip-d]="gzip -d -c text20m.txt.gz"
	[mawk-words]="mawk -f words.awk text2m.txt" [cut-fields]="cut -c1-12,20-30 text20m.txt"
	[sed-swap]="sed -f swap.sed text2m.txt" [sha256]="sha256sum text20m.txt"
	[perl-words]="perl words.pl text20m.txt" [bc-pi]="bc -l pi.bc"
	[gzip-9]="gzip -9 -c text20m.txt" [jq-group]="jq -c -f group.jq rows.json"
	[xmllint-xpath]="xmllint --xpath count(//item[price>250]) catalog.xml")
# A second unseen set, chosen after "The LLC hits' stall episodes" was
# built and measured once for its held-out split (docs/benchmarks.md):
# Debian's mawk, cut, sed and sha256sum on the same inputs (PROGS= these;
# not grep, which stops at its first match when its output is /dev/null,
# as a vPMU run's is).
VPMU_UNSEEN2=(mawk-words cut-fields sed-swap sha256)
# A third, chosen on 2026-11-27 before any of them ran under sleuth and
# measured once (docs/benchmarks.md, "A third set of unseen programs"):
# Perl counting words in a hash, bc's arbitrary precision (pi to 1200
# digits), gzip compressing at -9, jq grouping JSON records and xmllint
# parsing an XML catalogue into a tree and evaluating an XPath query over
# it.  bc, jq and xmllint are Debian packages bc, jq and libxml2-utils.
VPMU_UNSEEN3=(perl-words bc-pi gzip-9 jq-group xmllint-xpath)

# unseen_inputs: the unseen set's inputs, written to the current directory
# (the same bytes on every machine): text of words drawn from a skewed
# vocabulary (a Park-Miller generator, exact in awk's doubles), 400 kB,
# 2 MB and 20 MB; the 20 MB one gzipped; an SQL script that inserts 200k
# rows, builds two indexes and queries; a python script of dict updates, a
# sieve and a float loop; for the second set an awk word count and a sed
# substitution with back-references; for the third a Perl word count, a
# bc program, a jq filter over 60,000 JSON records and an XML catalogue of
# 100,000 items.
unseen_inputs() {
printf '%s\n' '{ for (i = 1; i <= NF; i++) c[$i]++ }' \
	'END { for (w in c) if (c[w] > 1000) n++; print n }' > words.awk
printf '%s\n' 's/\([a-z]*\)e\([a-z]*\)/\2e\1/g' > swap.sed
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
printf '%s\n' 'while (<>) { $c{$_}++ for split; }' \
	'my $n = grep { $c{$_} > 1000 } keys %c; print "$n\n";' > words.pl
printf '%s\n' 'scale = 1200' '4 * a(1)' 'quit' > pi.bc
printf '%s\n' 'group_by(.k % 97) | map({k: (.[0].k % 97), n: length, v: (map(.v) | add)})' \
	'| sort_by(-.n) | .[0:3]' > group.jq
awk 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
	BEGIN { x = 7; printf "["
		for (i = 0; i < 60000; i++) { u = rnd()
			printf "%s{\"id\":%d,\"k\":%d,\"s\":\"w%d\",\"v\":%.3f}\n", i ? "," : "",
				i, int(100000 * u * u), int(rnd() * 50000), rnd() * 1000 }
		print "]" }' > rows.json
awk 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
	BEGIN { x = 11; print "<?xml version=\"1.0\"?>"; print "<catalog>"
		for (i = 0; i < 100000; i++) {
			printf "  <item id=\"i%d\" k=\"%d\"><name>w%d</name><tags>", i,
				int(rnd() * 1000), int(rnd() * 50000)
			n = 1 + int(rnd() * 4)
			for (j = 0; j < n; j++) printf "<t>%d</t>", int(rnd() * 300)
			printf "</tags><price>%.2f</price></item>\n", rnd() * 500 }
		print "</catalog>" }' > catalog.xml
}
