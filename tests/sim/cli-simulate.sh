# `sleuth simulate`: outputs, determinism, frequency syntaxes, the same
# program at two frequencies, and every bad input (one clear line, exit 1,
# usage errors exit 2, no output file left behind).
. "$SRCDIR/tests/lib.sh"

W=$SRCDIR/data/workloads/astar-like.yaml
M=$SRCDIR/data/sim/nehalem-i7-920.yaml
sim() { "$SLEUTH" simulate -q "$@"; }

# --- outputs -------------------------------------------------------------
expect_ok -- sim "$W" -o "$T/a.yaml" --power-log "$T/a.csv" --idle-log "$T/i.csv" --seed 3
head -1 "$T/a.yaml" | grep -qx 'format: sleuth-trace/1' && ok || fail "trace format line"
n=$(grep -c '^- {t: ' "$T/a.yaml")
[ "$n" = 660 ] && ok || fail "astar-like has 660 intervals, trace has $n"
[ "$(grep -c 'label: wayobj}$' "$T/a.yaml")" -gt 0 ] && ok || fail "labels"
grep -q ', e: [0-9.e-]*, label' "$T/a.yaml" && ok || fail "energy per interval"
sed -n 2p "$T/a.csv" | grep -qx 'time_s,power_w' && ok || fail "power log header"
[ "$(grep -c '^ghz,power_w$' "$T/i.csv")" = 1 ] && ok || fail "idle log header"
[ "$(cut -d, -f1 "$T/i.csv" | grep -v '^[#g]' | sort -u | wc -l)" = 9 ] && ok || fail "9 P-states in the idle log"
# the log covers the run: its last sample is at or after the trace's end
end=$(sed -nE 's/^- \{t: ([^,]*),.*/\1/p' "$T/a.yaml" | awk '{s+=$1} END {printf "%.6f", s}')
last=$(tail -1 "$T/a.csv" | cut -d, -f1)
awk -v a="$last" -v b="$end" 'BEGIN {exit !(a >= b && a < b + 0.0011)}' && ok || fail "log ends at $last, run at $end"

# the default e is the meter's energy: the integral of the power log, as
# written, over each interval (checked for the first 20 intervals)
sed -nE 's/^- \{t: ([^,]*),.*, e: ([^,]*), label.*/\1 \2/p' "$T/a.yaml" | head -20 > "$T/te"
awk -F, 'NR == FNR { t[NR] = $1; sub(/^[^ ]* /, ""); e[NR] = $0; n = NR; next }
	/^[0-9]/ { x[++m] = $1; y[m] = $2 }
	END {
		a = 0; bad = 0
		for (i = 1; i <= n; i++) {
			split(t[i], tt, " "); b = a + tt[1]; s = 0
			for (k = 2; k <= m && x[k-1] < b; k++) {
				lo = x[k-1] > a ? x[k-1] : a; hi = x[k] < b ? x[k] : b
				if (hi <= lo) continue
				ylo = y[k-1] + (y[k] - y[k-1]) * (lo - x[k-1]) / (x[k] - x[k-1])
				yhi = y[k-1] + (y[k] - y[k-1]) * (hi - x[k-1]) / (x[k] - x[k-1])
				s += (hi - lo) * (ylo + yhi) / 2
			}
			d = s - e[i]; if (d < 0) d = -d
			if (d > 1e-9 * e[i]) { print "interval " i - 1 ": log gives " s ", trace e " e[i]; bad = 1 }
			a = b
		}
		exit bad
	}' "$T/te" "$T/a.csv" && ok || fail "trace e is not the power log's integral"
# stdout works too
sim "$W" -o - --intervals 3 --seed 3 | cmp -s - <(sim "$W" -o "$T/s.yaml" --intervals 3 --seed 3; cat "$T/s.yaml") \
	&& ok || fail "-o - differs from a file"

# --- determinism -----------------------------------------------------------
expect_ok -- sim "$W" -o "$T/b.yaml" --power-log "$T/b.csv" --idle-log "$T/ib.csv" --seed 3 \
	--machine "$M" --freq 2.66
cmp -s "$T/a.yaml" "$T/b.yaml" && ok || fail "trace differs between identical runs"
cmp -s "$T/a.csv" "$T/b.csv" && ok || fail "power log differs between identical runs"
cmp -s "$T/i.csv" "$T/ib.csv" && ok || fail "idle log differs between identical runs"
expect_ok -- sim "$W" -o "$T/c.yaml" --seed 4
cmp -s "$T/a.yaml" "$T/c.yaml" && fail "another seed gave the same trace" || ok
for f in 2.66GHz 2660MHz 2.66 2660000kHz; do
	expect_ok -- sim "$W" -o "$T/f.yaml" --seed 3 --freq "$f"
	cmp -s "$T/a.yaml" "$T/f.yaml" && ok || fail "--freq $f differs from the default 2.66"
done

