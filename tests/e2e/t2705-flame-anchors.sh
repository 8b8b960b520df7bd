#!/bin/sh
# gpuprof flame on the real anchor traces (Kineto JSON from HTA's test data,
# nsys SQLite exports): every one gives folded stacks whose weights sum to
# its kernel + memory time as `gpuprof stats` counts it, a well-formed SVG
# and a speedscope file; the two MFU exports give a differential graph.
. "$TOP/tests/e2e/lib.sh"

anchors=$ANCHORS
have_anchors kineto/hta || have_anchors nsys || no_anchors "kineto/hta and nsys"

find "$anchors/kineto/hta" "$anchors/nsys" \( -name '*.json' -o -name '*.json.gz' -o \
	-name '*.sqlite' \) 2>/dev/null | sort >all
[ -s all ] || no_anchors "kineto/hta and nsys traces"
anchor_sweep <all >list
n=0
while read -r f; do
	n=$((n + 1))
	expect_rc 0 "$GPUPROF" flame "$f"
	grep -v -e 'warning: no GPU activity' -e 'kernel launch calls but no kernel record' err &&
		fail "$f: unexpected stderr"
	mv out a.folded
	expect_rc 0 "$GPUPROF" stats --format json --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum "$f"
	mv out stats.json
	expect_rc 0 "$GPUPROF" flame -o a.svg "$f"
	rm -f a.json
	if [ $((n % 4)) = 1 ]; then # the rest of the outputs on a sample, to keep the test short
		expect_rc 0 "$GPUPROF" flame -o a.json "$f"
		expect_rc 0 "$GPUPROF" flame --api --no-nvtx "$f"
	fi
	python3 - "$f" <<'PY' || fail "$f"
import json, sys
import xml.etree.ElementTree as ET
folded = sum(int(l.rsplit(" ", 1)[1]) for l in open("a.folded"))
st = json.load(open("stats.json"))
gpu = sum(r["total_time_ns"] for rep in st["reports"] for r in rep["rows"])
assert folded == gpu, (folded, gpu)
ET.parse("a.svg")
try:
    d = json.load(open("a.json"))
except FileNotFoundError:
    d = None
if d and folded:
    assert sum(d["profiles"][0]["weights"]) == folded
PY
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout a.svg || fail "$f: SVG not well-formed"
	fi
done <list
echo "$n anchors" >&2

if have_anchors nsys/mfu_2gpu_before.sqlite nsys/mfu_2gpu_after.sqlite; then
	expect_rc 0 "$GPUPROF" flame --diff "$anchors/nsys/mfu_2gpu_before.sqlite" -- \
		"$anchors/nsys/mfu_2gpu_after.sqlite"
	[ -s out ] || fail "empty differential graph"
	awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { exit 1 }' out ||
		fail "differential lines need two counts"
fi
exit 0
