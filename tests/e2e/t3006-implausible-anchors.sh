#!/bin/sh
# Real traces hold no implausible data: no anchor, alone or all of them read
# as one model, gets a warning about records far from the rest of their
# process, operations longer than a day, durations that end before they start,
# or an input given twice (t3005 shows each of those warnings firing). Among
# the anchors are HTA's alexnet and simple_add benchmarks with 10-s idle
# stretches, traces of several ranks, and nsys exports of several processes.
# (The kernel-table check is not asserted: HTA's cupti_profiler trace has
# launch calls and profiler ranges but no kernel activity records, which that
# warning says.)
. "$TOP/tests/e2e/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
need_anchors kineto/hta nsys
find "$ANCHORS" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' -o \
	-name '*.gpz' \) | sort >list
[ "$(wc -l <list)" -ge 30 ] || fail "only $(wc -l <list) anchors under $ANCHORS"
IMPLAUSIBLE='far from the rest|longer than a day|end before they start|not read again|given twice'
anchor_sweep <list >swept
while read -r f; do
	"$GPUPROF" launches -f json "$f" >out 2>err || fail "$f: exit $?: $(head -c 300 err)"
	if grep -Eq "$IMPLAUSIBLE" err; then
		fail "$f: $(grep -E "$IMPLAUSIBLE" err | head -c 400)"
	fi
	n=$((${n:-0} + 1))
done <swept
# unrelated runs taken together on purpose: every anchor in one model
# shellcheck disable=SC2046
"$GPUPROF" launches -f json --allow-unrelated $(cat swept) >out 2>err || fail "all anchors: exit $?"
if grep -Eq "$IMPLAUSIBLE" err; then
	fail "all anchors as one model: $(grep -E "$IMPLAUSIBLE" err | head -c 400)"
fi
python3 - out <<'PY' || fail "all anchors: sanity counts"
import json, sys
s = json.load(open(sys.argv[1])).get("sanity", {})
for k in ("negative_durations", "absurd_durations", "outliers", "duplicate_inputs"):
    assert s.get(k, 0) == 0, (k, s)
PY

# A real trace with long idle stretches, plus one copy of a kernel 4 years
# later: said, and the device figures are the original's.
a=kineto/hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz
if have_anchors "$a"; then
	python3 - "$ANCHORS/$a" far.json <<'PY' || fail "making the trace with an outlier"
import copy, gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
k = copy.deepcopy(next(e for e in d["traceEvents"] if e.get("cat") == "kernel"))
k["ts"] = k["ts"] + 126230400e6
d["traceEvents"].append(k)
json.dump(d, open(sys.argv[2], "w"))
PY
	"$GPUPROF" gaps -f json "$ANCHORS/$a" >orig.out 2>/dev/null || fail "gaps $a"
	expect_rc 0 "$GPUPROF" gaps -f json far.json
	grep -q "warning: 1 record starts far from the rest of the trace (up to 1461 days away" err ||
		fail "alexnet with an outlier: not said: $(head -c 300 err)"
	python3 - orig.out out <<'PY' || fail "alexnet with an outlier: figures"
import json, sys
a, b = (json.load(open(p))["devices"] for p in sys.argv[1:])
assert a == b, (a, b)
PY
fi
echo "ok: $n anchors"
