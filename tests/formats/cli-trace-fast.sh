# The trace reader's two paths: the hand-written reader of the canonical
# one-line-per-interval form and libyaml (SLEUTH_TRACE_FAST=0) must give the
# same profile, the same warnings and the same errors, also when the fast
# one gives up half-way (a line in another YAML form, an error, keys after
# the intervals) and hands over to libyaml.
. "$SRCDIR/tests/lib.sh"
cd "$T" || exit 1

"$SLEUTH" simulate -q "$SRCDIR/data/workloads/gcc-like.yaml" --intervals 40 -o t.yaml ||
	{ fail "simulate"; finish; exit 1; }

# same FILE WHAT: both paths agree on FILE (exit status, profile, stderr)
same() {
	local f=$1 what=$2 rf rs
	"$SLEUTH" run -q --replay "$f" -o fast.prof 2>fast.err; rf=$?
	SLEUTH_TRACE_FAST=0 "$SLEUTH" run -q --replay "$f" -o slow.prof 2>slow.err; rs=$?
	if [ "$rf" != "$rs" ]; then
		fail "$what: fast path exited $rf, libyaml $rs: $(cat fast.err slow.err)"; return
	fi
	if ! cmp -s fast.err slow.err; then
		fail "$what: the paths' messages differ: $(diff fast.err slow.err)"; return
	fi
	if [ "$rf" = 0 ] && ! cmp -s fast.prof slow.prof; then
		fail "$what: the paths' profiles differ"; return
	fi
	rm -f fast.prof slow.prof
	ok
}

# variant[_e] SED-SCRIPT FILE WHAT: t.yaml edited by sed (-E), both paths
variant() { sed "$1" t.yaml >"$2" && same "$2" "$3"; }
variant_e() { sed -E "$1" t.yaml >"$2" && same "$2" "$3"; }

same t.yaml "the writer's trace"
# the fast path really ran: its profile equals libyaml's, and it is the
# canonical form, so no hand-over happened (both kinds of line are taken)
grep -q '^- {t: .*, label: [a-z]*}$' t.yaml && ok || fail "t.yaml is not in the canonical form"
same "$SRCDIR/data/measurements/traces/gcc-1.60.yaml" "a shipped trace (br: [], e:)"

# temperatures (#13's temp:), valid and not
variant_e '5,$s/, label: /, temp: 61.5, label: /' temp.yaml "temp: on every interval"
sed -E '30s/, temp: 61.5/, temp: -300/' temp.yaml >tempbad.yaml
same tempbad.yaml "temp below absolute zero on line 30"
# labels: double-quoted, and a null label (an error on both paths)
variant '5,$s/label: \([a-z]*\)/label: "\1 x"/' q.yaml "quoted labels"
variant '30s/label: [a-z]*/label: null/' null.yaml "a null label at interval 10"
# comments and blank lines between intervals, a trailing comment
sed '25s/^/# a comment\n\n/' t.yaml >c.yaml
echo "# the end" >>c.yaml
same c.yaml "comments and blank lines"

# hand-over in the middle: a block-style interval, a wrapped flow mapping,
# an unknown key, decimal addresses, extra spaces
sed '33{s/^- {/- /; s/}$//; s/, \(n\|br\|e\|label\): /\n  \1: /g}' t.yaml >block.yaml
grep -q '^  br: \[\[' block.yaml && ok || fail "no block mapping made"
same block.yaml "a block mapping at interval 13"
variant '28s/, n: /,\n   n: /' wrap.yaml "a flow mapping over two lines"
variant '40s/}$/, extra: 1}/' unk.yaml "an unknown interval key"
variant '45s/\[0x4000\([0-9a-f]*\), /[4194304, /' dec.yaml "a decimal address"
variant '36s/{t: /{t:  /' sp.yaml "two spaces"
{ cat t.yaml; echo 'extra: 1'; } >t3.yaml
same t3.yaml "a key after the intervals"
{ cat t.yaml; echo 'workload: again'; } >dup.yaml
same dup.yaml "a duplicate header key after the intervals"

# errors on line 40 (interval 21) are the same, line and all
variant_e '40s/n: \[[0-9]+/n: [0/' c0.yaml "0 cycles on line 40"
variant_e '40s/\{t: [0-9.e-]+/{t: -1/' neg.yaml "t < 0 on line 40"
variant_e '40s/, e: [0-9.e-]+/, e: -2/' nege.yaml "e < 0 on line 40"
variant_e '40s/n: \[([0-9]+), [0-9]+, /n: [\1, 99999999999999999999, /' big.yaml "a count beyond 2^64 on line 40"
variant_e '40s/n: \[[0-9]+, /n: [/' short.yaml "too few counts on line 40"
head -c -200 t.yaml >trunc.yaml
same trunc.yaml "a trace cut in the middle of a line"
variant_e '40s/\]\]/]/' bad.yaml "invalid YAML on line 40"

finish