# --- the same program at 1.60 GHz ------------------------------------------
expect_ok -- sim "$W" -o "$T/slow.yaml" --seed 3 --freq 1.6GHz
grep -q '^frequency_ghz: 1.6$' "$T/slow.yaml" && ok || fail "frequency_ghz of the slow trace"
# labels and branch histograms per interval
program() { sed -nE 's/^- \{t: [^,]*, n: \[[^]]*\], (br: .*), e: [^,]*, (label: .*)$/\1 \2/p' "$1"; }
[ "$(program "$T/a.yaml" | wc -l)" = 660 ] && ok || fail "could not extract the program"
cmp -s <(program "$T/a.yaml") <(program "$T/slow.yaml") && ok || fail "labels or branches differ with frequency"
# counts that do not depend on frequency: all but cycles, stalls, resource stalls (1, 3, 7)
counts() { sed -nE 's/^- \{t: [^,]*, n: \[([^]]*)\].*/\1/p' "$1" | cut -d, -f2,4,5,6,8-; }
cmp -s <(counts "$T/a.yaml") <(counts "$T/slow.yaml") && ok || fail "frequency-independent counts differ"
cyc() { sed -nE 's/^- \{t: [^,]*, n: \[([^,]*),.*/\1/p' "$1" | md5sum; }
[ "$(cyc "$T/a.yaml")" != "$(cyc "$T/slow.yaml")" ] && ok || fail "cycles did not change with frequency"

# --- --truth and --intervals -------------------------------------------------
expect_ok -- sim "$W" -o "$T/t.yaml" --seed 3 --truth --intervals 1000
[ "$(grep -c '^- {t: ' "$T/t.yaml")" = 1000 ] && ok || fail "--intervals 1000"
cmp -s <(program "$T/a.yaml" | head -660) <(program "$T/t.yaml" | head -660) && ok || fail "--truth or --intervals changed the program"
ea=$(sed -nE 's/.*, e: ([^,]*), label.*/\1/p' "$T/a.yaml" | head -1)
et=$(sed -nE 's/.*, e: ([^,]*), label.*/\1/p' "$T/t.yaml" | head -1)
awk -v a="$ea" -v b="$et" 'BEGIN {d = (a - b) / b; exit !(a != b && d < 0.01 && d > -0.01)}' \
	&& ok || fail "meter energy $ea vs true $et"
expect_ok -- sim "$W" -o "$T/short.yaml" --intervals 5
[ "$(grep -c '^- {t: ' "$T/short.yaml")" = 5 ] && ok || fail "--intervals 5"

# --- bad input: exit 1, one line, nothing written ----------------------------
O=$T/out.yaml
expect_exit 1 "cannot open $T/none.yaml: No such file" -- sim "$T/none.yaml" -o "$O"
expect_exit 2 "must name different files; '$T/same' is given twice" -- \
	sim "$W" -o "$T/same" --power-log "$T/same"
expect_exit 2 "must name different files; '-' is given twice" -- sim "$W" -o - --idle-log -
expect_absent "$O"
expect_exit 1 "cannot open $T/none-m.yaml" -- sim "$W" -o "$O" --machine "$T/none-m.yaml"
expect_absent "$O"
sed 's/mlp: 1.4}/mlp: 0.4}/' "$W" > "$T/bad1.yaml"
expect_exit 1 "bad1.yaml:9: key 'mlp': 0.4 is out of range" -- sim "$T/bad1.yaml" -o "$O"
expect_absent "$O"
sed 's/cpi_core: 0.9, //' "$W" > "$T/bad2.yaml"
expect_exit 1 "bad2.yaml:10: key 'cpi_core': missing required key in phase region" -- sim "$T/bad2.yaml" -o "$O"
sed 's/phase: region/phase: regoin/' "$W" > "$T/bad3.yaml"
expect_exit 1 "bad3.yaml:[0-9]+: key 'phase': no phase named 'regoin'" -- sim "$T/bad3.yaml" -o "$O"
printf 'format: sleuth-workload/1\nname: [unclosed\n' > "$T/bad4.yaml"
expect_exit 1 "bad4.yaml:[0-9]+: not valid YAML" -- sim "$T/bad4.yaml" -o "$O"
sed 's/volts: 1.200/volts: -1/' "$M" > "$T/badm.yaml"
expect_exit 1 "badm.yaml:[0-9]+: key 'volts'" -- sim "$W" -o "$O" --machine "$T/badm.yaml"
expect_absent "$O"
expect_exit 1 "2.7 GHz is not a P-state of nehalem-i7-920; use one of 2.66, 2.53, .*1.60" -- \
	sim "$W" -o "$O" --freq 2.7GHz
expect_absent "$O"
expect_exit 1 "cannot create $T/no/dir.yaml" -- sim "$W" -o "$T/no/dir.yaml"
# a failing power log leaves no trace behind, and the other way round
expect_exit 1 "cannot create $T/no/p.csv" -- sim "$W" -o "$O" --power-log "$T/no/p.csv"
expect_absent "$O"
expect_exit 1 "cannot create $T/no/i.csv" -- sim "$W" -o "$O" --power-log "$T/p.csv" --idle-log "$T/no/i.csv"
expect_absent "$O"
expect_absent "$T/p.csv"

# --- usage errors: exit 2 ------------------------------------------------------
expect_exit 2 "unknown option '--bogus'" -- sim "$W" -o "$O" --bogus
expect_exit 2 "option '--freq' needs a value" -- sim "$W" -o "$O" --freq
expect_exit 2 "'fast' is not a frequency" -- sim "$W" -o "$O" --freq fast
expect_exit 2 "give the trace to write with -o" -- sim "$W"
expect_exit 2 "give the workload" -- sim -o "$O"
expect_exit 2 "one workload only" -- sim "$W" "$W" -o "$O"
expect_exit 2 "--seed: 'x' is not" -- sim "$W" -o "$O" --seed x
expect_exit 2 "--intervals: '0' is not a count" -- sim "$W" -o "$O" --intervals 0
expect_absent "$O"
finish
