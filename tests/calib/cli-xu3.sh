# The real-data power bench (bench/xu3/) end to end on a SMALL SYNTHETIC
# file in the ODROID-XU3 format, so that the converter, calibrate, the
# held-out evaluation and the baselines cannot rot unnoticed: 9 benchmarks
# at 3 frequencies, power = static(P-state) + 0.02 W/V/C * V * (T - 55)
# + Ceff * f * V^2 * u (u: the share of the sample the core was clocked),
# Ceff = 0.08 * INST_RETIRED/cycle + 0.2 * L1D_CACHE_ACCESS/cycle, 0.5 %
# noise; temperatures independent of activity.  A check of the code path,
# not of the model: the truth obeys the model's own law.
. "$SRCDIR/tests/lib.sh"

SYN=$T/xu3.data
awk 'BEGIN {
	srand(7)
	OFS = "\t"
	print "#Timestamp", "Benchmark", "Run(#)", "CPU(4) Frequency(MHz)", \
		"CPU(4) Temperature(C)", "A15 Voltage(V)", "A15 Current(A)", "A15 Power(W)", \
		"CPU_CYCLES", "SW_INCR", "L1I_CACHE_REFILL", "L1D_CACHE_ACCESS", \
		"INST_RETIRED", "BRANCH_MISPRED", "BRANCH_PRED"
	split("1000 1500 2000", mhz, " "); split("0.9 1.0 1.3", vv, " ")
	split("0.35 0.65 1.4", st, " ")
	ts = 1481276182904018774
	for (b = 1; b <= 9; b++)
		for (j = 1; j <= 3; j++)
			for (i = 0; i < 40; i++) {
				f = mhz[j] / 1000; v = vv[j] + 0
				u = i % 5 == 4 ? 0.6 : 1
				cyc = int(mhz[j] * 1e6 * 0.5 * u)
				r1 = (0.4 + 0.2 * b) * (0.8 + 0.4 * rand())
				r2 = (0.15 + 0.05 * ((b * 4) % 9)) * (0.8 + 0.4 * rand())
				T = 40 + int(30 * rand())
				p = st[j] + 0.02 * v * (T - 55) + (0.08 * r1 + 0.2 * r2) * f * v * v * u
				p *= 1 + 0.01 * (rand() - 0.5)
				ts += 500000000
				print sprintf("%.0f", ts), sprintf("bench_%c", 96 + b), 1, mhz[j], T, vv[j], \
					sprintf("%.3f", p / v), sprintf("%.4f", p), \
					sprintf("%d\t0\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f", cyc, \
						cyc * 0.001 * rand(), cyc * r2, cyc * r1, \
						cyc * 0.005 * rand(), cyc * 0.1 * (1 + rand()))
			}
}' >"$SYN"

K=$T/keep
out=$(KEEP=$K "$SRCDIR/bench/xu3/xu3-bench.sh" "$SYN" "$BUILDDIR" 2>&1) && ok || fail "xu3-bench: $out"
grep -q '^held out: bench_c bench_f bench_i $' <<<"$out" && ok || fail "the split: $out"
k=$(sed -n 's/^temperature: static power + \([0-9.]*\) W per volt per C above 55 C.*/\1/p' <<<"$out")
awk -v k="$k" 'BEGIN { exit !(k > 0.018 && k < 0.022) }' && ok ||
	fail "temperature coefficient '$k' (0.02 in the data): $out"
grep -q '^--temp-term auto: temperature: static power + ' <<<"$out" && ok ||
	fail "auto dropped a term that is in the data: $out"
grep -q '^held out: 360 intervals of 3 benchmarks (9 runs); training: 720 intervals of 18 runs$' \
	<<<"$out" && ok || fail "held-out counts: $out"
err() { awk -v m="$1" '$1 == m { print $2 }' <<<"$out" | tr -d %; } # the "all" column
a=$(err xu3-temp.yaml) b=$(err xu3-notemp.yaml)
below "held-out error with the temperature term" "$a" 1.0
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 2 * a) }' && ok ||
	fail "without the term the error ($b%) should be well above ($a%): $out"
