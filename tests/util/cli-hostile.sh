# Hostile input, faults and signals (issue #15): each case once crashed,
# ran away or succeeded silently.  Every one must now fail with one line
# naming the cause, a non-zero exit and no output file, or, for signals,
# do what the docs say.
. "$SRCDIR/tests/lib.sh"
cd "$T" || exit 1
D=$SRCDIR/data
M=$D/measurements
W=$D/workloads/gcc-like.yaml

"$SLEUTH" simulate -q "$W" --intervals 40 -o t.yaml --idle-log idle.csv ||
	{ fail "simulate"; finish; exit 1; }
"$SLEUTH" run -q --replay t.yaml -o p.prof || { fail "replay"; finish; exit 1; }

# --- predictions CSV: instance ids that wrap inst + 1 or ninst * np -------
P=$SRCDIR/tests/schedule/data/pred-small.csv
sed '2s/^2.66,0,/2.66,18446744073709551615,/' "$P" >wrap.csv
expect_exit 1 "wrap.csv:2: instance 18446744073709551615, but the table has only 21 rows" -- \
	"$SLEUTH" schedule --predictions wrap.csv --min-edp
sed '2s/^2.66,0,/2.66,9223372036854775809,/' "$P" >wrap2.csv
expect_exit 1 "wrap2.csv:2: instance 9223372036854775809" -- \
	"$SLEUTH" schedule --predictions wrap2.csv --min-edp

# --- workloads: counts that overflow the limit checks ----------------------
wl() { # FILE SEQUENCE-ITEMS: a one-phase workload
	sed '/^sequence:/,$d' "$W" >"$1"
	printf 'sequence:\n%s\n' "$2" >>"$1"
}
wl for.yaml '  - {phase: parse, for: 3}
  - {phase: opt, for: 18446744073709551615}'
expect_exit 1 "for.yaml:17: key 'for': 18446744073709551615 is not an interval count" -- \
	timeout 20 "$SLEUTH" simulate for.yaml --intervals 3 -o for.trace
expect_absent for.trace
wl rep.yaml '  - repeat: 50000000
    sequence: [{phase: opt, for: 2}]'
expect_exit 1 "rep.yaml:16: key 'repeat': the sequence would exceed" -- \
	timeout 20 "$SLEUTH" simulate rep.yaml --intervals 3 -o rep.trace
wl rep2.yaml '  - repeat: 49999999
    sequence: [{phase: opt, for: 1}, {phase: gc, for: 1}]'
expect_exit 1 "rep2.yaml:16: key 'repeat': the sequence would exceed" -- \
	timeout 20 "$SLEUTH" simulate rep2.yaml --intervals 3 -o rep.trace

# --- empty {} and [] in every YAML reader (UBSan: memcpy from NULL) --------
sed 's/^counters: .*/counters: {}/' "$D/machines/sim-nehalem-i7-920.yaml" >m0.yaml
expect_exit 1 "m0.yaml:[0-9]+: key 'programmable': missing required key" -- \
	"$SLEUTH" predict p.prof --machine m0.yaml --freq 1.6
wl seq0.yaml ''
sed -i 's/^sequence:$/sequence: []/' seq0.yaml
expect_exit 1 "seq0.yaml:[0-9]+: key 'sequence': needs at least one interval" -- \
	"$SLEUTH" simulate seq0.yaml -o s0.trace
sed 's/^events:$/events: []/; /^- [A-Za-z]/d' t.yaml >ev0.yaml
expect_exit 1 "ev0.yaml:[0-9]+: key 'events': 'cycles' must be listed" -- \
	"$SLEUTH" run --replay ev0.yaml -o ev0.prof
sed 's/br: \[\[[^]]*\]\(, \[[^]]*\]\)*\]/br: []/; s/label: [a-z]*/label: {}/' t.yaml >br0.yaml
expect_exit 1 "br0.yaml:[0-9]+: key 'label': expected a scalar, found a mapping" -- \
	"$SLEUTH" run --replay br0.yaml -o br0.prof

# --- sizes: each list a reader checks pairwise has a stated limit; the
# duplicate keys of a big mapping are found by sorting (50,000 keys took 8 s)
{ echo 'format: sleuth-machine/1'; for i in $(seq 40); do echo "k$i: 1"; done
  echo 'k7: 2'; echo 'k3: 2'; } >dupk.yaml
