# sleuth report end to end: a shipped simulated workload is simulated,
# replayed into a profile and reported; the page is rendered in headless
# Chromium, which must find every chart with data in it and make no
# network request for the page (checked in Chromium's own net log, against
# a control page that does fetch).  Also: JSON, a schedule, a timer
# profile without counts, and the refusals.  Skips (77) only when Chromium
# is absent and cannot be installed.
. "$SRCDIR/tests/lib.sh"

W=$SRCDIR/data/workloads/gcc-like.yaml
expect_ok -- "$SLEUTH" simulate "$W" -o "$T/trace.yaml" -q
expect_ok -- "$SLEUTH" run --replay "$T/trace.yaml" -o "$T/p.prof" -q
# The profile embeds the simulated machine's calibrated model: every chart
# has data.
expect_ok -- "$SLEUTH" report "$T/p.prof" -o "$T/r.html"
expect_ok -- "$SLEUTH" report "$T/p.prof" --format json -o "$T/r.json"

# Refusals: one line, the right code, nothing written.
expect_exit 2 "--format must be html or json" -- "$SLEUTH" report "$T/p.prof" --format pdf -o "$T/x.html"
expect_exit 2 "--freq" -- "$SLEUTH" report "$T/p.prof" --freq fast -o "$T/x.html"
expect_exit 2 "--model: unknown time model" -- "$SLEUTH" report "$T/p.prof" --model fast -o "$T/x.html"
expect_exit 1 "nope.prof" -- "$SLEUTH" report "$T/nope.prof" -o "$T/x.html"
expect_exit 1 "9" -- "$SLEUTH" report "$T/p.prof" --freq 9GHz -o "$T/x.html"
expect_exit 1 "nope.yaml" -- "$SLEUTH" report "$T/p.prof" --machine "$T/nope.yaml" -o "$T/x.html"
expect_exit 1 "nope.yaml" -- "$SLEUTH" report "$T/p.prof" --schedule "$T/nope.yaml" -o "$T/x.html"
expect_absent "$T/x.html"

# The page refers to nothing outside itself.
if grep -Eqi '<script|src=|href=|url\(|@import|<link|<img|<iframe' "$T/r.html"; then
	fail "the report refers to something outside itself"
else ok; fi
if [ "$(grep -o 'https\?://[^"]*' "$T/r.html" | grep -vc '^http://www.w3.org/2000/svg$')" != 0 ]; then
	fail "the report contains URLs other than the SVG namespace"
else ok; fi

# JSON: well formed (python's parser when present) with the same content.
if command -v python3 >/dev/null; then
	if python3 - "$T/r.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "sleuth-report/1"
assert d["time_predictions"] and d["power_predictions"]
assert len(d["phases"]) >= 2
assert all(len(p["time_s"]) == len(d["frequencies_ghz"]) for p in d["phases"])
assert len(d["power_over_time"]) >= 2
assert all(len(s["t_s"]) == len(s["power_w"]) > 10 for s in d["power_over_time"])
assert abs(sum(d["instances"]["time_s"]) - d["run_time_s"]) < 1e-6 * d["run_time_s"]
EOF
	then ok; else fail "report JSON content"; fi
fi

# A schedule, when `sleuth schedule` exists: its power over time is shown.
if "$SLEUTH" help schedule >/dev/null 2>&1; then
	expect_ok -- "$SLEUTH" schedule --min-edp --format yaml -o "$T/s.yaml" "$T/p.prof"
	expect_ok -- "$SLEUTH" report "$T/p.prof" --schedule "$T/s.yaml" -o "$T/rs.html"
	grep -q 'schedule (min-' "$T/rs.html" && ok || fail "no schedule chart"
	# the headline answer on the page and in the JSON: each phase's frequency
	expect_ok -- "$SLEUTH" report "$T/p.prof" -s "$T/s.yaml" --format json -o "$T/rs.json"
	grep -q '<section id="schedule">' "$T/rs.html" && ok || fail "no schedule section"
	grep -q 'Scheduled frequency over the profiled run' "$T/rs.html" && ok ||
		fail "no timeline by scheduled frequency"
	n=0
	while read -r ph g; do
		n=$((n + 1))
		# the JSON: "phase": N, ... "scheduled_ghz": G
		tr -d '\n' <"$T/rs.json" | grep -Eq "\{\"phase\": $ph, [^{]*\"scheduled_ghz\": $g[,}]" ||
			fail "JSON: phase $ph lacks scheduled_ghz $g"
		# the page: the phase's row of the schedule table names its frequency
		sed -n '/<section id="schedule">/,/<\/section>/p' "$T/rs.html" |
			grep -Eq "phase $ph[ <(].*<td class=\"n\">$(printf %.2f "$g") GHz</td>" ||
			fail "HTML: phase $ph lacks $g GHz"
	done < <(sed -n 's/^- {phase: \([0-9]*\), ghz: \([0-9.]*\),.*/\1 \2/p' "$T/s.yaml")
	[ "$n" -gt 1 ] && ok || fail "schedule has $n phases"
	grep -q '"schedule_summary": {"objective": "min-edp"' "$T/rs.json" && ok ||
		fail "no schedule_summary"
	# a schedule without one of the profile's phases (made for another
	# profile) is refused, as by sleuth predict --schedule
	grep -v '^- {phase: 0,' "$T/s.yaml" >"$T/s-other.yaml"
	expect_exit 1 "phase 0 of the profile is not in the schedule" -- \
		"$SLEUTH" report "$T/p.prof" --schedule "$T/s-other.yaml" -o "$T/ro.html"
	expect_absent "$T/ro.html"
	# what the chart leaves out of a schedule is said
	expect_ok -- "$SLEUTH" schedule --min-edp --min-instance-ms 5 -o "$T/sm.yaml" "$T/p.prof"
	expect_ok -- "$SLEUTH" report "$T/p.prof" --schedule "$T/sm.yaml" -o "$T/rm.html"
	grep -q 'shorter than its min_instance_ms (5 ms)' "$T/rm.html" && ok || fail "no min_instance_ms note"