for m in "baseline: per-frequency OLS" "baseline: Ceff per P-state"; do
	grep -Eq "^$m +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+%  bench_[cfi]@" <<<"$out" &&
		ok || fail "no row for $m: $out"
done

# each held-out run's mean power from the same run at the other frequencies
x=$(sed -n '/^mean power of each held-out run predicted from the same run/,$p' <<<"$out")
for m in xu3-temp.yaml xu3-notemp.yaml "baseline: Ceff per P-state"; do
	grep -Eq "^$m +[0-9.]+% +[0-9.]+% +[0-9.]+% +[0-9.]+%  bench_[cfi] r1 [0-9.]+->[0-9.]+$" \
		<<<"$x" && ok || fail "cross-frequency row for $m: $x"
done

# The same through the command line: a held-out trace replayed keeps its
# temperatures in the profile, and predict evaluates static power at each
# interval's (--temp overrides): the two differ by k V (T - 55) exactly.
TR="$K/t/bench_c@2000-r1.yaml"
expect_ok -- "$SLEUTH" run -q --replay "$TR" --machine "$K/xu3-temp.yaml" -o "$T/c.prof"
expect_ok -- "$SLEUTH" predict "$T/c.prof" --freq 2 --per interval --format csv --model linear \
	-o "$T/own.csv"
expect_ok -- "$SLEUTH" predict "$T/c.prof" --freq 2 --per interval --format csv --model linear \
	--temp 55 -o "$T/at55.csv"
kc=$(sed -n 's/^  temp_coeff: //p' "$K/xu3-temp.yaml")
bad=$(grep -o 'temp: [0-9]*' "$TR" | cut -d' ' -f2 | paste -d, - <(sed 1d "$T/own.csv") <(sed 1d "$T/at55.csv") |
	awk -F, -v k="$kc" '{ d = $8 - $16 - k * 1.3 * ($1 - 55); if (d > 1e-6 || d < -1e-6) n++ }
		END { print n + 0 " of " NR }')
[ "$bad" = "0 of 40" ] && ok || fail "predict at each interval's temperature: $bad off"
# calibrate reads the temperatures of profiles too (replayed with every
# event counted, so that no rate is a phase mean)
sed 's/programmable: 6/programmable: 16/' "$K/t/xu3-a15.skeleton.yaml" >"$T/wide.yaml"
printf '%s\n' "power:" "  terms:" "    - {event: INST_RETIRED}" "    - {event: L1D_CACHE_ACCESS}" \
	| cat "$T/wide.yaml" - >"$T/wide-terms.yaml"
profs=()
for f in $(sed -n '1,6p' "$K/train.lst"); do
	b=$(basename "$f" .yaml)
	"$SLEUTH" run -q --replay "$f" --machine "$T/wide-terms.yaml" -o "$T/$b.prof" ||
		fail "replay $f"
	profs+=("$T/$b.prof")
done
out=$("$SLEUTH" calibrate --temp-term on -m "$T/wide-terms.yaml" -o "$T/fromprof.yaml" "${profs[@]}" 2>&1) &&
	ok || fail "calibrate from profiles: $out"
k=$(sed -n 's/^temperature: static power + \([0-9.]*\) W per volt per C.*/\1/p' <<<"$out")
awk -v k="$k" 'BEGIN { exit !(k > 0.018 && k < 0.022) }' && ok ||
	fail "temperature coefficient from profiles '$k': $out"

# the converter refuses what it cannot convert, naming it
awk -F'\t' -v OFS='\t' 'NR == 2 { $6 = 1.1 } { print }' "$SYN" >"$T/v2.data"
out=$("$SRCDIR/bench/xu3/xu3-to-sleuth.sh" "$T/v2.data" "$T/v2" 2>&1) && fail "two voltages accepted" ||
	grep -q '1000 MHz shows two voltages' <<<"$out" && ok || fail "two voltages: $out"
sed 1d "$SYN" >"$T/nohead.data"
out=$("$SRCDIR/bench/xu3/xu3-to-sleuth.sh" "$T/nohead.data" "$T/nh" 2>&1) && fail "no header accepted" ||
	grep -q 'the first line is not a # header' <<<"$out" && ok || fail "no header: $out"
finish
