# sleuth schedule from a per-instance prediction table: options, outputs
# (table, sleuth-schedule/1, JSON, GEOPM policy) and refusals.
. "$SRCDIR/tests/lib.sh"
P="$SRCDIR/tests/schedule/data/pred-small.csv"

expect_ok -- "$SLEUTH" help schedule
expect_exit 2 "give an objective" -- "$SLEUTH" schedule --predictions "$P"
expect_exit 2 "one objective" -- "$SLEUTH" schedule --predictions "$P" --min-edp --min-energy
expect_exit 2 "not both" -- "$SLEUTH" schedule x.prof --predictions "$P" --min-edp
expect_exit 2 "--scope global" -- "$SLEUTH" schedule --predictions "$P" --min-edp \
	--scope phase --transition-us 10
expect_exit 2 "unknown format 'xml'" -- "$SLEUTH" schedule --predictions "$P" --min-edp --format xml
expect_exit 2 "unknown format 'xml'" -- "$SLEUTH" schedule --predictions "$P" --min-edp --format yaml --format xml
expect_exit 2 "predictions are predicted already" -- "$SLEUTH" schedule --predictions "$P" \
	--min-edp --model linear
expect_exit 2 "max-slowdown" -- "$SLEUTH" schedule --predictions "$P" --min-edp --max-slowdown -5%
expect_exit 2 "power-cap wants a number > 0" -- "$SLEUTH" schedule --predictions "$P" \
	--min-edp --power-cap 0
expect_exit 2 "unknown option '--fast'" -- "$SLEUTH" schedule --fast
# as people type it: "10" is refused with the fix, not read as 1000%
expect_exit 2 "max-slowdown: '10' without % would be 1000%; write 10%" -- "$SLEUTH" schedule \
	--predictions "$P" --min-edp --max-slowdown 10
# a mistyped option or command gets the nearest one
expect_exit 2 "did you mean '--max-slowdown'" -- "$SLEUTH" schedule --max-slowdwn 10%
expect_exit 2 "did you mean '--min-edp'" -- "$SLEUTH" schedule --min-epd
expect_exit 2 "did you mean 'schedule'" -- "$SLEUTH" schedul
expect_exit 2 "did you mean 'report'" -- "$SLEUTH" reprot

# the table compares the schedule with the best fixed frequency and the baseline
out=$("$SLEUTH" schedule --predictions "$P" --min-energy --max-slowdown 20% 2>&1) ||
	fail "line $LINENO: sleuth exited $?: $out"
if printf '%s\n' "$out" | grep -q "^fixed 2.130 GHz" && printf '%s\n' "$out" | grep -q "^fmax 2.660 GHz" \
   && printf '%s\n' "$out" | grep -q "proven optimal"; then ok; else fail "table: $out"; fi

# sleuth-schedule/1, with the optional keys only when used
expect_ok -- "$SLEUTH" schedule --predictions "$P" --min-edp -o "$T/s.yaml"
for k in '^format: sleuth-schedule/1$' '^objective: min-edp$' '^max_slowdown: 0.1$' \
	 '^scope: global$' '^baseline: {ghz: 2.66,' '^predicted: {time_s: ' '^- {phase: 2, ghz: '; do
	if grep -Eq "$k" "$T/s.yaml"; then ok; else fail "s.yaml lacks /$k/"; cat "$T/s.yaml"; fi
done
if grep -q transition_us "$T/s.yaml"; then fail "transition_us written unasked"; else ok; fi
expect_ok -- "$SLEUTH" schedule --predictions "$P" --min-edp --transition-us 50 \
	--min-instance-ms 50 --format yaml -o "$T/t.yaml"
if grep -q '^transition_us: 50$' "$T/t.yaml" && grep -q '^min_instance_ms: 50$' "$T/t.yaml"; then
	ok; else fail "t.yaml: $(cat "$T/t.yaml")"; fi

# the bound holds in what is written
slow=$(sed -n 's/^predicted: {.*slowdown: \([-0-9.e]*\)}$/\1/p' "$T/s.yaml")
if awk -v s="$slow" 'BEGIN { exit !(s <= 0.1) }'; then ok; else fail "slowdown $slow > 10%"; fi

# JSON and the GEOPM policy
"$SLEUTH" schedule --predictions "$P" --min-ed2p --format json > "$T/s.json" || fail "json: exit $?"
if jq -e '.format == "sleuth-schedule/1" and (.phases | length) == 3 and .exact' \
	"$T/s.json" >/dev/null; then ok; else fail "json: $(cat "$T/s.json")"; fi
