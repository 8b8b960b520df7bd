#!/bin/sh
# gpuprof diff on real traces: the nsys before/after pair (one window each,
# no steps: inconclusive) and HTA's trace_diff control/test pair (six
# ProfilerSteps each, on different GPUs: regressed). docs/diff.md explains
# both verdicts.
. "$TOP/tests/e2e/lib.sh"

need_anchors nsys/mfu_2gpu_before.sqlite nsys/mfu_2gpu_after.sqlite kineto/hta/trace_diff/control \
	kineto/hta/trace_diff/test
A=$ANCHORS

cp "$A/nsys/mfu_2gpu_before.sqlite" before.sqlite
cp "$A/nsys/mfu_2gpu_after.sqlite" after.sqlite
expect_rc 0 "$GPUPROF" diff --junit n.xml before.sqlite -- after.sqlite
golden t4002-nsys out
grep -q 'skipped="1"' n.xml || fail "the inconclusive gate is a skipped test case"

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
PY
exit 0
