#!/bin/sh
# summary.sh - add up the results tests/run-one.sh kept, show what failed.
#
# usage: tests/summary.sh RESULTS_DIR NAME...
#
# For each failed NAME its output (60 lines at most), then "failed: NAME..."
# and last "N passed, N failed, N skipped". The names that failed go to
# RESULTS_DIR/failed (what `make test-failed` runs again), the time of each
# test to RESULTS_DIR/times, "WALL CPU NAME" in seconds, the most CPU first. Exits 1 when any test failed or
# left no result.
set -u
dir=$1
shift
passed=0
failed=0
skipped=0
failures=""
: >"$dir/times.tmp"
for name in "$@"; do
	res=$dir/$name.res
	if [ -s "$res" ]; then
		read -r p f s secs cpu <"$res"
	else
		p=0 f=1 s=0 secs=0 cpu=0
		echo "no result (interrupted?)" >"$res.out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "$secs ${cpu:-0} $name" >>"$dir/times.tmp"
	if [ "$f" -gt 0 ]; then
		failures="$failures $name"
		echo "---- FAIL $name"
		head -n 60 "$res.out"
	fi
done
sort -k2,2rn "$dir/times.tmp" >"$dir/times"
rm -f "$dir/times.tmp"
: >"$dir/failed"
for name in $failures; do echo "$name" >>"$dir/failed"; done
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