expect_exit 1 "dupk.yaml:42: key 'k7': duplicate key" -- \
	"$SLEUTH" predict p.prof --machine dupk.yaml --freq 1.6
awk 'BEGIN { printf "format: sleuth-machine/1\nname: {"
	for (i = 0; i < 60000; i++) printf "k%d: 1, ", i; print "end: 1}" }' >bigmap.yaml
expect_exit 1 "bigmap.yaml:2: key 'name': expected a scalar, found a mapping" -- \
	timeout 20 "$SLEUTH" predict p.prof --machine bigmap.yaml --freq 1.6
{ sed -n '1,/^events:/p' t.yaml | sed '$d'
  printf 'events: [cycles, instructions'; for i in $(seq 4095); do printf ', e%d' "$i"; done
  printf ']\nintervals: []\n'; } >manyev.yaml
expect_exit 1 "manyev.yaml:[0-9]+: key 'events': 4097 events; a trace lists at most 4096" -- \
	"$SLEUTH" run --replay manyev.yaml -o manyev.prof
{ echo 'ghz,power_w'; for i in $(seq 1025); do echo "$i.5,30"; done; } >manyidle.csv
expect_exit 1 "manyidle.csv:1026: more than 1024 frequencies" -- \
	"$SLEUTH" calibrate -q -m "$M/skeleton.yaml" -o cal.yaml --idle-log manyidle.csv \
	"$M/traces/gcc-1.60.yaml" "$M/traces/gcc-2.66.yaml"

# --- silent successes -------------------------------------------------------
# an interval without cycles would predict time 0 and power NaN
sed -E '0,/n: \[[0-9]+/s//n: [0/' t.yaml >c0.yaml
expect_exit 1 "c0.yaml:[0-9]+: key 'n': interval 0 counts 0 cycles" -- \
	"$SLEUTH" run --replay c0.yaml -o c0.prof
expect_absent c0.prof
# a coefficient whose power is infinite printed empty fields
sed -E '0,/coeff: [-0-9.e]+/s//coeff: 1e308/' "$D/machines/sim-nehalem-i7-920.yaml" >m308.yaml
expect_exit 1 "m308.yaml:[0-9]+: key 'coeff': 1e308 is out of range" -- \
	"$SLEUTH" predict p.prof --machine m308.yaml --freq 1.6
# a negative idle reading gave a tiny static power
sed '3s/,[0-9.]*$/,-32.5/' "$M/idle.csv" >idle-neg.csv
expect_exit 1 "idle-neg.csv:3: column 'power_w': -32.5 W is negative" -- \
	"$SLEUTH" calibrate -q -m "$M/skeleton.yaml" -o cal.yaml --idle-log idle-neg.csv \
	"$M/traces/gcc-1.60.yaml" "$M/traces/gcc-2.66.yaml"
expect_absent cal.yaml
# --extrapolate has a stated reach: 2x beyond the P-states
expect_exit 1 "cannot extrapolate to 1000 GHz: it is more than 2x beyond" -- \
	"$SLEUTH" predict p.prof --freq 1000GHz --extrapolate
expect_exit 1 "cannot extrapolate to 1e-300 GHz: it is more than 2x beyond" -- \
	"$SLEUTH" predict p.prof --freq 1e-300 --extrapolate
expect_ok -- "$SLEUTH" predict p.prof --freq 3.0 --extrapolate

# --- an output that is an input is refused, the input kept ------------------
cp p.prof keep.prof
expect_exit 1 "cannot write p.prof: it is also an input of this command" -- \
	"$SLEUTH" predict p.prof --freq 1.6 -o p.prof
cmp -s p.prof keep.prof && ok || fail "predict P -o P changed the profile"
expect_exit 1 "cannot write t.yaml: it is also an input" -- \
	"$SLEUTH" run --replay t.yaml -o t.yaml
ln -s p.prof link.prof
expect_exit 1 "cannot write link.prof: it is also an input" -- \
	"$SLEUTH" report p.prof -o link.prof
cmp -s p.prof keep.prof && ok || fail "report P -o LINK-TO-P changed the profile"

