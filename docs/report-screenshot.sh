#!/bin/bash
# Regenerates docs/report.png, the screenshot README.md shows: the report of
# the shipped gcc-like workload (simulate -> run --replay -> schedule ->
# report) rendered by headless Chromium 1280 px wide.
# usage: docs/report-screenshot.sh [BUILDDIR]   (default: build)
# MACHINE=FILE replays with that machine model instead of the default one.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
B=$(realpath "${1:-build}")
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"
"$B/sleuth" simulate -q "$src/data/workloads/gcc-like.yaml" -o gcc-like.trace.yaml
"$B/sleuth" run -q --replay gcc-like.trace.yaml ${MACHINE:+--machine "$MACHINE"} -o gcc-like.prof
"$B/sleuth" schedule --min-edp --format yaml -o gcc-like.schedule.yaml gcc-like.prof >/dev/null
"$B/sleuth" report -q gcc-like.prof --schedule gcc-like.schedule.yaml -o report.html
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$w/chrome" \
	--hide-scrollbars --screenshot="$src/docs/report.png" --window-size=1280,2400 \
	"file://$w/report.html" 2>/dev/null
echo "wrote docs/report.png"
