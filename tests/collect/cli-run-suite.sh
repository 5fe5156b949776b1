# Phase detection on the shipped simulated suite: every workload of
# data/workloads/ simulated at 2.66 GHz, then replayed with the default
# machine model (4 counters).  Per workload: the adjusted Rand index against
# the true labels (intervals at a phase change left out) must be >= 0.9,
# the predictor's accuracy is reported, every phase of >= 4 intervals
# measured every event at least once, and unlimited counters give the same
# phases as 4.
. "$SRCDIR/tests/lib.sh"
cd "$T" || exit 1
MIN_IV=4
for w in "$SRCDIR"/data/workloads/*.yaml; do
	n=$(basename "$w" .yaml)
	if ! "$SLEUTH" simulate -q "$w" -f 2.66 -o "$n.yaml"; then
		fail "$n: simulate failed"; continue
	fi
	out=$("$SLEUTH" run -q --replay "$n.yaml" -o "$n.prof" --score) ||
		{ fail "$n: run --replay failed"; continue; }
	ari=$(printf '%s\n' "$out" | sed -n 's/^score: ari \([0-9.]*\) .*/\1/p')
	acc=$(printf '%s\n' "$out" | sed -n 's/.*accuracy \([0-9.]*\)$/\1/p')
	printf '%-18s ari %s  predictor accuracy %s\n' "$n" "$ari" "$acc"
	awk -v a="$ari" 'BEGIN { exit !(a >= 0.9) }' && ok || fail "$n: ARI '$ari' < 0.9"

	# multiplexing coverage, from `phases --events`
	"$SLEUTH" phases --events "$n.prof" >"$n.txt" || fail "$n: phases --events exited $?"
	bad=$(awk -v min=$MIN_IV '
		/^phase intervals/ { t = 1; next }
		t && !m && /^ +[0-9]+ +[0-9]+ / { iv[$1] = $2; next }
		/^ phase +e0/ { m = 1; next }
		m && /^ +[0-9]+( +[0-9]+)+$/ {
			for (i = 2; i <= NF; i++)
				if (iv[$1] >= min && $i == 0) print "phase " $1 " event e" i - 2
		}' "$n.txt")
	[ -z "$bad" ] && ok || fail "$n: never measured: $bad"

	"$SLEUTH" run -q --replay "$n.yaml" --counters 0 -o "$n-all.prof" &&
		"$SLEUTH" phases "$n.prof" >a0.txt && sed 1d a0.txt >a.txt &&
		"$SLEUTH" phases "$n-all.prof" >b0.txt && sed 1d b0.txt >b.txt && cmp -s a.txt b.txt &&
		ok || fail "$n: 4 and unlimited counters give different phases"
done
finish