# --- every write is checked: stdout and files on a full device --------------
for cmd in "predict p.prof --all" "predict p.prof --all --per interval" \
	"report p.prof --format json" "report p.prof" "schedule p.prof --min-edp"; do
	# shellcheck disable=SC2086
	expect_exit 1 "No space left on device" -- "$SLEUTH" $cmd -o /dev/full
done
# the profile's interval and counts sections are streamed to the file
expect_exit 1 "cannot write /dev/full: No space left on device" -- \
	"$SLEUTH" run -q --replay t.yaml -o /dev/full
for cmd in "--version" "help" "help predict" "predict --help" "phases p.prof" "doctor" \
	"predict p.prof --freq 1.6" "predict p.prof --all --per interval" \
	"schedule p.prof --min-edp"; do
	# shellcheck disable=SC2086
	out=$("$SLEUTH" $cmd 2>&1 >/dev/full); rc=$?
	[ "$rc" = 1 ] && [[ $out =~ No\ space\ left\ on\ device$ ]] &&
		[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && ok ||
		fail "'sleuth $cmd > /dev/full' exited $rc: $out"
done
expect_exit 1 "cannot write /dev/full: No space left on device" -- \
	"$SLEUTH" simulate -q "$W" --intervals 30 -o /dev/full
out=$("$SLEUTH" simulate -q "$W" --intervals 30 -o - 2>&1 >/dev/full); rc=$?
[ "$rc" = 1 ] && [ "$out" = "sleuth: cannot write standard output: No space left on device" ] &&
	ok || fail "simulate -o - > /dev/full: $rc: $out"

# --- signals ------------------------------------------------------------------
# Ctrl-C during a replay: no profile, exit 130
# (libyaml's reader, 2.4 s of CPU for 12,000 intervals on a 2-core VM:
# still running at 0.5 s on a machine several times faster)
"$SLEUTH" simulate -q "$W" --intervals 12000 -o big.yaml || fail "simulate big"
env --default-signal=INT SLEUTH_TRACE_FAST=0 "$SLEUTH" run -q --replay big.yaml -o big.prof \
	2>err.txt &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
[ "$rc" = 130 ] && ok || fail "Ctrl-C in replay exited $rc, wanted 130"
expect_absent big.prof
grep -qx "sleuth: interrupted; no profile written" err.txt && ok ||
	fail "Ctrl-C in replay: $(cat err.txt)"
# SIGTERM, SIGHUP, SIGINT reach the profiled program; the profile is written
# (INT and HUP reset to their defaults: a background or nohup shell ignores them)
SPIN=$BUILDDIR/tests/progs/spin
for sig in TERM HUP INT; do
	rm -f live.prof
	env --default-signal=INT,HUP "$SLEUTH" run -q -o live.prof -- "$SPIN" 60 2>/dev/null &
	pid=$!
	sleep 1.5
	child=$(pgrep -P $pid)
	kill -$sig $pid
	wait $pid; rc=$?
	want=$((128 + $(kill -l $sig)))
	[ "$rc" = "$want" ] && ok || fail "SIG$sig to sleuth run: exit $rc, wanted $want"
	[ -s live.prof ] && ok || fail "SIG$sig to sleuth run: no profile"
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		fail "SIG$sig: the program outlived sleuth run"
		kill -KILL "$child"
	else
		ok
	fi
done

# --- memory limits: out of memory is one line; no arena retry storm -----------
# (skipped where the binary cannot run under ulimit -v: sanitizer builds)
if (ulimit -v 150000; "$SLEUTH" --version) >/dev/null 2>&1; then
	wl huge.yaml '  - {phase: opt, for: 45000000}'
	expect_exit 1 "^sleuth: out of memory" -- \
		bash -c 'ulimit -v 150000; exec "$0" simulate -q "$1" --intervals 3 -o huge.trace' \
		"$SLEUTH" huge.yaml
	expect_absent huge.trace
	# the reader's thread under a limit: seconds, not minutes (glibc retried
	# a failing 64 MB arena on every malloc: 178x slower)
	expect_ok -- bash -c 'ulimit -v 100000; exec timeout 120 "$0" run -q --replay big.yaml -o lim.prof' \
		"$SLEUTH"
fi

finish