"$SLEUTH" schedule --predictions "$P" --min-energy --format geopm -o "$T/g.json" >/dev/null ||
	fail "geopm: exit $?"
# zlib's crc32 of "sleuth-phase-0" (GEOPM's region hash)
want=$(python3 -c 'import zlib; print(zlib.crc32(b"sleuth-phase-0"))')
if jq -e --argjson h "$want" '.HASH_0 == $h and .FREQ_CPU_DEFAULT == 2660000000 and (.FREQ_2 > 0)' \
	"$T/g.json" >/dev/null; then ok; else fail "geopm: $(cat "$T/g.json")"; fi

# per-phase scope: every phase within the bound on its own
out=$("$SLEUTH" schedule --predictions "$P" --min-energy --scope phase --max-slowdown 5%) ||
	fail "line $LINENO: sleuth exited $?: $out"
bad=$(printf '%s\n' "$out" | awk '$1 ~ /^[0-9]+$/ { s = $6; sub("%", "", s); if (s + 0 > 5) print }')
if [ -z "$bad" ]; then ok; else fail "phase over its bound: $bad"; fi

# an infeasible cap names the lowest achievable peak; nothing is written
expect_exit 1 "lowest achievable peak is [0-9.]+ W" -- "$SLEUTH" schedule --predictions "$P" \
	--min-edp --power-cap 20 -o "$T/cap.yaml"
expect_absent "$T/cap.yaml"
expect_exit 1 "cap alone costs at least" -- "$SLEUTH" schedule --predictions "$P" \
	--min-edp --power-cap 45 --max-slowdown 1%

# a machine whose P-states are not the table's is refused
cat > "$T/m.yaml" <<'EOM'
format: sleuth-machine/1
name: two-states
counters: {programmable: 4}
memory_latency_ns: 65
pstates:
  - {ghz: 2.66, volts: 1.2}
  - {ghz: 1.60, volts: 0.95}
events: {branch_sample: BR_INST_RETIRED:CONDITIONAL}
EOM
expect_exit 1 "2.130 GHz in the predictions is not a P-state of two-states" -- \
	"$SLEUTH" schedule --predictions "$P" --min-edp --machine "$T/m.yaml"

# bad tables
printf 'ghz,phase\n1,2\n' > "$T/bad.csv"
expect_exit 1 "not a per-instance prediction table" -- "$SLEUTH" schedule --predictions "$T/bad.csv" --min-edp
# a bad power field, and a huge phase id (once an out-of-memory abort)
sed '2s/,51.9435371,/,abc,/' "$P" >"$T/badp.csv"
expect_exit 1 "badp.csv:2: 'abc' is not a" -- "$SLEUTH" schedule --predictions "$T/badp.csv" --min-edp
sed 's/^\([^,]*\),0,0,/\1,0,400000000,/' "$P" >"$T/bigph.csv"
expect_exit 1 "bigph.csv:2: phase 400000000: phase ids must be below" -- \
	"$SLEUTH" schedule --predictions "$T/bigph.csv" --min-edp
sed 3d "$P" > "$T/short.csv"
expect_exit 1 "every instance must be predicted once at every frequency" -- \
	"$SLEUTH" schedule --predictions "$T/short.csv" --min-edp
expect_exit 1 "cannot open" -- "$SLEUTH" schedule --predictions "$T/none.csv" --min-edp
# the same table with CRLF line ends and blanks around the fields (as a
# spreadsheet may write it) is the same table (formats/csv.c)
"$SLEUTH" schedule --predictions "$P" --min-edp --format json >"$T/plain.json"
sed '2,$s/,/ , /g; s/$/\r/' "$P" >"$T/crlf.csv"
"$SLEUTH" schedule --predictions "$T/crlf.csv" --min-edp --format json | sed 's/crlf.csv/pred-small.csv/' >"$T/crlf.json"
sed -i "s|$SRCDIR/tests/schedule/data/||; s|$T/||" "$T/plain.json" "$T/crlf.json"
cmp -s "$T/plain.json" "$T/crlf.json" && ok || fail "CRLF/blanks: $(diff "$T/plain.json" "$T/crlf.json")"
# from stdin
if out=$("$SLEUTH" schedule --predictions - --min-edp < "$P") && grep -q "proven optimal" <<<"$out"
then ok; else fail "stdin: $out"; fi

# --- from a profile (gen-profile: synthetic, the Nehalem model embedded) ---
GEN="$BUILDDIR/tests/models/gen-profile"
"$GEN" "$T/app.prof" 400 --seed 5 >/dev/null || fail "gen-profile"
"$GEN" "$T/timer.prof" 20 --timer >/dev/null || fail "gen-profile --timer"
out=$("$SLEUTH" schedule "$T/app.prof" --min-edp 2>&1) ||
	fail "line $LINENO: sleuth exited $?: $out"
