#!/bin/sh
# A step's GPU busy never exceeds its wall: on each device that ran its work
# it is the GPU's busy time within the step's wall, whichever step launched
# the work. A GPU far behind its host (each step's kernels run long after the
# step's CPU range ended) is busy through every later step, not 3 x over the
# first; HTA's ns_resolution trace is such a run.
. "$TOP/tests/e2e/lib.sh"

# 6 steps of 1 ms on the host, each launching 3 kernels of 1 ms: the GPU
# falls 2 ms further behind every step and never idles after its first kernel
awk 'BEGIN {
	printf "{\"schemaVersion\": 1, \"traceEvents\": [\n";
	g = 1100; c = 0;
	for (s = 0; s < 6; s++) {
		t = 1000 + s * 1000;
		printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1000},\n", s, t;
		for (k = 0; k < 3; k++) {
			c++;
			printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}},\n", t + 10 + k * 100, c;
			if (g < t + 20 + k * 100) { g = t + 20 + k * 100 }
			printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 1000, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},\n", g, c;
			g += 1000;
		}
	}
	printf "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"s\": \"t\"}\n", g;
	printf "], \"baseTimeNanoseconds\": 1700000000000000000}\n";
}' >behind.json || fail "writing the trace"

expect_rc 0 "$GPUPROF" report --format json behind.json
python3 - <<'PY' || fail "steps of a GPU behind its host"
import json
d = json.load(open("out"))
st = d["steps"]
assert [s["name"] for s in st] == ["ProfilerStep#%d" % i for i in range(6)], st
for s in st:
    assert s["wall_ns"] == 1000000, s
    assert 0 < s["gpu_busy_ns"] <= s["wall_ns"], s
    assert s["busy_pct"] <= 100.0, s
# the first kernel starts 100 us into the first step; from then on the GPU never idles
assert st[0]["gpu_busy_ns"] == 900000, st[0]
assert all(s["gpu_busy_ns"] == 1000000 for s in st[1:]), st
b = d["bound"]
assert b["step_gpu_busy_ns"] <= b["step_wall_ns"], b
PY
expect_rc 0 "$GPUPROF" report behind.json
grep -q '^GPU busy 98\.33% of step time' out || fail "headline: $(head -n 8 out)"

a=kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
if have_anchors "$a"; then
	expect_rc 0 "$GPUPROF" report --format json "$ANCHORS/$a"
	python3 - <<'PY' || fail "ns_resolution: a step busier than its wall"
import json
st = json.load(open("out"))["steps"]
assert len(st) == 5, st
for s in st:
    assert s["gpu_busy_ns"] <= s["wall_ns"], s
# its GPU runs behind the host and is busy through the steps after the first
assert all(s["busy_pct"] > 95 for s in st[1:]), st
PY
fi
exit 0
