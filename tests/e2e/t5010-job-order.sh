#!/bin/sh
# Jobs whose traces carry no collective sequence numbers: the communication
# kernels are matched across ranks by their order per stream, checked by
# kind, and the straggler is found from their GPU starts (8 generated ranks,
# NCCL kernels known by name only, rank 5 1 ms late). On HTA's two sampled
# ranks (trace_filter) the same matching finds the kernels' ends far apart,
# where one collective ends at once on every rank: the clock check fails and
# the report says so instead of naming a straggler, and the tables with no
# rows are one line each saying why. Traces that are not one run (jobs of
# different sizes, recordings weeks apart) are refused by every command and
# by the job report, unless --allow-unrelated.
. "$TOP/tests/e2e/lib.sh"

mkdir a
"$TRACEGEN" --nccl --nccl-names --ranks 8 --steps 4 --straggler 5 --nccl-late 1000000 \
	-o 'a/r%r.gpz' >/dev/null || fail tracegen
expect_rc 0 "$GPUPROF" report --job --format json a
cp out a.json
expect_rc 0 "$GPUPROF" report --job a
cp out a.txt
grep -q '^Straggler: found: rank 5 (a/r5.gpz) arrived last at 4 of 4 collectives' a.txt ||
	fail "text straggler: $(head -8 a.txt)"
grep -q 'Latest: AllReduce #[1-4] on stream 13, 930 µs late' a.txt || fail "latest: $(head -8 a.txt)"
grep -q '^Collectives matched by order per stream (the traces carry no sequence numbers); 4 of 4' \
	a.txt || fail "match line: $(head -9 a.txt)"
python3 - <<'PY' || fail "by order"
import json
a = json.load(open("a.json"))
s = a["straggler"]
assert s["verdict"] == "found" and s["rank"] == 5 and s["last"] == 4, s
# the kernels start 10 us after each rank arrives: rank 7 at 1.07 ms, rank 5 at 2 ms
assert s["margin_ns"] == 930000 and s["at"]["communicator"] == "stream 13", s
k = a["skew"]
assert k["matched"] == 4 and k["matched_by"] == "order per stream" and k["mismatched"] == 0, k
assert k["ends_checked"] == 4 and k["ends_far"] == 0 and k["clocks_agree"] is True, k
assert k["max"] == 1000000, k
PY

if have_anchors kineto/hta/trace_filter; then
	F=$ANCHORS/kineto/hta/trace_filter
	expect_rc 0 "$GPUPROF" report --job "$F/sampled_rank-0.json.gz" "$F/sampled_rank-1.json.gz"
	cp out pair.txt
	grep -q '^Straggler: unknown (the clocks disagree: 6 of 10 collectives matched by order per stream end more than 1 ms apart across ranks' pair.txt ||
		fail "pair straggler: $(grep Straggler pair.txt)"
	grep -q '^Ranks that arrived last: none: the clocks disagree' pair.txt || fail "empty table"
	grep -q '^Collective skew (largest first): none: the clocks disagree' pair.txt ||
		fail "empty skew table"
	grep -q '^Kernels against peers (highest): none: no compute kernel ran on two ranks' \
		pair.txt || fail "empty kernel table"
	grep -q '^----  -------' pair.txt || fail "the tables with rows stay"
	grep -q '^Rank  Matched' pair.txt && fail "a bare header is left"
fi

if have_anchors kineto/hta/trace_diff kineto/hta/critical_path; then
	C=$ANCHORS/kineto/hta/trace_diff/control/control.json.gz
	T=$ANCHORS/kineto/hta/trace_diff/test/test.json.gz
	for cmd in "report" "gaps" "stats" "report --job"; do
		expect_rc 1 "$GPUPROF" $cmd "$C" "$T"
		grep -q "^gpuprof: error: '$C' and '$T' are not one run: they name jobs of 8 and 2 ranks; give --allow-unrelated to analyse them together$" err ||
			fail "$cmd: $(cat err)"
		[ -s out ] && fail "$cmd: output despite the refusal"
	done
	expect_rc 0 "$GPUPROF" report --allow-unrelated "$C" "$T"
	expect_rc 0 "$GPUPROF" report --job --allow-unrelated "$C" "$T"
	P=$ANCHORS/kineto/hta/critical_path
	A1=$(ls "$P"/simple_add/*.json.gz)
	A2=$(ls "$P"/alexnet/*.json.gz)
	expect_rc 1 "$GPUPROF" gaps "$A2" "$A1"
	grep -q "^gpuprof: error: '$A1' and '$A2' are not one run: the second began 21 days after the first ended; give --allow-unrelated" err ||
		fail "far apart: $(cat err)"
	expect_rc 0 "$GPUPROF" gaps --allow-unrelated "$A1" "$A2"
	# one trace, and two ranks of one job, are never refused
	expect_rc 0 "$GPUPROF" gaps "$A1"
fi
exit 0
