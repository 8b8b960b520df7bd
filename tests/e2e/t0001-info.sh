#!/bin/sh
# gpuprof info on generated traces: golden text and JSON output.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 7 --steps 3 --kernels 20 --copies 2 --devices 2 --all-kinds -o a.gpz >/dev/null ||
	fail "tracegen"
expect_rc 0 "$GPUPROF" info a.gpz
[ -s err ] && fail "unexpected stderr: $(cat err)"
golden t0001 out

expect_rc 0 "$GPUPROF" info --json a.gpz
golden t0001-json out
# The JSON parses, and its counts agree with the text.
python3 -c 'import json,sys; d=json.load(open("out")); f=d["files"][0]; assert f["closed_cleanly"] and not f["truncated"]; print(f["events"])' >events ||
	fail "JSON does not parse"
grep -q "events      $(cat events)" "$TOP/tests/e2e/expect/t0001.out" || fail "JSON events differ from text"

# Two files: both shown, in order.
cp a.gpz b.gpz
expect_rc 0 "$GPUPROF" info a.gpz b.gpz
[ "$(grep -c '^[ab].gpz$' out)" -eq 2 ] || fail "two files not both shown"
exit 0