if grep -q "machine nehalem-i7-920" <<<"$out" && grep -q "proven optimal" <<<"$out"; then ok
else fail "from a profile: $out"; fi
if (cd "$T" && cp app.prof sleuth.prof && "$SLEUTH" schedule --min-energy >/dev/null); then ok
else fail "the default profile sleuth.prof"; fi
expect_exit 1 "timer" -- "$SLEUTH" schedule "$T/timer.prof" --min-edp
"$GEN" "$T/skel.prof" 20 --machine "$SRCDIR/data/machines/sim-nehalem-i7-920.skeleton.yaml" >/dev/null || fail gen
expect_exit 1 "scheduling needs energy predictions: machine sim-nehalem-i7-920 has no fitted power model.*calibrate" \
	-- "$SLEUTH" schedule "$T/skel.prof" --min-edp
expect_exit 1 "cannot open" -- "$SLEUTH" schedule "$T/none.prof" --min-edp

# the profile and its per-instance predictions give the same schedule on the
# point prediction (a prediction table carries no error estimate)
"$SLEUTH" predict "$T/app.prof" --all --per instance --format csv -o "$T/app.csv" || fail predict
"$SLEUTH" schedule "$T/app.prof" --min-ed2p --confidence off -o "$T/a.yaml" >/dev/null || fail "a.yaml"
"$SLEUTH" schedule --predictions "$T/app.csv" --min-ed2p -o "$T/b.yaml" >/dev/null || fail "b.yaml"
if diff <(grep -o 'phase: [0-9]*, ghz: [0-9.]*' "$T/a.yaml") \
	<(grep -o 'phase: [0-9]*, ghz: [0-9.]*' "$T/b.yaml") >/dev/null; then ok
else fail "profile and CSV schedules differ"; fi

# predict --schedule: the run instance by instance adds up to the schedule
"$SLEUTH" schedule "$T/app.prof" --min-edp --transition-us 20 -o "$T/s2.yaml" >/dev/null
expect_ok -- "$SLEUTH" predict "$T/app.prof" --schedule "$T/s2.yaml" -o "$T/run.csv"
[ "$(head -1 "$T/run.csv")" = "instance,phase,ghz,start_s,time_s,power_w,energy_j,switch_s,switch_j" ] \
	&& ok || fail "run header: $(head -1 "$T/run.csv")"
pred=$(sed -n 's/^predicted: {time_s: \([^,]*\), energy_j: \([^,]*\),.*/\1 \2/p' "$T/s2.yaml")
if awk -F, -v p="$pred" 'NR > 1 { t += $5 + $8; e += $7 + $9 }
	END { split(p, w, " "); exit !(w[1] > 0 && (t / w[1] - 1)^2 < 1e-18 && (e / w[2] - 1)^2 < 1e-18) }' \
	"$T/run.csv"; then ok; else fail "run does not add up to '$pred'"; fi
expect_exit 2 "--schedule sets the frequencies" -- "$SLEUTH" predict "$T/app.prof" \
	--schedule "$T/s2.yaml" --all
# the JSON schedule reads back: warnings only for its extra top-level keys
"$SLEUTH" schedule "$T/app.prof" --min-edp --transition-us 20 --format json -o "$T/s2.json" >/dev/null ||
	fail "schedule json: exit $?"
expect_ok -- "$SLEUTH" predict "$T/app.prof" --schedule "$T/s2.json" -o "$T/run2.csv"
cmp -s "$T/run.csv" "$T/run2.csv" && ok || fail "the JSON schedule predicts another run"
out=$("$SLEUTH" predict "$T/app.prof" --schedule "$T/s2.json" -o "$T/run2.csv" 2>&1) ||
	fail "predict --schedule s2.json: exit $?: $out"
n=$(grep -c "unknown key" <<<"$out")
[ "$n" = 3 ] && ok || fail "$n unknown-key warnings for s2.json, want 3 (exact, objective_lower_bound, best_fixed)"
expect_exit 2 "drop --freq, --all, --per" -- "$SLEUTH" predict "$T/app.prof" \
	--schedule "$T/s2.yaml" --per phase
expect_exit 1 "2.66 GHz, which is not a P-state" -- "$SLEUTH" predict "$T/app.prof" --schedule "$T/s.yaml"
expect_exit 1 "key 'format'" -- "$SLEUTH" predict "$T/app.prof" --schedule "$T/m.yaml"

finish
