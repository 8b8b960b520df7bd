#!/bin/sh
# gpuprof gaps options: device filter, tables, list length and threshold,
# patterns, several ranks, and usage errors.
. "$TOP/tests/e2e/lib.sh"

"$TRACEGEN" --seed 5 --steps 4 --kernels 24 --copies 2 --devices 2 --gap-ns 3000000 --all-kinds \
	-o a.gpz >/dev/null || fail "tracegen"
mkdir ranks
"$TRACEGEN" --seed 2 --steps 3 --kernels 12 --copies 1 --devices 2 --ranks 2 --gap-ns 2000000 \
	-o ranks/r%r.gpz >/dev/null || fail "tracegen ranks"

expect_rc 0 "$GPUPROF" gaps --help
grep -q '^usage: gpuprof gaps' out || fail "help text"

# One device; one table; CSV without blank lines.
expect_rc 0 "$GPUPROF" gaps --device 1 --table devices --format csv a.gpz
[ "$(wc -l <out)" -eq 2 ] || fail "--device 1 --table devices: $(cat out)"
grep -q '^1,NVIDIA H200,' out || fail "device 1 row"
expect_rc 1 "$GPUPROF" gaps --device 5 a.gpz
grep -q "no device 5 in the trace" err || fail "missing device message"

# --top 0 lists nothing; --top all --min-gap 0 lists every gap; --min-gap counts.
expect_rc 0 "$GPUPROF" gaps --top 0 --table gaps --format csv a.gpz
[ "$(wc -l <out)" -eq 1 ] || fail "--top 0"
expect_rc 0 "$GPUPROF" gaps --top all --min-gap 0 --format json a.gpz
python3 -c 'import json; d=json.load(open("out")); assert len(d["gaps"]) == d["totals"]["gaps"] > 30' ||
	fail "--top all"
expect_rc 0 "$GPUPROF" gaps --top all --min-gap 1.5ms --format json a.gpz
python3 -c 'import json; d=json.load(open("out")); g=d["gaps"]; assert len(g) == 6 and min(x["length_ns"] for x in g) >= 1500000 and d["options"]["min_gap_ns"] == 1500000' ||
	fail "--min-gap 1.5ms"

# Patterns: no data-loader names -> CPU-bound inside the range; latency 0 -> dependencies.
expect_rc 0 "$GPUPROF" gaps --data-loader '^nothing$' --table causes --format csv a.gpz
grep -q '^data-loading' out && fail "data loading with a pattern that matches nothing"
grep -q '^cpu-bound' out || fail "no cpu-bound gaps: $(cat out)"
expect_rc 0 "$GPUPROF" gaps --latency 0 --table causes --format csv a.gpz
grep -q '^dependency' out || fail "--latency 0 left no dependency"
expect_rc 0 "$GPUPROF" gaps --step '^nomatch$' --per-step --table steps --format csv a.gpz
[ "$(cut -d, -f2 out | sort -u | tr '\n' ' ')" = "#0 Step " ] || fail "whole-trace step: $(cat out)"

# Several ranks: devices labelled RANK:ORDINAL.
expect_rc 0 "$GPUPROF" gaps --table devices ranks
golden t2202 out

# Usage errors exit 2.
for args in "" "--top x a.gpz" "--top -1 a.gpz" "--min-gap 10xs a.gpz" "--min-gap 1.0001us a.gpz" \
	"--latency ms a.gpz" "--table nope a.gpz" "--format yaml a.gpz" "--device x a.gpz" \
	"--data-loader ( a.gpz" "--step ( a.gpz" "--nosuch a.gpz"; do
	# shellcheck disable=SC2086
	expect_rc 2 "$GPUPROF" gaps $args
	grep -q 'gpuprof: error:' err || fail "no error message for '$args'"
done
expect_rc 1 "$GPUPROF" gaps missing.gpz
exit 0
