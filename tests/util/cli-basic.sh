# The dispatcher: help, version, unknown commands and options.
. "$SRCDIR/tests/lib.sh"

expect_ok -- "$SLEUTH" --version
"$SLEUTH" --version | grep -Eq '^sleuth [0-9]+\.[0-9]+' && ok || fail "--version output"
expect_ok -- "$SLEUTH" help
expect_exit 2 "not a sleuth command" -- "$SLEUTH" frobnicate
# no command: the overview (several lines) on stderr, exit 2
out=$("$SLEUTH" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && grep -q "^usage: sleuth" <<<"$out" && ok ||
	fail "sleuth without a command: exit $rc, stderr: $out"
expect_exit 2 "no command 'nope'" -- "$SLEUTH" help nope
# every listed command has help text and rejects an unknown flag with 2
"$SLEUTH" help >"$T/help.txt" || fail "help exited $?"
for cmd in $(awk '/^Commands:/{f=1;next} f && /^  [a-z]/{print $1}' "$T/help.txt"); do
	[ "$cmd" = help ] && continue  # help takes no flags
	"$SLEUTH" help "$cmd" | grep -q "usage: sleuth $cmd" && ok || fail "help $cmd"
	expect_exit 2 "unknown option '--no-such-flag'" -- "$SLEUTH" "$cmd" --no-such-flag
done

# Ctrl-C in the middle of writing a big file leaves neither the file nor
# its temporary (the signal's default action restored: a background job
# starts with SIGINT ignored)
cd "$T" || exit 1
env --default-signal=INT "$SLEUTH" simulate -q "$SRCDIR/data/workloads/milc-like.yaml" \
	--intervals 5000000 -o big.yaml &
pid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
	ls big.yaml.tmp.* >/dev/null 2>&1 && break
	sleep 0.2
done
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && ok || fail "Ctrl-C during simulate: exit $rc, wanted 130"
expect_absent big.yaml
# the options the predicting commands share (src/model-opts.c): the same
# spellings, the same refusals, before any file is read
for cmd in predict report schedule; do
	expect_exit 2 "sleuth $cmd: --model: " -- "$SLEUTH" "$cmd" --model cubic --min-edp
done
for cmd in predict report; do
	expect_exit 2 "sleuth $cmd: --freq: " -- "$SLEUTH" "$cmd" --freq fast
done
expect_exit 2 "unknown option '--extrapolate'" -- "$SLEUTH" schedule --min-edp --extrapolate
expect_exit 2 "unknown option '--freq'" -- "$SLEUTH" schedule --min-edp --freq 2
# every builtin has predict's shape: parse() options, run() the work,
# cmd_NAME() the two (docs/hacking.md)
for f in "$SRCDIR"/src/builtin-*.c; do
	name=$(basename "$f" .c); name=${name#builtin-}
	if grep -q '^static int parse(' "$f" && grep -Eq '^static (int|void) run\(' "$f" &&
	   grep -q "^static int cmd_$name(int argc, char \*\*argv)" "$f" &&
	   grep -q "\.fn = cmd_$name," "$f"; then ok; else fail "$f: not parse/run/cmd_$name"; fi
done
# no two source files share a basename (docs/hacking.md)
dups=$(cd "$SRCDIR" && find . -path './build*' -prune -o -path './.git' -prune -o \
	\( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print | sed 's#.*/##' | sort | uniq -d)
[ -z "$dups" ] && ok || fail "source basenames used twice: $dups"
finish