fi

# A profile without counts still gets a report, saying why it has no
# predictions.
expect_ok -- "$SLEUTH" run --backend timer -o "$T/t.prof" -q -- sleep 0.3
expect_ok -- "$SLEUTH" report "$T/t.prof" -o "$T/t.html"
grep -q 'predictions unavailable: the profile has no event counts' "$T/t.html" && ok ||
	fail "timer report: no note"
grep -q '<section id="timeline">' "$T/t.html" && ok || fail "timer report: no timeline"
# its samples are IP samples, and the missing predictions are one line that
# says how to get them, not three empty sections
grep -q '<th>IP samples</th>' "$T/t.html" && ok || fail "timer report: not 'IP samples'"
grep -q 'branch samples' "$T/t.html" && fail "timer report: says branch samples" || ok
grep -q '<section id="predictions"><h2>Predictions</h2>' "$T/t.html" && ok ||
	fail "timer report: no one-line predictions section"
grep -q 'virtual PMU' "$T/t.html" && ok || fail "timer report: no way to predictions"
grep -q '<section id="power">' "$T/t.html" && fail "timer report: empty power section" || ok

# ---- headless Chromium --------------------------------------------------
find_chromium() {
	command -v chromium || command -v chromium-browser || command -v google-chrome
}
CHROMIUM=$(find_chromium)
if [ -z "$CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		chromium >/dev/null 2>&1
	CHROMIUM=$(find_chromium)
fi
if [ -z "$CHROMIUM" ]; then
	echo "chromium is not installed and cannot be installed: skipping the rendering checks"
	finish >/dev/null || exit 1
	exit 77
fi

# chrome PAGE NETLOG: the DOM after rendering, with every request logged.
chrome() {
	local profile
	profile=$(mktemp -d "$T/chrome.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$profile" \
		--host-resolver-rules="MAP * ~NOTFOUND" --log-net-log="$2" \
		--dump-dom "file://$1" 2>/dev/null
}

# Requests made for a page loaded from file:// carry its origin in their
# network isolation key; Chromium's own background requests do not.
page_requests() {
	grep -c 'internally: file://' "$1"
}

# The control: a page that fetches an image must be caught.
printf '<!DOCTYPE html><html><body><img src="http://sleuth-probe.invalid/x.png">' \
	> "$T/control.html"
chrome "$T/control.html" "$T/control.net" >/dev/null
if [ "$(page_requests "$T/control.net")" -gt 0 ]; then ok
else fail "the net log check does not see a page's request"; fi

chrome "$T/r.html" "$T/r.net" > "$T/dom.html"
if [ "$(page_requests "$T/r.net")" = 0 ]; then ok
else fail "rendering the report made network requests"; fi

# section ID PATTERN: occurrences of PATTERN in that section of the DOM.
section() {
	sed -n "/<section id=\"$1\">/,/<\/section>/p" "$T/dom.html" | grep -o "$2" | wc -l
}
# at_least N WHAT COUNT
at_least() {
	if [ "$3" -ge "$1" ]; then ok; else fail "$2: $3, wanted at least $1"; fi
}
at_least 1 "timeline charts" "$(section timeline '<svg')"
at_least 10 "timeline instance rects" "$(section timeline '<rect')"
at_least 2 "power charts" "$(section power '<svg')"
at_least 2 "power lines" "$(section power '<polyline')"
# a power line has many points (commas separate x,y within a point)
pts=$(sed -n '/<section id="power">/,/<\/section>/p' "$T/dom.html" |
	grep -o 'points="[^"]*"' | head -1 | tr -cd ',' | wc -c)
at_least 50 "points of the first power line" "$pts"
at_least 2 "bar charts" "$(section per-phase '<svg')"
at_least 4 "bars" "$(section per-phase 'class="bar"')"
at_least 1 "frequency panels" "$(section sweep 'class="panel"')"
at_least 4 "frequency panel points" "$(section sweep '<circle')"
at_least 2 "phase rows" "$(section phases '<tr>')"

finish
