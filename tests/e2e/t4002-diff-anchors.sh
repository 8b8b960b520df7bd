#!/bin/sh
# gpuprof diff on real traces: the nsys before/after pair (one window each,
# no steps: inconclusive), HTA's trace_diff control/test pair (six
# ProfilerSteps each, on different GPUs: slower, regressed) and HTA's
# trace_compare pair (two steps each, equal: inconclusive). docs/diff.md
# explains the verdicts and their causes.
. "$TOP/tests/e2e/lib.sh"

need_anchors nsys/mfu_2gpu_before.sqlite nsys/mfu_2gpu_after.sqlite kineto/hta/trace_diff/control \
	kineto/hta/trace_diff/test
A=$ANCHORS

cp "$A/nsys/mfu_2gpu_before.sqlite" before.sqlite
cp "$A/nsys/mfu_2gpu_after.sqlite" after.sqlite
expect_rc 0 "$GPUPROF" diff --junit n.xml --json n.json before.sqlite -- after.sqlite
golden t4002-nsys out
grep -q 'skipped="1"' n.xml || fail "the inconclusive gate is a skipped test case"
# One fixed window per side: no verdict, and no shares of a window length
# that cannot change; the composition shows less kernel time on the path and
# more host time (docs/diff.md explains it).
python3 - <<'PY' || fail "nsys pair explanation"
import json
e = json.load(open("n.json"))["explain"]
assert e["direction"] == "inconclusive" and e["per"] == "run" and e["ranked_by"] == "size", e
c = {x["metric"]: x for x in e["causes"]}
assert e["causes"][0]["metric"] == "path.kernel" and c["path.kernel"]["delta_ns"] < -10e6, e
assert c["path.cpu"]["delta_ns"] > 0 and c["path.launch-overhead"]["delta_ns"] > 0, c
PY

cp -r "$A/kineto/hta/trace_diff/control" control
cp -r "$A/kineto/hta/trace_diff/test" test
expect_rc 3 "$GPUPROF" diff --fail-on step.wall,gpu.busy --json h.json control -- test
golden t4002-hta out
python3 - <<'PY' || fail "HTA pair JSON"
import json
d = json.load(open("h.json"))
m = {x["name"]: x for x in d["metrics"]}
w = m["step.wall"]
assert w["samples"] == [6, 6] and w["exact"] and w["verdict"] == "regressed", w
assert "magma_sgemmEx_kernel" in d["new_kernels"]
assert "at::native::indexSelectLargeIndex" in d["vanished_kernels"]
e = d["explain"]
assert e["direction"] == "slower" and e["ranked_by"] == "share", e
# more GPU work on the test run's path: kernels and communication first (each
# more than a third of the change), then copies
assert {c["metric"] for c in e["causes"][:2]} == {"path.kernel", "path.communication"}, e
assert all(c["share"] > 0.33 for c in e["causes"][:2]), e["causes"][:2]
assert {"copy.time", "comm.time"} <= {k["metric"] for k in e["kernel_changes"]}
PY

# HTA's trace_compare pair: two hand-made traces of two steps each with the
# same step times: nothing to conclude, and no cause is given shares.
if have_anchors kineto/hta/trace_compare/base kineto/hta/trace_compare/test; then
	cp -r "$A/kineto/hta/trace_compare/base" cbase
	cp -r "$A/kineto/hta/trace_compare/test" ctest
	expect_rc 0 "$GPUPROF" diff --json c.json cbase -- ctest
	head -n 1 out | grep -q '^INCONCLUSIVE per step: +0 ns (+0.00%)' ||
		fail "trace_compare: $(head -n 1 out)"
	python3 - <<'PY' || fail "trace_compare explanation"
import json
e = json.load(open("c.json"))["explain"]
assert e["direction"] == "inconclusive" and e["ranked_by"] == "size", e
PY
fi
exit 0
